/*
 * Unit tests: stats/compare.  Seed 001's table (will-it-scale, two runs a
 * side) as a fixture, then five-run sets for the families and verdicts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define KPI "will-it-scale.per_thread_ops"

static const char *const kpis[] = { KPI, NULL };

static const struct stat_row *row_named(const struct stat_row *rows, size_t n,
					const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

/* seed 001: 2 runs a side, so no verdict, but every number is there */
static void seed_001(void **state)
{
	char *na[] = { "dmesg.WARNING:stack_recursion", KPI,
		       "will-it-scale.time.maximum_resident_set_size" };
	char *nb[] = { KPI, "will-it-scale.time.maximum_resident_set_size" };
	double da[] = { 1, 1 }, ka[] = { 6105869, 6106069 }, ma[] = { 9850, 9860 };
	double kb[] = { 6265464, 6265664 }, mb[] = { 10000, 245550 };
	double *va[] = { da, ka, ma }, *vb[] = { kb, mb };
	size_t ca[] = { 2, 2, 2 }, cb[] = { 2, 2 };
	struct sample_set sets[] = {
		{ "b121b341e5983bdc", 3, na, va, ca, 2, NULL },
		{ "492e639f0c222784", 2, nb, vb, cb, 2, NULL },
	};
	struct compare_opts o;
	struct stat_row *rows;
	const struct stat_row *r;
	size_t n;
	char buf[32];

	(void)state;
	compare_opts_init(&o);
	o.kpis = kpis;
	assert_int_equal(compare_sets(sets, 2, &o, &rows, &n), 0);
	assert_int_equal(n, 3);
	/* KPIs first, then failure stats, then the others */
	assert_string_equal(rows[0].name, KPI);
	assert_int_equal(rows[0].family, FAMILY_KPI);
	assert_int_equal(rows[1].family, FAMILY_FAILURE);
	assert_int_equal(rows[2].family, FAMILY_OTHER);

	r = &rows[0];
	assert_true(fabs(r->base.mean - 6105969) < 1e-6);
	assert_true(fabs(r->vs[0].s.mean - 6265564) < 1e-6);
	snprintf(buf, sizeof(buf), "%+.1f%%", r->vs[0].change.pct);
	assert_string_equal(buf, "+2.6%");
	assert_int_equal(r->vs[0].verdict, VERDICT_FEW_RUNS);

	r = row_named(rows, n, "dmesg.WARNING:stack_recursion");
	assert_non_null(r);
	assert_int_equal(r->base_fails, 2);
	assert_int_equal(r->base_runs, 2);
	assert_int_equal(r->vs[0].fails, 0);
	assert_int_equal(r->vs[0].runs, 2);
	assert_true(fabs(r->vs[0].reproduction + 100) < 1e-9);
	assert_int_equal(r->vs[0].verdict, VERDICT_FEW_RUNS);
	assert_true(isnan(r->vs[0].mwu_p));

	r = row_named(rows, n, "will-it-scale.time.maximum_resident_set_size");
	snprintf(buf, sizeof(buf), "%+.1f%%", r->vs[0].change.pct);
	assert_string_equal(buf, "+1196.5%");
	assert_int_equal(compare_runs_missing(&sets[0]), 1);
	compare_release(rows, n);
}

