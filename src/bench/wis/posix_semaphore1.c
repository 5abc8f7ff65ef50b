/* posix_semaphore1: sem_wait() then sem_post() on an own unnamed semaphore. */
#include "bench/wis/common.h"

#include <semaphore.h>

static noreturn void loop(struct wis_task *t)
{
	struct wis_counter *ops = t->ops;
	sem_t sem;

	/* process-private and never contended: the fast path, no futex call */
	if (sem_init(&sem, 0, 1))
		wis_task_fail_errno(t, "sem_init");
	for (;;) {
		if (WIS_UNLIKELY(sem_wait(&sem)))
			wis_task_fail_errno(t, "sem_wait");
		if (WIS_UNLIKELY(sem_post(&sem)))
			wis_task_fail_errno(t, "sem_post");
		wis_inc(ops, 1);
	}
}

const struct wis_test wis_test_posix_semaphore1 = {
	.name = "posix_semaphore1",
	.desc = "sem_wait() then sem_post() on an own unnamed semaphore",
	.loop = loop,
};
