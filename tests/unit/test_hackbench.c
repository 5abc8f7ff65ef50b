/*
 * Unit tests: hackbench -- LKP's job parameters, the throughput formula,
 * and real runs in-process (so the sanitizer build covers the leader and
 * its workers): every mode x ipc, a timeout, a stop, a dying worker, a
 * limit known before the start; after each, no child and no fd remains.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/hackbench.h"
#include "bench/hackbench_type.h"
#include "util/strbuf.h"
#include "util/timeutil.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- LKP's parameters --------------------------------------------------- */

/*
 * A job's parameters as the runner applies them: through hackbench's
 * table (bench/hackbench_type.h), then checked together, then the
 * engine's configuration.  A refused value changes nothing.
 */
struct job_params {
	struct bench_args a;
	struct hackbench_config cfg;
};

/* What the row checks across values refuse: more than 2^20 tasks. */
#define REFUSED_TOGETHER ((enum bench_param_status)-1)

static void job_init(struct job_params *j, unsigned ncpus)
{
	bench_args_init(&j->a, &bench_type_hackbench, ncpus, true);
	hackbench_config_from_args(&j->a, &j->cfg);
}

static enum bench_param_status set_param(struct job_params *j, const char *key,
					 const char *value)
{
	struct bench_args b = j->a;
	enum bench_param_status st;
	struct strbuf msg = STRBUF_INIT;
	int row = bench_param_find(&bench_type_hackbench, key), refused;

	if (row < 0)
		return BENCH_PARAM_UNKNOWN;
	st = bench_args_set(&b, row, value);
	if (st != BENCH_PARAM_OK)
		return st;
	refused = bench_args_check(&b, false, &row, &msg);
	strbuf_release(&msg);
	if (refused) {
		assert_int_equal(row, HB_P_NR_THREADS);	/* it names the culprit */
		return REFUSED_TOGETHER;
	}
	j->a = b;
	hackbench_config_from_args(&j->a, &j->cfg);
	return BENCH_PARAM_OK;
}

