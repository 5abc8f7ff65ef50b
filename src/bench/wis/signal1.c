/* signal1: raise(SIGUSR1) to itself with an empty handler installed. */
#include "bench/wis/common.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

static void handler(int sig)
{
	(void)sig;
}

/*
 * Runs in each task, never in prepare(): the disposition must be the task
 * process's (the leader's in thread mode), not the caller's.  Tasks
 * installing the same handler concurrently is harmless.
 */
static void setup(struct wis_task *t)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		wis_task_fail_errno(t, "sigaction");
	/* an inherited blocked SIGUSR1 would stay pending: nothing delivered */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	errno = pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	if (errno)
		wis_task_fail_errno(t, "unblock SIGUSR1");
}

static noreturn void loop(struct wis_task *t)
{
	struct wis_counter *ops = t->ops;

	for (;;) {
		if (WIS_UNLIKELY(raise(SIGUSR1)))
			wis_task_fail_errno(t, "raise");
		wis_inc(ops, 1);
	}
}

const struct wis_test wis_test_signal1 = {
	.name = "signal1",
	.desc = "raise(SIGUSR1) to itself, delivered to an empty handler",
	.setup = setup,
	.loop = loop,
};
