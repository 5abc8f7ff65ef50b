/*
 * perfevent.h - counting events through perf_event_open(2), the one place
 * perfbot opens them: the events it knows by perf's names, one event
 * opened either system-wide on one CPU (the perf-stat monitor) or on the
 * process tree of the next command perfbot starts (perfbot stat), its
 * count read and scaled for multiplexing, and the words for why an event
 * cannot be counted here.
 *
 * Counting a command (perfevent_exec_*): the events are opened on the
 * calling thread, disabled, with inherit and enable_on_exec.  A child
 * forked afterwards inherits them, still disabled; its exec enables them
 * in the child only (enable_on_exec), so what runs between fork and exec
 * (perfbot's own setup) and perfbot itself are never counted, and every
 * process the command starts inherits them in turn.  When the tree has
 * exited -- child_stop() reaped it -- the kernel has folded each child's
 * count into the event opened here.  This is what perf stat gets by
 * opening its events on the forked workload before it execs; here no hook
 * in the spawning code is needed.  The price: fork the command from the
 * thread that armed the set, and fork nothing else while it is armed.
 *
 * An event the machine cannot count (no PMU, as in most VMs: ENOENT;
 * perf_event_paranoid: EACCES) is reported, never fatal: the others go on.
 * For a command, EACCES/EPERM is retried once counting user space only
 * (perf stat's ":u"), which kernel.perf_event_paranoid = 2 allows.
 *
 * Ownership: descriptors are the caller's, close-on-exec.  Threading: the
 * table and the functions have no state; a perfevent_exec set belongs to
 * the thread that armed it.  Functions return 0 (or an fd) or -errno.
 */
#ifndef PERFBOT_UTIL_PERFEVENT_H
#define PERFBOT_UTIL_PERFEVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perfevent {
	const char *name;	/* perf's: "cycles", "task-clock" */
	uint32_t type;		/* PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE */
	uint64_t config;
	double scale;		/* the raw count times this is in unit */
	const char *unit;	/* "msec" for task-clock, else "" */
};

/* Every event perfbot knows, in perf stat's order: perfevent_table[id]. */
enum perfevent_id {
	PE_TASK_CLOCK,
	PE_CONTEXT_SWITCHES,
	PE_CPU_MIGRATIONS,
	PE_PAGE_FAULTS,
	PE_CYCLES,
	PE_INSTRUCTIONS,
	PE_BRANCHES,
	PE_BRANCH_MISSES,
	PE_CACHE_REFERENCES,
	PE_CACHE_MISSES,
	PE_NR
};

extern const struct perfevent perfevent_table[PE_NR];

/* The event of that name, or NULL; its id is e - perfevent_table. */
const struct perfevent *perfevent_find(const char *name);

/* Open the event for the whole machine on one CPU, disabled: an fd. */
int perfevent_open_cpu(const struct perfevent *e, int cpu);

/* What an fd read: the count and the times for scaling. */
struct perfevent_count {
	uint64_t value, enabled, running;
};

int perfevent_read(int fd, struct perfevent_count *c);

/*
 * The count scaled for the time the event shared a counter with others
 * (value * enabled / running): perf's estimate.  0 when never running.
 */
double perfevent_scaled(const struct perfevent_count *c);

/*
 * Why the event is unavailable, from the errno of its open or read
 * (ENODATA: opened but never scheduled on a counter).
 */
const char *perfevent_why(const struct perfevent *e, int err);

/*
 * A set of events counting the next command perfbot starts (above),
 * opened afresh for each run and closed after it.  Kept open across runs
 * they go dead: between fork and exec the kernel may swap the parent's
 * and the child's (cloned) perf contexts on a context switch, the events
 * opened here then belong to the child, and its exit ends them -- the
 * next children inherit nothing (seen on Linux 6.18: the third run on
 * counted 0).  Fresh events per run cost an open and a close each (~150
 * us in a VM, outside the timed region: bench/RESULTS.md, "Issue 18,
 * item 5"); perf stat pays the same, opening its events on each child.
 */
struct perfevent_exec {
	size_t nr;
	const struct perfevent **ev;	/* borrowed: perfevent_table's */
	int *fd;			/* -1 when not armed */
	int *err;			/* the errno of the last arm or collect */
	int *refused;			/* an open's errno that will not change */
	bool *user_only;		/* counting user space only (":u") */
};

/* An empty set for the events named; -EINVAL for an unknown name. */
int perfevent_exec_init(struct perfevent_exec *s, const char *const *names,
			size_t nr);

/*
 * Before a run: open every event.  One that cannot be opened keeps its
 * errno in err[i] and fd -1; one refused with anything but
 * EMFILE/ENFILE/ENOMEM is not tried again, so a machine without a PMU
 * pays for its refusal once.
 */
void perfevent_exec_arm(struct perfevent_exec *s);

/*
 * After the run's process tree has exited: each event's scaled count, in
 * its unit, into values[i], or NAN with err[i] set (ENODATA: enabled but
 * never on a counter); the events are closed.
 */
void perfevent_exec_collect(struct perfevent_exec *s, double *values);

/* Close what is armed, unread: a run that is not kept. */
void perfevent_exec_disarm(struct perfevent_exec *s);

/* Close what is armed and free the set. */
void perfevent_exec_release(struct perfevent_exec *s);

#endif
