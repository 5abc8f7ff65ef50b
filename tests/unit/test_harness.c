/*
 * Unit tests: the run harness the engines share (bench/harness.h), with
 * leaders and tasks of the tests' own: a leader that exits 0; a task's
 * report that ends the run and wins over later reports, over the end's
 * SIGKILL and over many reporters at once; a leader killed by a signal,
 * explained; a deadline that passes and a stop set from a thread, with
 * the whole group gone afterwards; orphaned grandchildren reaped; a task
 * that left the group dying with its parent; and the formatting that
 * tasks use.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/harness.h"
#include "util/timeutil.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PIDS 16
#define NR_REPORTERS 8

/* The tests' part of the shared area: what the leader and tasks tell. */
struct area {
	_Atomic int own_group;	/* the leader leads its own group */
	_Atomic int nr_pids;
	_Atomic pid_t pids[MAX_PIDS];	/* every task and grandchild */
	_Atomic int ready;
};

static struct harness h;
static struct area *area;

static int open_harness(void **state)
{
	struct harness_config hc = { .area_size = sizeof(struct area) };

	(void)state;
	if (harness_open(&h, &hc))
		return -1;
	area = h.area;
	return 0;
}

/* Also after a failed assertion: nothing of a test outlives it. */
static int close_harness(void **state)
{
	(void)state;
	harness_close(&h);
	area = NULL;
	return 0;
}

static void add_pid(pid_t pid)
{
	int i = atomic_fetch_add(&area->nr_pids, 1);

	if (i < MAX_PIDS)
		atomic_store(&area->pids[i], pid);
}

static void wait_for_pids(int n)
{
	while (atomic_load(&area->nr_pids) < n)
		usleep(1000);
}

static noreturn void sleep_forever(void)
{
	for (;;)
		pause();
}

/*
 * The group is gone: no member left, not even a zombie (kill() finds a
 * zombie), and no child of ours is left to reap.
 */
