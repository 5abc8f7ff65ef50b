/*
 * hackbench.h - rt-tests' hackbench: GROUPS groups of FDS senders and FDS
 * receivers (processes or threads) pass messages over AF_UNIX socketpairs
 * or pipes; the time from the start signal until every worker is done.
 *
 * Process layout of one iteration (why: stopping must never deadlock):
 *
 *   caller (perfbot) -- waits with a deadline; child subreaper
 *     `- leader        own process group; builds the groups, starts the
 *          |           workers, releases them, times them, reaps them
 *          `- senders and receivers (the leader's threads or children)
 *
 * Every iteration is a new leader, as running hackbench again would be.
 * The iteration ends with the leader's exit or, on a timeout or a stop,
 * SIGKILL to the whole process group; every member is reaped by the
 * caller, and every socket and pipe dies with the processes holding it.
 * Workers die with the leader, the leader with perfbot (PR_SET_PDEATHSIG).
 * The leader, the wait, the failure report and the end are the run
 * harness's (bench/harness.h), which will-it-scale and netperf share.
 *
 * Threading: hackbench_run() is called from one thread.  While it runs it
 * blocks SIGINT, SIGTERM and SIGHUP and waits with them unblocked, so a
 * handler the caller installed for them wakes it at once; the handler sets
 * *cfg->stop.  It makes the calling process a child subreaper.
 *
 * Ownership: the config and the result are the caller's; nothing in them
 * is allocated.  The library never prints and never exits the process.
 */
#ifndef PERFBOT_BENCH_HACKBENCH_H
#define PERFBOT_BENCH_HACKBENCH_H

#include <signal.h>
#include <stdbool.h>

/* rt-tests' defaults */
#define HACKBENCH_DEF_GROUPS 10
#define HACKBENCH_DEF_FDS 20
#define HACKBENCH_DEF_LOOPS 100
#define HACKBENCH_DEF_BYTES 100
#define HACKBENCH_DEF_TIMEOUT_S 300.0

/* Limits, so that every count and product stays in range. */
#define HACKBENCH_MAX_GROUPS 65536
#define HACKBENCH_MAX_FDS 4096
#define HACKBENCH_MAX_TASKS (1u << 20)	/* groups x 2 x fds */
#define HACKBENCH_MAX_LOOPS 1000000000ul
#define HACKBENCH_MAX_BYTES (16ul << 20)
#define HACKBENCH_MAX_ITERATIONS 1000
#define HACKBENCH_MAX_TIMEOUT_S (7 * 86400.0)
/* LKP's loops when a job does not give them: 30000 x CPUs / groups */
#define HACKBENCH_LKP_LOOPS_PER_CPU 30000ul

#define HACKBENCH_WHY_MAX 256

enum hackbench_status {
	HACKBENCH_OK = 0,
	HACKBENCH_INCOMPLETE,	/* stopped (*cfg->stop); finished iterations are valid */
	HACKBENCH_FAILED,	/* a worker failed or died, or the timeout passed */
	HACKBENCH_ERROR,	/* the harness could not run it (fork, limits, memory) */
};

struct hackbench_config {
	unsigned groups;	/* 1 .. HACKBENCH_MAX_GROUPS */
	unsigned fds;		/* senders = receivers per group, 1 .. MAX_FDS */
	unsigned long loops;	/* messages from each sender to each receiver */
	unsigned long bytes;	/* per message, 1 .. HACKBENCH_MAX_BYTES */
	bool pipe;		/* pipes, not AF_UNIX stream socketpairs */
	bool threads;		/* workers are threads of the leader, not processes */
	unsigned iterations;	/* hackbench runs, 1 .. HACKBENCH_MAX_ITERATIONS */
	double timeout_s;	/* per iteration, setup included; > 0 */
	volatile sig_atomic_t *stop;	/* may be NULL; non-zero stops the run */
	/* called in the caller after each finished iteration, may be NULL */
	void (*on_iteration)(unsigned idx, double secs, void *arg);
	/* called in the caller, may be NULL: "measure" before the first
	 * iteration starts (hackbench times every iteration whole) */
	void (*on_phase)(const char *phase, void *arg);
	void *arg;
};

struct hackbench_result {
	enum hackbench_status status;
	char why[HACKBENCH_WHY_MAX];	/* for anything but HACKBENCH_OK */
	unsigned nr_times;		/* iterations finished */
	double times[HACKBENCH_MAX_ITERATIONS];	/* seconds, start to last worker */
	double mean_s;			/* mean of times; 0 when none */
	double kib;			/* hackbench_kib() of one iteration */
	double throughput;		/* KiB/s (LKP's); 0 when none */
};

/* rt-tests' defaults, one iteration, a 300 s timeout, no stop flag. */
void hackbench_config_init(struct hackbench_config *cfg);

/*
 * Everything hackbench_run() checks before it starts: NULL, or what is
 * wrong ("32 groups of 40 tasks is more than 1048576 tasks").
 */
const char *hackbench_config_invalid(const struct hackbench_config *cfg);

/* groups x 2 x fds: every sender and receiver. */
unsigned long hackbench_tasks(const struct hackbench_config *cfg);

/*
 * LKP's KiB for one iteration: tasks x loops x bytes / 1024, rounded down
 * as its stats script's ">> 10" does.  Not the bytes actually moved, which
 * are groups x fds x fds x loops x bytes: LKP counts per task, not per pair.
 */
double hackbench_kib(const struct hackbench_config *cfg);

/*
 * LKP's throughput over n iterations: n x KiB / (sum of times), that is
 * KiB / mean time.  0 when there is no time.
 */
double hackbench_throughput(const struct hackbench_config *cfg,
			    const double *times, unsigned n);

/*
 * Run cfg->iterations iterations.  Returns the result's status; `out` is
 * always filled in.  Nothing the run started remains when it returns.
 */
enum hackbench_status hackbench_run(const struct hackbench_config *cfg,
				    struct hackbench_result *out);

const char *hackbench_status_name(enum hackbench_status status);
/* "process" or "threads", as hackbench and LKP's mode call them */
const char *hackbench_mode_name(const struct hackbench_config *cfg);
/* "socket" or "pipe", as LKP's ipc calls them */
const char *hackbench_ipc_name(const struct hackbench_config *cfg);

#endif
