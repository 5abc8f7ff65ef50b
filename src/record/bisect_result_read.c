/*
 * bisect_result_read.c - a bisection's result read from its JSON document
 * (bisect_result.h), the one reader, and a stored bisection read back as
 * the document `bisect status` and `report --bisect` show.
 *
 * Every field is untrusted (design.md §11): each is checked for its type
 * and bounds as it is read, and the document's rules once it is whole
 * (bisect_result_rules.c).
 */
#define _GNU_SOURCE
#include "record/bisect_result_internal.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* null is "not known", as absent: report_json writes uncomputed numbers so */
static const json_t *get(const json_t *o, const char *key)
{
	const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;

	return json_is_null(v) ? NULL : v;
}

static char *read_str(struct ctx *c, const struct where *w, const json_t *o,
		      const char *key)
{
	const json_t *v = get(o, key);
	char *s;

	if (!v)
		return NULL;
	if (!json_is_string(v)) {
		result_bad(c, AT(w, key), "expected a string");
		return NULL;
	}
	s = strdup(json_string_value(v));
	if (!s)
		result_nomem(c);
	return s;
}

static double read_num(struct ctx *c, const struct where *w, const json_t *o,
		       const char *key)
{
	const json_t *v = get(o, key);

	if (!v)
		return NAN;
	if (!json_is_number(v)) {
		result_bad(c, AT(w, key), "expected a number");
		return NAN;
	}
	return json_number_value(v);
}

/* A count or an index: a non-negative integer (1.0 is taken as 1). */
static long read_count(struct ctx *c, const struct where *w, const json_t *o,
		       const char *key)
{
	const json_t *v = get(o, key);
	double d;

	if (!v)
		return BISECT_UNKNOWN;
	if (json_is_integer(v) && json_integer_value(v) >= 0 &&
	    json_integer_value(v) <= COUNT_MAX)
		return (long)json_integer_value(v);
	d = json_is_real(v) ? json_real_value(v) : -1;
	if (d >= 0 && d <= COUNT_MAX && d == floor(d))
		return (long)d;
	result_bad(c, AT(w, key), "expected an integer from 0 to %ld", COUNT_MAX);
	return BISECT_UNKNOWN;
}

static int read_bool(struct ctx *c, const struct where *w, const json_t *o,
		     const char *key)
{
	const json_t *v = get(o, key);

	if (!v)
		return -1;
	if (!json_is_boolean(v)) {
		result_bad(c, AT(w, key), "expected true or false");
		return -1;
	}
	return json_is_true(v);
}

static const json_t *read_object(struct ctx *c, const struct where *w,
				 const json_t *o, const char *key)
{
	const json_t *v = get(o, key);

	if (v && !json_is_object(v)) {
		result_bad(c, AT(w, key), "expected an object");
		return NULL;
	}
	return v;
}

static const json_t *read_array(struct ctx *c, const struct where *w,
				const json_t *o, const char *key)
{
	const json_t *v = get(o, key);

	if (!v)
		return NULL;
	if (!json_is_array(v)) {
		result_bad(c, AT(w, key), "expected an array");
		return NULL;
	}
	if (json_array_size(v) > BISECT_MAX_ENTRIES) {
		result_bad(c, AT(w, key), "more than %d entries", BISECT_MAX_ENTRIES);
		return NULL;
	}
	return v;
}

static void read_values(struct ctx *c, const struct where *w, const json_t *o,
			struct bisect_values *out)
{
	const json_t *a = read_array(c, w, o, "values"), *x;
	size_t i;

	if (!a)
		return;
	out->present = true;
	if (vec_reserve(out, json_array_size(a))) {
		result_nomem(c);
		return;
	}
	json_array_foreach(a, i, x) {
		if (!json_is_number(x)) {
			result_bad(c, AT_INDEX(AT(w, "values"), i), "expected a number");
			return;
		}
		out->v[out->n++] = json_number_value(x);
	}
}

static void read_commit(struct ctx *c, const struct where *w, const json_t *o,
			struct bisect_commit *out)
{
	out->sha = read_str(c, w, o, "sha");
	out->subject = read_str(c, w, o, "subject");
	out->author = read_str(c, w, o, "author");
	out->date = read_str(c, w, o, "date");
}

static void read_end(struct ctx *c, const struct where *w, const json_t *o,
		     const char *key, struct bisect_end *out)
{
	const json_t *e = read_object(c, w, o, key);

	if (!e)
		return;
	out->present = true;
	read_commit(c, AT(w, key), e, &out->commit);
	out->given = read_str(c, AT(w, key), e, "given");
}

