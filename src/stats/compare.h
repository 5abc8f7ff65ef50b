/*
 * compare.h - what changed between commits, stat by stat (docs/design.md §7).
 *
 * Input: for each commit (the first is the base), the samples of every
 * stat of one atomic job on one testbox -- the shape the store's
 * store_load_samples() gives, copied by pointer (this module does not
 * include the store) -- with what the runs declare of their stats
 * (struct stat_meta: unit, which way is better, KPI).  Output: one row per
 * stat with a value on ANY side (numeric and failure stats alike), with
 * the base's summary and, for each other commit, its summary, %change
 * with its interval, p, q and verdict.  A numeric stat missing on a side
 * has a summary of n = 0 there: the column is NEW (base lacks it), GONE
 * (the other side lacks it) or, when neither side of that column has it,
 * FEW_RUNS (verdict.h).
 *
 * Families (so thousands of monitor stats do not dilute the KPI):
 *   KPI      the stats a run declares KPIs and the names in opts->kpis:
 *            Yuen's trimmed-mean test at alpha, min change kpi_min_pct;
 *   OTHER    every other numeric stat: Yuen's p through Benjamini-Hochberg
 *            (over all OTHER stats of that comparison) at q, min other_min_pct;
 *   FAILURE  failure stats (record.h's stat_is_failure()): a run failed
 *            when its value is >= COMPARE_FAIL_AT; fails:runs per side,
 *            %reproduction = 100 (f_b/n_b - f_a/n_a), Fisher's exact
 *            test at alpha (a run without the stat counts as not failed).
 * The verdict and the interval shown come from the same statistic
 * (verdict.h decide()), so they never contradict each other.
 * Mann-Whitney U is computed beside as a cross-check (mwu_p).
 * Which way is better is the declared direction, else the one rule for
 * undeclared stats, record.h's stat_rule_better() (docs/compare.md,
 * "Direction").
 *
 * The thresholds (COMPARE_* below) are defined here and nowhere else:
 * compare, report, stat, bisect and the help texts read them.
 *
 * Ownership: compare_sets() allocates the rows; compare_release() frees
 * them.  Row names and units point into the input sets and their
 * declarations, which must outlive the rows.
 * Pure computation, no I/O; thread-safe.
 */
#ifndef PERFBOT_STATS_COMPARE_H
#define PERFBOT_STATS_COMPARE_H

#include "record/record.h"
#include "stats/summary.h"
#include "stats/verdict.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The defaults of every comparison perfbot makes (docs/design.md §7), in
 * one place: compare_opts_init() sets them, and every usage text prints
 * them from here.
 */
#define COMPARE_ALPHA		0.05	/* KPI and failure tests */
#define COMPARE_Q		0.05	/* false discovery rate of the other stats */
#define COMPARE_KPI_MIN_PCT	1.0	/* the smallest KPI change reported, % */
#define COMPARE_OTHER_MIN_PCT	5.0	/* ... of every other stat, % (points for %-units) */
#define COMPARE_LEVEL		0.95	/* of every interval shown */
#define COMPARE_MIN_RUNS	VERDICT_MIN_RUNS	/* a side, for a verdict */
/* a failure stat's run failed when its value is at least this (a count) */
#define COMPARE_FAIL_AT		1.0

/*
 * The largest difference between two sides' mean disturbance
 * (record.h's STAT_DISTURBANCE_*, per-run means) under which their
 * verdicts stand (docs/compare.md, "Disturbance"):
 *   others_cpu  a quarter of a CPU of other processes' work: a single
 *               busy process on the machine is 1.0, a quiet machine's
 *               daemons stay well below 0.1;
 *   steal       a tenth of a CPU taken by the hypervisor: steal is near 0
 *               on a machine of its own, and 10% of a CPU is as large as
 *               the KPI changes the floor reports.
 * STAT_DISTURBANCE_RUNNABLE is recorded and shown but does not gate: a
 * benchmark's own tasks waiting for a CPU (hackbench at 100% keeps ~25
 * runnable on a quiet machine, varying by several between runs) cannot
 * be told from other processes' without per-task accounting, and others
 * that wait get CPU time in the end, which others_cpu sees.
 */
#define COMPARE_DISTURBANCE_CPU		0.25	/* CPUs */
#define COMPARE_DISTURBANCE_STEAL	0.1	/* CPUs */