static void nr_threads_on_cpus(void **state)
{
	struct job_params j;
	static const struct {
		const char *value;
		unsigned ncpus, groups;
		unsigned long loops;	/* 30000 x ncpus / groups */
	} cases[] = {
		{ "1", 2, 1, 60000 },
		{ "1", 88, 1, 2640000 },
		{ "50%", 88, 44, 60000 },
		{ "100%", 88, 88, 30000 },
		{ "200%", 88, 176, 15000 },
		{ "600%", 88, 528, 5000 },
		{ "50%", 2, 1, 60000 },
		{ "100%", 2, 2, 30000 },
		{ "200%", 2, 4, 15000 },
		{ "50%", 3, 1, 90000 },	/* rounded down, at least 1 */
		{ "1%", 2, 1, 60000 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		job_init(&j, cases[i].ncpus);
		assert_int_equal(set_param(&j, "nr_threads", cases[i].value),
				 BENCH_PARAM_OK);
		assert_int_equal(j.cfg.groups, cases[i].groups);
		assert_int_equal(j.cfg.loops, cases[i].loops);
		/* LKP leaves hackbench's 20 fds: "40 file descriptors each" */
		assert_int_equal(j.cfg.fds, 20);
		assert_null(hackbench_config_invalid(&j.cfg));
	}
}

static void loops_param_wins(void **state)
{
	struct job_params j;

	(void)state;
	/* given before nr_threads: kept */
	job_init(&j, 8);
	assert_int_equal(set_param(&j, "loops", "777"), BENCH_PARAM_OK);
	assert_int_equal(set_param(&j, "nr_threads", "4"), BENCH_PARAM_OK);
	assert_int_equal(j.cfg.groups, 4);
	assert_int_equal(j.cfg.loops, 777);
	/* given after: replaces the derived value */
	job_init(&j, 8);
	assert_int_equal(set_param(&j, "nr_threads", "4"), BENCH_PARAM_OK);
	assert_int_equal(j.cfg.loops, 60000);
	assert_int_equal(set_param(&j, "loops", "5"), BENCH_PARAM_OK);
	assert_int_equal(j.cfg.loops, 5);
}

static void mode_ipc_iterations(void **state)
{
	struct job_params j;

	(void)state;
	job_init(&j, 2);
	assert_false(j.cfg.threads);
	assert_false(j.cfg.pipe);
	assert_string_equal(hackbench_mode_name(&j.cfg), "process");
	assert_string_equal(hackbench_ipc_name(&j.cfg), "socket");
	assert_int_equal(set_param(&j, "mode", "threads"), BENCH_PARAM_OK);
	assert_true(j.cfg.threads);
	assert_string_equal(hackbench_mode_name(&j.cfg), "threads");
	assert_int_equal(set_param(&j, "mode", "process"), BENCH_PARAM_OK);
	assert_false(j.cfg.threads);
	assert_int_equal(set_param(&j, "mode", "thread"), BENCH_PARAM_OK);
	assert_true(j.cfg.threads);
	assert_int_equal(set_param(&j, "mode", "processes"), BENCH_PARAM_OK);
	assert_false(j.cfg.threads);
	assert_int_equal(set_param(&j, "ipc", "pipe"), BENCH_PARAM_OK);
	assert_true(j.cfg.pipe);
	assert_string_equal(hackbench_ipc_name(&j.cfg), "pipe");
	assert_int_equal(set_param(&j, "ipc", "socket"), BENCH_PARAM_OK);
	assert_false(j.cfg.pipe);
	assert_int_equal(set_param(&j, "iterations", "10"), BENCH_PARAM_OK);
	assert_int_equal(j.cfg.iterations, 10);
	assert_int_equal(set_param(&j, "datasize", "4096"), BENCH_PARAM_OK);
	assert_int_equal(j.cfg.bytes, 4096);
}

static void bad_params(void **state)
{
	struct job_params j, before;
	static const struct {
		const char *key, *value;
		enum bench_param_status want;
	} cases[] = {
		{ "nr_threads", "0", BENCH_PARAM_TOO_SMALL },
		{ "nr_threads", "0%", BENCH_PARAM_TOO_SMALL },
		{ "nr_threads", "-2", BENCH_PARAM_TOO_SMALL },
		{ "nr_threads", "65537", BENCH_PARAM_TOO_LARGE },
		{ "nr_threads", "30000", REFUSED_TOGETHER },	/* > 2^20 tasks */
		{ "nr_threads", "many", BENCH_PARAM_SYNTAX },
		{ "nr_threads", "", BENCH_PARAM_SYNTAX },
		{ "mode", "fork", BENCH_PARAM_BAD_CHOICE },
		{ "mode", "", BENCH_PARAM_BAD_CHOICE },
		{ "ipc", "tcp", BENCH_PARAM_BAD_CHOICE },
		{ "ipc", "Pipe", BENCH_PARAM_BAD_CHOICE },
		{ "iterations", "0", BENCH_PARAM_TOO_SMALL },
		{ "iterations", "1001", BENCH_PARAM_TOO_LARGE },
		{ "iterations", "2x", BENCH_PARAM_SYNTAX },
		{ "loops", "0", BENCH_PARAM_TOO_SMALL },
		{ "loops", "1000000001", BENCH_PARAM_TOO_LARGE },
		{ "datasize", "0", BENCH_PARAM_TOO_SMALL },
		{ "datasize", "16777217", BENCH_PARAM_TOO_LARGE },
		{ "runtime", "300", BENCH_PARAM_UNKNOWN },
		{ "groups", "3", BENCH_PARAM_UNKNOWN },
	};
	int row;

	(void)state;
	job_init(&j, 88);
	before = j;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(set_param(&j, cases[i].key, cases[i].value),
				 cases[i].want);
		/* untouched on error */
		assert_memory_equal(&j, &before, sizeof(j));
	}
	/* what each key takes, for the message naming a bad value */
	row = bench_param_find(&bench_type_hackbench, "nr_threads");
	assert_true(row >= 0);
	assert_non_null(bench_type_hackbench.params[row].help);
	row = bench_param_find(&bench_type_hackbench, "ipc");
	assert_true(row >= 0);
	assert_non_null(bench_type_hackbench.params[row].help);
	assert_int_equal(bench_param_find(&bench_type_hackbench, "runtime"), -1);
}

