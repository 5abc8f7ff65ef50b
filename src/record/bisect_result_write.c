/*
 * bisect_result_write.c - a bisection's result written as its JSON
 * document (bisect_result.h), the one writer.
 *
 * The key order is the one perfbot has always stored (the session's order
 * of discovery), so that a result reads back and is written again byte
 * for byte, and old databases show as they always did.
 */
#include "record/bisect_result_internal.h"
#include "util/quote.h"
#include "util/strbuf.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

struct out {
	int err;			/* sticky: -ENOMEM */
};

/* o[key] = v, which o takes; NULL v (jansson out of memory) is recorded */
static void put(struct out *w, json_t *o, const char *key, json_t *v)
{
	if (json_object_set_new(o, key, v))
		w->err = -ENOMEM;
}

/* stored strings may hold any byte (git's): made valid UTF-8 (util/quote.h) */
static void put_str(struct out *w, json_t *o, const char *key, const char *s)
{
	if (s)
		put(w, o, key, json_str(s));
}

static void put_num(struct out *w, json_t *o, const char *key, double v)
{
	if (!isnan(v))
		put(w, o, key, json_real(v));
}

static void put_count(struct out *w, json_t *o, const char *key, long v)
{
	if (v != BISECT_UNKNOWN)
		put(w, o, key, json_integer((json_int_t)v));
}

static void put_bool(struct out *w, json_t *o, const char *key, int v)
{
	if (v >= 0)
		put(w, o, key, json_boolean(v));
}

static json_t *values_json(struct out *w, const struct bisect_values *v)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < v->n; i++)
		if (json_array_append_new(a, json_real(v->v[i])))
			w->err = -ENOMEM;
	return a;
}

static void put_commit(struct out *w, json_t *o, const struct bisect_commit *c)
{
	put_str(w, o, "sha", c->sha);
	put_str(w, o, "subject", c->subject);
	put_str(w, o, "author", c->author);
	put_str(w, o, "date", c->date);
}

static json_t *end_json(struct out *w, const struct bisect_end *e)
{
	json_t *o = json_object();

	if (o) {
		put_commit(w, o, &e->commit);
		put_str(w, o, "given", e->given);
	}
	return o;
}

static json_t *sample_json(struct out *w, const struct bisect_sample *s)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	put_str(w, o, "sha", s->sha);
	put_count(w, o, "n", s->n);
	put_num(w, o, "mean", s->mean);
	put_num(w, o, "stddev", s->stddev);
	if (s->values.present)
		put(w, o, "values", values_json(w, &s->values));
	return o;
}

static void put_change(struct out *w, json_t *o, const struct bisect_change *c)
{
	put_num(w, o, "pct", c->pct);
	put_num(w, o, "low", c->low);
	put_num(w, o, "high", c->high);
	put_num(w, o, "p", c->p);
	put_str(w, o, "verdict", c->verdict);
}

static json_t *entry_json(struct out *w, const struct bisect_entry *e)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	put_commit(w, o, &e->commit);
	put_count(w, o, "index", e->index);
	if (e->state != BISECT_STATE_UNKNOWN)
		put(w, o, "state", json_string(e->state == BISECT_STATE_SKIPPED ?
					       "skipped" : "measured"));
	put_bool(w, o, "skipped", e->skipped);
	put_count(w, o, "n", e->n);
	put_num(w, o, "p_bad", e->p_bad);
	put_num(w, o, "mean", e->mean);
	put_num(w, o, "stddev", e->stddev);
	if (e->values.present)
		put(w, o, "values", values_json(w, &e->values));
	put_str(w, o, "note", e->note);
	put_num(w, o, "probability", e->probability);
	return o;
}

static void put_entries(struct out *w, json_t *o, const char *key,
			const struct bisect_entries *a)
{
	json_t *arr;

	if (!a->present)
		return;
	arr = json_array();
	for (size_t i = 0; arr && i < a->n; i++)
		if (json_array_append_new(arr, entry_json(w, &a->v[i])))
			w->err = -ENOMEM;
	put(w, o, key, arr);
}

