/* pthread_mutex2: lock and unlock a mutex of the task's own (uncontended). */
#include "bench/wis/mutex.h"

static noreturn void loop(struct wis_task *t)
{
	/* on the task's own stack, as upstream's: never shared, never contended */
	pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

	wis_mutex_loop(t, &mutex, NULL);
}

const struct wis_test wis_test_pthread_mutex2 = {
	.name = "pthread_mutex2",
	.desc = "pthread_mutex_lock() and unlock() a mutex of the task's own",
	.loop = loop,
};