/* ---- the throughput formula ------------------------------------------- */

static void throughput_formula(void **state)
{
	struct hackbench_config cfg;
	double times[3] = { 0.5, 1.5, 1.0 };

	(void)state;
	hackbench_config_init(&cfg);
	/* 10 groups x 40 tasks x 100 messages x 100 bytes = 4000000 B */
	assert_int_equal(hackbench_tasks(&cfg), 400);
	assert_float_equal(hackbench_kib(&cfg), 3906, 0);	/* 3906.25, >> 10 */
	assert_float_equal(hackbench_throughput(&cfg, times, 1), 7812, 1e-9);
	/* LKP: the sum of KiB over the sum of times */
	assert_float_equal(hackbench_throughput(&cfg, times, 3), 3 * 3906 / 3.0, 1e-9);
	assert_float_equal(hackbench_throughput(&cfg, times, 0), 0, 0);

	cfg.groups = 3;
	cfg.fds = 7;
	cfg.loops = 11;
	cfg.bytes = 13;
	/* 3 x 2 x 7 x 11 x 13 = 6006 B -> 5 KiB */
	assert_float_equal(hackbench_kib(&cfg), 5, 0);

	/* the largest configuration overflows 64 bits before the shift */
	cfg.groups = 256;
	cfg.fds = 2048;
	cfg.loops = HACKBENCH_MAX_LOOPS;
	cfg.bytes = HACKBENCH_MAX_BYTES;
	assert_null(hackbench_config_invalid(&cfg));
	assert_float_equal(hackbench_kib(&cfg),
			   1048576.0 * 1e9 * 16777216.0 / 1024.0, 1e6);
}

static void invalid_configs(void **state)
{
	struct hackbench_config cfg;
	struct hackbench_result r;

	(void)state;
	hackbench_config_init(&cfg);
	assert_null(hackbench_config_invalid(&cfg));
	cfg.groups = 0;
	assert_non_null(hackbench_config_invalid(&cfg));
	assert_int_equal(hackbench_run(&cfg, &r), HACKBENCH_ERROR);
	assert_non_null(strstr(r.why, "group"));
	hackbench_config_init(&cfg);
	cfg.groups = 1000;
	cfg.fds = 1000;		/* 2 million tasks */
	assert_non_null(hackbench_config_invalid(&cfg));
	hackbench_config_init(&cfg);
	cfg.timeout_s = 0;
	assert_non_null(hackbench_config_invalid(&cfg));
	hackbench_config_init(&cfg);
	cfg.iterations = HACKBENCH_MAX_ITERATIONS + 1;
	assert_non_null(hackbench_config_invalid(&cfg));
}

/* ---- real runs ---------------------------------------------------------- */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Nothing outlived the run: every child reaped, no fd of it left here. */
static void assert_nothing_left(int fds_before)
{
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(count_fds(), fds_before);
}

static struct hackbench_config tiny(bool threads, bool pipe)
{
	struct hackbench_config cfg;

	hackbench_config_init(&cfg);
	cfg.groups = 2;
	cfg.fds = 3;
	cfg.loops = 20;
	cfg.bytes = 1000;
	cfg.threads = threads;
	cfg.pipe = pipe;
	cfg.iterations = 2;
	cfg.timeout_s = 30;
	return cfg;
}

static unsigned seen_iterations;

static void count_iteration(unsigned idx, double secs, void *arg)
{
	assert_int_equal(idx, seen_iterations);
	assert_true(secs > 0);
	assert_ptr_equal(arg, &seen_iterations);
	seen_iterations++;
}

static void every_mode_and_ipc(void **state)
{
	(void)state;
	for (int m = 0; m < 2; m++)
		for (int p = 0; p < 2; p++) {
			struct hackbench_config cfg = tiny(m, p);
			struct hackbench_result r;
			int fds = count_fds();

			seen_iterations = 0;
			cfg.on_iteration = count_iteration;
			cfg.arg = &seen_iterations;
			assert_int_equal(hackbench_run(&cfg, &r), HACKBENCH_OK);
			assert_int_equal(r.status, HACKBENCH_OK);
			assert_int_equal(r.nr_times, 2);
			assert_int_equal(seen_iterations, 2);
			assert_true(r.times[0] > 0 && r.times[0] < 30);
			assert_true(r.times[1] > 0 && r.times[1] < 30);
			assert_float_equal(r.mean_s, (r.times[0] + r.times[1]) / 2, 1e-12);
			/* 2 x 2 x 3 x 20 x 1000 B = 240000 B -> 234 KiB */
			assert_float_equal(r.kib, 234, 0);
			assert_float_equal(r.throughput, 234 / r.mean_s, 1e-6 * r.throughput);
			assert_nothing_left(fds);
		}
}

