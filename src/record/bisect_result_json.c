/*
 * bisect_result_json.c - the bisection result's JSON document
 * (bisect_result.h, docs/report.md "The document"): its rules, its one
 * writer and its one reader, and a stored bisection read back as the
 * document `bisect status` shows.
 *
 * The writer's key order is the one perfbot has always stored (the
 * session's order of discovery), so that a result reads back and is
 * written again byte for byte.  The reader takes every field as
 * untrusted: each is checked for its type and bounds as it is read, and
 * the document's rules once it is whole (bisect_result_check()).
 */
#define _GNU_SOURCE
#include "record/bisect_result.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a count or an index: what report/ prints with %ld on any machine */
#define COUNT_MAX 0x7fffffffL
/*
 * The largest number that 10 significant digits (JSON_REAL_PRECISION)
 * write without rounding it up past the largest double: beyond it a
 * document would not read back.
 */
#define NUM_MAX 1.797693134e308

static bool number_ok(double v)
{
	return isfinite(v) && fabs(v) <= NUM_MAX;
}

/* ---- where a field is, and what is wrong with it ---- */

/* A field's place from the document's top: "commits[3].values[2]". */
struct where {
	const struct where *up;
	const char *key;		/* NULL: element `index` of an array */
	size_t index;
};

#define AT(up_, key_) (&(const struct where){ .up = (up_), .key = (key_) })
#define AT_INDEX(up_, i_) (&(const struct where){ .up = (up_), .index = (i_) })

static void path_of(struct strbuf *sb, const struct where *w)
{
	if (!w)
		return;
	path_of(sb, w->up);
	if (!w->key)
		strbuf_addf(sb, "[%zu]", w->index);
	else if (sb->len)
		strbuf_addf(sb, ".%s", w->key);
	else
		strbuf_addstr(sb, w->key);
}

struct ctx {
	char *err;
	size_t errlen;
	int ret;			/* the first problem: what to fix first */
};

