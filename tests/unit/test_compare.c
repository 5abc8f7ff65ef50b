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
		{ "b121b341e5983bdc", 3, na, va, ca, 2, NULL, NULL },
		{ "492e639f0c222784", 2, nb, vb, cb, 2, NULL, NULL },
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
		{ "base", 7, names, va, ca, 5, NULL, NULL },
		{ "new", 6, names, vb, cb, 5, NULL, NULL },
	};
	struct compare_opts o;
	struct stat_row *rows;
	const struct stat_row *r;
	size_t n;

	(void)state;
	compare_opts_init(&o);
	o.kpis = kpis;
	assert_int_equal(compare_sets(sets, 2, &o, &rows, &n), 0);
	/* only.base is on one side only: a row, gone (issue 12) */
	assert_int_equal(n, 7);
	r = row_named(rows, n, "only.base");
	assert_non_null(r);
	assert_int_equal(r->vs[0].verdict, VERDICT_GONE);
	assert_true(fabs(r->vs[0].change.pct + 100) < 1e-12);
	assert_int_equal(r->vs[0].s.n, 0);
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
		{ "a", 2, names, v0, c, 3, NULL, NULL },
		{ "b", 2, names, v1, c, 3, NULL, NULL },
		{ "c", 2, names, v2, c, 3, NULL, NULL },
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
		{ "base", 2, names, va, c, 5, NULL, NULL },
		{ "new", 2, names, vb, c, 5, NULL, NULL },
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
		{ "base", 4, names, va, c, 4, &base_meta, NULL },
		{ "new", 4, names, vb, c, 4, &new_meta, NULL },
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

/* set helpers for the issue 12 cases: one stat, n runs a side */
#define SET(name, nstats, names, values, counts, runs) \
	{ name, nstats, names, values, counts, runs, NULL, NULL }

/* one-sided numeric stats: new, gone, and neither side of a column */
static void one_sided(void **state)
{
	char *n0[] = { "only.base", "x.both" }, *n1[] = { "only.new", "x.both" },
	     *n2[] = { "only.base", "only.new", "x.both" };
	double ob[] = { 5, 6, 7 }, on[] = { 3, 3, 3 }, xb[] = { 1, 1.01, 0.99 };
	double *v0[] = { ob, xb }, *v1[] = { on, xb }, *v2[] = { ob, on, xb };
	size_t c2[] = { 3, 3 }, c3[] = { 3, 3, 3 };
	struct sample_set sets[] = {
		SET("a", 2, n0, v0, c2, 3),
		SET("b", 2, n1, v1, c2, 3),
		SET("c", 3, n2, v2, c3, 3),
	};
	struct compare_opts o;
	struct stat_row *rows;
	const struct stat_row *r;
	size_t n;

	(void)state;
	compare_opts_init(&o);
	assert_int_equal(compare_sets(sets, 3, &o, &rows, &n), 0);
	assert_int_equal(n, 3);
	r = row_named(rows, n, "only.new");
	assert_non_null(r);
	assert_int_equal(r->base.n, 0);
	/* b and c have it, the base not: new, the new side's mean, absolute */
	assert_int_equal(r->vs[0].verdict, VERDICT_NEW);
	assert_true(r->vs[0].change.absolute);
	assert_true(fabs(r->vs[0].change.pct - 3) < 1e-12);
	assert_true(isnan(r->vs[0].change.low) && isnan(r->vs[0].p));
	assert_int_equal(r->vs[1].verdict, VERDICT_NEW);
	r = row_named(rows, n, "only.base");
	/* b lacks it: gone, -100%; c has it: an ordinary comparison */
	assert_int_equal(r->vs[0].verdict, VERDICT_GONE);
	assert_false(r->vs[0].change.absolute);
	assert_true(fabs(r->vs[0].change.pct + 100) < 1e-12);
	assert_int_equal(r->vs[1].verdict, VERDICT_UNKNOWN);
	assert_true(r->vs[1].change.pct == 0 && !r->vs[1].change.absolute);
	compare_release(rows, n);

	/* b as the base: only.base is in neither b nor ... a column of neither */
	{
		struct sample_set two[] = { sets[1], sets[1] };

		two[1].names = n0;
		two[1].values = v0;
		two[1].nr = 2;
		assert_int_equal(compare_sets(two, 2, &o, &rows, &n), 0);
		r = row_named(rows, n, "only.new");
		assert_int_equal(r->vs[0].verdict, VERDICT_GONE);
		r = row_named(rows, n, "only.base");
		assert_int_equal(r->vs[0].verdict, VERDICT_NEW);
		compare_release(rows, n);
	}
	/* three columns where the middle one lacks a stat the third has */
	{
		struct sample_set t[] = { sets[1], sets[0], sets[2] };

		assert_int_equal(compare_sets(t, 3, &o, &rows, &n), 0);
		r = row_named(rows, n, "only.base");
		assert_int_equal(r->base.n, 0);
		assert_int_equal(r->vs[0].verdict, VERDICT_NEW);
		assert_int_equal(r->vs[1].verdict, VERDICT_NEW);
		compare_release(rows, n);
	}
	/* a column where neither side has the stat: n = 0, few runs */
	{
		struct sample_set t[] = { sets[1], sets[1], sets[0] };

		assert_int_equal(compare_sets(t, 3, &o, &rows, &n), 0);
		r = row_named(rows, n, "only.base");
		assert_int_equal(r->base.n, 0);
		assert_int_equal(r->vs[0].s.n, 0);
		assert_int_equal(r->vs[0].verdict, VERDICT_FEW_RUNS);
		assert_int_equal(r->vs[1].verdict, VERDICT_NEW);
		compare_release(rows, n);
	}
	/* two runs on the side that lacks it: few runs, not new */
	{
		struct sample_set t[] = { sets[0], sets[1] };

		t[0].nr_runs = 2;
		assert_int_equal(compare_sets(t, 2, &o, &rows, &n), 0);
		r = row_named(rows, n, "only.new");
		assert_int_equal(r->vs[0].verdict, VERDICT_FEW_RUNS);
		assert_true(fabs(r->vs[0].change.pct - 3) < 1e-12);
		compare_release(rows, n);
	}
}

