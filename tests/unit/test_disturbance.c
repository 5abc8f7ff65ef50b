/*
 * Unit tests: run/disturbance -- the arithmetic from fixture /proc/stat
 * snapshots (a hog's busy time is ~1 CPU, the benchmark's and perfbot's
 * own time are taken out, guest time is not counted twice, steal apart),
 * clamping at 0, absence (no time, one side unreadable, no sample), the
 * /proc/loadavg scan, and start/stop on fixture files and on missing
 * ones (no stats, the reason in env, never a failure).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "record/record.h"
#include "run/disturbance.h"
#include "util/procstat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HZ 100

/* Two snapshots of a 2-CPU box's /proc/stat, 2 s apart (200 jiffies a CPU). */
static const char stat_start[] =
	"cpu  10000 20 5000 80000 300 0 100 40 0 0\n"
	"cpu0 5000 10 2500 40000 150 0 50 20 0 0\n"
	"cpu1 5000 10 2500 40000 150 0 50 20 0 0\n"
	"intr 123456 0 9 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"ctxt 987654\nbtime 1700000000\nprocesses 4321\n"
	"procs_running 2\nprocs_blocked 0\n"
	"softirq 5555 0 1 2 3 4 5 6 7 8 9\n";

/* A 1-task benchmark (200 jiffies) and a hog (200 jiffies) in user time. */
static const char stat_end_hog[] =
	"cpu  10400 20 5000 80000 300 0 100 40 0 0\n"
	"cpu0 5200 10 2500 40000 150 0 50 20 0 0\n"
	"cpu1 5200 10 2500 40000 150 0 50 20 0 0\n"
	"intr 124456 0 9 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"ctxt 997654\nbtime 1700000000\nprocesses 4322\n"
	"procs_running 3\nprocs_blocked 0\n"
	"softirq 5655 0 1 2 3 4 5 6 7 8 9\n";

static void parse(const char *text, struct disturbance_reading *r, double bench,
		  double self, double t)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(procstat_parse(text, &r->cpu), 0);
	r->have_cpu = true;
	r->bench_cpu_s = bench;
	r->self_cpu_s = self;
	r->t = t;
}

static void near(double got, double want, double tol)
{
	if (fabs(got - want) > tol)
		fail_msg("got %.6f, want %.6f +- %g", got, want, tol);
}

/* The hog's 2 s of user time over a 2 s run is one CPU; the benchmark's is not counted. */
static void hog_is_one_cpu(void **state)
{
	struct disturbance_reading a, b;
	struct disturbance_stats st;
	struct disturbance_samples s = { .running_sum = 3.0 * 20, .n = 20 };

	(void)state;
	/* the benchmark ran 2.0 s of CPU, perfbot 0.02 s */
	parse(stat_start, &a, 5.0, 1.00, 100.0);
	parse(stat_end_hog, &b, 7.0, 1.02, 102.0);
	disturbance_compute(&a, &b, HZ, &s, &st);
	assert_true(st.have_cpu);
	near(st.others_cpu, 0.99, 1e-9);	/* (4 s - 2 s - 0.02 s) / 2 s */
	near(st.steal, 0, 1e-12);
	/* 3 running per sample: the sampler, the benchmark (1.0), the hog */
	assert_true(st.have_runnable);
	near(st.runnable, 3 - 1 - 1.01, 1e-9);

	/* without a hog: the benchmark's own time leaves nothing */
	parse(stat_end_hog, &b, 9.0, 1.00, 102.0);
	disturbance_compute(&a, &b, HZ, NULL, &st);
	near(st.others_cpu, 0, 1e-9);
	assert_false(st.have_runnable);
}

