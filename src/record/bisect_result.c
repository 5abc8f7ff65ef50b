/*
 * bisect_result.c - the bisection result's lifetime: empty, released, and
 * copied for a text renderer (bisect_result.h).  Its JSON, read and
 * written, is bisect_result_json.c's.
 */
#define _GNU_SOURCE
#include "record/bisect_result.h"
#include "util/quote.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
	[BISECT_STATUS_FOUND] = "found",
	[BISECT_STATUS_RANGE] = "found-range",
	[BISECT_STATUS_NO_CHANGE] = "no-change",
	[BISECT_STATUS_UNDECIDED] = "undecided",
	[BISECT_STATUS_FAILED] = "failed",
	[BISECT_STATUS_RUNNING] = "running",
	[BISECT_STATUS_RESET] = "reset",
};

#define NR_STATUS (sizeof(status_names) / sizeof(status_names[0]))

const char *bisect_status_name(enum bisect_status s)
{
	return (unsigned)s < NR_STATUS ? status_names[s] : NULL;
}

int bisect_status_parse(const char *name, enum bisect_status *out)
{
	for (size_t i = 0; name && i < NR_STATUS; i++) {
		if (!strcmp(name, status_names[i])) {
			*out = (enum bisect_status)i;
			return 0;
		}
	}
	return -EINVAL;
}

bool bisect_status_finished(enum bisect_status s)
{
	return s == BISECT_STATUS_FOUND || s == BISECT_STATUS_RANGE ||
	       s == BISECT_STATUS_NO_CHANGE || s == BISECT_STATUS_UNDECIDED;
}

/* ---- empty and released ---- */

static void sample_init(struct bisect_sample *s)
{
	*s = (struct bisect_sample){ .n = BISECT_UNKNOWN, .mean = NAN, .stddev = NAN };
}

static void change_init(struct bisect_change *c)
{
	*c = (struct bisect_change){ .pct = NAN, .low = NAN, .high = NAN, .p = NAN };
}

void bisect_entry_init(struct bisect_entry *e)
{
	*e = (struct bisect_entry){
		.index = BISECT_UNKNOWN, .state = BISECT_STATE_UNKNOWN, .skipped = -1,
		.n = BISECT_UNKNOWN, .p_bad = NAN, .mean = NAN, .stddev = NAN,
		.probability = NAN,
	};
}

void bisect_level_init(struct bisect_level *lv)
{
	*lv = (struct bisect_level){
		.status = BISECT_STATUS_RUNNING, .candidates = BISECT_UNKNOWN,
		.runs_search = BISECT_UNKNOWN, .confidence = NAN,
		.max_runs = BISECT_UNKNOWN, .runs = BISECT_UNKNOWN,
		.builds = BISECT_UNKNOWN, .build_failures = BISECT_UNKNOWN,
		.runs_baseline = BISECT_UNKNOWN, .runs_confirm = BISECT_UNKNOWN,
	};
	sample_init(&lv->baseline.good);
	sample_init(&lv->baseline.bad);
	change_init(&lv->baseline.change);
	change_init(&lv->confirmation.change);
	sample_init(&lv->confirmation.parent);
	sample_init(&lv->confirmation.culprit);
	bisect_entry_init(&lv->culprit);
}

void bisect_result_init(struct bisect_result *r)
{
	*r = (struct bisect_result){ .id = BISECT_UNKNOWN, .higher_is_better = -1 };
	bisect_level_init(&r->level);
}

static void commit_release(struct bisect_commit *c)
{
	free(c->sha);
	free(c->subject);
	free(c->author);
	free(c->date);
	memset(c, 0, sizeof(*c));
}

static void sample_release(struct bisect_sample *s)
{
	free(s->sha);
	free(s->values.v);
	sample_init(s);
}

void bisect_entry_release(struct bisect_entry *e)
{
	commit_release(&e->commit);
	free(e->values.v);
	free(e->note);
	bisect_entry_init(e);
}