/* zero and negative bases, constants, outliers, 1e300: through compare_sets() */
static void edges(void **state)
{
	char *names[] = { "c.count", "d.neg", "e.const", "f.big", KPI };
	double c0[] = { 0, 0, 0, 0, 0 }, c1[] = { 3, 3, 3, 3, 3 };
	double d0[] = { -1.01e6, -1.005e6, -1e6, -0.995e6, -0.99e6 };
	double d1[] = { -0.91e6, -0.905e6, -0.9e6, -0.895e6, -0.89e6 };
	double e0[] = { 7, 7, 7, 7, 7 }, e1[] = { 9, 9, 9, 9, 9 };
	double f0[] = { 1e300, 1.01e300, 0.99e300, 1.005e300, 0.995e300 };
	double f1[] = { 1.1e300, 1.11e300, 1.09e300, 1.105e300, 1.095e300 };
	/* 10 runs, 1% noise, one run a side +20%, a real -5% */
	double k0[] = { 100.3, 99.1, 100.8, 99.6, 100.1, 98.9, 100.4, 99.8, 101.0, 120.0 };
	double k1[] = { 95.2, 94.6, 95.9, 94.1, 95.0, 95.6, 94.4, 95.3, 94.8, 114.0 };
	double *va[] = { c0, d0, e0, f0, k0 }, *vb[] = { c1, d1, e1, f1, k1 };
	size_t ca[] = { 5, 5, 5, 5, 10 };
	struct sample_set sets[] = {
		SET("base", 5, names, va, ca, 10),
		SET("new", 5, names, vb, ca, 10),
	};
	struct compare_opts o;
	struct stat_row *rows;
	const struct stat_vs *v;
	size_t n;

	(void)state;
	compare_opts_init(&o);
	o.kpis = kpis;
	assert_int_equal(compare_sets(sets, 2, &o, &rows, &n), 0);
	assert_int_equal(n, 5);
	/* 0 -> 3 in every run: changed, absolute, p 0 */
	v = &row_named(rows, n, "c.count")->vs[0];
	assert_int_equal(v->verdict, VERDICT_CHANGED);
	assert_true(v->change.absolute);
	assert_true(v->change.pct == 3 && v->change.low == 3 && v->change.high == 3);
	assert_true(v->p == 0);
	assert_true(isnan(v->mean_pct));
	/* -1e6 -> -0.9e6: +10%, an increase */
	v = &row_named(rows, n, "d.neg")->vs[0];
	assert_int_equal(v->verdict, VERDICT_CHANGED);
	assert_true(fabs(v->change.pct - 10) < 1e-9 && v->change.low > 0);
	assert_true(fabs(v->mean_pct - 10) < 1e-9);
	/* two different constants: changed, +28.6% */
	v = &row_named(rows, n, "e.const")->vs[0];
	assert_int_equal(v->verdict, VERDICT_CHANGED);
	assert_true(fabs(v->change.pct - 200.0 / 7) < 1e-9);
	/* 1e300: finite, +10%, changed (5% floor of the others) */
	v = &row_named(rows, n, "f.big")->vs[0];
	assert_int_equal(v->verdict, VERDICT_CHANGED);
	assert_true(fabs(v->change.pct - 10) < 0.01);
	assert_true(isfinite(v->change.low) && v->change.low > 5 && isfinite(v->s.stddev));
	assert_true(fabs(v->mean_pct - 10) < 1e-9);
	/* the outlier runs do not hide -5% */
	v = &rows[0].vs[0];
	assert_string_equal(rows[0].name, KPI);
	assert_int_equal(v->verdict, VERDICT_CHANGED);
	assert_true(v->change.pct < -4 && v->change.high < 0);
	assert_true(v->mwu_p < 0.05);
	compare_release(rows, n);
}

