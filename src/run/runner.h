/*
 * runner.h - one repeat of an atomic job: the benchmark, the monitors
 * around its measurement window, the environment -> a run record
 * (docs/design.md §2).  The runner does not store the record: the command that
 * called it hands it to the store.
 *
 * Benchmarks: the testcase names a struct bench_type (bench/bench.h), or
 * the job's `exec:` key selects exec's; the job's parameters go through
 * the type's table (the one validator), and the runner calls run() with
 * the monitors opening at its "measure" phase.  The stats the type
 * declares are recorded with their unit, direction and KPI flag
 * (run_record.meta); the job's `kpi:` overrides which is the KPI.
 * Statuses: a benchmark that crashes, fails or times out gives a
 * RUN_FAILED record with `<testcase>.exit_fail: 1`; a stop request gives
 * RUN_INCOMPLETE with `last_state.is_incomplete_run: 1`; one that cannot
 * run on this machine RUN_UNSUPPORTED with both at 0 -- not a failure.
 * Every status but complete has env `last_state.reason`.  Both failure
 * stats are recorded (0 or 1) in every run, so a comparison can count.
 * Every run, with monitors or without (--no-monitors), records how
 * disturbed the machine was while the benchmark ran (run/disturbance.h:
 * STAT_DISTURBANCE_*, declared in meta); what cannot be read leaves them
 * out and says why in env "disturbance*", never fails the run.  (A run
 * whose warm-up failed is not measured: it has neither.)
 *
 * Threading: one run at a time, from the main thread (the benchmarks'
 * child processes die with the thread that forks them).  Ownership: the
 * record returned is the caller's (run_record_release()).
 */
#ifndef PERFBOT_RUN_RUNNER_H
#define PERFBOT_RUN_RUNNER_H

#include "job/job.h"
#include "record/record.h"
#include "run/disturbance.h"
#include "util/strbuf.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

struct runner_opts {
	const char *commit;		/* recorded as the run's commit */
	const char *src_dir;		/* exec commands run there, with $PERFBOT_SRC set to it; or NULL */
	bool monitors;			/* false: --no-monitors */
	/*
	 * Run the benchmark's warm-up runs first (a BENCH_WARMUP_RUNS row:
	 * exec's `warmup`, default 1), outside every measurement: callers
	 * set it for the first measured run of an atomic job (perfbot run)
	 * or of a commit's build (bisect).  They are recorded in this run's
	 * env -- warmup.runs, warmup.elapsed_s (their wall time together),
	 * warmup.status ("ok" or why) -- never as stats.  A warm-up that
	 * fails (or is stopped) is this run's outcome: the command is not
	 * measured, the record says "warm-up run I of N: <why>".
	 */
	bool warm_up;
	volatile sig_atomic_t *stop;	/* may be NULL */
	/* where the disturbance is read (tests); NULL: /proc */
	const struct disturbance_paths *disturbance_paths;
};

/*
 * Check that `j` can run: a known testcase, every benchmark parameter
 * known to its table with a valid value, the values together, known
 * monitors.  0, or -EINVAL with the bad parameter's position (none for a
 * -s override: "<command line>: -s KEY=VALUE: ...") and a message in err.
 */
int runner_check_job(const struct atomic_job *j, struct job_error *err);

/* The timeout of one run: the job's, else 2 x runtime + 60 s (runtime:
 * the job's, else BENCH_DEFAULT_RUNTIME_S). */
double runner_timeout(const struct atomic_job *j);

/*
 * Run one repeat.  0 when a record was produced -- whatever its status --
 * or a negative errno when nothing could run (err says why).
 */
int runner_run(const struct atomic_job *j, const struct runner_opts *opts,
	       struct run_record *out, struct strbuf *err);

#endif
