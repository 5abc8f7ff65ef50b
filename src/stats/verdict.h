/*
 * verdict.h - the per-stat verdict of a comparison: changed, small, same
 * or unknown (more runs would decide), docs/design.md §7 and
 * docs/compare.md "Verdicts".
 *
 * The estimate and its interval are Yuen's (trimmed means, ttest.h
 * yuen_test()); the caller gives p of that same test, with the family's
 * correction (none for KPIs, Benjamini-Hochberg for the rest), and
 * decide() combines it with the size of the change and its interval.  Pure functions; thread-safe.
 */
#ifndef PERFBOT_STATS_VERDICT_H
#define PERFBOT_STATS_VERDICT_H

#include <stdbool.h>

#include "stats/summary.h"

/* Fewer runs than this on a side and no verdict is given (docs/design.md §7). */
#define VERDICT_MIN_RUNS 3

/*
 * %change, the estimate behind every verdict, with its confidence
 * interval: the difference of the trimmed means (summary.h's tmean,
 * SUMMARY_TRIM) and Yuen's interval of it, t_{(1+level)/2, df} se with
 * Yuen's se and df (ttest.h yuen_test()), in percent of the base's
 * |tmean|:
 *	pct = 100 (T_b - T_a) / |T_a|,  low, high = 100 (T_b - T_a -+ t se) / |T_a|.
 * The same statistic as the test, so p < 1 - level <=> 0 is outside
 * [low, high].  Dividing by |T_a| keeps the direction of a negative base
 * (-1e6 -> -0.9e6 is +10%).  Samples of fewer than 1 / SUMMARY_TRIM
 * values are not trimmed: then it is the means' difference and Welch's.
 *
 * `absolute` is set, and pct, low and high hold the difference T_b - T_a
 * and its interval in the stat's own unit, when a percentage means
 * nothing: the base's trimmed mean is 0, or the stat is in points (a
 * %-unit stat, verdict_input.points).
 * The interval is NaN when either side keeps fewer than 2 values; it is
 * [pct, pct] when both sides are constant.  Every field is finite for
 * finite input, 1e300 and subnormals included (computed on values
 * divided by a common power of two).
 */
struct pct_change {
	double pct;
	double low, high;
	bool absolute;		/* differences, not percentages */
};

/* The %change of b against a and its `level` interval, as above (not in points). */
struct pct_change pct_change_interval(const struct summary *a,
				      const struct summary *b, double level);

enum verdict {
	VERDICT_SAME,
	VERDICT_CHANGED,
	VERDICT_UNKNOWN,	/* enough runs, but they do not settle it */
	VERDICT_FEW_RUNS,	/* fewer than VERDICT_MIN_RUNS on a side: no verdict */
	/*
	 * Issue 12's words (docs/compare.md, "Verdicts"): SMALL is a change
	 * the test is sure of but below the minimum size -- never "same";
	 * NEW and GONE are numeric stats with values on one side only (no
	 * run of the other side has the stat), shown as LKP does: NEW in
	 * absolute values (pct = the new side's mean, absolute set), GONE
	 * as -100%.  Neither has an interval (NaN).
	 */
	VERDICT_SMALL,
	VERDICT_NEW,		/* absent on the base, present on the other side */
	VERDICT_GONE,		/* present on the base, absent on the other side */
};

struct verdict_input {
	const struct summary *a, *b;
	/*
	 * The test's p, of the same statistic as the interval: yuen_test()
	 * (ttest.h), Benjamini-Hochberg-adjusted for non-KPIs.
	 */
	double p;
	double min_size_pct;	/* the floor (stats/compare.h's COMPARE_*_MIN_PCT) */
	double alpha;		/* p below this is significant (q for non-KPIs) */
	double level;		/* of the %change interval, e.g. 0.95 */
	/*
	 * A %-unit stat: it changes by its difference, in points, and the
	 * floor is read in points.  Otherwise a zero base is shown in
	 * absolute values too, but with no floor: any significant change of
	 * a stat from 0 (a count 0 -> 3) is a change whatever its size.
	 */
	bool points;
};

/*
 * The verdict, in this order:
 *  - FEW_RUNS when either side has fewer than VERDICT_MIN_RUNS values;
 *  - SAME for two identical constant samples (and two whose trimmed
 *    samples are: difference 0, standard error 0), whatever p says;
 *  - UNKNOWN when p is NaN;
 *  - significant when p < alpha and the interval excludes 0 (at
 *    level = 1 - alpha, as by default, the second follows from the
 *    first; it is checked so that no verdict contradicts its interval
 *    at any level).  Then CHANGED when |pct| >= the floor, else SMALL:
 *    a sure change below the minimum size is never "same".  The floor
 *    applies to the point estimate, not to the interval's near end,
 *    which would need several times more runs for a change just above
 *    it;
 *  - SAME when the whole interval lies strictly inside +-floor;
 *  - UNKNOWN otherwise: more runs would narrow the interval.
 * The floor is min_size_pct, in points when `points`, and 0 for a zero
 * base otherwise (see above).  Hence, always:
 *   CHANGED, SMALL => 0 < low <= pct <= high or low <= pct <= high < 0;
 *   SAME => -floor < low and high < floor (or the constant cases above).
 * out, when not NULL, receives the %change and its interval in every case,
 * FEW_RUNS included, so that the numbers can always be shown.
 */
enum verdict decide(const struct verdict_input *in, struct pct_change *out);

/*
 * For an UNKNOWN verdict: the runs a side that would likely settle it,
 * from each side's observed spread (its trimmed standard error times
 * sqrt(n)) and the floor: enough for the interval to exclude 0 when
 * |pct| >= floor, else to lie inside +-floor, with 80% power (the t
 * quantile of the level plus z_0.8 = 0.84 standard errors), at least one
 * more than the larger side has, at most VERDICT_MORE_RUNS_MAX ("that
 * many or more").  0 when nothing can be said: fewer than 2 values kept
 * a side, no spread, an estimate exactly at the floor, NaN numbers.
 */
#define VERDICT_MORE_RUNS_MAX 1000
unsigned verdict_more_runs(const struct verdict_input *in);

/* "same", "changed", "unknown", "few runs", "small", "new", "gone"; "?" else. */
const char *verdict_name(enum verdict v);

#endif