static void read_sample(struct ctx *c, const struct where *w, const json_t *o,
			const char *key, struct bisect_sample *out)
{
	const json_t *s = read_object(c, w, o, key);

	if (!s)
		return;
	w = AT(w, key);
	out->present = true;
	out->sha = read_str(c, w, s, "sha");
	out->n = read_count(c, w, s, "n");
	out->mean = read_num(c, w, s, "mean");
	out->stddev = read_num(c, w, s, "stddev");
	read_values(c, w, s, &out->values);
}

/* pct, low, high, p and verdict of o */
static void read_change(struct ctx *c, const struct where *w, const json_t *o,
			struct bisect_change *out)
{
	out->pct = read_num(c, w, o, "pct");
	out->low = read_num(c, w, o, "low");
	out->high = read_num(c, w, o, "high");
	out->p = read_num(c, w, o, "p");
	out->verdict = read_str(c, w, o, "verdict");
}

static void read_entry(struct ctx *c, const struct where *w, const json_t *o,
		       struct bisect_entry *out)
{
	char *state;

	if (!json_is_object(o)) {
		result_bad(c, w, "expected an object");
		return;
	}
	read_commit(c, w, o, &out->commit);
	out->index = read_count(c, w, o, "index");
	state = read_str(c, w, o, "state");
	if (state && !strcmp(state, "measured"))
		out->state = BISECT_STATE_MEASURED;
	else if (state && !strcmp(state, "skipped"))
		out->state = BISECT_STATE_SKIPPED;
	else if (state)
		result_bad(c, AT(w, "state"), "neither measured nor skipped");
	free(state);
	out->skipped = read_bool(c, w, o, "skipped");
	out->n = read_count(c, w, o, "n");
	out->p_bad = read_num(c, w, o, "p_bad");
	out->mean = read_num(c, w, o, "mean");
	out->stddev = read_num(c, w, o, "stddev");
	read_values(c, w, o, &out->values);
	out->note = read_str(c, w, o, "note");
	out->probability = read_num(c, w, o, "probability");
}

static void read_entries(struct ctx *c, const struct where *w, const json_t *o,
			 const char *key, struct bisect_entries *out)
{
	const json_t *a = read_array(c, w, o, key), *x;
	size_t i;

	if (!a)
		return;
	out->present = true;
	if (vec_reserve(out, json_array_size(a))) {
		result_nomem(c);
		return;
	}
	json_array_foreach(a, i, x) {
		struct bisect_entry *e = &out->v[out->n++];

		bisect_entry_init(e);
		read_entry(c, AT_INDEX(AT(w, key), i), x, e);
		if (c->ret)
			return;
	}
}

static void read_status(struct ctx *c, const struct where *w, const json_t *o,
			enum bisect_status *out)
{
	char *s = read_str(c, w, o, "status");

	if (!s && !c->ret)
		result_bad(c, AT(w, "status"), "missing");
	else if (s && bisect_status_parse(s, out))
		result_bad(c, AT(w, "status"), "not a status of a bisection");
	free(s);
}

static void read_level(struct ctx *c, const struct where *w, const json_t *o,
		       struct bisect_level *lv, int depth, bool status);

static void read_merge(struct ctx *c, const struct where *w, const json_t *o,
		       struct bisect_level *lv, int depth)
{
	const json_t *m = read_object(c, w, o, "merge"), *inner;

	if (!m)
		return;
	w = AT(w, "merge");
	lv->merge = calloc(1, sizeof(*lv->merge));
	if (!lv->merge) {
		result_nomem(c);
		return;
	}
	read_commit(c, w, m, &lv->merge->commit);
	inner = read_object(c, w, m, "inner");
	if (!inner || c->ret)
		return;
	if (depth >= BISECT_MAX_DEPTH) {
		result_bad(c, AT(w, "inner"), "merges nested deeper than %d", BISECT_MAX_DEPTH);
		return;
	}
	lv->merge->inner = malloc(sizeof(*lv->merge->inner));
	if (!lv->merge->inner) {
		result_nomem(c);
		return;
	}
	bisect_level_init(lv->merge->inner);
	read_level(c, AT(w, "inner"), inner, lv->merge->inner, depth + 1, true);
}

/* status: read it (false: the store's word replaces it) */
static void read_level(struct ctx *c, const struct where *w, const json_t *o,
		       struct bisect_level *lv, int depth, bool status)
{
	const json_t *base, *conf;

