/* pthread_mutex1: lock and unlock one global mutex. */
#include "bench/wis/mutex.h"

/* Threads contend on it; each forked process has its own copy, as upstream. */
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

static noreturn void loop(struct wis_task *t)
{
	wis_mutex_loop(t, &mutex, NULL);
}

const struct wis_test wis_test_pthread_mutex1 = {
	.name = "pthread_mutex1",
	.desc = "pthread_mutex_lock() and unlock() one global mutex (contended by threads, per-process copy)",
	.loop = loop,
};