static void assert_group_gone(pid_t pgid)
{
	assert_true(pgid > 0);
	errno = 0;
	assert_int_equal(kill(-pgid, 0), -1);
	assert_int_equal(errno, ESRCH);
	for (int i = 0; i < atomic_load(&area->nr_pids) && i < MAX_PIDS; i++) {
		errno = 0;
		assert_int_equal(kill(atomic_load(&area->pids[i]), 0), -1);
		assert_int_equal(errno, ESRCH);
	}
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* ---- a leader that exits 0 ------------------------------------------------- */

static int leader_ok(void *arg)
{
	(void)arg;
	atomic_store(&area->own_group, getpgid(0) == getpid());
	return 0;
}

static void leader_exits_0(void **state)
{
	const char *why;
	pid_t pgid;

	(void)state;
	assert_int_equal(harness_start(&h, leader_ok, NULL), 0);
	pgid = h.leader.pid;
	assert_int_equal(harness_wait(&h, mono_now() + 30), HARNESS_EXITED);
	harness_stop(&h);
	assert_true(harness_leader_ok(&h));
	assert_int_equal(atomic_load(&area->own_group), 1);
	assert_int_equal(harness_failure(&h, &why), 0);
	assert_string_equal(why, "");
	/* nothing reported, nothing failed: the engine's status stands */
	{
		char buf[HARNESS_WHY_MAX] = "";

		assert_int_equal(harness_outcome(&h, 0, 2, buf, sizeof(buf),
						 "the leader", false), 0);
		assert_string_equal(buf, "");
	}
	assert_group_gone(pgid);
	/* again: stopping twice does nothing */
	harness_stop(&h);
	assert_true(harness_leader_ok(&h));
}

/* ---- reports ---------------------------------------------------------------- */

/* A task reports and exits; the leader reports how it ended, then a third. */
static int leader_of_a_failing_task(void *arg)
{
	pid_t pid = harness_fork_task();
	int st;

	(void)arg;
	if (pid == 0)
		harness_die(&h, 7, "task %d: %s", 1, "first");
	add_pid(pid);
	if (harness_wait_task(&st) != pid)
		return 1;
	harness_fail_ended(&h, 8, st, "task %u", 1u);
	harness_fail(&h, 9, "third");
	return HARNESS_EXIT_FAILED;
}

static void report_ends_the_run(void **state)
{
	char buf[HARNESS_WHY_MAX] = "";
	const char *why;
	pid_t pgid;

	(void)state;
	assert_int_equal(harness_start(&h, leader_of_a_failing_task, NULL), 0);
	pgid = h.leader.pid;
	assert_int_equal(harness_wait(&h, mono_now() + 30), HARNESS_EXITED);
	harness_stop(&h);
	assert_int_equal(harness_failure(&h, &why), 7);
	assert_string_equal(why, "task 1: first");
	/* the report wins over the leader's end the engine would give */
	assert_false(harness_leader_ok(&h));
	harness_explain(&h, "the leader", false, buf, sizeof(buf));
	assert_string_equal(buf, "the leader exited with status 90");
	buf[0] = '\0';
	assert_int_equal(harness_outcome(&h, 2, 2, buf, sizeof(buf),
					 "the leader", false), 7);
	assert_string_equal(buf, "task 1: first");
	assert_group_gone(pgid);
}

/* A task reports and stays; so does the leader: the end kills them. */
static int leader_of_a_reporting_task(void *arg)
{
	pid_t pid = harness_fork_task();

	(void)arg;
	if (pid == 0) {
		harness_fail(&h, 5, "task %d reported and went on", 3);
		sleep_forever();
	}
	add_pid(pid);
	sleep_forever();
}

static bool reported(void *arg)
{
	(void)arg;
	return atomic_load(&h.failure->done);
}

static void report_wins_over_the_kill(void **state)
{
	char buf[HARNESS_WHY_MAX] = "", kill_why[HARNESS_WHY_MAX];
	const char *why;
	pid_t pgid;

	(void)state;
	assert_int_equal(harness_start(&h, leader_of_a_reporting_task, NULL), 0);
	pgid = h.leader.pid;
	assert_int_equal(harness_wait_ready(&h, mono_now() + 30, reported, NULL),
			 HARNESS_READY);
	/* the run goes on after a report until the engine ends it */
	assert_int_equal(harness_wait(&h, mono_now() + 0.05), HARNESS_DEADLINE);
	harness_stop(&h);
	assert_false(harness_leader_ok(&h));
	snprintf(kill_why, sizeof(kill_why), "the leader was killed by signal %d (%s)",
		 SIGKILL, strsignal(SIGKILL));
	harness_explain(&h, "the leader", false, buf, sizeof(buf));
	assert_string_equal(buf, kill_why);
	assert_int_equal(harness_failure(&h, &why), 5);
	assert_string_equal(why, "task 3 reported and went on");
	/* over the engine's own verdict too ("incomplete", 1) */
	buf[0] = '\0';
	assert_int_equal(harness_outcome(&h, 1, 2, buf, sizeof(buf),
					 "the leader", false), 5);
	assert_string_equal(buf, "task 3 reported and went on");
	assert_group_gone(pgid);
}

static void *report_at_once(void *arg)
{
	int nr = (int)(intptr_t)arg;

	while (!atomic_load(&area->ready))
		;
	harness_fail(&h, 10 + nr, "thread %d of %d: a reason long enough "
		     "that copying it takes a while, %s", nr, NR_REPORTERS,
		     "and that a thread's _exit() could cut it short");
	/* the first to get here takes the whole leader with it */
	_exit(HARNESS_EXIT_FAILED);
}

static int leader_of_many_reporters(void *arg)
{
	pthread_t tid;

	(void)arg;
	for (intptr_t i = 0; i < NR_REPORTERS; i++)
		if (pthread_create(&tid, NULL, report_at_once, (void *)i))
			return 1;
	atomic_store(&area->ready, 1);
	sleep_forever();
}

static void one_whole_report_of_many(void **state)
{
	char want[HARNESS_WHY_MAX];
	const char *why;
	int first;

	(void)state;
	for (int round = 0; round < 20; round++) {
		atomic_store(&area->ready, 0);
		assert_int_equal(harness_start(&h, leader_of_many_reporters, NULL), 0);
		assert_int_equal(harness_wait(&h, mono_now() + 30), HARNESS_EXITED);
		harness_stop(&h);
		first = harness_failure(&h, &why);
		assert_true(first >= 10 && first < 10 + NR_REPORTERS);
		/* the status and the reason are the same reporter's, whole */
		snprintf(want, sizeof(want), "thread %d of %d: a reason long enough "
			 "that copying it takes a while, %s", first - 10,
			 NR_REPORTERS, "and that a thread's _exit() could cut it short");
		assert_string_equal(why, want);
	}
}

/* A report of one start is not the next start's. */
static int leader_quiet(void *arg)
{
	(void)arg;
	return 0;
}

static void each_start_clears_the_report(void **state)
{
	const char *why;

	(void)state;
	assert_int_equal(harness_start(&h, leader_of_a_failing_task, NULL), 0);
	assert_int_equal(harness_wait(&h, mono_now() + 30), HARNESS_EXITED);
	harness_stop(&h);
	assert_int_equal(harness_failure(&h, &why), 7);
	assert_int_equal(harness_start(&h, leader_quiet, NULL), 0);
	assert_int_equal(harness_wait(&h, mono_now() + 30), HARNESS_EXITED);
	harness_stop(&h);
	assert_int_equal(harness_failure(&h, &why), 0);
	assert_string_equal(why, "");
	assert_true(harness_leader_ok(&h));
}

/* ---- how the leader ended ------------------------------------------------- */

static int leader_raises(void *arg)
{
	raise((int)(intptr_t)arg);
	return 0;
}

static int leader_exits_3(void *arg)
{
	(void)arg;
	return 3;
}

static void killed_by_a_signal(void **state)
{
	static const int sigs[] = { SIGUSR1, SIGSEGV };
	char buf[HARNESS_WHY_MAX], want[HARNESS_WHY_MAX];
	const char *why;

	(void)state;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		pid_t pgid;

		assert_int_equal(harness_start(&h, leader_raises,
					       (void *)(intptr_t)sigs[i]), 0);
		pgid = h.leader.pid;
		assert_int_equal(harness_wait(&h, mono_now() + 30), HARNESS_EXITED);
		harness_stop(&h);
		assert_false(harness_leader_ok(&h));
		assert_int_equal(harness_failure(&h, &why), 0);
		harness_explain(&h, "the leader", false, buf, sizeof(buf));
		snprintf(want, sizeof(want), "the leader was killed by signal %d (%s)",
			 sigs[i], strsignal(sigs[i]));
		assert_string_equal(buf, want);
		harness_explain(&h, "the tasks", true, buf, sizeof(buf));
		snprintf(want, sizeof(want), "the tasks were killed by signal %d (%s)",
			 sigs[i], strsignal(sigs[i]));
		assert_string_equal(buf, want);
		/* what an engine reports for a failed run without a reason */
		buf[0] = '\0';
		assert_int_equal(harness_outcome(&h, 2, 2, buf, sizeof(buf),
						 "the tasks", true), 2);
		assert_string_equal(buf, want);
		assert_group_gone(pgid);
	}
	assert_string_equal(strsignal(SIGSEGV), "Segmentation fault");

	assert_int_equal(harness_start(&h, leader_exits_3, NULL), 0);
	assert_int_equal(harness_wait(&h, mono_now() + 30), HARNESS_EXITED);
	harness_stop(&h);
	assert_false(harness_leader_ok(&h));
	harness_explain(&h, "the leader", false, buf, sizeof(buf));
	assert_string_equal(buf, "the leader exited with status 3");
	/* a reason the engine already has is kept */
	strcpy(buf, "the engine's own");
	assert_int_equal(harness_outcome(&h, 2, 2, buf, sizeof(buf),
					 "the leader", false), 2);
	assert_string_equal(buf, "the engine's own");
}

