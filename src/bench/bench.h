/*
 * bench.h - the static table of perfbot's built-in benchmarks: every
 * will-it-scale test, hackbench and the netperf-style network benchmark.
 *
 * `perfbot bench` lists the table and dispatches on an entry's kind; the
 * job runner finds benchmarks here too.  Adding a will-it-scale test is one
 * file plus one line in src/bench/wis/list.h; another kind of benchmark is
 * one file defining its struct bench_builtin plus one line in registry.c.
 * The table is constant; thread-safe.
 */
#ifndef PERFBOT_BENCH_BENCH_H
#define PERFBOT_BENCH_BENCH_H

#include "bench/wis.h"

#include <stdbool.h>
#include <stddef.h>

enum bench_kind { BENCH_WIS, BENCH_HACKBENCH, BENCH_NETPERF };

/* A benchmark that is not a will-it-scale test. */
struct bench_builtin {
	const char *name;
	const char *desc;	/* one line for the listing */
};

struct bench_entry {
	enum bench_kind kind;
	const struct wis_test *wis;		/* BENCH_WIS */
	const struct bench_builtin *builtin;	/* the others */
};

extern const struct bench_entry bench_table[];
extern const size_t bench_table_size;

const char *bench_name(const struct bench_entry *b);
const char *bench_desc(const struct bench_entry *b);
bool bench_hidden(const struct bench_entry *b);

const struct bench_entry *bench_find(const char *name);
/* The visible benchmark nearest to `name` by edit distance, or NULL. */
const struct bench_entry *bench_suggest(const char *name);

/* A will-it-scale test by name (hidden ones included), or NULL. */
const struct wis_test *wis_find_test(const char *name);

#endif