/* One commit's samples of every stat (parallel arrays, as the store gives). */
struct sample_set {
	const char *commit;
	size_t nr;		/* stats */
	char **names;		/* sorted by byte order */
	double **values;	/* values[i][0 .. counts[i]-1] */
	size_t *counts;
	size_t nr_runs;		/* complete runs of this commit */
	/*
	 * What this commit's runs declare of their stats; NULL or empty for
	 * runs that declare nothing (imported, older).  A stat's declaration
	 * is the first found, base first.
	 */
	const struct stat_meta_list *meta;
	/* [nr_runs] when each run started (Unix s), ascending; may be NULL */
	const double *started;
};

enum stat_family { FAMILY_KPI, FAMILY_OTHER, FAMILY_FAILURE };

/*
 * A minimum change for the stats whose names match `pattern` (fnmatch(3),
 * no flags), overriding the family's.  When several rules match, the last
 * wins, so a command line can narrow a broad rule given before it.
 */
struct min_change_rule {
	const char *pattern;
	double pct;
};

struct compare_opts {
	double alpha;		/* KPI and failure tests; COMPARE_ALPHA */
	double q;		/* false discovery rate for OTHER; COMPARE_Q */
	double kpi_min_pct;	/* COMPARE_KPI_MIN_PCT */
	double other_min_pct;	/* COMPARE_OTHER_MIN_PCT */
	double level;		/* of the %change interval; COMPARE_LEVEL */
	/*
	 * KPIs besides the declared ones (the job's `kpi:`, a name chosen on
	 * the command line): NULL-terminated; may be NULL.
	 */
	const char *const *kpis;
	const struct min_change_rule *rules;	/* may be NULL; last match wins */
	size_t nr_rules;
};

/* The COMPARE_* defaults, no KPI names, no rules. */
void compare_opts_init(struct compare_opts *o);

/* One other commit against the base, for one stat. */
struct stat_vs {
	struct summary s;
	/*
	 * vs the base, of the trimmed means (verdict.h); absolute for %-unit
	 * stats, a zero base and NEW; -100 for GONE.
	 */
	struct pct_change change;
	/* LKP's %change: 100 (mean_b - mean_a) / |mean_a|; NaN for a base mean of 0 or a side missing */
	double mean_pct;
	double p;		/* Yuen (KPI/OTHER; NaN when a side lacks the stat) or Fisher (FAILURE) */
	double q;		/* BH-adjusted p for OTHER; = p otherwise */
	double mwu_p;		/* Mann-Whitney cross-check; NaN for FAILURE */
	enum verdict verdict;
	unsigned fails, runs;	/* FAILURE: runs with the stat >= COMPARE_FAIL_AT, of all runs */
	double reproduction;	/* FAILURE: 100 (f_b/n_b - f_a/n_a) */
	/*
	 * UNKNOWN: the runs a side that would likely decide it, from the
	 * observed variance and the minimum change (0: nothing can be said;
	 * VERDICT_MORE_RUNS_MAX: that many or more), verdict_more_runs().
	 */
	unsigned more_runs;
	/*
	 * The test would have said CHANGED or SMALL, but the two sides' runs
	 * were taken on a machine disturbed differently (compare_disturbance()):
	 * the verdict is UNKNOWN and the reports say why.
	 */
	bool disturbed;
};

struct stat_row {
	const char *name;
	enum stat_family family;
	bool kpi;		/* declared a KPI, or named in opts->kpis */
	int better;		/* enum stat_better: declared, else stat_rule_better() */
	const char *unit;	/* declared, NULL when undeclared ("" when unitless) */
	struct summary base;
	unsigned base_fails, base_runs;	/* FAILURE */
	struct stat_vs *vs;	/* [nsets - 1] */
};

/*
 * Compare sets[1..nsets-1] with sets[0].  Rows are sorted: KPIs first,
 * then failure stats, then the others, each by name.  0 or -ENOMEM/-EINVAL.
 */
int compare_sets(const struct sample_set *sets, size_t nsets,
		 const struct compare_opts *opts, struct stat_row **rows,
		 size_t *nr_rows);
void compare_release(struct stat_row *rows, size_t nr_rows);