/* ---- deadline and stop: the whole group goes -------------------------------- */

/* Two tasks, each with a child of its own; all of them sleep. */
static int leader_of_sleepers(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++) {
		pid_t pid = harness_fork_task();

		if (pid == 0) {
			pid_t grandchild = harness_fork_task();

			if (grandchild == 0)
				sleep_forever();
			add_pid(grandchild);
			sleep_forever();
		}
		add_pid(pid);
	}
	wait_for_pids(4);
	atomic_store(&area->ready, 1);
	sleep_forever();
}

static bool sleepers_ready(void *arg)
{
	(void)arg;
	return atomic_load(&area->ready);
}

static void deadline_passes(void **state)
{
	const char *why;
	double t0;
	pid_t pgid;

	(void)state;
	assert_int_equal(harness_start(&h, leader_of_sleepers, NULL), 0);
	pgid = h.leader.pid;
	assert_int_equal(harness_wait_ready(&h, mono_now() + 30, sleepers_ready,
					    NULL), HARNESS_READY);
	assert_int_equal(kill(-pgid, 0), 0);
	t0 = mono_now();
	assert_int_equal(harness_wait(&h, t0 + 0.2), HARNESS_DEADLINE);
	assert_true(mono_now() - t0 >= 0.2 && mono_now() - t0 < 5);
	harness_stop(&h);
	assert_true(WIFSIGNALED(h.leader_status));
	assert_int_equal(WTERMSIG(h.leader_status), SIGKILL);
	assert_int_equal(harness_failure(&h, &why), 0);
	assert_int_equal(atomic_load(&area->nr_pids), 4);
	assert_group_gone(pgid);
}