/* System, irq, softirq and nice count; guest (inside user) and steal do not. */
static void fields(void **state)
{
	struct disturbance_reading a, b;
	struct disturbance_stats st;

	(void)state;
	parse("cpu  100 10 100 1000 0 0 0 0 0 0\n", &a, 0, 0, 0);
	/* +50 user of which 40 guest, +10 nice, +30 system, +5 irq, +5 softirq,
	 * +100 iowait and idle, +25 steal: busy is 100 jiffies = 1 s */
	parse("cpu  150 20 130 1050 50 5 5 25 40 0\n", &b, 0, 0, 4.0);
	disturbance_compute(&a, &b, HZ, NULL, &st);
	near(st.others_cpu, 0.25, 1e-9);
	near(st.steal, 0.0625, 1e-9);
	/* the clock rate matters: USER_HZ 250 makes the same jiffies 0.4 s */
	disturbance_compute(&a, &b, 250, NULL, &st);
	near(st.others_cpu, 0.1, 1e-9);
}

/* Never below 0: jiffy rounding against a precise rusage. */
static void clamped(void **state)
{
	struct disturbance_reading a, b;
	struct disturbance_samples s = { .running_sum = 1.5, .n = 1 };
	struct disturbance_stats st;

	(void)state;
	parse("cpu  100 0 0 1000 0 0 0 0 0 0\n", &a, 0, 0, 0);
	/* 99 jiffies busy, but the benchmark ran 1.0 s by its rusage */
	parse("cpu  199 0 0 1101 0 0 0 0 0 0\n", &b, 1.0, 0, 1.0);
	disturbance_compute(&a, &b, HZ, &s, &st);
	assert_true(st.have_cpu);
	assert_true(st.others_cpu == 0);
	assert_true(st.have_runnable);
	assert_true(st.runnable == 0);
	/* a counter that went backwards counts nothing (not 2^64) */
	parse("cpu  90 0 0 1000 0 0 0 50 0 0\n", &b, 0, 0, 1.0);
	b.cpu.steal = 10;
	a.cpu.steal = 20;
	disturbance_compute(&a, &b, HZ, NULL, &st);
	assert_true(st.others_cpu == 0);
	assert_true(st.steal == 0);
}

static void absent(void **state)
{
	struct disturbance_reading a, b;
	struct disturbance_samples s = { .running_sum = 4, .n = 2 };
	struct disturbance_stats st;

	(void)state;
	parse(stat_start, &a, 0, 0, 5.0);
	parse(stat_end_hog, &b, 0, 0, 5.0);
	/* no time passed */
	disturbance_compute(&a, &b, HZ, &s, &st);
	assert_false(st.have_cpu);
	assert_false(st.have_runnable);
	/* an unknown clock rate */
	b.t = 6.0;
	disturbance_compute(&a, &b, -1, &s, &st);
	assert_false(st.have_cpu);
	/* /proc/stat unreadable at one end: runnable alone */
	b.have_cpu = false;
	disturbance_compute(&a, &b, HZ, &s, &st);
	assert_false(st.have_cpu);
	assert_true(st.have_runnable);
	near(st.runnable, 1, 1e-12);
	/* shorter than DISTURBANCE_MIN_JIFFIES (20 at 100 Hz: 0.2 s): no CPU stats */
	b.have_cpu = true;
	b.t = 5.15;
	disturbance_compute(&a, &b, HZ, &s, &st);
	assert_false(st.have_cpu);
	assert_true(st.too_short);
	assert_true(st.have_runnable);
	b.t = 5.25;
	disturbance_compute(&a, &b, HZ, &s, &st);
	assert_true(st.have_cpu);
	assert_false(st.too_short);
	/* no sample */
	s.n = 0;
	b.have_cpu = true;
	disturbance_compute(&a, &b, HZ, &s, &st);
	assert_true(st.have_cpu);
	assert_false(st.have_runnable);
}