static void bad(struct ctx *c, const struct where *w, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void bad(struct ctx *c, const struct where *w, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (c->ret)
		return;
	c->ret = -EINVAL;
	path_of(&sb, w);
	if (sb.len)
		strbuf_addstr(&sb, ": ");
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	str_copy_marked(c->err, c->errlen, strbuf_error(&sb) ? "out of memory" : sb.buf);
	strbuf_release(&sb);
}

static void nomem(struct ctx *c)
{
	if (c->ret)
		return;
	c->ret = -ENOMEM;
	str_copy_marked(c->err, c->errlen, "out of memory");
}

/* ---- the rules ---- */

static void check_number(struct ctx *c, const struct where *w, const char *key,
			 double v)
{
	/* NaN is "unknown"; JSON has no infinity */
	if (!isnan(v) && !number_ok(v))
		bad(c, AT(w, key), "not a finite number");
}

static void check_count(struct ctx *c, const struct where *w, const char *key,
			long v)
{
	if (v < BISECT_UNKNOWN)
		bad(c, AT(w, key), "negative");
	else if (v > COUNT_MAX)
		bad(c, AT(w, key), "more than %ld", COUNT_MAX);
}

static void check_tristate(struct ctx *c, const struct where *w, const char *key,
			   int v)
{
	if (v < -1 || v > 1)
		bad(c, AT(w, key), "not a boolean");
}

static void check_values(struct ctx *c, const struct where *w,
			 const struct bisect_values *v)
{
	const struct where *at = AT(w, "values");

	if (v->n > BISECT_MAX_ENTRIES)
		bad(c, at, "more than %d entries", BISECT_MAX_ENTRIES);
	for (size_t i = 0; i < v->n; i++)
		if (!number_ok(v->v[i]))
			bad(c, AT_INDEX(at, i), "not a finite number");
}

static void check_sha(struct ctx *c, const struct where *w, const char *sha)
{
	if (!sha)
		bad(c, AT(w, "sha"), "missing");
}

static void check_sample(struct ctx *c, const struct where *w,
			 const struct bisect_sample *s)
{
	check_count(c, w, "n", s->n);
	check_number(c, w, "mean", s->mean);
	check_number(c, w, "stddev", s->stddev);
	check_values(c, w, &s->values);
}

static void check_change(struct ctx *c, const struct where *w,
			 const struct bisect_change *ch)
{
	check_number(c, w, "pct", ch->pct);
	check_number(c, w, "low", ch->low);
	check_number(c, w, "high", ch->high);
	check_number(c, w, "p", ch->p);
}

static void check_entry(struct ctx *c, const struct where *w,
			const struct bisect_entry *e)
{
	check_sha(c, w, e->commit.sha);
	check_count(c, w, "index", e->index);
	if (e->state < BISECT_STATE_UNKNOWN || e->state > BISECT_STATE_SKIPPED)
		bad(c, AT(w, "state"), "neither measured nor skipped");
	check_tristate(c, w, "skipped", e->skipped);
	check_count(c, w, "n", e->n);
	check_number(c, w, "p_bad", e->p_bad);
	check_number(c, w, "mean", e->mean);
	check_number(c, w, "stddev", e->stddev);
	check_values(c, w, &e->values);
	check_number(c, w, "probability", e->probability);
}

static void check_entries(struct ctx *c, const struct where *w, const char *key,
			  const struct bisect_entries *a)
{
	const struct where *at = AT(w, key);

	if (a->n > BISECT_MAX_ENTRIES)
		bad(c, at, "more than %d entries", BISECT_MAX_ENTRIES);
	for (size_t i = 0; i < a->n; i++)
		check_entry(c, AT_INDEX(at, i), &a->v[i]);
}

/*
 * ends: good.sha and bad.sha are required (a document; a stored result's
 * top level may lack them until its spec completes it).
 */
static void check_level(struct ctx *c, const struct where *w,
			const struct bisect_level *lv, int depth, bool ends)
{
	const char *status = bisect_status_name(lv->status);

	if (depth > BISECT_MAX_DEPTH) {
		bad(c, w, "merges nested deeper than %d", BISECT_MAX_DEPTH);
		return;
	}
	if (!status)
		bad(c, AT(w, "status"), "not a status of a bisection");
	if (ends && !lv->good.present)
		bad(c, AT(w, "good"), "missing");
	if (ends && !lv->bad.present)
		bad(c, AT(w, "bad"), "missing");
	if (ends || lv->good.present)
		check_sha(c, AT(w, "good"), lv->good.commit.sha);
	if (ends || lv->bad.present)
		check_sha(c, AT(w, "bad"), lv->bad.commit.sha);
	check_count(c, w, "candidates", lv->candidates);
	check_sample(c, AT(AT(w, "baseline"), "good"), &lv->baseline.good);
	check_sample(c, AT(AT(w, "baseline"), "bad"), &lv->baseline.bad);
	check_change(c, AT(AT(w, "baseline"), "change"), &lv->baseline.change);
	check_count(c, w, "runs_search", lv->runs_search);
	check_entries(c, w, "best", &lv->best);
	check_entries(c, w, "commits", &lv->commits);
	if (lv->have_culprit)
		check_entry(c, AT(w, "culprit"), &lv->culprit);
	else if (lv->status == BISECT_STATUS_FOUND)
		bad(c, AT(w, "culprit"), "missing (the status is found)");
	check_entries(c, w, "range", &lv->range);
	if (lv->status == BISECT_STATUS_RANGE && !lv->range.n)
		bad(c, AT(w, "range"), "missing or empty (the status is found-range)");
	check_change(c, AT(w, "confirmation"), &lv->confirmation.change);
	check_sample(c, AT(AT(w, "confirmation"), "parent"), &lv->confirmation.parent);
	check_sample(c, AT(AT(w, "confirmation"), "culprit"), &lv->confirmation.culprit);
	check_number(c, w, "confidence", lv->confidence);
	check_count(c, w, "max_runs", lv->max_runs);
	check_count(c, w, "runs", lv->runs);
	check_count(c, w, "builds", lv->builds);
	check_count(c, w, "build_failures", lv->build_failures);
	check_count(c, w, "runs_baseline", lv->runs_baseline);
	check_count(c, w, "runs_confirm", lv->runs_confirm);
	if (lv->merge) {
		const struct where *m = AT(w, "merge");

		check_sha(c, m, lv->merge->commit.sha);
		if (lv->merge->inner)
			check_level(c, AT(m, "inner"), lv->merge->inner, depth + 1, true);
	}
}

/* document: the rules of a whole document, not only of a stored result */
static int check(const struct bisect_result *r, bool document, char *err, size_t errlen)
{
	struct ctx c = { .err = err, .errlen = errlen };
	enum bisect_status st = r->level.status;

	if (r->id < BISECT_UNKNOWN)
		bad(&c, AT(NULL, "id"), "negative");
	check_level(&c, NULL, &r->level, 0, document);
	/* one that failed or stopped before its first run may not know it */
	if (document && !r->metric && st != BISECT_STATUS_FAILED &&
	    st != BISECT_STATUS_RUNNING && st != BISECT_STATUS_RESET)
		bad(&c, AT(NULL, "metric"), "missing (the status is %s)",
		    bisect_status_name(st) ? bisect_status_name(st) : "?");
	check_tristate(&c, NULL, "higher_is_better", r->higher_is_better);
	for (size_t i = 0; i < r->params.n; i++) {
		const struct bisect_param *p = &r->params.v[i];
		const struct where *at = AT_INDEX(AT(NULL, "params"), i);

		if (!p->key)
			bad(&c, at, "a parameter without a name");
		else if (p->kind == BISECT_PARAM_STRING ? !p->string :
			 p->kind == BISECT_PARAM_REAL ? !number_ok(p->real) :
			 p->kind != BISECT_PARAM_INTEGER)
			bad(&c, AT(AT(NULL, "params"), p->key), "neither a string nor a number");
	}
	if (r->spec && (!r->spec->repo || !r->spec->good || !r->spec->bad ||
			!r->spec->job_path || !r->spec->job_text || !r->spec->testbox))
		bad(&c, AT(NULL, "spec"), "not the spec of a bisection");
	return c.ret;
}

int bisect_result_check(const struct bisect_result *r, char *err, size_t errlen)
{
	return check(r, true, err, errlen);
}

/* ---- the writer ---- */

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
	ret = check(r, false, err, errlen);
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

/* ---- the reader ---- */

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
		bad(c, AT(w, key), "expected a string");
		return NULL;
	}
	s = strdup(json_string_value(v));
	if (!s)
		nomem(c);
	return s;
}

