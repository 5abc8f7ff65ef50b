/* registry.c - the static table of benchmark types, and lookups in it. */
#include "bench/bench.h"
#include "util/bug.h"
#include "util/parse.h"
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/*
 * The built-in benchmarks, in listing order: one line each.  X(foo)
 * names `const struct bench_type bench_type_foo` of its own file.
 */
#define BENCH_TYPES(X) \
	X(wis)         \
	X(hackbench)   \
	X(netperf)     \
	X(exec)        \
	/* a new benchmark: one line above this one */

#define DECLARE(n) extern const struct bench_type bench_type_##n;
BENCH_TYPES(DECLARE)
#undef DECLARE

const struct bench_type *const bench_types[] = {
#define ENTRY(n) &bench_type_##n,
	BENCH_TYPES(ENTRY)
#undef ENTRY
	NULL,
};

const struct bench_type *bench_type_find(const char *testcase, bool has_exec)
{
	const struct bench_type *exec = NULL;

	for (const struct bench_type *const *t = bench_types; *t; t++) {
		if ((*t)->flags & BENCH_TYPE_EXEC) {
			exec = *t;
			continue;
		}
		if (!strcmp((*t)->name, testcase))
			return *t;
	}
	return has_exec ? exec : NULL;
}

const char *bench_type_suggest(const char *name)
{
	struct suggest sg;

	suggest_init(&sg, name);
	for (const struct bench_type *const *t = bench_types; *t; t++)
		suggest_add(&sg, (*t)->name);
	return suggest_result(&sg);
}

bool bench_type_cli_named(const struct bench_type *t)
{
	return !(t->flags & BENCH_TYPE_EXEC) && !t->cli_alias;
}

static int alias_row(const struct bench_type *t)
{
	int row;

	if (!t->cli_alias)
		return -1;
	for (row = 0; (size_t)row < t->nr_params; row++)
		if (!strcmp(t->params[row].key, t->cli_alias))
			return row;
	BUG("%s: cli_alias '%s' is not a row", t->name, t->cli_alias);
}

const struct bench_type *bench_cli_find(const char *name, int *row,
					size_t *choice)
{
	for (const struct bench_type *const *t = bench_types; *t; t++) {
		const struct bench_param *p;
		int r = alias_row(*t);

		if (r < 0) {
			if (bench_type_cli_named(*t) && !strcmp((*t)->name, name)) {
				*row = -1;
				return *t;
			}
			continue;
		}
		p = &(*t)->params[r];
		for (size_t i = 0, n = bench_param_nr_choices(p); i < n; i++) {
			struct bench_choice c;

			bench_param_choice(p, i, &c);
			if (!strcmp(c.name, name)) {
				*row = r;
				*choice = i;
				return *t;
			}
		}
	}
	return NULL;
}

const char *bench_cli_suggest(const char *name)
{
	struct suggest sg;

	suggest_init(&sg, name);
	for (const struct bench_type *const *t = bench_types; *t; t++) {
		int r = alias_row(*t);

		if (r < 0) {
			if (bench_type_cli_named(*t))
				suggest_add(&sg, (*t)->name);
			continue;
		}
		for (size_t i = 0, n = bench_param_nr_choices(&(*t)->params[r]);
		     i < n; i++) {
			struct bench_choice c;

			bench_param_choice(&(*t)->params[r], i, &c);
			if (!(c.flags & BENCH_CHOICE_HIDDEN))
				suggest_add(&sg, c.name);
		}
	}
	return suggest_result(&sg);
}

/* ---- runs and results ------------------------------------------------------ */

enum bench_status bench_type_run(const struct bench_type *t,
				 const struct bench_run *run,
				 struct bench_result *out)
{
	memset(out, 0, sizeof(*out));
	BUG_ON(run->args->type != t);
	return out->status = t->run(run, out);
}

const struct bench_stat_decl *bench_stat_find(const struct bench_type *t,
					      const char *name)
{
	for (size_t i = 0; i < t->nr_stats; i++)
		if (!strcmp(t->stats[i].name, name))
			return &t->stats[i];
	return NULL;
}

void bench_result_add(struct bench_result *r, const struct bench_stat_decl *d,
		      double value)
{
	BUG_ON(!d || r->nr_stats >= BENCH_MAX_STATS);
	r->stats[r->nr_stats++] = (struct bench_stat){ .decl = d, .value = value };
}

enum bench_status bench_result_fail(struct bench_result *r,
				    enum bench_status status,
				    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfmt_marked(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return r->status = status;
}

void bench_result_release(struct bench_result *r)
{
	if (r->detail && r->free_detail)
		r->free_detail(r->detail);
	r->detail = NULL;
	statmap_release(&r->extra);
	strmap_release(&r->env);
}

const char *bench_status_name(enum bench_status s)
{
	switch (s) {
	case BENCH_OK:
		return "complete";
	case BENCH_INCOMPLETE:
		return "incomplete";
	case BENCH_FAILED:
		return "failed";
	case BENCH_UNSUPPORTED:
		return "unsupported";
	case BENCH_ERROR:
		return "error";
	}
	return "?";
}

enum run_status bench_run_status(enum bench_status s)
{
	switch (s) {
	case BENCH_OK:
		return RUN_COMPLETE;
	case BENCH_INCOMPLETE:
		return RUN_INCOMPLETE;
	case BENCH_UNSUPPORTED:
		return RUN_UNSUPPORTED;
	default:
		return RUN_FAILED;
	}
}