	if (status)
		read_status(c, w, o, &lv->status);
	read_end(c, w, o, "good", &lv->good);
	read_end(c, w, o, "bad", &lv->bad);
	lv->candidates = read_count(c, w, o, "candidates");
	base = read_object(c, w, o, "baseline");
	if (base) {
		const struct where *b = AT(w, "baseline");
		const json_t *ch = read_object(c, b, base, "change");

		lv->baseline.present = true;
		read_sample(c, b, base, "good", &lv->baseline.good);
		read_sample(c, b, base, "bad", &lv->baseline.bad);
		if (ch) {
			lv->baseline.change.present = true;
			read_change(c, AT(b, "change"), ch, &lv->baseline.change);
		}
	}
	lv->runs_search = read_count(c, w, o, "runs_search");
	read_entries(c, w, o, "best", &lv->best);
	read_entries(c, w, o, "commits", &lv->commits);
	if (read_object(c, w, o, "culprit")) {
		lv->have_culprit = true;
		read_entry(c, AT(w, "culprit"), get(o, "culprit"), &lv->culprit);
	}
	read_entries(c, w, o, "range", &lv->range);
	conf = read_object(c, w, o, "confirmation");
	if (conf) {
		const struct where *cw = AT(w, "confirmation");

		lv->confirmation.present = true;
		lv->confirmation.change.present = true;
		read_change(c, cw, conf, &lv->confirmation.change);
		read_sample(c, cw, conf, "parent", &lv->confirmation.parent);
		read_sample(c, cw, conf, "culprit", &lv->confirmation.culprit);
	}
	lv->confidence = read_num(c, w, o, "confidence");
	lv->max_runs = read_count(c, w, o, "max_runs");
	lv->runs = read_count(c, w, o, "runs");
	lv->builds = read_count(c, w, o, "builds");
	lv->build_failures = read_count(c, w, o, "build_failures");
	lv->runs_baseline = read_count(c, w, o, "runs_baseline");
	lv->runs_confirm = read_count(c, w, o, "runs_confirm");
	lv->message = read_str(c, w, o, "message");
	read_merge(c, w, o, lv, depth);
}

static void read_params(struct ctx *c, const json_t *o, struct bisect_params *out)
{
	const json_t *p = read_object(c, NULL, o, "params"), *v;
	const char *key;

	if (!p)
		return;
	out->present = true;
	if (vec_reserve(out, json_object_size(p))) {
		result_nomem(c);
		return;
	}
	json_object_foreach((json_t *)p, key, v) {
		struct bisect_param *x = &out->v[out->n];

		*x = (struct bisect_param){ 0 };
		if (json_is_string(v)) {
			x->kind = BISECT_PARAM_STRING;
			x->string = strdup(json_string_value(v));
		} else if (json_is_integer(v)) {
			x->kind = BISECT_PARAM_INTEGER;
			x->integer = json_integer_value(v);
		} else if (json_is_real(v)) {
			x->kind = BISECT_PARAM_REAL;
			x->real = json_real_value(v);
		} else {
			result_bad(c, AT(AT(NULL, "params"), key), "neither a string nor a number");
			return;
		}
		x->key = strdup(key);
		out->n++;
		if (!x->key || (x->kind == BISECT_PARAM_STRING && !x->string)) {
			result_nomem(c);
			return;
		}
	}
}

static void read_spec(struct ctx *c, const json_t *o, struct bisect_spec **out)
{
	const json_t *s = read_object(c, NULL, o, "spec");
	char *text;

	if (!s)
		return;
	/* the spec's one reader is bisect_spec_from_json() */
	text = json_dumps(s, JSON_COMPACT);
	*out = calloc(1, sizeof(**out));
	if (!text || !*out)
		result_nomem(c);
	else if (bisect_spec_from_json(text, *out))
		result_bad(c, AT(NULL, "spec"), "not the spec of a bisection");
	/* on any error *out stays, for bisect_result_release() */
	free(text);
}