/* a run failed when its value is >= 1 (a count); 0 and fractions are no failure */
static void failure_counts(void **state)
{
	char *names[] = { "dmesg.WARNING" };
	double f0[] = { 0, 0.5, 0, 0.99 }, f1[] = { 1, 2, 7, 0 };
	double *va[] = { f0 }, *vb[] = { f1 };
	size_t ca[] = { 4 }, cb[] = { 4 };
	struct sample_set sets[] = {
		SET("base", 1, names, va, ca, 5),
		SET("new", 1, names, vb, cb, 5),
	};
	struct compare_opts o;
	struct stat_row *rows;
	size_t n;

	(void)state;
	compare_opts_init(&o);
	assert_int_equal(compare_sets(sets, 2, &o, &rows, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].base_fails, 0);
	assert_int_equal(rows[0].base_runs, 5);
	assert_int_equal(rows[0].vs[0].fails, 3);
	assert_int_equal(rows[0].vs[0].runs, 5);
	assert_true(fabs(rows[0].vs[0].reproduction - 60) < 1e-9);
	compare_release(rows, n);
}

/* UNKNOWN rows say how many runs would likely decide; others say 0 */
static void more_runs(void **state)
{
	char *names[] = { "x.noisy", KPI };
	double x0[] = { 100, 104, 96 }, x1[] = { 103, 107, 99 }, k[] = { 10, 10.01, 9.99 };
	double *va[] = { x0, k }, *vb[] = { x1, k };
	size_t c[] = { 3, 3 };
	struct sample_set sets[] = {
		SET("base", 2, names, va, c, 3),
		SET("new", 2, names, vb, c, 3),
	};
	struct compare_opts o;
	struct stat_row *rows;
	const struct stat_vs *v;
	size_t n;

	(void)state;
	compare_opts_init(&o);
	o.kpis = (const char *const[]){ "x.noisy", NULL };
	assert_int_equal(compare_sets(sets, 2, &o, &rows, &n), 0);
	v = &row_named(rows, n, "x.noisy")->vs[0];
	/* +3% at 4% CV, 3 runs: unknown; ~(2 + 0.84)^2 2 16 / 9 ~ 29 a side */
	assert_int_equal(v->verdict, VERDICT_UNKNOWN);
	assert_in_range(v->more_runs, 20, 40);
	v = &row_named(rows, n, KPI)->vs[0];
	assert_int_not_equal(v->verdict, VERDICT_UNKNOWN);
	assert_int_equal(v->more_runs, 0);
	compare_release(rows, n);
}

