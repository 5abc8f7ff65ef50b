/*
 * measure.h - `perfbot compare --measure`: the runs the store lacks, made
 * here (docs/compare.md, "Measuring what is missing").
 *
 * For each atomic job, the commits (full shas of one repository, the base
 * first) get runs on this machine (or on one box of the fleet: spec's
 * fleet, docs/fleet.md) -- each commit's checkout built once
 * (vcs/builds.h), the runs alternated across the commits (A B C A B C ...)
 * so that drift of the machine falls on all of them alike -- until every
 * KPI of every commit against the base has a decided verdict, or each
 * commit has max_runs runs.  The verdicts are judged on a window: the
 * stored runs at the end of the job's history that alternate between the
 * commits -- every stored run when they all do; none when none do (then
 * every commit is measured afresh): runs of one commit taken yesterday
 * and of the other today are not a comparison, whatever their number.  Decided: same, small, new, gone, or changed
 * between runs that were interleaved (a change between runs taken apart
 * gets more runs of both sides).  The runs per commit grow as Pinpoint's
 * do: first_runs, then twice as many each round while undecided.
 *
 * The verdicts are compare's own, read back from the store
 * (cmd/gather.h): what the measuring stops on is what the table shows.
 * Every run is stored as it is made and the rounds are counted from the
 * store, so a measurement interrupted and started again goes on where it
 * stopped: nothing is measured twice.
 *
 * A command-layer module: it prints progress to stderr ("perfbot:
 * compare: ...") and returns an exit status (cmds.h): 0 measured (decided
 * or not: the table says), EXIT_FAILED when a commit cannot be measured
 * (its build or every run fails) or perfbot fails, 128 + the signal when
 * interrupted (interrupt_install() first).  Main thread only.
 */
#ifndef PERFBOT_CMD_MEASURE_H
#define PERFBOT_CMD_MEASURE_H

#include "job/job.h"
#include "stats/compare.h"
#include "store/store.h"
#include "vcs/commitrun.h"

#include <stdbool.h>
#include <stddef.h>

/* the first round's runs per commit, and the most a commit gets, by default */
#define MEASURE_FIRST_RUNS 10
#define MEASURE_MAX_RUNS 40
/* a commit whose first runs all fail is given up after this many */
#define MEASURE_FAILED_GIVE_UP 3

struct measure_spec {
	const char *repo;			/* absolute */
	const char *testbox;			/* this machine (or fleet's box), as runs record it */
	char *const *shas;			/* [nr_commits], full; [0] the base */
	const char *const *labels;		/* [nr_commits], as given */
	size_t nr_commits;
	unsigned first_runs, max_runs;
	const struct compare_opts *opts;	/* the verdicts' */
	/*
	 * The fleet's box that makes every run (vcs/commitrun.h, fleet mode:
	 * testbox is its name), checked by the caller; NULL: runs made here.
	 */
	const struct commit_runner_fleet *fleet;
	bool stamped;			/* progress lines as the robot's log: timestamped */
	/*
	 * Runs started before this (wall-clock seconds) are left out of the
	 * window: a measurement afresh, to confirm what earlier runs showed
	 * on runs of its own.  0: every stored run may be in the window.
	 */
	double not_before;
};

/* What a measurement did, over every job. */
struct measure_tally {
	size_t runs, failed_runs;	/* made now (failed ones included in runs) */
	size_t builds, build_failures;
	size_t reused;			/* builds taken from the build cache */
	size_t undecided;		/* jobs left undecided at max_runs */
	/* on the fleet: the boxes that made the runs, ", "-separated, each once (as fit) */
	char boxes[256];
};

/*
 * since[nr_jobs] gets each job's window: the verdicts are of the runs
 * that started then or later (STORE_ALL_TIME: every stored run), for
 * gather's since.
 */
int measure_commits(struct store *s, const struct atomic_job *jobs, size_t nr_jobs,
		    const struct measure_spec *spec, double *since,
		    struct measure_tally *tally);

/*
 * A KPI of one job that changed between the base and one other commit,
 * as compare judges it on the job's window: verdict CHANGED, between
 * runs that alternate (never runs taken apart), on a machine disturbed
 * alike (a disturbed column is UNKNOWN).  What the robot may act on.
 */
struct measure_change {
	size_t job;		/* index into the jobs */
	int family;		/* enum stat_family of the stat */
	size_t commit;		/* index into spec->shas, >= 1 */
	char *metric;		/* malloc'd */
	double pct;		/* the change of the trimmed means, % */
	double low, high;	/* its interval */
	int better;		/* enum stat_better of the row */
	double p;
};

/*
 * The KPIs that changed, every job and every commit against the base,
 * judged on since[] (measure_commits()'s windows); with families (bits
 * 1 << enum stat_family) also the failure stats (a new dmesg.* or
 * exit_fail: Fisher's verdict) or the others.  0, or an exit status
 * (printed).  *out: the caller's to measure_changes_release().
 */
int measure_changes(struct store *s, const struct atomic_job *jobs, size_t nr_jobs,
		    const struct measure_spec *spec, const double *since,
		    unsigned families, struct measure_change **out, size_t *nr);
void measure_changes_release(struct measure_change *c, size_t nr);

#endif
