/*
 * mannwhitney.h - the Mann-Whitney U test (Wilcoxon rank-sum) of two
 * independent samples: does one tend to be larger than the other?
 *
 * A cross-check of Welch's t-test for samples that are not normal
 * (bimodal runs, outliers): it uses only the order of the values.
 * All own code.  Pure function; the inputs are not modified; thread-safe.
 */
#ifndef PERFBOT_STATS_MANNWHITNEY_H
#define PERFBOT_STATS_MANNWHITNEY_H

#include <stdbool.h>
#include <stddef.h>

struct mwu {
	double u;		/* U of a: pairs with a > b, plus half the ties */
	double p;		/* two-sided p-value; NaN when undefined */
	bool exact;		/* p from the exact distribution of U */
};

/*
 * Mann-Whitney U test of a[0..na-1] against b[0..nb-1].
 *
 * U ranges over 0..na*nb; na*nb/2 means no tendency either way.  When
 * there are no ties and na, nb <= 20, p is exact: the count of the
 * C(na+nb, na) equally likely arrangements whose U is at least as far
 * out, doubled (capped at 1), as R's wilcox.test.  Otherwise p comes from
 * the normal approximation with the variance corrected for ties and a
 * continuity correction of 1/2.
 *
 * p is NaN (u NaN too) when na or nb is 0, or any value is NaN.  When all
 * values are equal p is 1: nothing suggests a difference.
 */
struct mwu mann_whitney(const double *a, size_t na, const double *b, size_t nb);

#endif
