/*
 * Unit tests: stats/verdict.  Hand-computed cases for each branch of
 * decide(), then seeded simulations of the two promises of docs/design.md §7:
 * no false alarms across a thousand null stats, and a 2% KPI shift found.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/bh.h"
#include "stats/summary.h"
#include "stats/ttest.h"
#include "stats/verdict.h"

#include <math.h>
#include <stdlib.h>

/* the KPI family's rule, docs/design.md §7 */
#define KPI_ALPHA 0.05
#define KPI_MIN 1.0
/* every other stat: Benjamini-Hochberg at q 0.05, 5% floor */
#define MON_Q 0.05
#define MON_MIN 5.0

/* a summary from n, mean and sem alone, as the hand cases need */
static struct summary sum_of(size_t n, double mean, double sem)
{
	return (struct summary){
		.n = n, .mean = mean, .sem = sem,
		.stddev = sem * sqrt((double)n),
		.min = mean, .max = mean, .median = mean,
	};
}

static enum verdict kpi(const struct summary *a, const struct summary *b,
			double p, struct pct_change *c)
{
	struct verdict_input in = {
		.a = a, .b = b, .p = p,
		.min_size_pct = KPI_MIN, .alpha = KPI_ALPHA, .level = 0.95,
	};

	return decide(&in, c);
}

static void changed(void **state)
{
	/*
	 * a: n 5, mean 100, sem 1; b: n 5, mean 110, sem 1 (the ratio_ci
	 * case of test_stats.c): r = 1.1, se(r) = 1.1 hypot(0.01, 1/110) =
	 * 0.0148661, df 8, t_0.975,8 = 2.306004, half width 0.0342814, so
	 * %change 10 in [6.57186, 13.42814].  p 0.001 < 0.05, 10 >= 1.
	 */
	struct summary a = sum_of(5, 100, 1), b = sum_of(5, 110, 1);
	struct pct_change c;

	(void)state;
	assert_int_equal(kpi(&a, &b, 0.001, &c), VERDICT_CHANGED);
	assert_false(c.absolute);
	assert_float_equal(c.pct, 10, 1e-9);
	assert_float_equal(c.low, 6.57186, 1e-4);
	assert_float_equal(c.high, 13.42814, 1e-4);
	/* the same numbers, not significant: the interval spans 6.6..13.4 */
	assert_int_equal(kpi(&a, &b, 0.2, &c), VERDICT_UNKNOWN);
	/* p exactly alpha is not below it */
	assert_int_equal(kpi(&a, &b, KPI_ALPHA, &c), VERDICT_UNKNOWN);
	/* and decreases are changes too */
	assert_int_equal(kpi(&b, &a, 0.001, &c), VERDICT_CHANGED);
	assert_float_equal(c.pct, -100.0 / 11, 1e-9);	/* 100/110 - 1 */
}

static void same(void **state)
{
	/*
	 * a: n 10, mean 100, sem 0.1; b: n 10, mean 100.2, sem 0.1.
	 * r = 1.002, rel = hypot(0.001, 0.1/100.2) = 0.00141280,
	 * se(r) = 0.00141563, df = 0.02^2 / (2 * 0.01^2 / 9) = 18,
	 * t_0.975,18 = 2.100922, half 0.0029741: %change 0.2 in
	 * [-0.09741, 0.49741], inside +-1.
	 */
	struct summary a = sum_of(10, 100, 0.1), b = sum_of(10, 100.2, 0.1);
	struct pct_change c;

	(void)state;
	assert_int_equal(kpi(&a, &b, 0.2, &c), VERDICT_SAME);
	assert_float_equal(c.pct, 0.2, 1e-9);
	assert_float_equal(c.low, -0.09741, 1e-4);
	assert_float_equal(c.high, 0.49741, 1e-4);
	/* significant but under the floor, and surely so: still same */
	assert_int_equal(kpi(&a, &b, 0.01, &c), VERDICT_SAME);
}

