/*
 * bh.h - Benjamini-Hochberg adjustment of p-values, so that calling every
 * stat with q < 0.05 "changed" (as stats/verdict.h decides) keeps the
 * expected share of false discoveries among them at 5%, however many
 * thousand stats are compared.
 *
 * All own code.  Pure; thread-safe.
 */
#ifndef PERFBOT_STATS_BH_H
#define PERFBOT_STATS_BH_H

#include <stddef.h>

/*
 * q[i] = min over p[j] >= p[i] of min(1, p[j] m / rank(j)), the step-up
 * adjusted p-values (R's p.adjust "BH"), where m counts the p that are not
 * NaN and rank is the position in ascending order.  NaN p give NaN q and
 * are not counted in m.  q may be the same array as p.  O(n log n).
 *
 * Should memory run out, q is Bonferroni's min(1, p m) instead: never
 * below BH's, so still controls false discoveries, only more cautiously.
 */
void benjamini_hochberg(const double *p, size_t n, double *q);

#endif
