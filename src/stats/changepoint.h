/*
 * changepoint.h - change points in a metric's history: the ordered points
 * of a branch (one per tested commit, each holding that commit's runs of
 * one KPI), split where the level of the metric steps.  docs/changepoint.md
 * has the method, its parameters, the figures behind them and what it
 * cannot see.
 *
 * The method, in short (each step is in changepoint.c):
 *  - a point's value is the mean of its runs; the runs also give the
 *    within-commit variance, pooled over the series, so that a point of
 *    10 runs weighs more than a point of 1 (variance components: a
 *    point's mean varies by sb2 between commits plus sw2 / n_runs);
 *  - outlier points (a point more than outlier_k robust sigmas from the
 *    median of the 5 points around it) are set aside; the last 2 points
 *    never are, a step there is not yet told from an outlier;
 *  - split passes: binary segmentation of the whole history, then of
 *    overlapping windows of `window` points (what a long segment masks,
 *    a short excursion, a window sees), each split at the place that
 *    best separates the means and kept when the t-test between the two
 *    sides, Bonferroni-corrected for the places searched, gives p < alpha;
 *  - a merge pass: each change re-tested between its neighbours, the
 *    weakest dropped while any has p >= alpha (or |%change| < min_pct),
 *    then each moved to the best place between its neighbours;
 *  - the last 2 points stay out of those passes (a step there is not
 *    told from an outlier by its neighbours); a tail pass looks at the
 *    last min_tail..min_side+1 points: every point after the step beyond
 *    the previous segment, the same way, alone at p < tail_alpha.  With
 *    min_side points after it and the sides' test at p < alpha it is a
 *    change, else a TENTATIVE one (the robot adds runs to the points
 *    either side instead of waiting for more commits).
 *
 * Ownership: the points and their values are the caller's and are only
 * read; *out is malloc'd, the caller frees it (free()).  Nothing is kept
 * between calls.  Pure functions, no I/O, no global state: thread-safe.
 */
#ifndef PERFBOT_STATS_CHANGEPOINT_H
#define PERFBOT_STATS_CHANGEPOINT_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* One point of the history: the values of one commit's runs (n >= 1, finite). */
struct cp_point {
	const double *v;
	size_t n;
};

struct cp_opts {
	size_t window;		/* points in a window of the window pass (50) */
	double alpha;		/* a split is kept at corrected p below this (0.001) */
	size_t min_side;	/* fewest points a side of a (non-tentative) change (3) */
	size_t min_tail;	/* fewest points after a tentative change (2); 0: none tentative */
	double tail_alpha;	/* each tail point alone, corrected p below this (0.01) */
	double min_pct;		/* smaller changes are dropped (0: the robot's confirmation judges size) */
	double outlier_k;	/* robust sigmas from the local median: an outlier point (5; 0: none) */
};

/* The defaults above. */
void cp_opts_init(struct cp_opts *o);

struct cp_change {
	size_t index;		/* the first point after the change */
	size_t start, end;	/* the segments either side: [start, index) and [index, end) */
	double p;		/* corrected p of the test (tentative: the weakest tail point's) */
	double t;		/* its t, > 0 for a step up */
	/*
	 * The segments' means (of their points' means, each weighted by the
	 * inverse of its variance, outlier points left out) and
	 * 100 (after - before) / |before| (the difference itself when before is 0).
	 */
	double before, after, pct;
	size_t outliers;	/* outlier points set aside in [start, end) */
	bool tentative;		/* fewer than min_side points after it */
};

/*
 * The change points of pts[0..n-1], in order of index.  *out is NULL when
 * there are none.  Errors: -EINVAL for a point with no value, a value that
 * is not finite, or options out of range (alpha and tail_alpha in (0, 1),
 * min_side >= 2, window >= 2 min_side, min_tail < min_side, min_pct >= 0,
 * outlier_k >= 0), with the offending item in err (which may be NULL);
 * -ENOMEM.  Cost: O(n log n) for the split pass, O(n) for the windows.
 */
int cp_detect(const struct cp_point *pts, size_t n, const struct cp_opts *o,
	      struct cp_change **out, size_t *nr, struct strbuf *err);

/*
 * The incremental form, for a series that grew at its end: old[0..nold-1]
 * is an earlier result over a prefix of pts (cp_detect()'s or this one's).
 * Only the end is analysed again, from the last old change at least
 * `window` points from the end (if it is within 4 windows of it), else
 * from 2 windows from the end; older changes are kept as they were
 * (their `end` and `after` describe the series they were found in).  A
 * full cp_detect() now and then re-examines the whole history.  Cost:
 * O(window), whatever n.  Errors as cp_detect(), and -EINVAL for an old
 * change beyond n.
 */
int cp_update(const struct cp_point *pts, size_t n, const struct cp_change *old,
	      size_t nold, const struct cp_opts *o, struct cp_change **out,
	      size_t *nr, struct strbuf *err);

#endif
