/*
 * summary.h - descriptive statistics of one sample.
 *
 * Pure functions over caller-owned arrays; no state, thread-safe.
 */
#ifndef PERFBOT_STATS_SUMMARY_H
#define PERFBOT_STATS_SUMMARY_H

#include <stddef.h>

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
};

/* Summarise x[0..n-1]; all fields 0 when n == 0.  x is not modified. */
void summarize(const double *x, size_t n, struct summary *out);

#endif