static void unknown(void **state)
{
	/*
	 * Too few runs to tell: a: n 3, mean 100, sem 2; b: n 3, mean 101,
	 * sem 2.  rel = hypot(0.02, 2/101) = 0.0281449, se(r) = 0.0284264,
	 * df = 64 / 16 = 4, t_0.975,4 = 2.776445, half 0.078924: %change 1
	 * in [-6.8924, 8.8924].
	 */
	struct summary a = sum_of(3, 100, 2), b = sum_of(3, 101, 2);
	/*
	 * Significant but under the floor, and maybe not: a: n 10, mean 100,
	 * sem 0.2; b: n 10, mean 100.8, sem 0.2.  rel = hypot(0.002,
	 * 0.2/100.8) = 0.00281722, se(r) = 0.00283976, df 18, half
	 * 0.0059661: %change 0.8 in [0.20339, 1.39661], which crosses 1.
	 */
	struct summary c10 = sum_of(10, 100, 0.2), d10 = sum_of(10, 100.8, 0.2);
	struct pct_change c;

	(void)state;
	assert_int_equal(kpi(&a, &b, 0.74, &c), VERDICT_UNKNOWN);
	assert_float_equal(c.low, -6.8924, 1e-3);
	assert_float_equal(c.high, 8.8924, 1e-3);
	assert_int_equal(kpi(&c10, &d10, 0.01, &c), VERDICT_UNKNOWN);
	assert_float_equal(c.pct, 0.8, 1e-9);
	assert_float_equal(c.low, 0.20339, 1e-4);
	assert_float_equal(c.high, 1.39661, 1e-4);
	/* NaN p: no verdict even though the interval says same */
	a = sum_of(5, 100, 0.01);
	b = sum_of(5, 100, 0.01);
	assert_int_equal(kpi(&a, &b, NAN, &c), VERDICT_UNKNOWN);
	assert_int_equal(kpi(&a, &b, 0.9, &c), VERDICT_SAME);
}

static void few_runs(void **state)
{
	/* 1 run against 5: +50% shown, no interval, no verdict */
	struct summary a = sum_of(1, 100, 0), b = sum_of(5, 150, 1);
	struct pct_change c;

	(void)state;
	assert_int_equal(kpi(&a, &b, 0.0001, &c), VERDICT_FEW_RUNS);
	assert_float_equal(c.pct, 50, 1e-9);
	assert_true(isnan(c.low) && isnan(c.high));
	/* 2 runs: an interval exists, still no verdict */
	a = sum_of(2, 100, 1);
	assert_int_equal(kpi(&a, &b, 0.0001, &c), VERDICT_FEW_RUNS);
	assert_false(isnan(c.low));
	assert_int_equal(kpi(&b, &a, 0.0001, NULL), VERDICT_FEW_RUNS);
	/* 3 runs is enough */
	a = sum_of(3, 100, 1);
	assert_int_equal(kpi(&a, &b, 0.0001, NULL), VERDICT_CHANGED);
}

static void constants(void **state)
{
	const double five[] = { 5, 5, 5 }, one[] = { 1, 1, 1 },
		     two[] = { 2, 2, 2 }, zero[] = { 0, 0, 0 };
	struct summary a, b;
	struct pct_change c;

	(void)state;
	/* identical constants: same, whatever p says */
	summarize(five, 3, &a);
	assert_int_equal(kpi(&a, &a, NAN, &c), VERDICT_SAME);
	assert_float_equal(c.pct, 0, 0);
	assert_float_equal(c.low, 0, 0);
	assert_float_equal(c.high, 0, 0);
	/* two different constants: Welch p = 0, +100% exactly */
	summarize(one, 3, &a);
	summarize(two, 3, &b);
	assert_int_equal(kpi(&a, &b, welch_test(&a, &b).p, &c), VERDICT_CHANGED);
	assert_float_equal(c.pct, 100, 1e-12);
	assert_float_equal(c.low, 100, 1e-12);
	assert_float_equal(c.high, 100, 1e-12);
	/* all zeros both sides: no percentage, no doubt */
	summarize(zero, 3, &a);
	assert_int_equal(kpi(&a, &a, NAN, &c), VERDICT_SAME);
	assert_true(c.absolute);
	assert_float_equal(c.pct, 0, 0);
}

