/*
 * verdict.h - the per-stat verdict of a comparison: changed, same or
 * unknown (more runs would decide), docs/design.md §7.
 *
 * The test that produces p (Welch, Mann-Whitney, ...) and the family's
 * correction (none for KPIs, Benjamini-Hochberg for the rest) are the
 * caller's choice; decide() only combines p with the size of the change
 * and its confidence interval.  Pure functions; thread-safe.
 */
#ifndef PERFBOT_STATS_VERDICT_H
#define PERFBOT_STATS_VERDICT_H

#include <stdbool.h>

#include "stats/summary.h"

/* Fewer runs than this on a side and no verdict is given (docs/design.md §7). */
#define VERDICT_MIN_RUNS 3

/*
 * %change = 100 (mean_b - mean_a) / mean_a with its confidence interval,
 * 100 (ratio_interval - 1).
 *
 * When mean_a == 0 a percentage means nothing, so `absolute` is set and
 * pct, low and high hold the absolute difference mean_b - mean_a and its
 * Welch interval, in the stat's own unit (the way `%`-unit stats are shown).
 * The interval is NaN when either side has fewer than 2 values, and when
 * mean_b == 0 (the delta method divides by it; pct is then exactly -100).
 */
struct pct_change {
	double pct;
	double low, high;
	bool absolute;		/* mean_a == 0: differences, not percentages */
};

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
	 * NEW and GONE are stats present (non-zero) on one side only, shown
	 * as LKP does in absolute values, never as a percentage.
	 */
	VERDICT_SMALL,
	VERDICT_NEW,		/* absent on the base, present on the other side */
	VERDICT_GONE,		/* present on the base, absent on the other side */
};

struct verdict_input {
	const struct summary *a, *b;
	double p;		/* the test's p, already FDR-adjusted for non-KPIs */
	double min_size_pct;	/* the family's floor (stats/compare.h's COMPARE_*_MIN_PCT) */
	double alpha;		/* p below this is significant (q for non-KPIs) */
	double level;		/* of the %change interval, e.g. 0.95 */
};

/*
 * The verdict, in this order:
 *  - FEW_RUNS when either side has fewer than VERDICT_MIN_RUNS values;
 *  - SAME for two identical constant samples, whatever p says (some tests
 *    give NaN for zero variance, yet there is no doubt);
 *  - UNKNOWN when p is NaN;
 *  - CHANGED when p < alpha and |pct| >= min_size_pct.  The floor is
 *    applied to the point estimate, not to the interval's near end: the
 *    interval excluding the floor would need several times more runs to
 *    call a change just above it, and p < alpha already says the change is
 *    not noise - the floor only says it is big enough to report;
 *  - SAME when the whole interval lies strictly inside +-min_size_pct:
 *    whatever the change is, it is too small to matter (this holds also
 *    for a significant change under the floor);
 *  - UNKNOWN otherwise: more runs would narrow the interval.
 * When the input is absolute (mean_a == 0, see above), min_size_pct is
 * compared with the absolute difference, in the stat's unit.
 * out, when not NULL, receives the %change and its interval in every case,
 * FEW_RUNS included, so that the numbers can always be shown.
 */
enum verdict decide(const struct verdict_input *in, struct pct_change *out);

/* "same", "changed", "unknown", "few runs", "small", "new", "gone"; "?" else. */
const char *verdict_name(enum verdict v);

#endif
