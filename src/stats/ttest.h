/*
 * ttest.h - Student's t distribution, Welch's unequal-variance t-test and
 * Yuen's trimmed-mean version of it, and the confidence interval of a
 * ratio of two means.
 *
 * All own code (no GPL-3 libraries): the t distribution goes through the
 * regularized incomplete beta function, evaluated by its continued
 * fraction.  Pure functions; thread-safe.
 */
#ifndef PERFBOT_STATS_TTEST_H
#define PERFBOT_STATS_TTEST_H

#include "stats/summary.h"

/* I_x(a, b), the regularized incomplete beta function; a, b > 0, 0 <= x <= 1. */
double incbeta(double a, double b, double x);

/* P(T <= t) for Student's t with df > 0 degrees of freedom. */
double t_cdf(double t, double df);

/* The t with P(T <= t) = p, 0 < p < 1. */
double t_quantile(double p, double df);

struct welch {
	double t;		/* (mean_b - mean_a) / standard error */
	double df;		/* Welch-Satterthwaite degrees of freedom */
	double p;		/* two-sided p-value; NaN when undefined */
};

/*
 * Welch's t-test of a against b.  Needs n >= 2 on both sides; otherwise,
 * or when both variances are 0, p is NaN (identical constant samples give
 * t = 0 and p = 1).
 */
struct welch welch_test(const struct summary *a, const struct summary *b);

/*
 * Yuen's test: Welch's test of the trimmed means (struct summary's tmean,
 * tsem, h; Welch-Satterthwaite degrees of freedom on h - 1 a side).  With
 * no trimming (samples of fewer than 1 / SUMMARY_TRIM values) it is
 * Welch's test exactly.  One outlier run a side moves the trimmed means
 * little, where it blinds the means' test.  p is NaN when a side keeps
 * fewer than 2 values; two constant samples give p 1 (equal) or 0.
 * Scale-free: computed on values divided by a common power of two.
 */
struct welch yuen_test(const struct summary *a, const struct summary *b);

/* Its degrees of freedom alone; NaN when undefined (as yuen_test()'s). */
double yuen_df(const struct summary *a, const struct summary *b);

/*
 * Half the width of the `level` confidence interval of one sample's mean,
 * t_{(1+level)/2, n-1} sem (the interval is mean +- this); NaN for fewer
 * than 2 values, which have none.
 */
double mean_half_interval(const struct summary *s, double level);

struct ratio_interval {
	double ratio;		/* mean_b / mean_a */
	double low, high;	/* the `level` confidence interval of the ratio */
};

/*
 * mean_b / mean_a with its confidence interval at `level` (e.g. 0.95), by
 * the delta method: se(r) = r sqrt((sem_a / mean_a)^2 + (sem_b / mean_b)^2),
 * r +- t_q se(r) with Welch's degrees of freedom.  The interval is NaN when
 * either side has fewer than 2 values.
 */
struct ratio_interval ratio_interval(const struct summary *a,
				     const struct summary *b, double level);

#endif