static double read_num(struct ctx *c, const struct where *w, const json_t *o,
		       const char *key)
{
	const json_t *v = get(o, key);

	if (!v)
		return NAN;
	if (!json_is_number(v)) {
		bad(c, AT(w, key), "expected a number");
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
	bad(c, AT(w, key), "expected an integer from 0 to %ld", COUNT_MAX);
	return BISECT_UNKNOWN;
}

static int read_bool(struct ctx *c, const struct where *w, const json_t *o,
		     const char *key)
{
	const json_t *v = get(o, key);

	if (!v)
		return -1;
	if (!json_is_boolean(v)) {
		bad(c, AT(w, key), "expected true or false");
		return -1;
	}
	return json_is_true(v);
}

static const json_t *read_object(struct ctx *c, const struct where *w,
				 const json_t *o, const char *key)
{
	const json_t *v = get(o, key);

	if (v && !json_is_object(v)) {
		bad(c, AT(w, key), "expected an object");
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
		bad(c, AT(w, key), "expected an array");
		return NULL;
	}
	if (json_array_size(v) > BISECT_MAX_ENTRIES) {
		bad(c, AT(w, key), "more than %d entries", BISECT_MAX_ENTRIES);
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
		nomem(c);
		return;
	}
	json_array_foreach(a, i, x) {
		if (!json_is_number(x)) {
			bad(c, AT_INDEX(AT(w, "values"), i), "expected a number");
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
		bad(c, w, "expected an object");
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
		bad(c, AT(w, "state"), "neither measured nor skipped");
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
		nomem(c);
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
		bad(c, AT(w, "status"), "missing");
	else if (s && bisect_status_parse(s, out))
		bad(c, AT(w, "status"), "not a status of a bisection");
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
		nomem(c);
		return;
	}
	read_commit(c, w, m, &lv->merge->commit);
	inner = read_object(c, w, m, "inner");
	if (!inner || c->ret)
		return;
	if (depth >= BISECT_MAX_DEPTH) {
		bad(c, AT(w, "inner"), "merges nested deeper than %d", BISECT_MAX_DEPTH);
		return;
	}
	lv->merge->inner = malloc(sizeof(*lv->merge->inner));
	if (!lv->merge->inner) {
		nomem(c);
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
		nomem(c);
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
			bad(c, AT(AT(NULL, "params"), key), "neither a string nor a number");
			return;
		}
		x->key = strdup(key);
		out->n++;
		if (!x->key || (x->kind == BISECT_PARAM_STRING && !x->string)) {
			nomem(c);
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
		nomem(c);
	else if (bisect_spec_from_json(text, *out))
		bad(c, AT(NULL, "spec"), "not the spec of a bisection");
	free(text);
	if (c->ret) {
		free(*out);
		*out = NULL;
	}
}

/* stored: a stored result, whose id and status the store's replace */
static void read_result(struct ctx *c, const json_t *o, struct bisect_result *r,
			bool stored)
{
	if (!json_is_object(o)) {
		bad(c, NULL, "not a JSON object");
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
			bad(c, AT(NULL, "id"), "expected a non-negative integer");
	}
	read_spec(c, o, &r->spec);
}

/* JSON text to a document, or what jansson says is wrong with it */
static json_t *parse(struct ctx *c, const struct where *w, const char *text, size_t len)
{
	json_error_t e;
	json_t *j = json_loadb(text, len, 0, &e);

	if (!j)
		bad(c, w, "%s (line %d, column %d)", e.text, e.line, e.column);
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
		c.ret = bisect_result_check(out, err, errlen);
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
		nomem(c);
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
		nomem(c);
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
		bad(&c, AT(NULL, "spec"), "not the spec of a bisection");
	else if (bisect_status_parse(status, &out->level.status))
		bad(&c, AT(NULL, "status"), "not a status of a bisection");
	if (!c.ret && result) {
		j = parse(&c, res, result, strlen(result));
		if (j && !json_is_object(j))
			bad(&c, res, "not a JSON object");
		else if (j)
			read_result(&c, j, out, true);
	}
	json_decref(j);
	if (!c.ret) {
		out->id = id;
		complete(&c, out, &sp);
	}
	if (!c.ret)
		c.ret = bisect_result_check(out, err, errlen);
	if (c.ret)
		bisect_result_release(out);
	bisect_spec_release(&sp);
	return c.ret;
}
