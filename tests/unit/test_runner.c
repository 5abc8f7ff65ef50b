/*
 * Unit tests: run/runner -- one repeat of a job of each benchmark type
 * into a record (status, the declared stats and their meta, the failure
 * stats, the environment), a failing and a missing command, an
 * unsupported benchmark, a stop, the job's own KPI, and runner_check_job's
 * messages with positions and "did you mean" for every type.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "job/job.h"
#include "record/record.h"
#include "run/runner.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit_jobfile.h"

/* The one atomic job of `text` (with -s overrides), checked or not. */
static struct atomic_job *load1(const char *text, char *const *ov, size_t nov)
{
	struct atomic_job *jobs = NULL;
	struct job_error err = { 0 };
	size_t nr = 0;

	if (job_load(write_job(text), ov, nov, &jobs, &nr, &err))
		fail_msg("job_load: %s", err.msg.buf);
	assert_int_equal(nr, 1);
	return jobs;
}

static volatile sig_atomic_t no_stop;

/* Run `text` once without monitors; the record is the caller's. */
static void run_job(const char *text, volatile sig_atomic_t *stop, bool monitors,
		    struct run_record *rec)
{
	struct atomic_job *j = load1(text, NULL, 0);
	struct runner_opts opts = {
		.commit = "test", .monitors = monitors, .stop = stop ? stop : &no_stop,
	};
	struct job_error jerr = { 0 };
	struct strbuf err = STRBUF_INIT;

	if (runner_check_job(j, &jerr))
		fail_msg("runner_check_job: %s", jerr.msg.buf);
	if (runner_run(j, &opts, rec, &err))
		fail_msg("runner_run: %s", err.buf);
	atomic_jobs_release(j, 1);
	strbuf_release(&err);
}

static double stat_of(const struct run_record *r, const char *name)
{
	const double *v = statmap_get(&r->stats, name);

	if (!v)
		fail_msg("no stat %s", name);
	return *v;
}

static void assert_meta(const struct run_record *r, const char *name,
			const char *unit, int better, bool kpi)
{
	const struct stat_meta *m = stat_meta_find(&r->meta, name);

	if (!m)
		fail_msg("no meta for %s", name);
	assert_string_equal(m->unit, unit);
	assert_int_equal(m->better, better);
	assert_int_equal(m->kpi, kpi);
}

static void assert_env(const struct run_record *r, const char *key,
		       const char *want)
{
	const char *v = strmap_get(&r->env, key);

	if (!v)
		fail_msg("no env %s", key);
	assert_string_equal(v, want);
}

/* exit_fail and is_incomplete_run as the status says, 0 or 1. */
static void assert_failure_stats(const struct run_record *r, double failed,
				 double incomplete)
{
	char name[256];

	snprintf(name, sizeof(name), "%s.exit_fail", r->testcase);
	assert_true(stat_of(r, name) == failed);
	assert_true(stat_of(r, "last_state.is_incomplete_run") == incomplete);
}

/* ---- a record of each kind --------------------------------------------- */

static void wis_thread(void **state)
{
	struct run_record r;

	(void)state;
	run_job("testcase: will-it-scale\nruntime: 0.2s\nnr_task: 1\n"
		"will-it-scale:\n  mode: thread\n  test: getppid1\n", NULL, false, &r);
	assert_int_equal(r.status, RUN_COMPLETE);
	assert_string_equal(r.testcase, "will-it-scale");
	assert_true(stat_of(&r, "will-it-scale.per_thread_ops") > 0);
	assert_true(stat_of(&r, "will-it-scale.workload") > 0);
	assert_null(statmap_get(&r.stats, "will-it-scale.per_process_ops"));
	assert_meta(&r, "will-it-scale.per_thread_ops", "ops/s", STAT_BETTER_HIGHER, true);
	assert_meta(&r, "will-it-scale.workload", "ops/s", STAT_BETTER_HIGHER, true);	/* derived: a KPI too (issue 12) */
	assert_null(stat_meta_find(&r.meta, "will-it-scale.exit_fail"));
	assert_failure_stats(&r, 0, 0);
	assert_env(&r, "resolved.nr_task", "1");
	/* a job's warm-up is at most half its runtime */
	assert_env(&r, "resolved.warmup_s", "0.1");
	assert_env(&r, "runtime_s", "0.2");
	assert_null(strmap_get(&r.env, "last_state.reason"));
	assert_string_equal(run_record_kpi(&r), "will-it-scale.per_thread_ops");
	assert_string_equal(strmap_get(&r.params, "mode"), "thread");
	run_record_release(&r);
}