/*
 * How disturbed the machine was while each side's runs ran, from the
 * stats every run records (record.h: STAT_DISTURBANCE_*), and whether
 * the sides differ beyond the documented limits (COMPARE_DISTURBANCE_*):
 * then no verdict of that column is CHANGED or SMALL.  `what` names the
 * first measure that differs (a stat name; static storage), NULL when
 * none does or neither side recorded any.
 */
struct compare_disturbance {
	bool differs;
	const char *what;
	double base, other;	/* that measure's mean on each side */
	double limit;		/* the largest difference allowed */
};

void compare_disturbance(const struct sample_set *base,
			 const struct sample_set *other,
			 struct compare_disturbance *out);

/*
 * Were the two sides' runs taken interleaved (A B A B, or any order that
 * puts both sides' runs across the same stretch of time), so that drift
 * of the machine fell on both?  A change found between runs taken apart
 * -- every run of one commit before the other's -- is one that time alone
 * may have made: reports do not mail it (docs/compare.md, "Order of the
 * runs").
 *
 * INTERLEAVED when, in time order, the runs switch sides at least
 * min(n_base, n_other) times (A B A B A B switches 5 times, A A A B B B
 * once; 3 a side need 3) and each side has at most
 * compare_order_outside_max(n) of its n runs outside the stretch of time
 * both sides were measured in (from the later first start to the earlier
 * last one): ten runs of A taken yesterday and then ten A B pairs today
 * switch sides 21 times, but half of A's runs are from another day.
 * Inside that stretch, neither side may hold a streak of more than
 * compare_order_outside_max(n) runs with none of the other's between:
 * A B A B, then twenty runs of B for another comparison, then A B A B
 * again spans the same stretch and switches often enough, but B's twenty
 * ran at a time A did not, and a machine that drifted then moves B alone.
 * APART otherwise; UNKNOWN when a side has no start times, fewer than 2
 * runs, or all its runs share one start time (an imported file's runs
 * are stored with the time of the import).
 */
enum compare_order {
	COMPARE_ORDER_UNKNOWN,
	COMPARE_ORDER_INTERLEAVED,
	COMPARE_ORDER_APART,
};

struct compare_order_info {
	enum compare_order order;
	unsigned switches;	/* side changes in time order */
	unsigned needed;	/* min(n_base, n_other) */
	/* each side's runs outside the stretch both were measured in */
	unsigned base_outside, other_outside;
	/* each side's longest streak of runs inside it, none of the other's between */
	unsigned base_block, other_block;
	/* the first and last start of each side (Unix s); NaN when UNKNOWN */
	double base_first, base_last, other_first, other_last;
};

void compare_order(const struct sample_set *base, const struct sample_set *other,
		   struct compare_order_info *out);

/*
 * The most runs of a side of n that may lie outside the common stretch of
 * interleaved runs: max(2, n / 5) -- a run at each end is the
 * alternation itself (A B A B A: the last A is outside), a fifth of them
 * is a lead-in too small to move a trimmed mean far.
 */
unsigned compare_order_outside_max(size_t n);

/*
 * Do the runs of a and of b (start times, ascending) that started at
 * `cut` or later alternate?  Both have 2 runs or more and compare_order()
 * finds them interleaved with at most 2 of each side's runs outside the
 * stretch both span (tighter than compare's fifth: a window excludes a
 * lead-in); or they are the start of an alternation (at most 2 runs a
 * side, their counts at most 1 apart).  What a measurement that adds
 * runs A B A B ... may judge on: compare --measure's window, a
 * bisection's confirmation.
 */
bool compare_alternate_from(const double *a, size_t na, const double *b, size_t nb,
			    double cut);
/*
 * The earliest start time (of a's and b's) from which their runs
 * alternate (compare_alternate_from()): the window at the end of two
 * commits' runs that a verdict may take as interleaved.  At worst the
 * last run alone (an alternation starts there); with no run, a time
 * after every run.  The caller loads the runs since.
 */
double compare_window_start(const double *a, size_t na, const double *b, size_t nb);

/* "interleaved", "apart", "unknown" */
const char *compare_order_name(enum compare_order o);

/* The runs a side still needs for a verdict (COMPARE_MIN_RUNS - runs, at least 0). */
unsigned compare_runs_missing(const struct sample_set *set);

#endif