static json_t *params_json(struct out *w, const struct bisect_params *p)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < p->n; i++) {
		const struct bisect_param *x = &p->v[i];
		json_t *v = x->kind == BISECT_PARAM_STRING ? json_str(x->string) :
			    x->kind == BISECT_PARAM_INTEGER ? json_integer(x->integer) :
							      json_real(x->real);

		if (json_object_set_lossy(o, x->key, v))
			w->err = -ENOMEM;
	}
	return o;
}

static json_t *spec_json(struct out *w, const struct bisect_spec *sp)
{
	char *text = NULL;
	json_t *j = NULL;

	/* the spec's one writer is bisect_spec_to_json() */
	if (!bisect_spec_to_json(sp, &text))
		j = json_loads(text, 0, NULL);
	if (!j)
		w->err = -ENOMEM;
	free(text);
	return j;
}

static json_t *level_json(struct out *w, const struct bisect_level *lv,
			  const struct bisect_result *top);

/*
 * In the order perfbot has always written: what a level found as it went
 * (its ends, baseline, search, verdict, evidence, a merge inside), then
 * what the whole bisection is (top only), then its limits and costs.
 */
static json_t *level_json(struct out *w, const struct bisect_level *lv,
			  const struct bisect_result *top)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (top && top->params.present)
		put(w, o, "params", params_json(w, &top->params));
	if (lv->good.present)
		put(w, o, "good", end_json(w, &lv->good));
	if (lv->bad.present)
		put(w, o, "bad", end_json(w, &lv->bad));
	put_count(w, o, "candidates", lv->candidates);
	if (lv->baseline.present) {
		json_t *b = json_object();

		if (b && lv->baseline.good.present)
			put(w, b, "good", sample_json(w, &lv->baseline.good));
		if (b && lv->baseline.bad.present)
			put(w, b, "bad", sample_json(w, &lv->baseline.bad));
		if (b && lv->baseline.change.present) {
			json_t *c = json_object();

			if (c)
				put_change(w, c, &lv->baseline.change);
			put(w, b, "change", c);
		}
		put(w, o, "baseline", b);
	}
	put_count(w, o, "runs_search", lv->runs_search);
	put_entries(w, o, "best", &lv->best);
	put_entries(w, o, "commits", &lv->commits);
	put(w, o, "status", json_string(bisect_status_name(lv->status)));
	if (lv->have_culprit)
		put(w, o, "culprit", entry_json(w, &lv->culprit));
	put_entries(w, o, "range", &lv->range);
	if (lv->confirmation.present) {
		json_t *c = json_object();

		if (c) {
			put_change(w, c, &lv->confirmation.change);
			if (lv->confirmation.parent.present)
				put(w, c, "parent", sample_json(w, &lv->confirmation.parent));
			if (lv->confirmation.culprit.present)
				put(w, c, "culprit", sample_json(w, &lv->confirmation.culprit));
		}
		put(w, o, "confirmation", c);
	}
	if (lv->merge) {
		json_t *m = json_object();

		if (m) {
			put_commit(w, m, &lv->merge->commit);
			if (lv->merge->inner)
				put(w, m, "inner", level_json(w, lv->merge->inner, NULL));
		}
		put(w, o, "merge", m);
	}
	if (top) {
		if (top->id != BISECT_UNKNOWN)
			put(w, o, "id", json_integer((json_int_t)top->id));
		put_str(w, o, "repo", top->repo);
		put_str(w, o, "job", top->job);
		put_str(w, o, "testcase", top->testcase);
		put_str(w, o, "testbox", top->testbox);
		put_str(w, o, "machine", top->machine);
		put_str(w, o, "job_text", top->job_text);
		put_str(w, o, "metric", top->metric);
	}
	put_num(w, o, "confidence", lv->confidence);
	put_count(w, o, "max_runs", lv->max_runs);
	put_count(w, o, "runs", lv->runs);
	put_count(w, o, "builds", lv->builds);
	put_count(w, o, "build_failures", lv->build_failures);
	if (top)
		put_bool(w, o, "higher_is_better", top->higher_is_better);
	put_count(w, o, "runs_baseline", lv->runs_baseline);
	put_count(w, o, "runs_confirm", lv->runs_confirm);
	put_str(w, o, "message", lv->message);
	if (top) {
		put_str(w, o, "origin_url", top->origin_url);
		put_str(w, o, "job_path", top->job_path);
		if (top->spec)
			put(w, o, "spec", spec_json(w, top->spec));
	}
	return o;
}

