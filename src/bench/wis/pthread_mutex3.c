/* pthread_mutex3: lock a global mutex, increment a global variable, unlock. */
#include "bench/wis/mutex.h"

/* Threads contend on both; a forked process has its own copies, as upstream. */
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long val;

static noreturn void loop(struct wis_task *t)
{
	wis_mutex_loop(t, &mutex, &val);
}

const struct wis_test wis_test_pthread_mutex3 = {
	.name = "pthread_mutex3",
	.desc = "lock one global mutex, increment a global variable, unlock",
	.loop = loop,
};
