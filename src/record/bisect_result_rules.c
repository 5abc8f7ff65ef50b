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
#include <stdint.h>

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

static void check_values(struct ctx *c, const struct where *w,
			 const struct bisect_values *v)
{
	if (v->n > BISECT_MAX_ENTRIES)
		result_bad(c, w, "more than %d entries", BISECT_MAX_ENTRIES);
	for (size_t i = 0; i < v->n; i++)
		if (!number_ok(v->v[i]))
			result_bad(c, AT_INDEX(w, i), "not a finite number");
}

static void check_params(struct ctx *c, const struct where *w,
			 const struct bisect_params *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct bisect_param *x = &p->v[i];

		if (!x->key)
			result_bad(c, AT_INDEX(w, i), "a parameter without a name");
		else if (x->kind == BISECT_PARAM_STRING ? !x->string :
			 x->kind == BISECT_PARAM_REAL ? !number_ok(x->real) :
			 x->kind != BISECT_PARAM_INTEGER)
			result_bad(c, AT(w, x->key), "neither a string nor a number");
	}
}

static void check_object(struct ctx *c, const struct where *w, const struct shape *sh,
			 const void *base, int depth, bool ends);
static void check_level(struct ctx *c, const struct where *w,
			const struct bisect_level *lv, int depth, bool ends);

static void check_entries(struct ctx *c, const struct where *w,
			  const struct bisect_entries *a)
{
	if (a->n > BISECT_MAX_ENTRIES)
		result_bad(c, w, "more than %d entries", BISECT_MAX_ENTRIES);
	for (size_t i = 0; i < a->n; i++)
		check_object(c, AT_INDEX(w, i), &entry_shape, &a->v[i], 0, true);
}

static void check_merge(struct ctx *c, const struct where *w,
			const struct bisect_merge *m, int depth)
{
	check_object(c, w, &merge_shape, m, depth, true);
	if (m->inner)
		check_level(c, AT(w, "inner"), m->inner, depth + 1, true);
}

/*
 * Field f of the struct at base.  ends: a required object is required
 * (false for a stored result's top level, whose ends its spec completes).
 */
static void check_field(struct ctx *c, const struct where *w, const struct field *f,
			const void *base, int depth, bool ends)
{
	const struct where *at = AT(w, f->key);

	switch (f->kind) {
	case FK_STRING:
		if ((f->flags & F_REQUIRED) && !*CMEMBER(char *const, base, f))
			result_bad(c, at, "missing");
		break;
	case FK_NUMBER: {
		double v = *CMEMBER(double, base, f);

		/* NaN is "unknown"; JSON has no infinity */
		if (!isnan(v) && !number_ok(v))
			result_bad(c, at, "not a finite number");
		break;
	}
	case FK_COUNT:
		if (*CMEMBER(long, base, f) < BISECT_UNKNOWN)
			result_bad(c, at, "negative");
		else if (*CMEMBER(long, base, f) > COUNT_MAX)
			result_bad(c, at, "more than %ld", COUNT_MAX);
		break;
	case FK_BOOL:
		if (*CMEMBER(int, base, f) < -1 || *CMEMBER(int, base, f) > 1)
			result_bad(c, at, "not a boolean");
		break;
	case FK_ID:
		if (*CMEMBER(int64_t, base, f) < BISECT_UNKNOWN)
			result_bad(c, at, "negative");
		break;
	case FK_VALUES:
		check_values(c, at, CMEMBER(struct bisect_values, base, f));
		break;
	case FK_OBJECT:
		if (*CMEMBER(bool, base, f))
			check_object(c, at, f->sub, CMEMBER(char, base, f), depth, true);
		else if ((f->flags & F_REQUIRED) && ends)
			result_bad(c, at, "missing");
		break;
	case FK_INLINE:
		check_object(c, w, f->sub, CMEMBER(char, base, f), depth, ends);
		break;
	case FK_ENTRY:
		if (*(const bool *)((const char *)base + f->have))
			check_object(c, at, &entry_shape, CMEMBER(char, base, f), depth, true);
		break;
	case FK_ENTRIES:
		check_entries(c, at, CMEMBER(struct bisect_entries, base, f));
		break;
	case FK_STATUS:
		if (!bisect_status_name(*CMEMBER(enum bisect_status, base, f)))
			result_bad(c, at, "not a status of a bisection");
		break;
	case FK_STATE: {
		enum bisect_commit_state st = *CMEMBER(enum bisect_commit_state, base, f);

		if (st < BISECT_STATE_UNKNOWN || st > BISECT_STATE_SKIPPED)
			result_bad(c, at, "neither measured nor skipped");
		break;
	}
	case FK_MERGE:
		if (*CMEMBER(struct bisect_merge *const, base, f))
			check_merge(c, at, *CMEMBER(struct bisect_merge *const, base, f), depth);
		break;
	case FK_PARAMS:
		check_params(c, at, CMEMBER(struct bisect_params, base, f));
		break;
	case FK_SPEC: {
		const struct bisect_spec *sp = *CMEMBER(struct bisect_spec *const, base, f);

		if (sp && (!sp->repo || !sp->good || !sp->bad || !sp->job_path ||
			   !sp->job_text || !sp->testbox))
			result_bad(c, at, "not the spec of a bisection");
		break;
	}
	}
}

static void check_object(struct ctx *c, const struct where *w, const struct shape *sh,
			 const void *base, int depth, bool ends)
{
	for (size_t i = 0; i < sh->n; i++)
		check_field(c, w, &sh->v[i], base, depth, ends);
}

/* What a level's status requires of it. */
static void check_status(struct ctx *c, const struct where *w,
			 const struct bisect_level *lv)
{
	if (lv->status == BISECT_STATUS_FOUND && !lv->have_culprit)
		result_bad(c, AT(w, "culprit"), "missing (the status is found)");
	if (lv->status == BISECT_STATUS_RANGE && !lv->range.n)
		result_bad(c, AT(w, "range"), "missing or empty (the status is found-range)");
}

static void check_level(struct ctx *c, const struct where *w,
			const struct bisect_level *lv, int depth, bool ends)
{
	if (depth > BISECT_MAX_DEPTH) {
		result_bad(c, w, "merges nested deeper than %d", BISECT_MAX_DEPTH);
		return;
	}
	check_object(c, w, &level_shape, lv, depth, ends);
	check_status(c, w, lv);
}

/* document: the rules of a whole document, not only of a stored result */
int result_rules(const struct bisect_result *r, bool document, char *err, size_t errlen)
{
	struct ctx c = { .err = err, .errlen = errlen };
	enum bisect_status st = r->level.status;

	check_object(&c, NULL, &result_shape, r, 0, document);
	check_status(&c, NULL, &r->level);
	/* one that failed or stopped before its first run may not know it */
	if (document && !r->metric && st != BISECT_STATUS_FAILED &&
	    st != BISECT_STATUS_RUNNING && st != BISECT_STATUS_RESET)
		result_bad(&c, AT(NULL, "metric"), "missing (the status is %s)",
			   bisect_status_name(st) ? bisect_status_name(st) : "?");
	return c.ret;
}

int bisect_result_check(const struct bisect_result *r, char *err, size_t errlen)
{
	return result_rules(r, true, err, errlen);
}