/* five runs a side: KPI by Welch alone, the others through BH */
static void families(void **state)
{
	char *names[] = { "a.moves", "b.constant", "c.noise", "cpu.idle%",
			  "dmesg.BUG", KPI, "only.base" };
	double am[] = { 100, 101, 99, 100.5, 99.5 }, bm[] = { 120, 121, 119, 120.5, 119.5 };
	double ac[] = { 7, 7, 7, 7, 7 }, bc[] = { 7, 7, 7, 7, 7 };
	double an[] = { 10, 12, 9, 11, 13 }, bn[] = { 11, 9, 12, 10, 13 };
	double ai[] = { 50, 51, 49, 50, 50 }, bi[] = { 60, 61, 59, 60, 60 };
	double ad[] = { 0, 0, 0, 0, 0 }, bd[] = { 1, 1, 1, 1, 1 };
	double ak[] = { 1000, 1001, 999, 1000.5, 999.5 }, bk[] = { 1100, 1101, 1099, 1100.5, 1099.5 };
	double ao[] = { 1, 2, 3, 4, 5 };
	double *va[] = { am, ac, an, ai, ad, ak, ao }, *vb[] = { bm, bc, bn, bi, bd, bk };
	size_t ca[] = { 5, 5, 5, 5, 5, 5, 5 }, cb[] = { 5, 5, 5, 5, 5, 5 };
	struct sample_set sets[] = {
		{ "base", 7, names, va, ca, 5, NULL },
		{ "new", 6, names, vb, cb, 5, NULL },
	};
	struct compare_opts o;
	struct stat_row *rows;
	const struct stat_row *r;
	size_t n;

	(void)state;
	compare_opts_init(&o);
	o.kpis = kpis;
	assert_int_equal(compare_sets(sets, 2, &o, &rows, &n), 0);
	/* only.base is on one side only: no row */
	assert_int_equal(n, 6);
	assert_null(row_named(rows, n, "only.base"));
	assert_string_equal(rows[0].name, KPI);
	assert_string_equal(rows[1].name, "dmesg.BUG");

	r = &rows[0];
	assert_int_equal(r->vs[0].verdict, VERDICT_CHANGED);
	assert_true(r->vs[0].q == r->vs[0].p);	/* no BH for KPIs */
	assert_true(r->vs[0].change.low > 9 && r->vs[0].change.high < 11);
	assert_false(isnan(r->vs[0].mwu_p));

	/* BH over the 4 OTHER rows: q above p for all but the largest p */
	r = row_named(rows, n, "a.moves");
	assert_int_equal(r->family, FAMILY_OTHER);
	assert_true(r->vs[0].q > r->vs[0].p);
	assert_int_equal(r->vs[0].verdict, VERDICT_CHANGED);

	r = row_named(rows, n, "b.constant");
	assert_int_equal(r->vs[0].verdict, VERDICT_SAME);

	r = row_named(rows, n, "c.noise");
	assert_int_not_equal(r->vs[0].verdict, VERDICT_CHANGED);

	/* a %-unit stat changes by its difference, in points */
	r = row_named(rows, n, "cpu.idle%");
	assert_true(r->vs[0].change.absolute);
	assert_true(fabs(r->vs[0].change.pct - 10) < 1e-9);
	assert_int_equal(r->vs[0].verdict, VERDICT_CHANGED);

	r = row_named(rows, n, "dmesg.BUG");
	assert_int_equal(r->family, FAMILY_FAILURE);
	assert_int_equal(r->base_fails, 0);
	assert_int_equal(r->vs[0].fails, 5);
	assert_true(fabs(r->vs[0].reproduction - 100) < 1e-9);
	assert_true(r->vs[0].p < 0.05);	/* 0:5 vs 5:5, p = 2/252 */
	assert_int_equal(r->vs[0].verdict, VERDICT_CHANGED);
	compare_release(rows, n);
}

