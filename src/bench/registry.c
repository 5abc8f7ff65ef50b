/* The static table of built-in benchmarks; will-it-scale's from list.h. */
#include "bench/bench.h"
#include "util/parse.h"

#include <string.h>

#define WIS_TEST(name) extern const struct wis_test wis_test_##name;
#include "bench/wis/list.h"
#undef WIS_TEST
extern const struct bench_builtin bench_hackbench;
extern const struct bench_builtin bench_netperf;

const struct bench_entry bench_table[] = {
#define WIS_TEST(name) { .kind = BENCH_WIS, .wis = &wis_test_##name },
#include "bench/wis/list.h"
#undef WIS_TEST
	{ .kind = BENCH_HACKBENCH, .builtin = &bench_hackbench },
	{ .kind = BENCH_NETPERF, .builtin = &bench_netperf },
};

const size_t bench_table_size = sizeof(bench_table) / sizeof(bench_table[0]);

const char *bench_name(const struct bench_entry *b)
{
	return b->kind == BENCH_WIS ? b->wis->name : b->builtin->name;
}

const char *bench_desc(const struct bench_entry *b)
{
	return b->kind == BENCH_WIS ? b->wis->desc : b->builtin->desc;
}

bool bench_hidden(const struct bench_entry *b)
{
	return b->kind == BENCH_WIS && b->wis->hidden;
}

const struct bench_entry *bench_find(const char *name)
{
	for (size_t i = 0; i < bench_table_size; i++)
		if (!strcmp(bench_name(&bench_table[i]), name))
			return &bench_table[i];
	return NULL;
}

const struct bench_entry *bench_suggest(const char *name)
{
	struct suggest sg;
	const char *near;

	suggest_init(&sg, name);
	for (size_t i = 0; i < bench_table_size; i++)
		if (!bench_hidden(&bench_table[i]))
			suggest_add(&sg, bench_name(&bench_table[i]));
	near = suggest_result(&sg);
	return near ? bench_find(near) : NULL;
}

const struct wis_test *wis_find_test(const char *name)
{
	const struct bench_entry *b = bench_find(name);

	return b && b->kind == BENCH_WIS ? b->wis : NULL;
}
