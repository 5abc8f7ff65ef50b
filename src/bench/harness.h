/*
 * harness.h - the run harness the built-in engines share (will-it-scale,
 * hackbench, netperf): a leader in its own process group, a shared area
 * in which any task reports the first failure, waiting with a deadline
 * and a stop flag, the phase callback, how the leader ended, and the end
 * of a run: SIGKILL of the group and every member reaped.  An engine
 * keeps only what is its own: its tasks, its counters, its measurement.
 *
 * Process layout of a run (why: stopping must never deadlock):
 *
 *   caller (the engine's *_run()) -- harness_open() .. harness_close();
 *     |         waits, reads the shared area, stops; a child subreaper
 *     `- leader     harness_start(): own process group, dies with the
 *          |        caller (util/child.h's child_fork())
 *          `- tasks threads of the leader, or processes forked with
 *                   harness_fork_task() (each dies with its parent), and
 *                   whatever they start, all in the leader's group
 *
 * No task is ever asked to stop: harness_stop() SIGKILLs the whole group,
 * reaps the leader, then every other member (orphans come back to the
 * caller, the subreaper, as their parents die).  A task killed inside
 * malloc() or holding a lock cannot hang the end, and nothing in the
 * group outlives harness_stop().  A task that leaves the group (setsid(),
 * setpgid()) escapes the kill but still dies with its parent.
 *
 * The failure report: the first harness_fail() of a run wins.  Its status
 * and reason (HARNESS_WHY_MAX bytes: a longer one ends in "...", never
 * cut silently) are the run's, over any later report, over a stop or a
 * deadline at the same moment, and over the end's SIGKILL -- which cannot
 * plant a report: kill() of the group dooms every member at once, so no
 * task sees a peer die of it.  The status is the engine's own enum (never
 * 0, which means "none"); the harness only stores it.
 *
 * Async-signal safety: what tasks call -- harness_fail(), harness_die(),
 * harness_fail_ended(), harness_reason_set(), harness_format(),
 * harness_format_marked(), harness_fork_task(), harness_wait_task(),
 * harness_strerror(), harness_strsignal() -- takes no lock and allocates
 * nothing, so it is
 * safe in any thread of any task, in a process forked from a
 * multithreaded one, and in a signal handler.  Their formats take a
 * subset of printf's (harness_format()).  Everything else is the caller's.
 *
 * Threading: the caller's functions from one thread, one harness at a
 * time per process (the signal mask and the subreaper are the
 * process's).  While a harness is open, SIGINT, SIGTERM and SIGHUP are
 * blocked and unblocked only inside the waits, so a handler that sets
 * *stop wakes a wait at once; a flag stored by a plain write from
 * another thread is seen only when the wait wakes for another reason.
 *
 * Ownership: struct harness is the caller's (on its stack, say); the
 * shared area is mapped by harness_open() and unmapped by
 * harness_close().  Tasks reach it through the copy of the struct that
 * fork() gave them, or the leader's, and only read the struct.
 */
#ifndef PERFBOT_BENCH_HARNESS_H
#define PERFBOT_BENCH_HARNESS_H

#include "util/child.h"

#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#define HARNESS_WHY_MAX 256
/*
 * Where the engine's part of the shared area starts: a whole line plus
 * the adjacent-line prefetch, so no counter shares one with the report.
 */
#define HARNESS_AREA_ALIGN 256
/* A task (or the leader) exits with this after it reported a failure. */
#define HARNESS_EXIT_FAILED 90

/*
 * A reason in the shared area: written once, by the first reporter.
 * `done` tells a later reporter, and the caller, that `why` is whole.
 */
struct harness_reason {
	_Atomic int status;	/* 0: none yet; else the engine's status */
	_Atomic int done;
	char why[HARNESS_WHY_MAX];
};

struct harness_config {
	/* bytes of the engine's own in the shared area (counters, barrier) */
	size_t area_size;
	volatile sig_atomic_t *stop;	/* may be NULL; non-zero stops a wait */
	/* called by harness_phase() in the caller, may be NULL */
	void (*on_phase)(const char *phase, void *arg);
	void *arg;
};

struct harness {
	struct harness_config cfg;
	/* in the shared area, MAP_SHARED: seen by every task */
	struct harness_reason *failure;
	void *area;		/* the engine's area_size bytes, zeroed; or NULL */
	struct child leader;
	int leader_status;	/* the leader's wait status, by harness_stop() */
	sigset_t wait_mask;	/* the caller's mask: unblocked in the waits */
	void *map;
	size_t map_size;
	bool blocked;
};

/* What woke a wait. */
enum harness_wake {
	HARNESS_DEADLINE,	/* the deadline passed */
	HARNESS_STOPPED,	/* *cfg.stop is non-zero */
	HARNESS_EXITED,		/* the leader exited (not reaped yet) */
	HARNESS_READY,		/* harness_wait_ready(): the condition holds */
};

/* ---- in the caller ------------------------------------------------------ */

/*
 * Block SIGINT, SIGTERM and SIGHUP and map the shared area (the report,
 * then area_size bytes at h->area).  0 or a negative errno; either way h
 * is to be closed with harness_close().
 */
int harness_open(struct harness *h, const struct harness_config *cfg);