/* The KPI follows the mode; the monitors open at the measured window. */
static void wis_process_monitored(void **state)
{
	struct run_record r;

	(void)state;
	run_job("testcase: will-it-scale\nruntime: 0.2s\nmonitors: [time]\n"
		"will-it-scale:\n  mode: process\n  test: getppid1\n", NULL, true, &r);
	assert_int_equal(r.status, RUN_COMPLETE);
	assert_meta(&r, "will-it-scale.per_process_ops", "ops/s", STAT_BETTER_HIGHER, true);
	assert_null(stat_meta_find(&r.meta, "will-it-scale.per_thread_ops"));
	/* the time monitor's window is the measured one: no warm-up in it */
	assert_true(stat_of(&r, "will-it-scale.time.elapsed_time") < 0.2 + 0.1 + 0.5);
	assert_true(stat_of(&r, "will-it-scale.time.elapsed_time") >= 0.19);
	/* monitors' stats are not declared */
	assert_null(stat_meta_find(&r.meta, "will-it-scale.time.elapsed_time"));
	run_record_release(&r);
}

static void hackbench_record(void **state)
{
	struct run_record r;

	(void)state;
	run_job("testcase: hackbench\nhackbench:\n  nr_threads: 1\n  loops: 10\n"
		"  ipc: pipe\n  iterations: 2\n", NULL, false, &r);
	assert_int_equal(r.status, RUN_COMPLETE);
	assert_true(stat_of(&r, "hackbench.throughput") > 0);
	assert_true(stat_of(&r, "hackbench.time") > 0);
	assert_meta(&r, "hackbench.throughput", "KiB/s", STAT_BETTER_HIGHER, true);
	assert_meta(&r, "hackbench.time", "s", STAT_BETTER_LOWER, false);
	assert_failure_stats(&r, 0, 0);
	assert_env(&r, "resolved.groups", "1");
	/* loops given: nr_threads does not derive them */
	assert_env(&r, "resolved.loops", "10");
	assert_string_equal(run_record_kpi(&r), "hackbench.throughput");
	run_record_release(&r);
}

static void netperf_record(void **state)
{
	struct run_record r;

	(void)state;
	run_job("testcase: netperf\nruntime: 0.2s\nnetperf:\n  test: TCP_RR\n"
		"  nr_threads: 1\n  cluster: cs-localhost\n", NULL, false, &r);
	assert_int_equal(r.status, RUN_COMPLETE);
	assert_true(stat_of(&r, "netperf.Throughput_tps") > 0);
	assert_true(stat_of(&r, "netperf.Throughput_total_tps") > 0);
	assert_meta(&r, "netperf.Throughput_tps", "tps", STAT_BETTER_HIGHER, true);
	assert_meta(&r, "netperf.Throughput_total_tps", "tps", STAT_BETTER_HIGHER, true);	/* derived: a KPI too */
	assert_meta(&r, "netperf.workload", "transactions", STAT_BETTER_HIGHER, false);
	assert_null(statmap_get(&r.stats, "netperf.Throughput_Mbps"));
	assert_failure_stats(&r, 0, 0);
	assert_env(&r, "resolved.clients", "1");
	assert_string_equal(run_record_kpi(&r), "netperf.Throughput_tps");
	run_record_release(&r);
}

static void exec_kv(void **state)
{
	struct run_record r;

	(void)state;
	run_job("testcase: mybench\nexec:\n  cmd: [sh, -c, \"echo 'score: 42'; echo 'lat: 1.5'\"]\n"
		"  parse: kv\n", NULL, false, &r);
	assert_int_equal(r.status, RUN_COMPLETE);
	assert_true(stat_of(&r, "mybench.score") == 42);
	assert_true(stat_of(&r, "mybench.lat") == 1.5);
	/* named by the output: not declared (the runner's disturbance stats are) */
	for (size_t i = 0; i < r.meta.n; i++)
		assert_true(!strncmp(r.meta.v[i].name, "disturbance.", 12));
	assert_null(stat_meta_find(&r.meta, "mybench.score"));
	assert_failure_stats(&r, 0, 0);
	run_record_release(&r);
}