static void large_messages(void **state)
{
	/* bigger than a socket's or pipe's buffer: partial writes and reads */
	(void)state;
	for (int m = 0; m < 2; m++) {
		struct hackbench_config cfg = tiny(m, m);
		struct hackbench_result r;
		int fds = count_fds();

		cfg.groups = 1;
		cfg.fds = 2;
		cfg.loops = 3;
		cfg.bytes = 1 << 20;
		cfg.iterations = 1;
		assert_int_equal(hackbench_run(&cfg, &r), HACKBENCH_OK);
		assert_int_equal(r.nr_times, 1);
		assert_nothing_left(fds);
	}
}

static void timeout_fails(void **state)
{
	(void)state;
	for (int m = 0; m < 2; m++) {
		struct hackbench_config cfg = tiny(m, false);
		struct hackbench_result r;
		int fds = count_fds();
		double t0 = mono_now();

		cfg.loops = HACKBENCH_MAX_LOOPS;
		cfg.timeout_s = 0.2;
		assert_int_equal(hackbench_run(&cfg, &r), HACKBENCH_FAILED);
		assert_non_null(strstr(r.why, "timeout"));
		assert_non_null(strstr(r.why, "iteration 1 of 2"));
		assert_int_equal(r.nr_times, 0);
		assert_float_equal(r.throughput, 0, 0);
		assert_true(mono_now() - t0 < 5);
		assert_nothing_left(fds);
	}
}

static volatile sig_atomic_t stop_flag;

static void on_stop_signal(int sig)
{
	stop_flag = sig;
}

/* From another thread: only the waiting thread may take the signal. */
static void *send_sigint_later(void *arg)
{
	sigset_t set;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	usleep(300 * 1000);
	kill(getpid(), SIGINT);
	return NULL;
}

static void stop_is_incomplete(void **state)
{
	struct sigaction sa = { .sa_handler = on_stop_signal }, old;
	struct hackbench_config cfg = tiny(false, true);
	struct hackbench_result r;
	int fds = count_fds();
	pthread_t tid;
	double t0;

	(void)state;
	/* set before the start: nothing runs */
	stop_flag = 1;
	cfg.stop = &stop_flag;
	assert_int_equal(hackbench_run(&cfg, &r), HACKBENCH_INCOMPLETE);
	assert_non_null(strstr(r.why, "before the start"));

	/* during the run */
	stop_flag = 0;
	cfg.loops = HACKBENCH_MAX_LOOPS;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	assert_int_equal(pthread_create(&tid, NULL, send_sigint_later, NULL), 0);
	t0 = mono_now();
	assert_int_equal(hackbench_run(&cfg, &r), HACKBENCH_INCOMPLETE);
	assert_true(mono_now() - t0 < 5);
	pthread_join(tid, NULL);
	sigaction(SIGINT, &old, NULL);
	assert_int_equal(stop_flag, SIGINT);
	assert_non_null(strstr(r.why, "stopped during iteration 1 of 2"));
	assert_int_equal(r.nr_times, 0);
	assert_nothing_left(fds);
}

static void stop_after_first(unsigned idx, double secs, void *arg)
{
	(void)idx;
	(void)secs;
	(void)arg;
	stop_flag = SIGTERM;
}

