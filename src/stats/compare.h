/*
 * compare.h - what changed between commits, stat by stat (docs/design.md §7).
 *
 * Input: for each commit (the first is the base), the samples of every
 * stat of one atomic job on one testbox -- the shape the store's
 * store_load_samples() gives, copied by pointer (this module does not
 * include the store).  Output: one row per stat present on every side
 * (failure stats: on any side), with the base's summary and, for each
 * other commit, its summary, %change with its interval, p, q and verdict.
 *
 * Families (so thousands of monitor stats do not dilute the KPI):
 *   KPI      the names in opts->kpis: Welch at alpha, min change kpi_min_pct;
 *   OTHER    every other numeric stat: Welch p through Benjamini-Hochberg
 *            (over all OTHER stats of that comparison) at q, min other_min_pct;
 *   FAILURE  0/1 stats (dmesg.*, *.exit_fail, last_state.*): fails:runs per
 *            side, %reproduction = 100 (f_b/n_b - f_a/n_a), Fisher's exact
 *            test at alpha (a run without the stat counts as 0).
 * Mann-Whitney U is computed beside Welch as a cross-check (mwu_p).
 *
 * Ownership: compare_sets() allocates the rows; compare_release() frees
 * them.  Row names point into the input sets, which must outlive them.
 * Pure computation, no I/O; thread-safe.
 */
#ifndef PERFBOT_STATS_COMPARE_H
#define PERFBOT_STATS_COMPARE_H

#include "stats/summary.h"
#include "stats/verdict.h"

#include <stdbool.h>
#include <stddef.h>

/* One commit's samples of every stat (parallel arrays, as the store gives). */
struct sample_set {
	const char *commit;
	size_t nr;		/* stats */
	char **names;		/* sorted by byte order */
	double **values;	/* values[i][0 .. counts[i]-1] */
	size_t *counts;
	size_t nr_runs;		/* complete runs of this commit */
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
	double alpha;		/* KPI and failure tests; default 0.05 */
	double q;		/* false discovery rate for OTHER; default 0.05 */
	double kpi_min_pct;	/* default 1 */
	double other_min_pct;	/* default 5 */
	double level;		/* of the %change interval; default 0.95 */
	const char *const *kpis;	/* NULL-terminated KPI names; may be NULL */
	const struct min_change_rule *rules;	/* may be NULL; last match wins */
	size_t nr_rules;
};

void compare_opts_init(struct compare_opts *o);

/* One other commit against the base, for one stat. */
struct stat_vs {
	struct summary s;
	struct pct_change change;	/* vs the base; absolute for %-unit stats */
	double p;		/* Welch (KPI/OTHER) or Fisher (FAILURE) */
	double q;		/* BH-adjusted p for OTHER; = p otherwise */
	double mwu_p;		/* Mann-Whitney cross-check; NaN for FAILURE */
	enum verdict verdict;
	unsigned fails, runs;	/* FAILURE: runs with the stat at 1, of all runs */
	double reproduction;	/* FAILURE: 100 (f_b/n_b - f_a/n_a) */
};

struct stat_row {
	const char *name;
	enum stat_family family;
	struct summary base;
	unsigned base_fails, base_runs;	/* FAILURE */
	struct stat_vs *vs;	/* [nsets - 1] */
};

/* Is `name` a 0/1 failure stat (dmesg.*, *.exit_fail, last_state.*)? */
bool compare_is_failure_stat(const char *name);
/* Is `name` a percentage (ends with '%'): its change is the difference. */
bool compare_is_pct_stat(const char *name);

/*
 * Which way is better for a stat, by its name: +1 higher (*_ops,
 * throughput, workload), -1 lower (time, latency, failure stats), 0 the
 * name does not say.
 */
int compare_stat_direction(const char *name);

/*
 * Compare sets[1..nsets-1] with sets[0].  Rows are sorted: KPIs first,
 * then failure stats, then the others, each by name.  0 or -ENOMEM/-EINVAL.
 */
int compare_sets(const struct sample_set *sets, size_t nsets,
		 const struct compare_opts *opts, struct stat_row **rows,
		 size_t *nr_rows);
void compare_release(struct stat_row *rows, size_t nr_rows);

/* The runs a side still needs for a verdict (3 - runs, at least 0). */
unsigned compare_runs_missing(const struct sample_set *set);

#endif
