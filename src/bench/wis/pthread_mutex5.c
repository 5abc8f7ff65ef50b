/* pthread_mutex5: lock a global mutex, increment a thread-local variable. */
#include "bench/wis/mutex.h"

/* Threads contend on it; each forked process has its own copy, as upstream. */
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local volatile unsigned long val;

static noreturn void loop(struct wis_task *t)
{
	/* &val is taken here, in the task's thread: its own TLS copy */
	wis_mutex_loop(t, &mutex, &val);
}

const struct wis_test wis_test_pthread_mutex5 = {
	.name = "pthread_mutex5",
	.desc = "lock one global mutex, increment a thread-local (TLS) variable, unlock",
	.loop = loop,
};