static void ready_deadline_and_exit(void **state)
{
	double t0 = mono_now();

	(void)state;
	/* a condition that never holds: the deadline */
	assert_int_equal(harness_start(&h, leader_of_a_reporting_task, NULL), 0);
	assert_int_equal(harness_wait_ready(&h, t0 + 0.1, sleepers_ready, NULL),
			 HARNESS_DEADLINE);
	assert_true(mono_now() - t0 >= 0.1 && mono_now() - t0 < 5);
	harness_stop(&h);
	/* the leader ends before it holds */
	assert_int_equal(harness_start(&h, leader_quiet, NULL), 0);
	assert_int_equal(harness_wait_ready(&h, mono_now() + 30, sleepers_ready,
					    NULL), HARNESS_EXITED);
	harness_stop(&h);
}

static volatile sig_atomic_t stop_flag;

static void on_stop_signal(int sig)
{
	stop_flag = sig;
}

/* From another thread: only the waiting thread may take the signal. */
static void *stop_later(void *arg)
{
	sigset_t set;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	usleep(200 * 1000);
	kill(getpid(), SIGINT);
	return NULL;
}

static void stop_from_a_thread(void **state)
{
	struct sigaction sa = { .sa_handler = on_stop_signal }, old;
	struct harness_config hc = {
		.area_size = sizeof(struct area), .stop = &stop_flag,
	};
	pthread_t tid;
	double t0;
	pid_t pgid;

	(void)state;
	harness_close(&h);
	assert_int_equal(harness_open(&h, &hc), 0);
	area = h.area;
	stop_flag = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	assert_int_equal(harness_start(&h, leader_of_sleepers, NULL), 0);
	pgid = h.leader.pid;
	assert_int_equal(pthread_create(&tid, NULL, stop_later, NULL), 0);
	t0 = mono_now();
	assert_int_equal(harness_wait(&h, t0 + 30), HARNESS_STOPPED);
	assert_true(mono_now() - t0 < 5);
	pthread_join(tid, NULL);
	assert_int_equal(stop_flag, SIGINT);
	/* the flag stays set: every later wait says so at once */
	assert_int_equal(harness_wait(&h, t0 + 30), HARNESS_STOPPED);
	harness_stop(&h);
	sigaction(SIGINT, &old, NULL);
	assert_group_gone(pgid);
}

/* ---- orphans and escapees ------------------------------------------------- */

/*
 * A task whose children (plain fork(): they do not die with it) outlive
 * it, and a leader that exits as soon as they are there.
 */