static void loadavg(void **state)
{
	unsigned long r = 99;

	(void)state;
	assert_int_equal(disturbance_parse_loadavg("0.52 0.58 0.59 2/95 12345\n", &r), 0);
	assert_int_equal(r, 2);
	assert_int_equal(disturbance_parse_loadavg("10.00 9.00 8.00 37/1200 1", &r), 0);
	assert_int_equal(r, 37);
	assert_int_not_equal(disturbance_parse_loadavg("0.52 0.58 0.59 2 95\n", &r), 0);
	assert_int_not_equal(disturbance_parse_loadavg("0.52 0.58 2/95\n", &r), 0);
	assert_int_not_equal(disturbance_parse_loadavg("", &r), 0);
	assert_int_not_equal(disturbance_parse_loadavg("a b c x/y z", &r), 0);
}

static void interval(void **state)
{
	(void)state;
	near(disturbance_interval(300), 1.0, 1e-12);
	near(disturbance_interval(2), 0.2, 1e-12);
	near(disturbance_interval(0.05), 0.1, 1e-12);
}

/* ---- start/stop on files ------------------------------------------------ */

static char dir[4096];

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/perfbot-unit.XXXXXX", tmp ? tmp : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char path[4200];

	(void)state;
	snprintf(path, sizeof(path), "%s/stat", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/loadavg", dir);
	unlink(path);
	return rmdir(dir);
}

