/* pthread_mutex4: lock a global mutex, increment a task-local variable. */
#include "bench/wis/mutex.h"

/* Threads contend on it; each forked process has its own copy, as upstream. */
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

static noreturn void loop(struct wis_task *t)
{
	/* on the task's stack; volatile keeps it in memory (upstream: alloca) */
	volatile unsigned long val = 0;

	wis_mutex_loop(t, &mutex, &val);
}

const struct wis_test wis_test_pthread_mutex4 = {
	.name = "pthread_mutex4",
	.desc = "lock one global mutex, increment a task-local variable, unlock",
	.loop = loop,
};
