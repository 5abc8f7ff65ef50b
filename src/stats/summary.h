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
 * The trimming of the trimmed mean behind every verdict (Yuen's test,
 * ttest.h): g = floor(SUMMARY_TRIM n) values dropped at each end, and at
 * least 1 from SUMMARY_TRIM_MIN_N values on; samples of fewer values are
 * not trimmed, and their test is Welch's.  So 5 to 19 runs lose their
 * lowest and highest run, 20 to 29 two a side, and so on.  Chosen by
 * bench/verdict_power (bench/RESULTS.md, "Issue 12: verdict_power over
 * six noise models"): one outlier run a side no longer hides a 5% change
 * at 5 or 10 runs, and at 10 runs normal data keep Welch's power (a 2%
 * shift found 98% of the time); a plain 20% trim cost a third of the
 * power at 2% with 5 runs and more at 10, a plain 10% one left 5 runs
 * as blind to an outlier as Welch.
 */
#define SUMMARY_TRIM 0.1
#define SUMMARY_TRIM_MIN_N 5

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
	 * The trimmed mean: g values dropped at each end (SUMMARY_TRIM),
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

/* The same, g = floor(gamma n) (at least 1 from SUMMARY_TRIM_MIN_N values on when gamma > 0), 0 <= gamma < 0.5. */
void summarize_trim(const double *x, size_t n, double gamma, struct summary *out);

#endif