/* the disturbance gate: differing sides turn changed into unknown, both ways */
static void disturbance(void **state)
{
	char *names[] = { "dmesg.BUG", STAT_DISTURBANCE_CPU, STAT_DISTURBANCE_RUNNABLE,
			  "t.small", KPI };
	double f0[] = { 0, 0, 0, 0, 0 }, f1[] = { 1, 1, 1, 1, 1 };
	double q0[] = { 0.02, 0.03, 0.02, 0.01, 0.02 }, h1[] = { 1.02, 1.0, 0.98, 1.01, 1.0 };
	double r0[] = { 3.1, 3.0, 3.2, 3.1, 3.1 }, r1[] = { 4.0, 4.1, 3.9, 4.0, 4.0 };
	double s0[] = { 1000, 1001, 999, 1000.5, 999.5 }, s1[] = { 1010, 1011, 1009, 1010.5, 1009.5 };
	double k0[] = { 100, 101, 99, 100.5, 99.5 }, k1[] = { 110, 111, 109, 110.5, 109.5 };
	double *va[] = { f0, q0, r0, s0, k0 }, *quiet[] = { f1, q0, r0, s1, k1 },
	       *hog[] = { f1, h1, r0, s1, k1 }, *busy[] = { f1, q0, r1, s1, k1 };
	size_t c[] = { 5, 5, 5, 5, 5 };
	struct sample_set sets[] = {
		SET("base", 5, names, va, c, 5),
		SET("quiet", 5, names, quiet, c, 5),
		SET("hog", 5, names, hog, c, 5),
		SET("busy", 5, names, busy, c, 5),
	};
	struct compare_disturbance d;
	struct compare_opts o;
	struct stat_row *rows;
	const struct stat_row *r;
	size_t n;

	(void)state;
	compare_disturbance(&sets[0], &sets[1], &d);
	assert_false(d.differs);
	assert_null(d.what);
	compare_disturbance(&sets[0], &sets[2], &d);
	assert_true(d.differs);
	assert_string_equal(d.what, STAT_DISTURBANCE_CPU);
	assert_true(fabs(d.base - 0.02) < 1e-12 && fabs(d.other - 1.002) < 1e-12);
	assert_true(d.limit == COMPARE_DISTURBANCE_CPU);
	/*
	 * runnable tasks differing alone do not gate: a benchmark's own
	 * queued tasks (hackbench's dozens) cannot be told from others'
	 */
	compare_disturbance(&sets[0], &sets[3], &d);
	assert_false(d.differs);
	/* runs that recorded nothing (imported, older): not gated */
	{
		char *plain[] = { KPI };
		double *pk[] = { k1 };
		struct sample_set imported = SET("imported", 1, plain, pk, c, 5);

		compare_disturbance(&sets[0], &imported, &d);
		assert_false(d.differs);
		compare_disturbance(&imported, &sets[2], &d);
		assert_false(d.differs);
	}

	compare_opts_init(&o);
	o.kpis = kpis;
	assert_int_equal(compare_sets(sets, 4, &o, &rows, &n), 0);
	r = &rows[0];
	assert_string_equal(r->name, KPI);
	/* quiet: +10% changed, not disturbed */
	assert_int_equal(r->vs[0].verdict, VERDICT_CHANGED);
	assert_false(r->vs[0].disturbed);
	/* busy (runnable only): still changed */
	assert_int_equal(r->vs[2].verdict, VERDICT_CHANGED);
	assert_false(r->vs[2].disturbed);
	/* hog: the same +10% is unknown, disturbed */
	for (int j = 1; j < 2; j++) {
		assert_int_equal(r->vs[j].verdict, VERDICT_UNKNOWN);
		assert_true(r->vs[j].disturbed);
		/* the numbers stay for the report */
		assert_true(r->vs[j].change.low > 0);
	}
	/* +1% under the 5% floor: small when quiet, unknown when disturbed */
	r = row_named(rows, n, "t.small");
	assert_int_equal(r->vs[0].verdict, VERDICT_SMALL);
	assert_int_equal(r->vs[1].verdict, VERDICT_UNKNOWN);
	assert_true(r->vs[1].disturbed);
	/* failure verdicts are not gated */
	r = row_named(rows, n, "dmesg.BUG");
	for (int j = 0; j < 3; j++) {
		assert_int_equal(r->vs[j].verdict, VERDICT_CHANGED);
		assert_false(r->vs[j].disturbed);
	}
	compare_release(rows, n);
}