/* three commits: two columns, each against the base; failure SAME at 0:0 */
static void three_commits(void **state)
{
	char *names[] = { "dmesg.x", KPI };
	double d0[] = { 0, 0, 0 }, k0[] = { 10, 10.01, 9.99 };
	double k1[] = { 10, 10.01, 9.99 }, k2[] = { 20, 20.01, 19.99 };
	double *v0[] = { d0, k0 }, *v1[] = { d0, k1 }, *v2[] = { d0, k2 };
	size_t c[] = { 3, 3 };
	struct sample_set sets[] = {
		{ "a", 2, names, v0, c, 3, NULL },
		{ "b", 2, names, v1, c, 3, NULL },
		{ "c", 2, names, v2, c, 3, NULL },
	};
	struct compare_opts o;
	struct stat_row *rows;
	size_t n;

	(void)state;
	compare_opts_init(&o);
	o.kpis = kpis;
	assert_int_equal(compare_sets(sets, 3, &o, &rows, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(rows[0].vs[0].verdict, VERDICT_SAME);
	assert_int_equal(rows[0].vs[1].verdict, VERDICT_CHANGED);
	assert_true(fabs(rows[0].vs[1].change.pct - 100) < 1e-9);
	assert_int_equal(rows[1].vs[0].verdict, VERDICT_SAME);
	assert_int_equal(rows[1].vs[1].verdict, VERDICT_SAME);
	compare_release(rows, n);
	assert_int_equal(compare_sets(sets, 1, &o, &rows, &n), -EINVAL);
}

/* The verdicts of the KPI and of meminfo.x, both +3%, under `rules`. */
static void verdicts_with(const struct min_change_rule *rules, size_t nr,
			  enum verdict *kpi, enum verdict *other)
{
	char *names[] = { "meminfo.x", KPI };
	double ak[] = { 1000, 1001, 999, 1000.5, 999.5 };
	double bk[] = { 1030, 1031, 1029, 1030.5, 1029.5 };
	double *va[] = { ak, ak }, *vb[] = { bk, bk };
	size_t c[] = { 5, 5 };
	struct sample_set sets[] = {
		{ "base", 2, names, va, c, 5, NULL },
		{ "new", 2, names, vb, c, 5, NULL },
	};
	struct compare_opts o;
	struct stat_row *rows;
	size_t n;

	compare_opts_init(&o);
	o.kpis = kpis;
	o.rules = rules;
	o.nr_rules = nr;
	assert_int_equal(compare_sets(sets, 2, &o, &rows, &n), 0);
	assert_int_equal(n, 2);
	*kpi = row_named(rows, n, KPI)->vs[0].verdict;
	*other = row_named(rows, n, "meminfo.x")->vs[0].verdict;
	compare_release(rows, n);
}

/* a rule overrides the family floor; of several matching, the last wins */
static void min_change_rules(void **state)
{
	const struct min_change_rule wis5[] = { { "will-it-scale.*", 5 } };
	const struct min_change_rule mem1[] = { { "meminfo.*", 1 } };
	const struct min_change_rule narrow_last[] = {
		{ "will-it-scale.*", 5 }, { KPI, 1 },
	};
	const struct min_change_rule broad_last[] = {
		{ KPI, 1 }, { "will-it-scale.*", 5 },
	};
	enum verdict kpi, other;

	(void)state;
	/* defaults: 3% clears the KPI's 1%, and is inside the others' 5% */
	verdicts_with(NULL, 0, &kpi, &other);
	assert_int_equal(kpi, VERDICT_CHANGED);
	assert_int_not_equal(other, VERDICT_CHANGED);

	verdicts_with(wis5, 1, &kpi, &other);
	assert_int_not_equal(kpi, VERDICT_CHANGED);
	assert_int_not_equal(other, VERDICT_CHANGED);

	verdicts_with(mem1, 1, &kpi, &other);
	assert_int_equal(kpi, VERDICT_CHANGED);
	assert_int_equal(other, VERDICT_CHANGED);

	verdicts_with(narrow_last, 2, &kpi, &other);
	assert_int_equal(kpi, VERDICT_CHANGED);
	verdicts_with(broad_last, 2, &kpi, &other);
	assert_int_not_equal(kpi, VERDICT_CHANGED);
}

/*
 * Which way is better for an undeclared stat, by the one rule
 * (record.h's stat_rule_better()): LKP's KPIs up, times and failures down.
 * compare_stat_direction() is that rule until bisect stops calling it.
 */
static void directions(void **state)
{
	static const struct {
		const char *name;
		int better;
	} cases[] = {
		{ "will-it-scale.per_thread_ops", STAT_BETTER_HIGHER },
		{ "hackbench.throughput", STAT_BETTER_HIGHER },
		{ "netperf.Throughput_Mbps", STAT_BETTER_HIGHER },
		{ "will-it-scale.workload", STAT_BETTER_HIGHER },
		{ "demo.time.elapsed_time", STAT_BETTER_LOWER },
		{ "redis.latency_p99", STAT_BETTER_LOWER },
		{ "dmesg.WARNING", STAT_BETTER_LOWER },
		{ "demo.score", STAT_BETTER_NONE },
		{ "meminfo.Cached", STAT_BETTER_NONE },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(stat_rule_better(cases[i].name), cases[i].better);
		assert_int_equal(stat_better(NULL, cases[i].name), cases[i].better);
	}
}

/* The thresholds are docs/design.md §7's, and compare_opts_init() sets them. */
static void defaults(void **state)
{
	struct compare_opts o;

	(void)state;
	compare_opts_init(&o);
	assert_true(o.alpha == 0.05 && COMPARE_ALPHA == 0.05);
	assert_true(o.q == 0.05 && COMPARE_Q == 0.05);
	assert_true(o.kpi_min_pct == 1 && COMPARE_KPI_MIN_PCT == 1);
	assert_true(o.other_min_pct == 5 && COMPARE_OTHER_MIN_PCT == 5);
	assert_true(o.level == 0.95 && COMPARE_LEVEL == 0.95);
	assert_int_equal(COMPARE_MIN_RUNS, 3);
	assert_null(o.kpis);
	assert_int_equal(o.nr_rules, 0);
}

/*
 * Declared stats: direction, KPI and unit come from the declaration, not
 * the name (a "_ops" stat declared better lower is better lower); an
 * undeclared stat falls back on the rule; a declaration of the other
 * commit counts when the base has none; a "%" unit changes by points.
 */
static void declared(void **state)
{
	char *names[] = { "a.latency", "bench.rate_ops", "bench.score", "bench.util" };
	double a1[] = { 10, 10.1, 9.9, 10 }, b1[] = { 12, 12.1, 11.9, 12 };
	double *va[] = { a1, a1, a1, a1 }, *vb[] = { b1, b1, b1, b1 };
	size_t c[] = { 4, 4, 4, 4 };
	struct stat_meta_list base_meta = { 0 }, new_meta = { 0 };
	struct sample_set sets[] = {
		{ "base", 4, names, va, c, 4, &base_meta },
		{ "new", 4, names, vb, c, 4, &new_meta },
	};
	struct compare_opts o;
	struct stat_row *rows;
	const struct stat_row *r;
	size_t n;

	(void)state;
	assert_int_equal(stat_meta_set(&base_meta, "bench.score", "points",
				       STAT_BETTER_HIGHER, true), 0);
	assert_int_equal(stat_meta_set(&base_meta, "bench.rate_ops", "ops/s",
				       STAT_BETTER_LOWER, false), 0);
	/* only the new commit's runs declare it */
	assert_int_equal(stat_meta_set(&new_meta, "bench.util", "%",
				       STAT_BETTER_NONE, false), 0);
	/* the base's declaration wins over the other commit's */
	assert_int_equal(stat_meta_set(&new_meta, "bench.score", "s",
				       STAT_BETTER_LOWER, false), 0);
	compare_opts_init(&o);
	assert_int_equal(compare_sets(sets, 2, &o, &rows, &n), 0);
	assert_int_equal(n, 4);
	/* the declared KPI is first, a KPI without any opts->kpis */
	r = &rows[0];
	assert_string_equal(r->name, "bench.score");
	assert_int_equal(r->family, FAMILY_KPI);
	assert_true(r->kpi);
	assert_int_equal(r->better, STAT_BETTER_HIGHER);
	assert_string_equal(r->unit, "points");
	assert_int_equal(r->vs[0].verdict, VERDICT_CHANGED);

	r = row_named(rows, n, "bench.rate_ops");
	assert_int_equal(r->family, FAMILY_OTHER);
	assert_false(r->kpi);
	assert_int_equal(r->better, STAT_BETTER_LOWER);

	r = row_named(rows, n, "a.latency");
	assert_int_equal(r->better, STAT_BETTER_LOWER);
	assert_null(r->unit);

	r = row_named(rows, n, "bench.util");
	assert_int_equal(r->better, STAT_BETTER_NONE);
	assert_true(r->vs[0].change.absolute);
	assert_true(fabs(r->vs[0].change.pct - 2) < 1e-9);
	compare_release(rows, n);

	/* opts->kpis adds to the declared KPIs */
	o.kpis = (const char *const[]){ "a.latency", NULL };
	assert_int_equal(compare_sets(sets, 2, &o, &rows, &n), 0);
	assert_string_equal(rows[0].name, "a.latency");
	assert_string_equal(rows[1].name, "bench.score");
	assert_int_equal(rows[0].family, FAMILY_KPI);
	assert_int_equal(rows[1].family, FAMILY_KPI);
	compare_release(rows, n);
	stat_meta_release(&base_meta);
	stat_meta_release(&new_meta);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(seed_001),
		cmocka_unit_test(directions),
		cmocka_unit_test(defaults),
		cmocka_unit_test(declared),
		cmocka_unit_test(families),
		cmocka_unit_test(three_commits),
		cmocka_unit_test(min_change_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