static void zero_base(void **state)
{
	/*
	 * a = {-1, 0, 1}: mean 0, sd 1; b = {2, 3, 4}: mean 3, sd 1.
	 * No percentage of 0: the difference 3, se = sqrt(1/3 + 1/3) =
	 * 0.816497, df = (2/3)^2 / (2 (1/3)^2 / 2) = 4, t_0.975,4 =
	 * 2.776445, half 2.266958: 3 in [0.733042, 5.266958].
	 * Welch t = 3.674235 on 4 df; the t on 4 df has the closed form
	 * p = 1 - x (3 - x^2) / 2 with x = t / sqrt(4 + t^2): p = 0.021312
	 * (also by Simpson integration of the density).
	 */
	const double xa[] = { -1, 0, 1 }, xb[] = { 2, 3, 4 };
	struct summary a, b;
	struct pct_change c;
	double p;
	struct verdict_input in = { .a = &a, .b = &b, .alpha = 0.05,
				    .level = 0.95 };

	(void)state;
	summarize(xa, 3, &a);
	summarize(xb, 3, &b);
	p = welch_test(&a, &b).p;
	assert_float_equal(p, 0.021312, 1e-5);
	in.p = p;
	/* the floor is in the stat's unit now: 3 >= 1 */
	in.min_size_pct = 1;
	assert_int_equal(decide(&in, &c), VERDICT_CHANGED);
	assert_true(c.absolute);
	assert_float_equal(c.pct, 3, 1e-12);
	assert_float_equal(c.low, 0.733042, 1e-5);
	assert_float_equal(c.high, 5.266958, 1e-5);
	/* 3 < 5, and 5.27 > 5: could be either */
	in.min_size_pct = 5;
	assert_int_equal(decide(&in, &c), VERDICT_UNKNOWN);
	/* 0.73 .. 5.27 inside +-6: too small to matter */
	in.min_size_pct = 6;
	assert_int_equal(decide(&in, &c), VERDICT_SAME);
}

static void zero_new(void **state)
{
	/*
	 * b falls to mean 0: %change is exactly -100, the delta method has
	 * no interval (it divides by mean_b).  a = {1, 2, 3}, b = {-1, 0, 1}:
	 * t = -2 / 0.816497 = -2.449490 on 4 df, p = 0.070484 (closed
	 * form above).
	 */
	const double xa[] = { 1, 2, 3 }, xb[] = { -1, 0, 1 };
	struct summary a, b;
	struct pct_change c;
	double p;

	(void)state;
	summarize(xa, 3, &a);
	summarize(xb, 3, &b);
	p = welch_test(&a, &b).p;
	assert_float_equal(p, 0.070484, 1e-5);
	assert_int_equal(kpi(&a, &b, p, &c), VERDICT_UNKNOWN);
	assert_false(c.absolute);
	assert_float_equal(c.pct, -100, 1e-12);
	assert_true(isnan(c.low) && isnan(c.high));
	assert_int_equal(kpi(&a, &b, 0.01, &c), VERDICT_CHANGED);
}

static void names(void **state)
{
	(void)state;
	assert_string_equal(verdict_name(VERDICT_SAME), "same");
	assert_string_equal(verdict_name(VERDICT_CHANGED), "changed");
	assert_string_equal(verdict_name(VERDICT_UNKNOWN), "unknown");
	assert_string_equal(verdict_name(VERDICT_FEW_RUNS), "few runs");
	assert_string_equal(verdict_name((enum verdict)42), "?");
}

/*
 * Simulations.  Own PRNG so that the numbers are the same on every libc:
 * xorshift64* and Box-Muller.
 */
struct rng {
	uint64_t s;
	double spare;
	bool has_spare;
};

static uint64_t rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

