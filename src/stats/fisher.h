/*
 * fisher.h - Fisher's exact test of a 2x2 table: do two sides fail at
 * different rates?
 *
 * For failure stats (fails out of runs per commit), where the counts are
 * too small for a chi-squared test.  All own code.  Pure; thread-safe
 * but for lgamma's signgam, which no caller here reads.
 */
#ifndef PERFBOT_STATS_FISHER_H
#define PERFBOT_STATS_FISHER_H

/*
 * Two-sided p of the table
 *
 *	a_fail  a_runs - a_fail
 *	b_fail  b_runs - b_fail
 *
 * the sum of the hypergeometric probabilities of all tables with the same
 * margins that are no more likely than the observed one (within a relative
 * 1e-7, as R's fisher.test, so that tables equally likely on paper are not
 * lost to rounding).  Capped at 1.
 *
 * NaN when a side has no runs (nothing to compare) or fails exceed runs.
 */
double fisher_exact(unsigned a_fail, unsigned a_runs, unsigned b_fail,
		    unsigned b_runs);

#endif