static const char *fixture(const char *name, const char *text)
{
	static char paths[2][4200];
	char *path = paths[!strcmp(name, "loadavg")];
	FILE *f;

	snprintf(path, 4200, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void sleep_s(double s)
{
	struct timespec ts = { 0, (long)(s * 1e9) };

	nanosleep(&ts, NULL);
}

static double stat_of(const struct run_record *r, const char *name)
{
	const double *v = statmap_get(&r->stats, name);

	if (!v)
		fail_msg("no stat %s", name);
	return *v;
}

static void assert_meta(const struct run_record *r, const char *name, const char *unit)
{
	const struct stat_meta *m = stat_meta_find(&r->meta, name);

	if (!m)
		fail_msg("no meta for %s", name);
	assert_string_equal(m->unit, unit);
	assert_int_equal(m->better, STAT_BETTER_NONE);
	assert_false(m->kpi);
}

/* Files that do not change: no busy time, 3 running in every sample. */
static void files(void **state)
{
	struct disturbance_paths p;
	struct run_record rec = { 0 };
	struct disturbance *d;

	(void)state;
	p.proc_stat = fixture("stat", stat_start);
	p.loadavg = fixture("loadavg", "1.00 1.00 1.00 3/90 4242\n");
	d = disturbance_start(&p, 0.01);
	assert_non_null(d);
	sleep_s(0.25);
	assert_int_equal(disturbance_stop(d, &rec), 0);
	statmap_finish(&rec.stats);
	assert_true(stat_of(&rec, STAT_DISTURBANCE_CPU) == 0);
	assert_true(stat_of(&rec, STAT_DISTURBANCE_STEAL) == 0);
	/* 3 - the sampler - perfbot's own (this test sleeps) */
	near(stat_of(&rec, STAT_DISTURBANCE_RUNNABLE), 2, 0.1);
	assert_meta(&rec, STAT_DISTURBANCE_CPU, "CPUs");
	assert_meta(&rec, STAT_DISTURBANCE_STEAL, "CPUs");
	assert_meta(&rec, STAT_DISTURBANCE_RUNNABLE, "tasks");
	assert_null(strmap_get(&rec.env, "disturbance"));
	assert_null(strmap_get(&rec.env, "disturbance.runnable"));
	run_record_release(&rec);
}

/* Unreadable: no stats, the reasons in env, and stop still succeeds. */
static void unreadable(void **state)
{
	struct disturbance_paths p = {
		.proc_stat = "/nonexistent/perfbot/stat",
		.loadavg = "/nonexistent/perfbot/loadavg",
	};
	struct run_record rec = { 0 };
	struct disturbance *d;

	(void)state;
	d = disturbance_start(&p, 0.01);
	assert_non_null(d);
	sleep_s(0.05);
	assert_int_equal(disturbance_stop(d, &rec), 0);
	statmap_finish(&rec.stats);
	assert_int_equal(rec.stats.n, 0);
	assert_int_equal(rec.meta.n, 0);
	assert_string_equal(strmap_get(&rec.env, "disturbance"),
			    "unavailable: /nonexistent/perfbot/stat: No such file or directory");
	assert_string_equal(strmap_get(&rec.env, "disturbance.runnable"),
			    "unavailable: /nonexistent/perfbot/loadavg: No such file or directory");
	run_record_release(&rec);

	/* files that do not parse are as unreadable */
	p.proc_stat = fixture("stat", "cpu0 1 2 3 4\n");
	p.loadavg = fixture("loadavg", "garbage\n");
	d = disturbance_start(&p, 0.01);
	sleep_s(0.05);
	assert_int_equal(disturbance_stop(d, &rec), 0);
	assert_int_equal(rec.stats.n, 0);
	assert_non_null(strstr(strmap_get(&rec.env, "disturbance"), "/stat: Protocol error"));
	assert_non_null(strstr(strmap_get(&rec.env, "disturbance.runnable"),
			       "/loadavg: Protocol error"));
	run_record_release(&rec);

	/* a run shorter than one sample: CPU stats, no runnable, and why */
	p.proc_stat = fixture("stat", stat_start);
	p.loadavg = fixture("loadavg", "1.00 1.00 1.00 3/90 4242\n");
	d = disturbance_start(&p, 10);
	sleep_s(0.25);
	assert_int_equal(disturbance_stop(d, &rec), 0);
	statmap_finish(&rec.stats);
	assert_non_null(statmap_get(&rec.stats, STAT_DISTURBANCE_CPU));
	assert_null(statmap_get(&rec.stats, STAT_DISTURBANCE_RUNNABLE));
	assert_non_null(strstr(strmap_get(&rec.env, "disturbance.runnable"),
			       "unavailable: no sample in the run's"));
	run_record_release(&rec);
	/* too short for jiffies: no CPU stats, and why */
	d = disturbance_start(&p, 10);
	assert_int_equal(disturbance_stop(d, &rec), 0);
	assert_int_equal(rec.stats.n, 0);
	assert_non_null(strstr(strmap_get(&rec.env, "disturbance"),
			       "unavailable: the run ("));
	assert_non_null(strstr(strmap_get(&rec.env, "disturbance"),
			       "s) is too short for /proc/stat's 20 jiffies"));
	run_record_release(&rec);
	/* NULL is nothing to stop */
	assert_int_equal(disturbance_stop(NULL, &rec), 0);
}

/* On this machine: every stat there, in range. */
static void live(void **state)
{
	struct run_record rec = { 0 };
	struct disturbance *d;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	(void)state;
	d = disturbance_start(NULL, 0.02);
	assert_non_null(d);
	sleep_s(0.3);
	assert_int_equal(disturbance_stop(d, &rec), 0);
	statmap_finish(&rec.stats);
	assert_true(stat_of(&rec, STAT_DISTURBANCE_CPU) >= 0);
	assert_true(stat_of(&rec, STAT_DISTURBANCE_CPU) <= (double)ncpu + 0.5);
	assert_true(stat_of(&rec, STAT_DISTURBANCE_STEAL) >= 0);
	assert_true(stat_of(&rec, STAT_DISTURBANCE_RUNNABLE) >= 0);
	run_record_release(&rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hog_is_one_cpu),
		cmocka_unit_test(fields),
		cmocka_unit_test(clamped),
		cmocka_unit_test(absent),
		cmocka_unit_test(loadavg),
		cmocka_unit_test(interval),
		cmocka_unit_test(files),
		cmocka_unit_test(unreadable),
		cmocka_unit_test(live),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