static void entries_release(struct bisect_entries *a)
{
	for (size_t i = 0; i < a->n; i++)
		bisect_entry_release(&a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

void bisect_level_release(struct bisect_level *lv)
{
	commit_release(&lv->good.commit);
	free(lv->good.given);
	commit_release(&lv->bad.commit);
	free(lv->bad.given);
	sample_release(&lv->baseline.good);
	sample_release(&lv->baseline.bad);
	free(lv->baseline.change.verdict);
	free(lv->confirmation.change.verdict);
	sample_release(&lv->confirmation.parent);
	sample_release(&lv->confirmation.culprit);
	entries_release(&lv->best);
	entries_release(&lv->commits);
	entries_release(&lv->range);
	bisect_entry_release(&lv->culprit);
	if (lv->merge) {
		commit_release(&lv->merge->commit);
		if (lv->merge->inner) {
			bisect_level_release(lv->merge->inner);
			free(lv->merge->inner);
		}
		free(lv->merge);
	}
	free(lv->message);
	bisect_level_init(lv);
}

void bisect_result_release(struct bisect_result *r)
{
	bisect_level_release(&r->level);
	for (size_t i = 0; i < r->params.n; i++) {
		free(r->params.v[i].key);
		free(r->params.v[i].string);
	}
	free(r->params.v);
	free(r->repo);
	free(r->origin_url);
	free(r->job);
	free(r->testcase);
	free(r->testbox);
	free(r->machine);
	free(r->job_text);
	free(r->metric);
	free(r->job_path);
	if (r->spec) {
		bisect_spec_release(r->spec);
		free(r->spec);
	}
	bisect_result_init(r);
}

/* ---- a copy for a text renderer ---- */

/*
 * As util/quote.h's json_quote_tree() escapes a string: the one rule for
 * what a text report may print of a stored string.
 */
static char *quote_for_text(const char *s)
{
	char *lossy = NULL, *out = NULL;
	json_t *j = json_string(s), *q;

	if (!j) {
		/* not UTF-8 (a struct made by the session from git's bytes) */
		lossy = utf8_lossy(s);
		j = lossy ? json_string(lossy) : NULL;
	}
	q = j ? json_quote_tree(j) : NULL;
	if (q)
		out = strdup(json_string_value(q));
	json_decref(q);
	json_decref(j);
	free(lossy);
	return out;
}

struct copier {
	int err;			/* sticky: -ENOMEM */
};

static char *copy_str(struct copier *cp, const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = quote_for_text(s);
	if (!d)
		cp->err = -ENOMEM;
	return d;
}

static void copy_values(struct copier *cp, struct bisect_values *d,
			const struct bisect_values *s)
{
	*d = (struct bisect_values){ .present = s->present };
	if (!s->n)
		return;
	d->v = malloc(s->n * sizeof(*d->v));
	if (!d->v) {
		cp->err = -ENOMEM;
		return;
	}
	memcpy(d->v, s->v, s->n * sizeof(*d->v));
	d->n = d->cap = s->n;
}

static void copy_commit(struct copier *cp, struct bisect_commit *d,
			const struct bisect_commit *s)
{
	d->sha = copy_str(cp, s->sha);
	d->subject = copy_str(cp, s->subject);
	d->author = copy_str(cp, s->author);
	d->date = copy_str(cp, s->date);
}

static void copy_sample(struct copier *cp, struct bisect_sample *d,
			const struct bisect_sample *s)
{
	*d = *s;
	d->sha = copy_str(cp, s->sha);
	copy_values(cp, &d->values, &s->values);
}

static void copy_change(struct copier *cp, struct bisect_change *d,
			const struct bisect_change *s)
{
	*d = *s;
	d->verdict = copy_str(cp, s->verdict);
}

static void copy_entry(struct copier *cp, struct bisect_entry *d,
		       const struct bisect_entry *s)
{
	*d = *s;
	copy_commit(cp, &d->commit, &s->commit);
	copy_values(cp, &d->values, &s->values);
	d->note = copy_str(cp, s->note);
}

static void copy_entries(struct copier *cp, struct bisect_entries *d,
			 const struct bisect_entries *s)
{
	*d = (struct bisect_entries){ .present = s->present };
	if (!s->n)
		return;
	d->v = calloc(s->n, sizeof(*d->v));
	if (!d->v) {
		cp->err = -ENOMEM;
		return;
	}
	d->cap = s->n;
	for (; d->n < s->n; d->n++)
		copy_entry(cp, &d->v[d->n], &s->v[d->n]);
}

static void copy_level(struct copier *cp, struct bisect_level *d,
		       const struct bisect_level *s)
{
	*d = *s;
	copy_commit(cp, &d->good.commit, &s->good.commit);
	d->good.given = copy_str(cp, s->good.given);
	copy_commit(cp, &d->bad.commit, &s->bad.commit);
	d->bad.given = copy_str(cp, s->bad.given);
	copy_sample(cp, &d->baseline.good, &s->baseline.good);
	copy_sample(cp, &d->baseline.bad, &s->baseline.bad);
	copy_change(cp, &d->baseline.change, &s->baseline.change);
	copy_change(cp, &d->confirmation.change, &s->confirmation.change);
	copy_sample(cp, &d->confirmation.parent, &s->confirmation.parent);
	copy_sample(cp, &d->confirmation.culprit, &s->confirmation.culprit);
	copy_entries(cp, &d->best, &s->best);
	copy_entries(cp, &d->commits, &s->commits);
	copy_entries(cp, &d->range, &s->range);
	copy_entry(cp, &d->culprit, &s->culprit);
	d->message = copy_str(cp, s->message);
	d->merge = NULL;
	if (!s->merge)
		return;
	d->merge = calloc(1, sizeof(*d->merge));
	if (!d->merge) {
		cp->err = -ENOMEM;
		return;
	}
	copy_commit(cp, &d->merge->commit, &s->merge->commit);
	if (!s->merge->inner)
		return;
	d->merge->inner = malloc(sizeof(*d->merge->inner));
	if (!d->merge->inner) {
		cp->err = -ENOMEM;
		return;
	}
	copy_level(cp, d->merge->inner, s->merge->inner);
}

int bisect_result_quoted(const struct bisect_result *s, struct bisect_result *d)
{
	struct copier cp = { 0 };

	*d = *s;
	copy_level(&cp, &d->level, &s->level);
	d->params = (struct bisect_params){ .present = s->params.present };
	if (s->params.n) {
		d->params.v = calloc(s->params.n, sizeof(*d->params.v));
		if (!d->params.v)
			cp.err = -ENOMEM;
		for (size_t i = 0; d->params.v && i < s->params.n; i++) {
			d->params.v[i] = s->params.v[i];
			d->params.v[i].key = copy_str(&cp, s->params.v[i].key);
			d->params.v[i].string = copy_str(&cp, s->params.v[i].string);
			d->params.n = d->params.cap = i + 1;
		}
	}
	d->repo = copy_str(&cp, s->repo);
	d->origin_url = copy_str(&cp, s->origin_url);
	d->job = copy_str(&cp, s->job);
	d->testcase = copy_str(&cp, s->testcase);
	d->testbox = copy_str(&cp, s->testbox);
	d->machine = copy_str(&cp, s->machine);
	d->job_text = copy_str(&cp, s->job_text);
	d->metric = copy_str(&cp, s->metric);
	d->job_path = copy_str(&cp, s->job_path);
	d->spec = NULL;
	if (s->spec) {
		/* the spec is not shown as text: copied as it is */
		d->spec = malloc(sizeof(*d->spec));
		if (!d->spec || bisect_spec_copy(d->spec, s->spec)) {
			free(d->spec);
			d->spec = NULL;
			cp.err = -ENOMEM;
		}
	}
	if (cp.err)
		bisect_result_release(d);
	return cp.err;
}