/* compare_order(): interleaved, apart, unknown; the switches counted */
static void run_order(void **state)
{
	double alt_a[] = { 1, 3, 5 }, alt_b[] = { 2, 4, 6 };
	double late_b[] = { 10, 11, 12 }, same[] = { 7, 7, 7 };
	double mixed_a[] = { 1, 2, 5 }, mixed_b[] = { 3, 4, 6 };
	struct sample_set a = { .nr_runs = 3, .started = alt_a },
			  b = { .nr_runs = 3, .started = alt_b };
	struct compare_order_info oi;

	(void)state;
	compare_order(&a, &b, &oi);
	assert_int_equal(oi.order, COMPARE_ORDER_INTERLEAVED);
	assert_int_equal(oi.switches, 5);
	assert_int_equal(oi.needed, 3);
	assert_true(oi.base_first == 1 && oi.other_last == 6);
	b.started = late_b;
	compare_order(&a, &b, &oi);
	assert_int_equal(oi.order, COMPARE_ORDER_APART);
	assert_int_equal(oi.switches, 1);
	/* A A B B A B: 3 changes of side for 3 a side */
	a.started = mixed_a;
	b.started = mixed_b;
	compare_order(&a, &b, &oi);
	assert_int_equal(oi.order, COMPARE_ORDER_INTERLEAVED);
	assert_int_equal(oi.switches, 3);
	/* an imported side: one start time for all its runs */
	b.started = same;
	compare_order(&a, &b, &oi);
	assert_int_equal(oi.order, COMPARE_ORDER_UNKNOWN);
	assert_true(isnan(oi.base_first));
	/* no times, or one run */
	b.started = NULL;
	compare_order(&a, &b, &oi);
	assert_int_equal(oi.order, COMPARE_ORDER_UNKNOWN);
	b.started = late_b;
	b.nr_runs = 1;
	compare_order(&a, &b, &oi);
	assert_int_equal(oi.order, COMPARE_ORDER_UNKNOWN);
	assert_string_equal(compare_order_name(COMPARE_ORDER_APART), "apart");
}

/*
 * compare_order(): A's runs at 0..9, then A B A B ... from 10 to 29: the
 * sides change 19 times for 10 of B, but 11 of A's 20 runs lie outside the
 * stretch both were measured in (11..28) -- apart.  Two outside (the
 * alternation's own ends) are allowed, a fifth of many too.
 */
