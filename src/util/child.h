/*
 * child.h - child processes that lead their own process group, so that a
 * benchmark and everything it started can be stopped as one.
 *
 * A child made here: leads a new process group; dies when perfbot dies
 * (PR_SET_PDEATHSIG); starts with default signal dispositions and nothing
 * blocked.  child_stop() sends SIGKILL to the whole group and reaps every
 * member: the caller is made a child subreaper, so grandchildren orphaned
 * by the kill come back to it and are reaped too.  Nothing a child starts
 * in its group outlives child_stop().
 *
 * child_wait_until() sleeps with SIGINT, SIGTERM and SIGHUP unblocked only
 * inside the wait (they are blocked by child_signals_block()), so a
 * handler that sets *stop wakes it without a race.
 *
 * Once lifetime_start() (util/lifetime.h) ran, every group made here is
 * registered with the watchdog before the child runs code of its own and
 * unregistered when child_stop() kills it, so a group outlives neither a
 * normal exit nor a SIGKILL of perfbot.
 *
 * Limits: a member that leaves the group (setsid(), setpgid()) escapes
 * the kill; benchmarks do not, a command run by perfbot stat could.  The
 * death signal fires when the *thread* that forked the child exits, so
 * fork children from a thread that lives as long as they should.
 *
 * Threading: use from one thread.  Ownership: struct child holds a pidfd
 * that child_stop() closes.  Functions return 0 or a negative errno.
 */
#ifndef PERFBOT_UTIL_CHILD_H
#define PERFBOT_UTIL_CHILD_H

#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

struct child {
	pid_t pid;		/* also the process group id; 0 when none */
	int pidfd;		/* -1 where the kernel has no pidfd_open */
};

/*
 * Where a spawned command's standard streams go; -1 keeps perfbot's.
 * cwd: the directory the command starts in; NULL keeps perfbot's (a
 * chdir failure is reported like an exec failure).
 */
struct child_io {
	int stdin_fd, stdout_fd, stderr_fd;
	const char *cwd;
};

/*
 * Block SIGINT, SIGTERM and SIGHUP, saving the old mask in *saved for
 * child_wait_until() and for child_signals_restore().
 */
void child_signals_block(sigset_t *saved);
void child_signals_restore(const sigset_t *saved);

/*
 * For a process forked by other means (a task of a benchmark): die when
 * `parent` does (PR_SET_PDEATHSIG), and _exit() at once if it already has.
 */
void child_die_with(pid_t parent);

/* Run fn(arg) in a new child; the child _exit()s with fn's return value. */
int child_fork(struct child *c, int (*fn)(void *arg), void *arg);

/*
 * Execute argv[0] (searched in PATH) in a new child.  -ENOENT/-EACCES...
 * when the command cannot be executed: the exec error is reported back
 * through a close-on-exec pipe, so the caller knows before it waits.
 */
int child_spawn(struct child *c, char *const argv[], const struct child_io *io);

enum child_wait {
	CHILD_EXITED,		/* the child (the group leader) has exited */
	CHILD_DEADLINE,		/* the deadline passed first */
	CHILD_STOPPED,		/* *stop became non-zero */
};

/* child_wait_fd()'s fourth answer, none of enum child_wait's */
#define CHILD_READABLE (-1)

/*
 * Sleep until `deadline` (mono_now() seconds; INFINITY for none), the
 * child's exit, or a stop request.  wait_mask is what child_signals_block()
 * saved.  The child is not reaped.
 */
enum child_wait child_wait_until(const struct child *c, double deadline,
				 volatile sig_atomic_t *stop,
				 const sigset_t *wait_mask);

/*
 * As child_wait_until(), also returning CHILD_READABLE when fd has data,
 * EOF or an error (-1: no fd).  Pass -1 once fd reached EOF.
 */
int child_wait_fd(const struct child *c, int fd, double deadline,
		  volatile sig_atomic_t *stop, const sigset_t *wait_mask);

/* Has the child exited (not reaped)? */
bool child_exited(const struct child *c);

/*
 * SIGKILL the child's process group (a child that already exited stays
 * as it ended: its status is kept), reap the child -- its wait status and
 * rusage (itself and the descendants it reaped) into *status and *ru,
 * either may be NULL -- then reap every other member of the group.
 */
void child_stop(struct child *c, int *status, struct rusage *ru);

#endif
