/*
 * Unit tests: stats/summary and stats/ttest, against values computed
 * independently of this code (sources next to each number).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/summary.h"
#include "stats/ttest.h"

#include <math.h>

static void summary_values(void **state)
{
	/* worked by hand: mean 5, deviations -3 -1 -1 -1 0 0 2 4, SS 32 */
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct summary s;

	(void)state;
	summarize(x, 8, &s);
	assert_int_equal(s.n, 8);
	assert_float_equal(s.mean, 5, 1e-12);
	assert_float_equal(s.stddev, sqrt(32.0 / 7), 1e-12);
	assert_float_equal(s.sem, sqrt(32.0 / 7) / sqrt(8), 1e-12);
	assert_float_equal(s.min, 2, 0);
	assert_float_equal(s.max, 9, 0);
	assert_float_equal(s.median, 4.5, 0);
	/*
	 * |x - 4.5| = 2.5 0.5 0.5 0.5 0.5 0.5 2.5 4.5, sorted
	 * 0.5 0.5 0.5 0.5 0.5 2.5 2.5 4.5: the middle two are 0.5 and 0.5.
	 * Raw, not the 1.4826-scaled sigma estimate.
	 */
	assert_float_equal(s.mad, 0.5, 0);
	summarize(x, 3, &s);
	assert_float_equal(s.median, 4, 0);
	assert_float_equal(s.mad, 0, 0);	/* |{2,4,4} - 4| = 2 0 0 */
	summarize(x, 1, &s);
	assert_float_equal(s.stddev, 0, 0);	/* one value: no spread, no NaN */
	assert_float_equal(s.sem, 0, 0);
	assert_float_equal(s.mad, 0, 0);
	summarize(x, 0, &s);
	assert_int_equal(s.n, 0);
}

static void incomplete_beta(void **state)
{
	(void)state;
	/* integer a, b: a binomial tail; I_0.5(2, 3) = 11/16 */
	assert_float_equal(incbeta(2, 3, 0.5), 11.0 / 16, 1e-12);
	/* I_x(1, 1) = x; I_x(a, 1) = x^a */
	assert_float_equal(incbeta(1, 1, 0.3), 0.3, 1e-12);
	assert_float_equal(incbeta(3.5, 1, 0.7), pow(0.7, 3.5), 1e-12);
	/* symmetry I_x(a, b) = 1 - I_{1-x}(b, a) */
	assert_float_equal(incbeta(2.5, 7, 0.2), 1 - incbeta(7, 2.5, 0.8), 1e-12);
	assert_float_equal(incbeta(2, 3, 0), 0, 0);
	assert_float_equal(incbeta(2, 3, 1), 1, 0);
	assert_true(isnan(incbeta(-1, 3, 0.5)));
}

static void t_distribution(void **state)
{
	(void)state;
	/* df 1 is Cauchy: F(t) = 1/2 + atan(t) / pi */
	assert_float_equal(t_cdf(1, 1), 0.75, 1e-12);
	assert_float_equal(t_cdf(-3, 1), 0.5 + atan(-3) / M_PI, 1e-12);
	/* df 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2)) */
	assert_float_equal(t_cdf(2, 2), 0.5 + 2 / (2 * sqrt(6)), 1e-12);
	assert_float_equal(t_cdf(0, 7.3), 0.5, 1e-15);
	/* quantiles from the standard t table (6 decimals) */
	assert_float_equal(t_quantile(0.975, 1), 12.706205, 1e-6);
	assert_float_equal(t_quantile(0.975, 4), 2.776445, 1e-6);
	assert_float_equal(t_quantile(0.975, 10), 2.228139, 1e-6);
	assert_float_equal(t_quantile(0.95, 30), 1.697261, 1e-6);
	assert_float_equal(t_quantile(0.025, 8), -2.306004, 1e-6);
	/* large df approaches the normal: z_0.975 = 1.959964 */
	assert_float_equal(t_quantile(0.975, 1e7), 1.959964, 1e-5);
	assert_true(isnan(t_quantile(1, 5)));
}