/* Stop what still runs, unmap the area, restore the signal mask. */
void harness_close(struct harness *h);

/*
 * Clear the report and fork the leader, fn(arg) in a new process group;
 * the leader _exit()s with fn's return value.  The engine's area is left
 * as it is (the engine resets what it reuses).  0 or a negative errno.
 */
int harness_start(struct harness *h, int (*fn)(void *arg), void *arg);

/* Sleep until `deadline` (mono_now(); INFINITY: none), a stop or the
 * leader's exit. */
enum harness_wake harness_wait(struct harness *h, double deadline);

/*
 * Until ready(arg) holds, looking every millisecond (setup takes
 * milliseconds, and is not measured): HARNESS_READY, or what woke the
 * wait first.
 */
enum harness_wake harness_wait_ready(struct harness *h, double deadline,
				     bool (*ready)(void *arg), void *arg);

/* Tell the engine's caller that a phase begins ("warm-up", "measure"). */
void harness_phase(const struct harness *h, const char *phase);

/*
 * SIGKILL the leader's group, reap the leader (its wait status into
 * h->leader_status) and every other member.  Nothing is left after it;
 * calling it again does nothing.
 */
void harness_stop(struct harness *h);

/*
 * After harness_stop(): the status of the first report and its reason in
 * *why (valid until the next harness_start() or harness_close()), or 0
 * when no task reported.
 */
int harness_failure(const struct harness *h, const char **why);

/* After harness_stop(): did the leader exit with status 0? */
bool harness_leader_ok(const struct harness *h);

/*
 * How the leader ended, for a run no task explained: "<who> was killed by
 * signal 11 (Segmentation fault)" ("were" for a plural who), "<who>
 * exited with status 3".
 */
void harness_explain(const struct harness *h, const char *who, bool plural,
		     char *buf, size_t size);

/*
 * The end of a run, after harness_stop(), as the engines decide it: a
 * task's report wins -- its status, its reason into why; else a run the
 * engine found `failed` and has no reason for yet (why[0] == 0) is
 * explained by how the leader ended (harness_explain()).  Returns the
 * run's status: the report's, or `status`.
 */
int harness_outcome(const struct harness *h, int status, int failed,
		    char *why, size_t size, const char *who, bool plural);

/*
 * For the caller's own reasons: vsnprintf() into why (any conversion;
 * shortened, it ends in "..."), returning `status`.  HARNESS_FAIL() sets
 * an engine result's status and why (its members of those names) in one
 * expression; `out` is evaluated more than once.
 */
int harness_set_why(char *why, size_t size, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define HARNESS_FAIL(out, st, ...)                                           \
	((out)->status = harness_set_why((out)->why, sizeof((out)->why), (st), \
					 __VA_ARGS__))

/* ---- in the tasks (async-signal-safe) ------------------------------------ */

/*
 * Report a failure: kept only if it is the run's first.  A later reporter
 * waits (a second at most) until the first has written its reason whole,
 * so that a thread that _exit()s the leader next cannot cut it short.
 */
void harness_fail(const struct harness *h, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void harness_vfail(const struct harness *h, int status, const char *fmt,
		   va_list ap) __attribute__((format(printf, 3, 0)));

/* harness_fail(), then _exit(HARNESS_EXIT_FAILED). */
noreturn void harness_die(const struct harness *h, int status,
			  const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Report how a task ended, from its wait status: "<who> was killed by
 * signal 11 (Segmentation fault)", "<who> exited with status 3"; who is
 * formatted from who_fmt.
 */
void harness_fail_ended(const struct harness *h, int status, int wstatus,
			const char *who_fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * The same first-wins report in a reason of the engine's own (in its part
 * of the shared area, zeroed before use), for a second, weaker cause.
 */
void harness_reason_set(struct harness_reason *r, int status,
			const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Its status, and its reason in *why; 0 when nothing was reported. */
int harness_reason_get(const struct harness_reason *r, const char **why);

/*
 * fork() for a task: in the child, die with the parent (PR_SET_PDEATHSIG)
 * and _exit() at once if it is already gone.  Returns as fork() does.
 */
pid_t harness_fork_task(void);

/* waitpid(-1, wstatus, 0), again after EINTR: a child's pid or -1. */
pid_t harness_wait_task(int *wstatus);

/*
 * strerror() and strsignal() as in the C locale, without their buffers
 * and locks: never NULL; a number without a name is "Unknown error",
 * "Real-time signal" or "Unknown signal", without the number.
 */
const char *harness_strerror(int err);
const char *harness_strsignal(int sig);

/*
 * snprintf() for a subset of its conversions: %d %i %u %x %c %s %%, with
 * the h, hh, l, ll, z and j size modifiers; no flags, width or precision.
 * Writes at most size - 1 characters and a NUL (size > 0); returns what
 * it wrote.
 */
size_t harness_format(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
size_t harness_vformat(char *buf, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/*
 * The same, but a text that did not fit ends in "..." (cut between UTF-8
 * characters), so a shortened reason is never taken for a whole one.
 * The reports, harness_explain() and harness_outcome() format so.
 */
size_t harness_format_marked(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
size_t harness_vformat_marked(char *buf, size_t size, const char *fmt,
			      va_list ap) __attribute__((format(printf, 3, 0)));

#endif
