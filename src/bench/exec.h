/*
 * exec.h - run an external command once and time it: wall time on
 * CLOCK_MONOTONIC from spawn to exit, user and system time and max RSS
 * from the rusage of the command and the descendants it waited for.
 *
 * The command runs in its own process group (util/child.h): at the end,
 * or on timeout or stop, the group is killed and every member reaped, so a
 * command's stray background processes do not outlive the run.  Callers
 * install util/interrupt.h handlers and pass &interrupted as `stop`.
 * With capture_max, stdout comes back through a pipe into memory, never
 * to a file: a command that writes more than capture_max bytes is killed
 * at once (EXEC_OUTPUT_LIMIT), so output can neither fill a disk nor be
 * waited for to its end.  (Draining and discarding instead would let a
 * runaway benchmark run to its timeout for a result that is thrown away.)
 * No state; one run at a time per thread.
 */
#ifndef PERFBOT_BENCH_EXEC_H
#define PERFBOT_BENCH_EXEC_H

#include <signal.h>
#include <stdbool.h>

struct exec_opts {
	double timeout_s;		/* 0: none */
	bool show_output;		/* else stdout and stderr go to /dev/null */
	size_t capture_max;		/* > 0: keep stdout, at most this much (below) */
	const char *cwd;		/* non-NULL: run the command there */
	volatile sig_atomic_t *stop;	/* may be NULL */
};

enum exec_outcome {
	EXEC_EXITED,		/* see status: exit code or signal */
	EXEC_TIMED_OUT,		/* killed at the timeout */
	EXEC_STOPPED,		/* killed because *stop was set */
	EXEC_OUTPUT_LIMIT,	/* killed: stdout passed capture_max bytes */
};

struct exec_run {
	enum exec_outcome outcome;
	int status;		/* wait status, for EXEC_EXITED */
	double wall_s, user_s, sys_s;
	long maxrss_kib;
	/* capture_max > 0: stdout, NUL-terminated (freed by exec_run_release) */
	char *output;
	size_t output_len;
};

void exec_run_release(struct exec_run *r);

/* True when the run exited with status 0. */
bool exec_run_ok(const struct exec_run *r);

/*
 * Run argv once.  0, or a negative errno when it could not be started
 * (-ENOENT: no such command; the run is then not filled in).
 */
int exec_run_once(char *const argv[], const struct exec_opts *opts,
		  struct exec_run *out);

/* 0 when argv0 names an executable file (searched in PATH like execvp). */
int exec_find(const char *argv0);

#endif