static int leader_of_orphans(void *arg)
{
	pid_t pid = harness_fork_task();

	(void)arg;
	if (pid == 0) {
		pid_t grandchild = fork();

		if (grandchild == 0) {
			pid_t great = fork();

			if (great == 0)
				sleep_forever();
			add_pid(great);
			sleep_forever();
		}
		add_pid(grandchild);
		/* orphans its child: it comes back to the caller, a subreaper */
		_exit(0);
	}
	add_pid(pid);
	wait_for_pids(3);
	return 0;
}

static void grandchildren_reaped(void **state)
{
	pid_t pgid;

	(void)state;
	assert_int_equal(harness_start(&h, leader_of_orphans, NULL), 0);
	pgid = h.leader.pid;
	assert_int_equal(harness_wait(&h, mono_now() + 30), HARNESS_EXITED);
	/* the orphans still run, in the leader's group */
	assert_int_equal(kill(-pgid, 0), 0);
	harness_stop(&h);
	assert_true(harness_leader_ok(&h));
	assert_int_equal(atomic_load(&area->nr_pids), 3);
	assert_group_gone(pgid);
}

/* A task that leaves the group: only dying with its parent ends it. */
static int leader_of_an_escapee(void *arg)
{
	pid_t pid = harness_fork_task();

	(void)arg;
	if (pid == 0) {
		setpgid(0, 0);
		atomic_store(&area->ready, 1);
		sleep_forever();
	}
	atomic_store(&area->pids[0], pid);
	while (!atomic_load(&area->ready))
		usleep(1000);
	return 0;
}

static void task_dies_with_its_parent(void **state)
{
	double until = mono_now() + 10;
	pid_t pid, got = 0;
	int st = 0;

	(void)state;
	assert_int_equal(harness_start(&h, leader_of_an_escapee, NULL), 0);
	assert_int_equal(harness_wait(&h, mono_now() + 30), HARNESS_EXITED);
	harness_stop(&h);
	pid = atomic_load(&area->pids[0]);
	assert_true(pid > 0);
	/* it came back to us (the subreaper), killed by its death signal */
	while (got == 0 && mono_now() < until) {
		got = waitpid(pid, &st, WNOHANG);
		if (got == 0)
			usleep(1000);
	}
	if (got != pid) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	assert_int_equal(got, pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGKILL);
}

/* ---- what tasks use ----------------------------------------------------- */

/* harness_format() against snprintf(), for both to give the same. */
#define SAME_AS_SNPRINTF(...)                                                \
	do {                                                                 \
		char a[128], b[128];                                         \
		size_t n = harness_format(a, sizeof(a), __VA_ARGS__);        \
                                                                             \
		snprintf(b, sizeof(b), __VA_ARGS__);                         \
		assert_string_equal(a, b);                                   \
		assert_int_equal(n, strlen(b));                              \
	} while (0)

static void format_subset(void **state)
{
	const char *volatile null = NULL;
	char buf[16];

	(void)state;
	SAME_AS_SNPRINTF("plain text");
	SAME_AS_SNPRINTF("%d %i %u %x %c %s %%", -42, 7, 42u, 0xbeefu, 'z', "str");
	SAME_AS_SNPRINTF("%hhd %hd %ld %lld %zd %jd", (signed char)-5, (short)-300,
			 LONG_MIN, LLONG_MIN, (ssize_t)-9, (intmax_t)INT64_MIN);
	SAME_AS_SNPRINTF("%hhu %hu %lu %llu %zu %ju %lx", (unsigned char)255,
			 (unsigned short)65535, ULONG_MAX, ULLONG_MAX, SIZE_MAX,
			 (uintmax_t)UINT64_MAX, 0xfffful);
	SAME_AS_SNPRINTF("%d%s%d", INT_MAX, "", INT_MIN);
	SAME_AS_SNPRINTF("group %u %s %u: %s: %s", 3u, "sender", 1u, "write",
			 strerror(EPIPE));

	/* cut to the buffer, always terminated */
	assert_int_equal(harness_format(buf, 5, "%s", "abcdefgh"), 4);
	assert_string_equal(buf, "abcd");
	assert_int_equal(harness_format(buf, 1, "%d", 12345), 0);
	assert_string_equal(buf, "");
	assert_int_equal(harness_format(buf, 6, "ab%dcd", 1234), 5);
	assert_string_equal(buf, "ab123");
	harness_format(buf, sizeof(buf), "%s", null);
	assert_string_equal(buf, "(null)");
	/* marked: a shortened text ends in "...", cut between characters */
	assert_int_equal(harness_format_marked(buf, 8, "%s", "abcdefgh"), 7);
	assert_string_equal(buf, "abcd...");
	assert_int_equal(harness_format_marked(buf, 9, "%s", "abcdefgh"), 8);
	assert_string_equal(buf, "abcdefgh");
	/* "ab" then a 3-byte character across the cut: the character goes whole */
	assert_int_equal(harness_format_marked(buf, 8, "ab\xe2\x82\xac%s", "xyz"), 5);
	assert_string_equal(buf, "ab...");
	assert_int_equal(harness_format_marked(buf, 3, "%d", 12345), 2);
	assert_string_equal(buf, "12");
	/* outside the subset: shown as written */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
	harness_format(buf, sizeof(buf), "%f|%5d|%", 1.5, 3);
#pragma GCC diagnostic pop
	assert_string_equal(buf, "%f|%5d|%");
}