static void welch_reference(void **state)
{
	/*
	 * Wikipedia, "Welch's t-test", example 1: t = -2.46, df = 25.0,
	 * p = 0.021 (t and df recomputed with Python's statistics module:
	 * -2.455356, 24.98853).
	 */
	const double a1[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
			      21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
	const double a2[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
			      24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
	struct summary a, b;
	struct welch w;

	(void)state;
	summarize(a1, 15, &a);
	summarize(a2, 15, &b);
	w = welch_test(&b, &a);	/* t = (mean a1 - mean a2) / se */
	assert_float_equal(w.t, -2.455356, 1e-6);
	assert_float_equal(w.df, 24.98853, 1e-5);
	assert_float_equal(w.p, 0.021, 0.0005);
	/* the other way round: same p, opposite t */
	w = welch_test(&a, &b);
	assert_float_equal(w.t, 2.455356, 1e-6);
	assert_float_equal(w.p, 0.021, 0.0005);
}

static void welch_edges(void **state)
{
	const double same[] = { 1, 1, 1 }, other[] = { 2, 2, 2 };
	struct summary a, b;
	struct welch w;

	(void)state;
	summarize(same, 3, &a);
	summarize(other, 3, &b);
	w = welch_test(&a, &a);
	assert_float_equal(w.p, 1, 0);
	w = welch_test(&a, &b);
	assert_float_equal(w.p, 0, 0);
	summarize(same, 1, &a);
	w = welch_test(&a, &b);
	assert_true(isnan(w.p));	/* one run: no test, not a crash */
}

static void ratio_ci(void **state)
{
	/*
	 * a: mean 100, sem 1, n 5; b: mean 110, sem 1, n 5.  By hand:
	 * r = 1.1, se = 1.1 * hypot(0.01, 1/110) = 0.0148661,
	 * df = (1 + 1)^2 / (1/4 + 1/4) = 8, t_0.975,8 = 2.306004 (table).
	 */
	struct summary a = { .n = 5, .mean = 100, .sem = 1 };
	struct summary b = { .n = 5, .mean = 110, .sem = 1 };
	struct ratio_interval r = ratio_interval(&a, &b, 0.95);
	double half = 2.306004 * 1.1 * hypot(0.01, 1.0 / 110);

	(void)state;
	assert_float_equal(r.ratio, 1.1, 1e-12);
	assert_float_equal(r.low, 1.1 - half, 1e-6);
	assert_float_equal(r.high, 1.1 + half, 1e-6);
	a.n = 1;
	r = ratio_interval(&a, &b, 0.95);
	assert_float_equal(r.ratio, 1.1, 1e-12);
	assert_true(isnan(r.low) && isnan(r.high));
}

static void trimmed(void **state)
{
	/*
	 * x = 1..9, 100 trimmed at 0.2: n 10, g = floor(0.2 10) = 2, h 6.  Trimmed mean
	 * mean(3..8) = 5.5; winsorized {3,3,3,4,5,6,7,8,8,8}, mean 5.5,
	 * squares 6 (2.5^2) + 2 (1.5^2) + 2 (0.5^2) = 42.5; tsem =
	 * sqrt(42.5 / (6 5)) = 1.1902381.
	 */
	const double x[] = { 7, 2, 100, 4, 1, 9, 5, 3, 8, 6 };
	const double y[] = { 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 };
	struct summary a, b, c;
	struct welch w;

	(void)state;
	summarize_trim(x, 10, 0.2, &a);
	assert_int_equal(a.h, 6);
	assert_float_equal(a.tmean, 5.5, 1e-12);
	assert_float_equal(a.tsem, 1.1902381, 1e-7);
	assert_float_equal(a.mean, 14.5, 1e-12);
	/* y: trimmed 7..12, mean 9.5; winsorized {7,7,7,8,9,10,11,12,12,12}: same squares */
	summarize_trim(y, 10, 0.2, &b);
	assert_float_equal(b.tmean, 9.5, 1e-12);
	assert_float_equal(b.tsem, 1.1902381, 1e-7);
	/*
	 * Yuen: t = 4 / (1.1902381 sqrt 2) = 2.3763541 on (5 + 5) = 10 df
	 * (equal variances: Satterthwaite gives 2 (h - 1)); t_0.975,10 =
	 * 2.228139, t_0.98,10 ~ 2.359 < t < t_0.985,10 ~ 2.527: 0.03 < p < 0.04.
	 */
	w = yuen_test(&a, &b);
	assert_float_equal(w.t, 2.3763541, 1e-6);
	assert_float_equal(w.df, 10, 1e-12);
	assert_true(w.p > 0.03 && w.p < 0.04);
	assert_float_equal(yuen_df(&a, &b), 10, 1e-12);
	/* Welch on the means is blinded by the 100 */
	assert_true(welch_test(&a, &b).p > 0.5);
	/* SUMMARY_TRIM, 0.1: one a side, x trimmed 2..9 */
	summarize(x, 10, &c);
	assert_int_equal(c.h, 8);
	assert_float_equal(c.tmean, 5.5, 1e-12);
	/* from 5 values on, at least one a side: 1, 2, 4, 5 and 100 -> 2, 4, 5 */
	{
		const double five[] = { 100, 2, 4, 1, 5 };

		summarize(five, 5, &c);
		assert_int_equal(c.h, 3);
		assert_float_equal(c.tmean, 11.0 / 3, 1e-12);
	}
	/* fewer than 5 values: untrimmed, Yuen is Welch bit for bit */
	summarize(x, 4, &a);
	summarize(y, 4, &b);
	assert_int_equal(a.h, 4);
	assert_true(a.tmean == a.mean && a.tsem == a.sem);
	assert_true(yuen_test(&a, &b).p == welch_test(&a, &b).p);
	/* constants: no spread, their own mean */
	{
		const double k[] = { 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1 };

		summarize(k, 7, &a);
		assert_true(a.mean == 0.1 && a.tmean == 0.1 && a.tsem == 0 && a.stddev == 0);
	}
}

static void extreme_scale(void **state)
{
	/* sums and squares of 1e300 and of subnormals, finite and exact in ratio */
	const double big[] = { 1.7e308, 1.6e308, 1.75e308, 1.65e308, 1.7e308 };
	const double sub[] = { 4e-320, 5e-320, 6e-320 };
	const double mid[] = { 4, 5, 6 };
	struct summary a, b;

	(void)state;
	summarize(big, 5, &a);
	assert_true(isfinite(a.mean) && isfinite(a.stddev) && isfinite(a.tsem));
	assert_float_equal((a.mean / 1e308), 1.68, 1e-12);
	assert_float_equal((a.stddev / 1e308), 0.0570088, 1e-6);
	assert_float_equal((a.tmean / 1e308), 1.6833333, 1e-6);
	summarize(sub, 3, &a);
	summarize(mid, 3, &b);
	assert_float_equal((a.mean / 1e-320), 5, 1e-3);
	assert_float_equal((a.stddev / 1e-320), 1, 1e-3);
	assert_true(a.sem > 0 && a.mad > 0);
	/* the test does not see the scale */
	assert_float_equal(welch_test(&a, &a).p, 1, 1e-12);
	{
		const double sub2[] = { 6e-320, 7e-320, 8e-320 }, mid2[] = { 6, 7, 8 };
		struct summary c, d;

		summarize(sub2, 3, &c);
		summarize(mid2, 3, &d);
		assert_float_equal(welch_test(&a, &c).p, welch_test(&b, &d).p, 1e-3);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summary_values),
		cmocka_unit_test(incomplete_beta),
		cmocka_unit_test(t_distribution),
		cmocka_unit_test(welch_reference),
		cmocka_unit_test(welch_edges),
		cmocka_unit_test(ratio_ci),
		cmocka_unit_test(trimmed),
		cmocka_unit_test(extreme_scale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