/* uniform in (0, 1): never 0, log() below needs that */
static double rng_uniform(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(struct rng *r)
{
	double u, v, m;

	if (r->has_spare) {
		r->has_spare = false;
		return r->spare;
	}
	u = rng_uniform(r);
	v = rng_uniform(r);
	m = sqrt(-2 * log(u));
	r->spare = m * sin(2 * M_PI * v);
	r->has_spare = true;
	return m * cos(2 * M_PI * v);
}

/* n runs of a stat with mean `mean` and 1% CV */
static void draw(struct rng *r, double mean, size_t n, struct summary *s)
{
	double x[16];

	for (size_t i = 0; i < n; i++)
		x[i] = mean * (1 + 0.01 * rng_normal(r));
	summarize(x, n, s);
}

#define TRIALS 100
#define RUNS 10
#define NSTATS 1000

static void kpi_power(void **state)
{
	/* a 2% shift at 1% CV, 10 runs a side: found in >= 95 of 100 */
	struct rng r = { .s = 0x5eed0001 };
	int found = 0;

	(void)state;
	for (int t = 0; t < TRIALS; t++) {
		struct summary a, b;

		draw(&r, 100, RUNS, &a);
		draw(&r, 102, RUNS, &b);
		found += kpi(&a, &b, welch_test(&a, &b).p, NULL) ==
			 VERDICT_CHANGED;
	}
	print_message("2%% KPI shift, 10 runs, 1%% CV: changed in %d of %d trials\n",
		      found, TRIALS);
	assert_true(found >= 95);
}

static void null_family(void **state)
{
	/*
	 * 1,000 stats with identical distributions, 10 runs a side: in >= 95
	 * of 100 trials no stat is called changed, through Benjamini-Hochberg
	 * at q 0.05 and the monitor family's 5% floor.
	 */
	static struct summary a[NSTATS], b[NSTATS];
	static double p[NSTATS], q[NSTATS];
	struct rng r = { .s = 0x5eed0002 };
	int clean = 0, bh_clean = 0;

	(void)state;
	for (int t = 0; t < TRIALS; t++) {
		int alarms = 0;
		bool discovery = false;

		for (size_t i = 0; i < NSTATS; i++) {
			draw(&r, 100, RUNS, &a[i]);
			draw(&r, 100, RUNS, &b[i]);
			p[i] = welch_test(&a[i], &b[i]).p;
		}
		benjamini_hochberg(p, NSTATS, q);
		/*
		 * BH alone, floor aside: with every null true it keeps the
		 * chance of any discovery at q, so about 95 clean trials.
		 * Checked so that the 5% floor does not hide a broken BH.
		 */
		for (size_t i = 0; i < NSTATS; i++)
			discovery = discovery || q[i] < MON_Q;
		bh_clean += !discovery;
		for (size_t i = 0; i < NSTATS; i++) {
			struct verdict_input in = {
				.a = &a[i], .b = &b[i], .p = q[i],
				.min_size_pct = MON_MIN, .alpha = MON_Q,
				.level = 0.95,
			};

			/*
			 * decide() says changed only when p < alpha; the
			 * intervals (a t quantile by bisection each) of the
			 * other 100,000 would take this test from 0.15 s to
			 * 1.5 s and change nothing.
			 */
			if (q[i] < MON_Q)
				alarms += decide(&in, NULL) == VERDICT_CHANGED;
		}
		clean += !alarms;
	}
	print_message("1000 null stats, 10 runs, BH q 0.05, 5%% floor: "
		      "no alarm in %d of %d trials (BH alone: %d)\n",
		      clean, TRIALS, bh_clean);
	assert_true(clean >= 95);
	assert_true(bh_clean >= 90);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(changed),
		cmocka_unit_test(same),
		cmocka_unit_test(unknown),
		cmocka_unit_test(few_runs),
		cmocka_unit_test(constants),
		cmocka_unit_test(zero_base),
		cmocka_unit_test(zero_new),
		cmocka_unit_test(names),
		cmocka_unit_test(kpi_power),
		cmocka_unit_test(null_family),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