/*
 * A result no level was written into: a bisection that failed, or was
 * stopped, before the end of its first level.
 */
static bool bare(const struct bisect_level *lv)
{
	return lv->candidates == BISECT_UNKNOWN && !lv->baseline.present &&
	       lv->runs_search == BISECT_UNKNOWN && !lv->best.present &&
	       !lv->commits.present && !lv->have_culprit && !lv->range.present &&
	       !lv->confirmation.present && !lv->merge;
}

/*
 * A bare result in the order perfbot has always written it: what `bisect
 * start` stores when a bisection fails (id, status, message), then what
 * its spec completes (status documents), then anything else it holds in
 * the order of a whole one.
 */
static json_t *bare_json(struct out *w, const struct bisect_result *r)
{
	const struct bisect_level *lv = &r->level;
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (r->id != BISECT_UNKNOWN)
		put(w, o, "id", json_integer((json_int_t)r->id));
	put(w, o, "status", json_string(bisect_status_name(lv->status)));
	put_str(w, o, "message", lv->message);
	if (lv->good.present)
		put(w, o, "good", end_json(w, &lv->good));
	if (lv->bad.present)
		put(w, o, "bad", end_json(w, &lv->bad));
	put_str(w, o, "repo", r->repo);
	put_str(w, o, "job_path", r->job_path);
	put_str(w, o, "job_text", r->job_text);
	put_str(w, o, "metric", r->metric);
	put_str(w, o, "testbox", r->testbox);
	put_num(w, o, "confidence", lv->confidence);
	put_count(w, o, "max_runs", lv->max_runs);
	if (r->params.present)
		put(w, o, "params", params_json(w, &r->params));
	put_str(w, o, "job", r->job);
	put_str(w, o, "testcase", r->testcase);
	put_str(w, o, "machine", r->machine);
	put_count(w, o, "runs", lv->runs);
	put_count(w, o, "builds", lv->builds);
	put_count(w, o, "build_failures", lv->build_failures);
	put_bool(w, o, "higher_is_better", r->higher_is_better);
	put_count(w, o, "runs_baseline", lv->runs_baseline);
	put_count(w, o, "runs_confirm", lv->runs_confirm);
	put_str(w, o, "origin_url", r->origin_url);
	if (r->spec)
		put(w, o, "spec", spec_json(w, r->spec));
	return o;
}

int bisect_result_to_json(const struct bisect_result *r, enum bisect_json_style style,
			  char **text, char *err, size_t errlen)
{
	struct out w = { 0 };
	json_t *doc;
	int ret;

	*text = NULL;
	ret = result_rules(r, false, err, errlen);
	if (ret)
		return ret;
	doc = bare(&r->level) ? bare_json(&w, r) : level_json(&w, &r->level, r);
	if (doc && !w.err)
		*text = json_dumps(doc, JSON_REAL_PRECISION(10) |
			       (style == BISECT_JSON_INDENT ? JSON_INDENT(2) : JSON_COMPACT));
	json_decref(doc);
	if (!*text) {
		str_copy_marked(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}