static void run_order_lead_in(void **state)
{
	double a_t[40], b_t[40];
	struct sample_set a = { .started = a_t }, b = { .started = b_t };
	struct compare_order_info oi;
	size_t na = 0, nb = 0;

	(void)state;
	for (int t = 0; t < 10; t++)
		a_t[na++] = t;
	for (int t = 10; t < 30; t++) {
		if (t % 2)
			b_t[nb++] = t;
		else
			a_t[na++] = t;
	}
	a.nr_runs = na;
	b.nr_runs = nb;
	compare_order(&a, &b, &oi);
	assert_int_equal(oi.switches, 19);
	assert_true(oi.switches >= oi.needed);
	assert_int_equal(oi.base_outside, 11);
	assert_int_equal(oi.other_outside, 1);
	assert_int_equal(oi.order, COMPARE_ORDER_APART);
	/* the lead-in cut to A's runs from 9 on: 9 and 10 outside, interleaved */
	a.started = a_t + 9;
	a.nr_runs = na - 9;
	compare_order(&a, &b, &oi);
	assert_int_equal(oi.base_outside, 2);
	assert_int_equal(oi.order, COMPARE_ORDER_INTERLEAVED);
	/* from 8 on: 3 outside of 12, apart */
	a.started = a_t + 8;
	a.nr_runs = na - 8;
	compare_order(&a, &b, &oi);
	assert_int_equal(oi.base_outside, 3);
	assert_int_equal(oi.order, COMPARE_ORDER_APART);
	assert_int_equal(compare_order_outside_max(12), 2);
	/*
	 * A B A B (0..9), then ten of B alone (10..19) for another comparison,
	 * then A B A B again (20..29): the same stretch, 19 switches, nothing
	 * outside but A's first -- but B's ten ran while A did not: apart.
	 * Five of B in a row of 17 (at most 3) are apart too; three of 16
	 * stay interleaved.
	 */
	na = nb = 0;
	for (int t = 0; t < 30; t++) {
		if (t >= 10 && t < 20)
			b_t[nb++] = t;
		else if (t % 2)
			b_t[nb++] = t;
		else
			a_t[na++] = t;
	}
	a = (struct sample_set){ .started = a_t, .nr_runs = na };
	b = (struct sample_set){ .started = b_t, .nr_runs = nb };
	compare_order(&a, &b, &oi);
	assert_int_equal(oi.base_outside, 1);	/* A's first, at 0 */
	assert_true(oi.switches >= oi.needed);
	assert_int_equal(oi.other_block, 11);
	assert_int_equal(oi.base_block, 1);
	assert_int_equal(oi.order, COMPARE_ORDER_APART);
	na = nb = 0;
	for (int t = 0; t < 30; t++) {
		if (t % 2 || t == 12 || t == 14)
			b_t[nb++] = t;
		else
			a_t[na++] = t;
	}
	a.nr_runs = na;
	b.nr_runs = nb;
	compare_order(&a, &b, &oi);
	assert_int_equal(oi.other_block, 5);
	assert_int_equal(oi.order, COMPARE_ORDER_APART);
	na = nb = 0;
	for (int t = 0; t < 30; t++) {
		if (t % 2 || t == 12)
			b_t[nb++] = t;
		else
			a_t[na++] = t;
	}
	a.nr_runs = na;
	b.nr_runs = nb;
	compare_order(&a, &b, &oi);
	assert_int_equal(oi.other_block, 3);
	assert_int_equal(oi.order, COMPARE_ORDER_INTERLEAVED);
	assert_int_equal(compare_order_outside_max(15), 3);
	assert_int_equal(compare_order_outside_max(40), 8);
}

/*
 * compare_window_start(): where the runs at the end of two commits'
 * start to alternate.  A's 0..4 alone, then A B A B from 10: from 4 (A's
 * 4 and 10 are the two lead-in runs a window tolerates).  B's five in a
 * row after A's last: B's last alone (an alternation may start there).
 * A's 0 1 2, B's 10 11 12, A's 20: from B's 11 (B B A: the start of an
 * alternation).  No run at all: a time after every run.
 */
static void window_start(void **state)
{
	double a1[] = { 0, 1, 2, 3, 4, 10, 12, 14, 16 }, b1[] = { 11, 13, 15, 17 };
	double a2[] = { 0, 2, 4 }, b2[] = { 5, 6, 7, 8, 9 };
	double a3[] = { 0, 1, 2, 20 }, b3[] = { 10, 11, 12 };

	(void)state;
	/* A's 4 and 10 lie before B's first: two outside, as the window allows */
	assert_true(compare_window_start(a1, 9, b1, 4) == 4);
	assert_false(compare_alternate_from(a1, 9, b1, 4, 3));
	assert_true(compare_window_start(a2, 3, b2, 5) == 9);
	assert_true(compare_window_start(a2, 0, b2, 0) > 0);
	assert_true(compare_window_start(a3, 4, b3, 3) == 11);
	assert_true(compare_alternate_from(a3, 4, b3, 3, 11));
	assert_false(compare_alternate_from(a3, 4, b3, 3, 10));
	/* from 2, A's 2 and 20 span B's three in a row: a streak, apart */
	assert_false(compare_alternate_from(a3, 4, b3, 3, 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(run_order),
		cmocka_unit_test(run_order_lead_in),
		cmocka_unit_test(window_start),
		cmocka_unit_test(seed_001),
		cmocka_unit_test(directions),
		cmocka_unit_test(defaults),
		cmocka_unit_test(declared),
		cmocka_unit_test(families),
		cmocka_unit_test(three_commits),
		cmocka_unit_test(min_change_rules),
		cmocka_unit_test(one_sided),
		cmocka_unit_test(edges),
		cmocka_unit_test(failure_counts),
		cmocka_unit_test(more_runs),
		cmocka_unit_test(disturbance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