/* A reason too long for HARNESS_WHY_MAX ends in "...", never cut silently. */
static int leader_with_a_long_reason(void *arg)
{
	char name[400];

	(void)arg;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	harness_die(&h, 4, "cannot open %s: %s", name, harness_strerror(ENOENT));
}

static void long_reason_marked(void **state)
{
	char buf[HARNESS_WHY_MAX] = "", who[300];
	const char *why;

	(void)state;
	assert_int_equal(harness_start(&h, leader_with_a_long_reason, NULL), 0);
	assert_int_equal(harness_wait(&h, mono_now() + 30), HARNESS_EXITED);
	harness_stop(&h);
	assert_int_equal(harness_failure(&h, &why), 4);
	assert_int_equal(strlen(why), HARNESS_WHY_MAX - 1);
	assert_int_equal(strncmp(why, "cannot open nnn", 15), 0);
	assert_string_equal(why + strlen(why) - 4, "n...");
	/* the engine's copy keeps the mark, in a buffer of any size */
	assert_int_equal(harness_outcome(&h, 2, 2, buf, 64, "the leader", false), 4);
	assert_int_equal(strlen(buf), 63);
	assert_string_equal(buf + 60, "...");
	/* and how the leader ended, told of a long `who` */
	memset(who, 'w', sizeof(who) - 1);
	who[sizeof(who) - 1] = '\0';
	harness_explain(&h, who, false, buf, sizeof(buf));
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	assert_string_equal(buf + sizeof(buf) - 4, "...");
}

static void words_of_libc(void **state)
{
	(void)state;
	for (int err = 1; err < 134; err++)
		if (strerrordesc_np(err))
			assert_string_equal(harness_strerror(err), strerror(err));
	assert_string_equal(harness_strerror(ENOENT), "No such file or directory");
	assert_string_equal(harness_strerror(99999), "Unknown error");
	for (int sig = 1; sig < 32; sig++)
		if (sigdescr_np(sig))
			assert_string_equal(harness_strsignal(sig), strsignal(sig));
	assert_string_equal(harness_strsignal(SIGRTMIN + 1), "Real-time signal");
	assert_string_equal(harness_strsignal(1000), "Unknown signal");
}

int main(void)
{
	struct rlimit no_core = { 0, 0 };
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, open_harness, close_harness)
		T(leader_exits_0),
		T(report_ends_the_run),
		T(report_wins_over_the_kill),
		T(one_whole_report_of_many),
		T(each_start_clears_the_report),
		T(killed_by_a_signal),
		T(deadline_passes),
		T(ready_deadline_and_exit),
		T(stop_from_a_thread),
		T(grandchildren_reaped),
		T(task_dies_with_its_parent),
		T(long_reason_marked),
		cmocka_unit_test(format_subset),
		cmocka_unit_test(words_of_libc),
#undef T
	};

	/* the SIGSEGV of a leader must not leave a core file behind */
	setrlimit(RLIMIT_CORE, &no_core);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
