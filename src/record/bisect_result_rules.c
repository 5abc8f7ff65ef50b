/*
 * bisect_result_rules.c - the rules of a bisection's result
 * (docs/report.md, "The document"), which its reader and its writer both
 * keep, and where a field is when one is broken (bisect_result_internal.h).
 */
#define _GNU_SOURCE
#include "record/bisect_result_internal.h"
#include "util/strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>

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

void result_bad(struct ctx *c, const struct where *w, const char *fmt, ...)
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

void result_nomem(struct ctx *c)
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
		result_bad(c, AT(w, key), "not a finite number");
}

static void check_count(struct ctx *c, const struct where *w, const char *key,
			long v)
{
	if (v < BISECT_UNKNOWN)
		result_bad(c, AT(w, key), "negative");
	else if (v > COUNT_MAX)
		result_bad(c, AT(w, key), "more than %ld", COUNT_MAX);
}

static void check_tristate(struct ctx *c, const struct where *w, const char *key,
			   int v)
{
	if (v < -1 || v > 1)
		result_bad(c, AT(w, key), "not a boolean");
}

static void check_values(struct ctx *c, const struct where *w,
			 const struct bisect_values *v)
{
	const struct where *at = AT(w, "values");

	if (v->n > BISECT_MAX_ENTRIES)
		result_bad(c, at, "more than %d entries", BISECT_MAX_ENTRIES);
	for (size_t i = 0; i < v->n; i++)
		if (!number_ok(v->v[i]))
			result_bad(c, AT_INDEX(at, i), "not a finite number");
}

static void check_sha(struct ctx *c, const struct where *w, const char *sha)
{
	if (!sha)
		result_bad(c, AT(w, "sha"), "missing");
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
		result_bad(c, AT(w, "state"), "neither measured nor skipped");
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
		result_bad(c, at, "more than %d entries", BISECT_MAX_ENTRIES);
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
		result_bad(c, w, "merges nested deeper than %d", BISECT_MAX_DEPTH);
		return;
	}
	if (!status)
		result_bad(c, AT(w, "status"), "not a status of a bisection");
	if (ends && !lv->good.present)
		result_bad(c, AT(w, "good"), "missing");
	if (ends && !lv->bad.present)
		result_bad(c, AT(w, "bad"), "missing");
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
		result_bad(c, AT(w, "culprit"), "missing (the status is found)");
	check_entries(c, w, "range", &lv->range);
	if (lv->status == BISECT_STATUS_RANGE && !lv->range.n)
		result_bad(c, AT(w, "range"), "missing or empty (the status is found-range)");
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
int result_rules(const struct bisect_result *r, bool document, char *err, size_t errlen)
{
	struct ctx c = { .err = err, .errlen = errlen };
	enum bisect_status st = r->level.status;

	if (r->id < BISECT_UNKNOWN)
		result_bad(&c, AT(NULL, "id"), "negative");
	check_level(&c, NULL, &r->level, 0, document);
	/* one that failed or stopped before its first run may not know it */
	if (document && !r->metric && st != BISECT_STATUS_FAILED &&
	    st != BISECT_STATUS_RUNNING && st != BISECT_STATUS_RESET)
		result_bad(&c, AT(NULL, "metric"), "missing (the status is %s)",
		    bisect_status_name(st) ? bisect_status_name(st) : "?");
	check_tristate(&c, NULL, "higher_is_better", r->higher_is_better);
	for (size_t i = 0; i < r->params.n; i++) {
		const struct bisect_param *p = &r->params.v[i];
		const struct where *at = AT_INDEX(AT(NULL, "params"), i);

		if (!p->key)
			result_bad(&c, at, "a parameter without a name");
		else if (p->kind == BISECT_PARAM_STRING ? !p->string :
			 p->kind == BISECT_PARAM_REAL ? !number_ok(p->real) :
			 p->kind != BISECT_PARAM_INTEGER)
			result_bad(&c, AT(AT(NULL, "params"), p->key), "neither a string nor a number");
	}
	if (r->spec && (!r->spec->repo || !r->spec->good || !r->spec->bad ||
			!r->spec->job_path || !r->spec->job_text || !r->spec->testbox))
		result_bad(&c, AT(NULL, "spec"), "not the spec of a bisection");
	return c.ret;
}

int bisect_result_check(const struct bisect_result *r, char *err, size_t errlen)
{
	return result_rules(r, true, err, errlen);
}
