#define _GNU_SOURCE
#include "util/child.h"
#include "util/lifetime.h"
#include "util/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Exit status of a child whose setup failed before it could run anything. */
#define EXIT_CHILD_SETUP 127

void child_signals_block(sigset_t *saved)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, saved);
}

void child_signals_restore(const sigset_t *saved)
{
	sigprocmask(SIG_SETMASK, saved, NULL);
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

void child_die_with(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* the parent may have died before the line above */
	if (getppid() != parent)
		_exit(EXIT_CHILD_SETUP);
}

/* In the new child: own group, die with the parent, a clean signal state. */
static void become_child(pid_t parent)
{
	sigset_t none;

	setpgid(0, 0);
	child_die_with(parent);
	/* perfbot's handlers (or a test framework's) must not run here */
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);	/* fails harmlessly for KILL, STOP */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In the parent, right after fork(). */
static void adopt(struct child *c, pid_t pid)
{
	/* both sides set the group, so a kill right away cannot miss it */
	setpgid(pid, pid);
	c->pid = pid;
	c->pidfd = open_pidfd(pid);
}

/*
 * With a watchdog (util/lifetime.h), the child waits at `gate` until the
 * parent has registered its group: nothing it starts can predate that.
 */
static void wait_gate(int gate[2])
{
	char go;
	ssize_t n;

	close(gate[1]);
	do {
		n = read(gate[0], &go, 1);
	} while (n < 0 && errno == EINTR);
	close(gate[0]);
	if (n != 1)
		_exit(EXIT_CHILD_SETUP);	/* the parent died first */
}

static void open_gate(int gate[2], pid_t pid)
{
	lifetime_register(pid);
	close(gate[0]);
	if (write(gate[1], "", 1) < 0) {
		/* the child died already: child_stop() reaps it */
	}
	close(gate[1]);
}

static int fork_child(struct child *c, pid_t *pid)
{
	pid_t parent = getpid();
	bool watched = lifetime_watched();
	int gate[2] = { -1, -1 };

	c->pid = 0;
	c->pidfd = -1;
	if (watched && pipe2(gate, O_CLOEXEC))
		return -errno;
	/* orphans of the group's kill come back to us to be reaped */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	fflush(NULL);	/* or buffered output is written twice */
	*pid = fork();
	if (*pid < 0) {
		int err = -errno;

		if (watched) {
			close(gate[0]);
			close(gate[1]);
		}
		return err;
	}
	if (*pid == 0) {
		become_child(parent);
		lifetime_child_detach();
		if (watched)
			wait_gate(gate);
	} else {
		adopt(c, *pid);
		if (watched)
			open_gate(gate, *pid);
	}
	return 0;
}

int child_fork(struct child *c, int (*fn)(void *arg), void *arg)
{
	pid_t pid;
	int err = fork_child(c, &pid);

	if (err)
		return err;
	if (pid == 0)
		_exit(fn(arg));
	return 0;
}

static void move_fd(int from, int to)
{
	if (from >= 0 && from != to && dup2(from, to) < 0)
		_exit(EXIT_CHILD_SETUP);
}

int child_spawn(struct child *c, char *const argv[], const struct child_io *io)
{
	int report[2], err = 0;
	pid_t pid;
	ssize_t n;

	if (pipe2(report, O_CLOEXEC))
		return -errno;
	err = fork_child(c, &pid);
	if (err) {
		close(report[0]);
		close(report[1]);
		return err;
	}
	if (pid == 0) {
		close(report[0]);
		if (io) {
			move_fd(io->stdin_fd, STDIN_FILENO);
			move_fd(io->stdout_fd, STDOUT_FILENO);
			move_fd(io->stderr_fd, STDERR_FILENO);
		}
		if (!io || !io->cwd || chdir(io->cwd) == 0)
			execvp(argv[0], argv);
		err = errno;
		/* the parent reads why; a short write leaves it with EIO */
		if (write(report[1], &err, sizeof(err)) < 0)
			_exit(EXIT_CHILD_SETUP);
		_exit(EXIT_CHILD_SETUP);
	}
	close(report[1]);
	/* EOF (exec closed the pipe) means the command is running */
	do {
		n = read(report[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == 0)
		return 0;
	child_stop(c, NULL, NULL);
	return n == sizeof(err) ? -err : -EIO;
}

bool child_exited(const struct child *c)
{
	siginfo_t si = { 0 };

	/* WNOWAIT: leave it to child_stop() to reap */
	return c->pid > 0 &&
	       waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	       si.si_pid == c->pid;
}

int child_wait_fd(const struct child *c, int fd, double deadline,
		  volatile sig_atomic_t *stop, const sigset_t *wait_mask)
{
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = c->pidfd, .events = POLLIN },
			{ .fd = fd, .events = POLLIN },
		};
		struct timespec ts;
		double left;

		if (stop && *stop)
			return CHILD_STOPPED;
		if (child_exited(c))
			return CHILD_EXITED;
		left = deadline - mono_now();
		if (left <= 0)
			return CHILD_DEADLINE;
		/* without a pidfd, look at the child every 100 ms */
		if (c->pidfd < 0 && left > 0.1)
			left = 0.1;
		/* ppoll's timeout must stay finite */
		if (left > 3600)
			left = 3600;
		ts = secs_to_timespec(left);
		/* a negative fd is ignored by ppoll: no pidfd, or no fd */
		if (ppoll(pfd, 2, &ts, wait_mask) > 0 && fd >= 0 && pfd[1].revents)
			return CHILD_READABLE;
	}
}

enum child_wait child_wait_until(const struct child *c, double deadline,
				 volatile sig_atomic_t *stop,
				 const sigset_t *wait_mask)
{
	/* without an fd it never answers CHILD_READABLE */
	return (enum child_wait)child_wait_fd(c, -1, deadline, stop, wait_mask);
}

void child_stop(struct child *c, int *status, struct rusage *ru)
{
	struct rusage ignored_ru;
	int st = 0;

	if (c->pid <= 0)
		return;
	kill(-c->pid, SIGKILL);
	/* the group is doomed now: no member can fork past the kill */
	lifetime_unregister(c->pid);
	while (wait4(c->pid, &st, 0, ru ? ru : &ignored_ru) < 0 && errno == EINTR)
		;
	if (status)
		*status = st;
	/*
	 * The child's exit reparented its children to us (subreaper), and
	 * theirs in turn as each died; -pgid reaps them all.
	 */
	for (;;) {
		pid_t pid = waitpid(-c->pid, NULL, 0);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
	}
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pid = 0;
	c->pidfd = -1;
}
