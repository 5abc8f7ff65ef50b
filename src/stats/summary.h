/*
 * summary.h - descriptive statistics of one sample, robust ones included.
 *
 * Every field is finite for any finite input, however large or small
 * (1e300, subnormals): the sums are taken on a copy scaled by a power of
 * two (exact) when the values would overflow or underflow when squared.
 *
 * Pure functions over caller-owned arrays; no state, thread-safe.
 */
#ifndef PERFBOT_STATS_SUMMARY_H
#define PERFBOT_STATS_SUMMARY_H

#include <stddef.h>

/*
 * The fraction trimmed from each end for the trimmed mean behind every
 * verdict (Yuen's test, ttest.h): g = floor(SUMMARY_TRIM n) values a side,
 * so samples of fewer than 1 / SUMMARY_TRIM = 5 values are not trimmed
 * and their test is Welch's.  0.2 was chosen by bench/verdict_power
 * (bench/RESULTS.md, "Issue 12: verdict_power over six noise models").
 */
#define SUMMARY_TRIM 0.2

struct summary {
	size_t n;
	double mean;
	double stddev;		/* sample (n - 1); 0 when n < 2 */
	double sem;		/* standard error of the mean: stddev / sqrt(n) */
	double min, max;
	double median;
	/*
	 * Median absolute deviation from the median, raw: not scaled by
	 * 1.4826 to estimate sigma, so it stays in the stat's own units
	 * for readers comparing it to the median.  0 when n < 2.
	 */
	double mad;
	/*
	 * The trimmed mean: g = floor(gamma n) values dropped at each end,
	 * h = n - 2 g kept.  tsem is Yuen's standard error of it,
	 * sqrt((n - 1) s_w^2 / (h (h - 1))) with s_w^2 the variance of the
	 * sample winsorized at g; with g = 0 they are mean, sem and n.
	 * Hand-made summaries must set them (a summary from summarize() has).
	 */
	double tmean;
	double tsem;
	size_t h;
};

/* Summarise x[0..n-1], trimmed at SUMMARY_TRIM; all fields 0 when n == 0.  x is not modified. */
void summarize(const double *x, size_t n, struct summary *out);

/* The same, the trimmed mean at gamma (0 <= gamma < 0.5). */
void summarize_trim(const double *x, size_t n, double gamma, struct summary *out);

#endif