/* The job's kpi: is the KPI, in meta too, over the benchmark's own. */
static void job_kpi(void **state)
{
	struct run_record r;

	(void)state;
	run_job("testcase: will-it-scale\nruntime: 0.2s\nkpi: will-it-scale.workload\n"
		"will-it-scale:\n  test: getppid1\n", NULL, false, &r);
	assert_int_equal(r.status, RUN_COMPLETE);
	assert_meta(&r, "will-it-scale.workload", "ops/s", STAT_BETTER_HIGHER, true);
	assert_meta(&r, "will-it-scale.per_process_ops", "ops/s", STAT_BETTER_HIGHER, false);
	assert_string_equal(run_record_kpi(&r), "will-it-scale.workload");
	assert_env(&r, "kpi", "will-it-scale.workload");
	run_record_release(&r);

	/* an undeclared stat named by the job: marked, the rule's direction */
	run_job("testcase: mybench\nkpi: mybench.ops_per_sec\nexec:\n"
		"  cmd: [sh, -c, \"echo 'ops_per_sec: 9'\"]\n  parse: kv\n", NULL, false, &r);
	assert_meta(&r, "mybench.ops_per_sec", "", STAT_BETTER_NONE, true);
	assert_string_equal(run_record_kpi(&r), "mybench.ops_per_sec");
	run_record_release(&r);
}

/* ---- disturbance: every run, every type, monitors or not --------------------- */

/*
 * others_cpu and steal with their declarations, or for a run too short
 * for jiffies why not; runnable, or why not.
 */
static void assert_disturbance(const struct run_record *r, bool want_runnable)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (r->duration_s < 0.15 ||
	    (r->duration_s < 0.3 && !statmap_get(&r->stats, STAT_DISTURBANCE_CPU))) {
		assert_null(statmap_get(&r->stats, STAT_DISTURBANCE_CPU));
		assert_null(statmap_get(&r->stats, STAT_DISTURBANCE_STEAL));
		assert_non_null(strstr(strmap_get(&r->env, "disturbance"), "too short"));
		return;
	}
	assert_true(stat_of(r, STAT_DISTURBANCE_CPU) >= 0);
	assert_true(stat_of(r, STAT_DISTURBANCE_CPU) <= (double)ncpu + 0.5);
	assert_true(stat_of(r, STAT_DISTURBANCE_STEAL) >= 0);
	assert_meta(r, STAT_DISTURBANCE_CPU, "CPUs", STAT_BETTER_NONE, false);
	assert_meta(r, STAT_DISTURBANCE_STEAL, "CPUs", STAT_BETTER_NONE, false);
	assert_null(strmap_get(&r->env, "disturbance"));
	if (want_runnable || statmap_get(&r->stats, STAT_DISTURBANCE_RUNNABLE)) {
		assert_true(stat_of(r, STAT_DISTURBANCE_RUNNABLE) >= 0);
		assert_meta(r, STAT_DISTURBANCE_RUNNABLE, "tasks", STAT_BETTER_NONE, false);
		assert_null(strmap_get(&r->env, "disturbance.runnable"));
	} else {
		/* a run shorter than one sample says so */
		assert_non_null(strstr(strmap_get(&r->env, "disturbance.runnable"),
				       "unavailable: no sample"));
	}
}