static void stop_between_iterations(void **state)
{
	struct hackbench_config cfg = tiny(true, false);
	struct hackbench_result r;
	int fds = count_fds();

	(void)state;
	stop_flag = 0;
	cfg.stop = &stop_flag;
	cfg.iterations = 3;
	cfg.on_iteration = stop_after_first;
	assert_int_equal(hackbench_run(&cfg, &r), HACKBENCH_INCOMPLETE);
	assert_string_equal(r.why, "stopped after 1 of 3 iterations");
	/* what finished is kept, and summarized */
	assert_int_equal(r.nr_times, 1);
	assert_true(r.times[0] > 0);
	assert_float_equal(r.mean_s, r.times[0], 0);
	assert_float_equal(r.throughput, r.kib / r.times[0], 1e-9 * r.throughput);
	assert_nothing_left(fds);
}

/* A pid from /proc/PID/task/TID/children, or 0. */
static pid_t first_child(pid_t pid)
{
	char path[64];
	FILE *f;
	int child = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%d", &child) != 1)
		child = 0;
	fclose(f);
	return child;
}

/* The last thread of a process, or 0 when it has only its main one. */
static pid_t last_thread(pid_t pid)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	pid_t tid = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t t = atoi(e->d_name);

		if (t > 0 && t != pid)
			tid = t;
	}
	closedir(d);
	return tid;
}

static bool threads_mode;

/* Segfault one worker once the run is under way. */
static void *crash_a_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++) {
		pid_t leader = first_child(getpid());
		pid_t victim = 0;

		usleep(10 * 1000);
		if (!leader)
			continue;
		victim = threads_mode ? last_thread(leader) : first_child(leader);
		if (victim > 0) {
			usleep(50 * 1000);
			syscall(SYS_tgkill, threads_mode ? leader : victim, victim,
				SIGSEGV);
			return NULL;
		}
	}
	return NULL;
}

static void dying_worker_fails(void **state)
{
	(void)state;
	for (int m = 0; m < 2; m++) {
		struct hackbench_config cfg = tiny(m, false);
		struct hackbench_result r;
		int fds = count_fds();
		pthread_t tid;

		cfg.loops = HACKBENCH_MAX_LOOPS;
		cfg.iterations = 1;
		threads_mode = m;
		assert_int_equal(pthread_create(&tid, NULL, crash_a_worker, NULL), 0);
		assert_int_equal(hackbench_run(&cfg, &r), HACKBENCH_FAILED);
		pthread_join(tid, NULL);
		/* a thread's signal takes the whole leader with it */
		assert_non_null(strstr(r.why, m ? "the leader was killed by signal 11"
						 : "a worker was killed by signal 11"));
		assert_int_equal(r.nr_times, 0);
		assert_nothing_left(fds);
	}
}

static void open_file_limit_known_first(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	/* lowering the hard limit cannot be undone: do it in a child */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { .rlim_cur = 100, .rlim_max = 100 };
		struct hackbench_config cfg;
		struct hackbench_result r;

		hackbench_config_init(&cfg);
		cfg.threads = true;	/* 10 x 20 pairs in one process */
		if (setrlimit(RLIMIT_NOFILE, &rl))
			_exit(2);
		if (hackbench_run(&cfg, &r) != HACKBENCH_ERROR)
			_exit(3);
		if (!strstr(r.why, "need 468 open files; the hard limit (ulimit -Hn) is 100"))
			_exit(4);
		/* nothing was started */
		if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD)
			_exit(5);
		/* process mode needs one group's pairs only */
		cfg.threads = false;
		cfg.groups = 1;
		cfg.fds = 5;
		cfg.loops = 5;
		if (hackbench_run(&cfg, &r) != HACKBENCH_OK)
			_exit(6);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	struct rlimit no_core = { 0, 0 };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nr_threads_on_cpus),
		cmocka_unit_test(loops_param_wins),
		cmocka_unit_test(mode_ipc_iterations),
		cmocka_unit_test(bad_params),
		cmocka_unit_test(throughput_formula),
		cmocka_unit_test(invalid_configs),
		cmocka_unit_test(every_mode_and_ipc),
		cmocka_unit_test(large_messages),
		cmocka_unit_test(timeout_fails),
		cmocka_unit_test(stop_is_incomplete),
		cmocka_unit_test(stop_between_iterations),
		cmocka_unit_test(dying_worker_fails),
		cmocka_unit_test(open_file_limit_known_first),
	};

	/* the crash test's SIGSEGV must not leave a core file behind */
	setrlimit(RLIMIT_CORE, &no_core);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