/* stored: a stored result, whose id and status the store's replace */
static void read_result(struct ctx *c, const json_t *o, struct bisect_result *r,
			bool stored)
{
	if (!json_is_object(o)) {
		result_bad(c, NULL, "not a JSON object");
		return;
	}
	read_level(c, NULL, o, &r->level, 0, !stored);
	read_params(c, o, &r->params);
	r->repo = read_str(c, NULL, o, "repo");
	r->origin_url = read_str(c, NULL, o, "origin_url");
	r->job = read_str(c, NULL, o, "job");
	r->testcase = read_str(c, NULL, o, "testcase");
	r->testbox = read_str(c, NULL, o, "testbox");
	r->machine = read_str(c, NULL, o, "machine");
	r->job_text = read_str(c, NULL, o, "job_text");
	r->metric = read_str(c, NULL, o, "metric");
	r->higher_is_better = read_bool(c, NULL, o, "higher_is_better");
	r->job_path = read_str(c, NULL, o, "job_path");
	if (stored)
		return;
	if (get(o, "id")) {
		const json_t *id = get(o, "id");

		if (json_is_integer(id) && json_integer_value(id) >= 0)
			r->id = json_integer_value(id);
		else
			result_bad(c, AT(NULL, "id"), "expected a non-negative integer");
	}
	read_spec(c, o, &r->spec);
}

/* JSON text to a document, or what jansson says is wrong with it */
static json_t *parse(struct ctx *c, const struct where *w, const char *text, size_t len)
{
	json_error_t e;
	json_t *j = json_loadb(text, len, 0, &e);

	if (!j)
		result_bad(c, w, "%s (line %d, column %d)", e.text, e.line, e.column);
	return j;
}

int bisect_result_from_json(const char *text, size_t len, struct bisect_result *out,
			    char *err, size_t errlen)
{
	struct ctx c = { .err = err, .errlen = errlen };
	json_t *j;

	bisect_result_init(out);
	j = parse(&c, NULL, text, len);
	if (j)
		read_result(&c, j, out, false);
	json_decref(j);
	if (!c.ret)
		c.ret = result_rules(out, true, err, errlen);
	if (c.ret)
		bisect_result_release(out);
	return c.ret;
}

/* ---- a stored bisection ---- */

/* *field = value when the document does not say */
static void fill(struct ctx *c, char **field, const char *value)
{
	if (*field || !value)
		return;
	*field = strdup(value);
	if (!*field)
		result_nomem(c);
}

/* good or bad {sha, given} of the spec where the result has none */
static void fill_end(struct ctx *c, struct bisect_end *e, const char *sha,
		     const char *given)
{
	e->present = true;
	fill(c, &e->commit.sha, sha);
	fill(c, &e->given, given ? given : e->commit.sha);
}

static void complete(struct ctx *c, struct bisect_result *r, const struct bisect_spec *sp)
{
	struct bisect_level *lv = &r->level;

	fill_end(c, &lv->good, sp->good, sp->good_given);
	fill_end(c, &lv->bad, sp->bad, sp->bad_given);
	fill(c, &r->repo, sp->repo);
	fill(c, &r->job_path, sp->job_path);
	fill(c, &r->job_text, sp->job_text);
	fill(c, &r->metric, sp->metric);
	fill(c, &r->testbox, sp->testbox);
	if (isnan(lv->confidence))
		lv->confidence = sp->confidence;
	if (lv->max_runs == BISECT_UNKNOWN)
		lv->max_runs = sp->max_runs;
	r->spec = malloc(sizeof(*r->spec));
	if (!r->spec || bisect_spec_copy(r->spec, sp)) {
		free(r->spec);
		r->spec = NULL;
		result_nomem(c);
	}
}

int bisect_result_load(struct bisect_result *out, int64_t id, const char *status,
		       const char *result, const char *spec, char *err, size_t errlen)
{
	struct ctx c = { .err = err, .errlen = errlen };
	const struct where *res = AT(NULL, "result");
	struct bisect_spec sp = { 0 };
	json_t *j = NULL;

	bisect_result_init(out);
	if (bisect_spec_from_json(spec, &sp))
		result_bad(&c, AT(NULL, "spec"), "not the spec of a bisection");
	else if (bisect_status_parse(status, &out->level.status))
		result_bad(&c, AT(NULL, "status"), "not a status of a bisection");
	if (!c.ret && result) {
		j = parse(&c, res, result, strlen(result));
		if (j && !json_is_object(j))
			result_bad(&c, res, "not a JSON object");
		else if (j)
			read_result(&c, j, out, true);
	}
	json_decref(j);
	if (!c.ret) {
		out->id = id;
		complete(&c, out, &sp);
	}
	if (!c.ret)
		c.ret = result_rules(out, true, err, errlen);
	if (c.ret)
		bisect_result_release(out);
	bisect_spec_release(&sp);
	return c.ret;
}