static void disturbance_every_type(void **state)
{
	static const struct {
		const char *job;
		bool monitors, runnable;
	} jobs[] = {
		{ "testcase: will-it-scale\nruntime: 0.5s\nnr_task: 1\n"
		  "will-it-scale:\n  mode: thread\n  test: futex1\n", false, true },
		{ "testcase: will-it-scale\nruntime: 0.5s\nmonitors: [time, vmstat]\n"
		  "will-it-scale:\n  mode: process\n  test: getppid1\n", true, true },
		{ "testcase: hackbench\nhackbench:\n  nr_threads: 1\n  loops: 10\n"
		  "  ipc: pipe\n  iterations: 2\n", false, false },
		{ "testcase: netperf\nruntime: 0.5s\nnetperf:\n  test: TCP_RR\n"
		  "  nr_threads: 1\n  cluster: cs-localhost\n", false, true },
		{ "testcase: mybench\nexec:\n  cmd: [sh, -c, \"echo 'score: 42'\"]\n"
		  "  parse: kv\n", false, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		struct run_record r;

		run_job(jobs[i].job, NULL, jobs[i].monitors, &r);
		assert_int_equal(r.status, RUN_COMPLETE);
		assert_disturbance(&r, jobs[i].runnable);
		run_record_release(&r);
	}
}

/* /proc unreadable: the result is recorded, the disturbance is not, env says why. */
static void disturbance_unreadable(void **state)
{
	static const struct disturbance_paths nowhere = {
		.proc_stat = "/nonexistent/perfbot-stat",
		.loadavg = "/nonexistent/perfbot-loadavg",
	};
	struct atomic_job *j = load1("testcase: will-it-scale\nruntime: 0.2s\n"
				     "will-it-scale:\n  test: getppid1\n", NULL, 0);
	struct runner_opts opts = {
		.commit = "test", .stop = &no_stop, .disturbance_paths = &nowhere,
	};
	struct strbuf err = STRBUF_INIT;
	struct run_record r;

	(void)state;
	if (runner_run(j, &opts, &r, &err))
		fail_msg("runner_run: %s", err.buf);
	assert_int_equal(r.status, RUN_COMPLETE);
	assert_true(stat_of(&r, "will-it-scale.per_process_ops") > 0);
	assert_failure_stats(&r, 0, 0);
	assert_null(statmap_get(&r.stats, STAT_DISTURBANCE_CPU));
	assert_null(statmap_get(&r.stats, STAT_DISTURBANCE_RUNNABLE));
	assert_null(statmap_get(&r.stats, STAT_DISTURBANCE_STEAL));
	assert_null(stat_meta_find(&r.meta, STAT_DISTURBANCE_CPU));
	assert_env(&r, "disturbance",
		   "unavailable: /nonexistent/perfbot-stat: No such file or directory");
	assert_env(&r, "disturbance.runnable",
		   "unavailable: /nonexistent/perfbot-loadavg: No such file or directory");
	run_record_release(&r);
	atomic_jobs_release(j, 1);
	strbuf_release(&err);
}

/* ---- failures, unsupported, a stop ---------------------------------------- */

static void exec_fails(void **state)
{
	struct run_record r;

	(void)state;
	run_job("testcase: failer\nexec:\n  cmd: [sh, -c, \"echo 'score: 7'; exit 3\"]\n"
		"  parse: kv\n", NULL, false, &r);
	assert_int_equal(r.status, RUN_FAILED);
	assert_env(&r, "last_state.reason", "exit status 3");
	assert_failure_stats(&r, 1, 0);
	assert_null(statmap_get(&r.stats, "failer.score"));
	run_record_release(&r);
}

/* A command that is not there is the job's error: failed, never unsupported. */
static void exec_missing_command(void **state)
{
	struct run_record r;

	(void)state;
	run_job("testcase: ghost\nexec:\n  cmd: [/nonexistent/perfbot-no-such-command]\n",
		NULL, false, &r);
	assert_int_equal(r.status, RUN_FAILED);
	assert_env(&r, "last_state.reason",
		   "cannot run '/nonexistent/perfbot-no-such-command': No such file or directory");
	assert_failure_stats(&r, 1, 0);
	run_record_release(&r);
}

static void unsupported_is_no_failure(void **state)
{
	struct run_record r;

	(void)state;
	/* a hidden self-test of the catalogue that is never supported */
	run_job("testcase: will-it-scale\nruntime: 0.2s\n"
		"will-it-scale:\n  test: selftest-unsupported\n", NULL, false, &r);
	assert_int_equal(r.status, RUN_UNSUPPORTED);
	assert_env(&r, "last_state.reason", "harness self-test: never supported");
	assert_failure_stats(&r, 0, 0);
	assert_null(statmap_get(&r.stats, "will-it-scale.per_process_ops"));
	assert_null(run_record_kpi(&r));
	run_record_release(&r);
}

static void crash_is_failure(void **state)
{
	struct run_record r;

	(void)state;
	run_job("testcase: will-it-scale\nruntime: 2s\nwill-it-scale:\n  test: selftest-crash\n",
		NULL, false, &r);
	assert_int_equal(r.status, RUN_FAILED);
	assert_env(&r, "last_state.reason", "a task was killed by signal 11 (Segmentation fault)");
	assert_failure_stats(&r, 1, 0);
	run_record_release(&r);
}

static void stop_is_incomplete(void **state)
{
	volatile sig_atomic_t stop = SIGINT;
	struct run_record r;

	(void)state;
	run_job("testcase: will-it-scale\nruntime: 0.2s\nwill-it-scale:\n  test: getppid1\n",
		&stop, false, &r);
	assert_int_equal(r.status, RUN_INCOMPLETE);
	assert_env(&r, "last_state.reason", "stopped before the start");
	assert_failure_stats(&r, 0, 1);
	run_record_release(&r);

	run_job("testcase: hackbench\nhackbench:\n  nr_threads: 1\n  loops: 10\n",
		&stop, false, &r);
	assert_int_equal(r.status, RUN_INCOMPLETE);
	assert_failure_stats(&r, 0, 1);
	run_record_release(&r);

	run_job("testcase: sleeper\nexec:\n  cmd: [sleep, \"5\"]\n", &stop, false, &r);
	assert_int_equal(r.status, RUN_INCOMPLETE);
	assert_env(&r, "last_state.reason", "stopped");
	assert_failure_stats(&r, 0, 1);
	run_record_release(&r);
}

/* ---- an exec job's warm-up ------------------------------------------------- */

/*
 * The counting job: each run of its command appends a line to a file in
 * the test directory and prints how many lines it has, as stat `n`;
 * `extra` goes before `exec:` (warmup: N), `fail_first` makes the first
 * invocation exit 5.  Run once with warm_up as given; the number of
 * invocations in all is returned, the file removed.
 */
static unsigned run_counting(const char *extra, bool fail_first, bool warm_up,
			     struct run_record *rec)
{
	struct strbuf text = STRBUF_INIT, file = STRBUF_INIT, err = STRBUF_INIT;
	struct runner_opts opts = {
		.commit = "test", .stop = &no_stop, .warm_up = warm_up,
	};
	struct job_error jerr = { 0 };
	struct atomic_job *j;
	unsigned lines = 0;
	FILE *f;
	int c;

	strbuf_addf(&file, "%s/count", dir);
	strbuf_addf(&text, "testcase: counting\n%sexec:\n"
		    "  cmd: [sh, -c, 'echo x >> \"$0\"; n=$(wc -l < \"$0\"); %s"
		    "echo \"n: $n\"', %s]\n  parse: kv\n",
		    extra, fail_first ? "[ $n -gt 1 ] || exit 5; " : "", file.buf);
	j = load1(text.buf, NULL, 0);
	if (runner_check_job(j, &jerr))
		fail_msg("runner_check_job: %s", jerr.msg.buf);
	if (runner_run(j, &opts, rec, &err))
		fail_msg("runner_run: %s", err.buf);
	f = fopen(file.buf, "r");
	if (f) {
		while ((c = fgetc(f)) != EOF)
			lines += c == '\n';
		fclose(f);
		unlink(file.buf);
	}
	atomic_jobs_release(j, 1);
	strbuf_release(&text);
	strbuf_release(&file);
	strbuf_release(&err);
	return lines;
}

/* Warm-up runs run first, are recorded in env, and give no sample. */
static void exec_warmup(void **state)
{
	struct run_record r;
	const char *el;
	char *end;

	(void)state;
	/* the default: one warm-up, then the measured run sees the 2nd line */
	assert_int_equal(run_counting("", false, true, &r), 2);
	assert_int_equal(r.status, RUN_COMPLETE);
	assert_true(stat_of(&r, "counting.n") == 2);
	assert_env(&r, "warmup.runs", "1");
	assert_env(&r, "warmup.status", "ok");
	el = strmap_get(&r.env, "warmup.elapsed_s");
	assert_non_null(el);
	assert_true(strtod(el, &end) > 0 && !*end);
	/* no stat names the warm-up: only the measured run's and the runner's */
	for (size_t i = 0; i < r.stats.n; i++)
		assert_null(strstr(r.stats.v[i].name, "warm"));
	assert_failure_stats(&r, 0, 0);
	run_record_release(&r);

	assert_int_equal(run_counting("warmup: 3\n", false, true, &r), 4);
	assert_true(stat_of(&r, "counting.n") == 4);
	assert_env(&r, "warmup.runs", "3");
	run_record_release(&r);

	/* warmup: 0 runs none, and says so */
	assert_int_equal(run_counting("warmup: 0\n", false, true, &r), 1);
	assert_true(stat_of(&r, "counting.n") == 1);
	assert_env(&r, "warmup.runs", "0");
	run_record_release(&r);

	/* a later repeat (warm_up false) runs only the measured command */
	assert_int_equal(run_counting("warmup: 3\n", false, false, &r), 1);
	assert_true(stat_of(&r, "counting.n") == 1);
	assert_null(strmap_get(&r.env, "warmup.runs"));
	run_record_release(&r);
}

/* A failing warm-up is a failed run with why; the command is not measured. */
static void exec_warmup_fails(void **state)
{
	struct run_record r;

	(void)state;
	assert_int_equal(run_counting("warmup: 2\n", true, true, &r), 1);
	assert_int_equal(r.status, RUN_FAILED);
	assert_env(&r, "last_state.reason", "warm-up run 1 of 2: exit status 5");
	assert_env(&r, "warmup.runs", "1");
	assert_env(&r, "warmup.status", "failed");
	assert_null(statmap_get(&r.stats, "counting.n"));
	assert_failure_stats(&r, 1, 0);
	run_record_release(&r);

	/* without a warm-up the same command fails as itself */
	assert_int_equal(run_counting("", true, false, &r), 1);
	assert_int_equal(r.status, RUN_FAILED);
	assert_env(&r, "last_state.reason", "exit status 5");
	run_record_release(&r);
}

/* ---- runner_check_job ------------------------------------------------------ */

/* The job `text` (-s `ov`) is refused at file:line:column with `msg`. */
static void refused(const char *text, const char *ov, unsigned line,
		    unsigned column, const char *msg)
{
	char *ovs[1] = { (char *)ov };
	struct atomic_job *j = load1(text, ovs, ov ? 1 : 0);
	struct runner_opts opts = { .commit = "test", .stop = &no_stop };
	struct job_error err = { 0 };
	struct strbuf buf = STRBUF_INIT;
	struct run_record r;

	assert_int_equal(runner_check_job(j, &err), -EINVAL);
	if (strcmp(err.msg.buf, msg))
		fail_msg("message '%s', expected '%s'", err.msg.buf, msg);
	assert_int_equal(err.line, line);
	assert_int_equal(err.column, column);
	if (ov)
		assert_string_equal(err.file.buf, "<command line>");
	else
		assert_non_null(strstr(err.file.buf, "/job"));
	/* runner_run refuses it too, with the same words, and runs nothing */
	assert_int_equal(runner_run(j, &opts, &r, &buf), -EINVAL);
	assert_string_equal(buf.buf, msg);
	atomic_jobs_release(j, 1);
	strbuf_release(&buf);
	job_error_release(&err);
}

static void check_wis(void **state)
{
	(void)state;
	refused("testcase: will-it-scale\nnr_tsk: 1\nwill-it-scale:\n  test: futex1\n",
		NULL, 2, 9, "unknown parameter 'nr_tsk' for will-it-scale (did you mean 'nr_task'?)");
	refused("testcase: will-it-scale\nwill-it-scale:\n  test: futx1\n", NULL, 3, 9,
		"invalid test 'futx1' (did you mean 'futex1'?)");
	refused("testcase: will-it-scale\nwill-it-scale:\n  test: zzzzzzzzzzzzzzzzz\n", NULL, 3, 9,
		"invalid test 'zzzzzzzzzzzzzzzzz': not a will-it-scale test ('perfbot bench' lists them)");
	refused("testcase: will-it-scale\nwill-it-scale:\n  test: futex1\n  nr_task: 010\n",
		NULL, 4, 12, "invalid nr_task '010': expected N or N%");
	refused("testcase: will-it-scale\nwill-it-scale:\n  test: futex1\n  nr_task: 5000\n",
		NULL, 4, 12, "invalid nr_task '5000': more than 4096 tasks");
	refused("testcase: will-it-scale\nwill-it-scale:\n  test: futex1\n  mode: both\n",
		NULL, 4, 9, "invalid mode 'both': expected process or thread");
	refused("testcase: will-it-scale\nwill-it-scale:\n  test: futex1\n  warmup: -1s\n",
		NULL, 4, 11, "invalid warmup '-1s': must not be negative");
	refused("testcase: will-it-scale\nwill-it-scale:\n  mode: thread\n", NULL, 0, 0,
		"will-it-scale needs a 'test' parameter");
	/* a command-line-only option is no job key */
	refused("testcase: will-it-scale\nwill-it-scale:\n  test: futex1\n  sweep: true\n",
		NULL, 4, 10, "unknown parameter 'sweep' for will-it-scale (did you mean 'test'?)");
	refused("testcase: will-it-scale\nwill-it-scale:\n  test: futex1\n", "nr_tsk=1", 0, 0,
		"-s nr_tsk=1: unknown parameter 'nr_tsk' for will-it-scale (did you mean 'nr_task'?)");
}

static void check_hackbench(void **state)
{
	(void)state;
	refused("testcase: hackbench\nnr_thread: 2\n", NULL, 2, 12,
		"unknown parameter 'nr_thread' for hackbench (did you mean 'nr_threads'?)");
	refused("testcase: hackbench\nhackbench:\n  ipc: tcp\n", NULL, 3, 8,
		"invalid ipc 'tcp': expected socket or pipe");
	refused("testcase: hackbench\nhackbench:\n  mode: fork\n", NULL, 3, 9,
		"invalid mode 'fork': expected process or threads");
	refused("testcase: hackbench\nhackbench:\n  iterations: 1001\n", NULL, 3, 15,
		"invalid iterations '1001': at most 1000");
	/* checked together: the culprit's position */
	refused("testcase: hackbench\nhackbench:\n  nr_threads: 30000\n", NULL, 3, 15,
		"30000 groups of 2 x 20 tasks is 1200000 tasks, more than 1048576");
	refused("testcase: hackbench\n", "datasize=0", 0, 0,
		"-s datasize=0: invalid datasize '0': must be at least 1");
}

static void check_netperf(void **state)
{
	(void)state;
	refused("testcase: netperf\nnetperf:\n  test: TCP_STRAEM\n", NULL, 3, 9,
		"invalid test 'TCP_STRAEM' (did you mean 'TCP_STREAM'?)");
	refused("testcase: netperf\nnetperf:\n  test: PING\n", NULL, 3, 9,
		"invalid test 'PING': not a netperf test ('perfbot bench netperf --help' lists them)");
	refused("testcase: netperf\nsend_sz: 10K\n", NULL, 2, 10,
		"unknown parameter 'send_sz' for netperf (did you mean 'send_size'?)");
	refused("testcase: netperf\nnetperf:\n  cluster: cs-s1\n", NULL, 3, 12,
		"invalid cluster 'cs-s1': expected cs-localhost");
	refused("testcase: netperf\nnetperf:\n  ip: ipv5\n", NULL, 3, 7,
		"invalid ip 'ipv5': expected ipv4 or ipv6");
	refused("testcase: netperf\nnetperf:\n  send_size: 1KB\n", NULL, 3, 14,
		"invalid send_size '1KB': expected bytes, or a number with K, M, k or m");
	/* checked together: no one value to blame */
	refused("testcase: netperf\nnetperf:\n  test: UDP_STREAM\n  send_size: 65508\n", NULL,
		0, 0, "netperf: UDP_STREAM send size 65508 is over the largest UDP/IPv4 datagram (65507 bytes)");
	/* the recv size is the command line's only */
	refused("testcase: netperf\nnetperf:\n  recv_size: 1\n", NULL, 3, 14,
		"unknown parameter 'recv_size' for netperf (did you mean 'send_size'?)");
}

static void check_exec_and_testcase(void **state)
{
	(void)state;
	refused("testcase: mine\nfoo: 1\nexec:\n  cmd: [true]\n", NULL, 2, 6,
		"unknown parameter 'foo' for mine: exec jobs take warmup and timeout;"
		" pass the command's own in cmd");
	/* warmup: a count of runs, 0 to 100, checked as every key is */
	refused("testcase: mine\nwarmpu: 1\nexec:\n  cmd: [true]\n", NULL, 2, 9,
		"unknown parameter 'warmpu' for mine (did you mean 'warmup'?)");
	refused("testcase: mine\nwarmup: -1\nexec:\n  cmd: [true]\n", NULL, 2, 9,
		"invalid warmup '-1': must be at least 0");
	refused("testcase: mine\nwarmup: 101\nexec:\n  cmd: [true]\n", NULL, 2, 9,
		"invalid warmup '101': more than 100 runs");
	refused("testcase: mine\nwarmup: 2s\nexec:\n  cmd: [true]\n", NULL, 2, 9,
		"invalid warmup '2s': expected a whole number");
	refused("testcase: mine\nexec:\n  cmd: [true]\n", "warmup=many", 0, 0,
		"-s warmup=many: invalid warmup 'many': expected a whole number");
	/* a misspelt generic key the type takes is suggested */
	refused("testcase: mine\ntimeoutt: 1\nexec:\n  cmd: [true]\n", NULL, 2, 11,
		"unknown parameter 'timeoutt' for mine (did you mean 'timeout'?)");
	refused("testcase: will-it-scale\nruntim: 1\nwill-it-scale:\n  test: futex1\n",
		NULL, 2, 9, "unknown parameter 'runtim' for will-it-scale (did you mean 'runtime'?)");
	refused("testcase: hackbnch\n", NULL, 0, 0,
		"unknown testcase 'hackbnch' (did you mean 'hackbench'?)");
	refused("testcase: zzzzzzzzzzzzz\n", NULL, 0, 0,
		"unknown testcase 'zzzzzzzzzzzzz': perfbot runs will-it-scale, hackbench, netperf and exec");
	refused("testcase: hackbench\nmonitors: [vmstatt]\n", NULL, 0, 0,
		"unknown monitor 'vmstatt' (did you mean 'vmstat'?)");
}

/*
 * A parameter's long name -- 1,000 bytes in the file (YAML's limit of a
 * plain key is 1,024), 5,000 from -s -- is quoted whole by
 * runner_check_job() and runner_run() (main cut both at 512).
 */
static void check_long_names_whole(void **state)
{
	struct strbuf key = STRBUF_INIT, text = STRBUF_INIT, msg = STRBUF_INIT;
	struct strbuf ov = STRBUF_INIT;

	(void)state;
	strbuf_addchars(&key, 'k', 1000);
	strbuf_addf(&text, "testcase: will-it-scale\n%s: 1\nwill-it-scale:\n  test: futex1\n",
		    key.buf);
	strbuf_addf(&msg, "unknown parameter '%s' for will-it-scale", key.buf);
	/* the position is the value's, after "KEY: " */
	refused(text.buf, NULL, 2, 1003, msg.buf);

	strbuf_addchars(&key, 'k', 4000);
	strbuf_addf(&ov, "%s=1", key.buf);
	strbuf_reset(&msg);
	strbuf_addf(&msg, "-s %s: unknown parameter '%s' for will-it-scale", ov.buf, key.buf);
	refused("testcase: will-it-scale\nwill-it-scale:\n  test: futex1\n", ov.buf, 0, 0,
		msg.buf);
	strbuf_release(&key);
	strbuf_release(&text);
	strbuf_release(&msg);
	strbuf_release(&ov);
}

/* Every checked job of the ready job files passes (what perfbot run checks). */
static void ready_jobs_pass(void **state)
{
	static const char *const texts[] = {
		"testcase: netperf\nruntime: 30s\ncluster: cs-localhost\nip: ipv4\n"
		"nr_threads: 200%\nnetperf:\n  send_size: 10K\n  test: SCTP_STREAM\n",
		"testcase: hackbench\nnr_threads: 100%\nhackbench:\n  mode: threads\n"
		"  ipc: socket\n  iterations: 4\n",
		"testcase: will-it-scale\nnr_task: 100%\nwill-it-scale:\n  mode: processes\n"
		"  test: futex4\n  warmup: 1s\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct atomic_job *j = load1(texts[i], NULL, 0);
		struct job_error err = { 0 };

		if (runner_check_job(j, &err))
			fail_msg("%s: %s", texts[i], err.msg.buf);
		atomic_jobs_release(j, 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_long_names_whole),
		cmocka_unit_test(wis_thread),
		cmocka_unit_test(wis_process_monitored),
		cmocka_unit_test(hackbench_record),
		cmocka_unit_test(netperf_record),
		cmocka_unit_test(exec_kv),
		cmocka_unit_test(job_kpi),
		cmocka_unit_test(disturbance_every_type),
		cmocka_unit_test(disturbance_unreadable),
		cmocka_unit_test(exec_fails),
		cmocka_unit_test(exec_missing_command),
		cmocka_unit_test(exec_warmup),
		cmocka_unit_test(exec_warmup_fails),
		cmocka_unit_test(unsupported_is_no_failure),
		cmocka_unit_test(crash_is_failure),
		cmocka_unit_test(stop_is_incomplete),
		cmocka_unit_test(check_wis),
		cmocka_unit_test(check_hackbench),
		cmocka_unit_test(check_netperf),
		cmocka_unit_test(check_exec_and_testcase),
		cmocka_unit_test(ready_jobs_pass),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
