/*
 * mutex.h - the counted loop shared by pthread_mutex1..5.
 *
 * Contract: wis_mutex_loop(t, mutex, val) is the whole counted part of a
 * test's loop(): lock `mutex`, increment *val if val is not NULL, unlock,
 * count 1; it never returns and ends the run through wis_task_fail*() if
 * a lock call fails.  The caller owns the mutex and *val and picks where
 * they live (global, the task's stack, TLS): that placement is the test.
 *
 * Why header-only and always inlined: each test passes NULL or the address
 * of one variable as a constant, so the NULL test folds away and the
 * increment compiles to a direct memory access, as in upstream's tests.
 * *val is volatile so that the increment is a real load and store in
 * memory every round (upstream's plain `val++` is one too, behind the
 * opaque lock calls); GCC could otherwise keep a local in a register or
 * drop a write-only static.  Not atomic: the mutex already serialises it,
 * and an atomic add would be a locked instruction upstream does not do.
 */
#ifndef PERFBOT_BENCH_WIS_MUTEX_H
#define PERFBOT_BENCH_WIS_MUTEX_H

#include "bench/wis/common.h"

#include <errno.h>
#include <pthread.h>

/* pthread calls return the error instead of setting errno. */
static inline __attribute__((cold)) noreturn void
wis_mutex_fail(struct wis_task *t, const char *what, int err)
{
	errno = err;
	wis_task_fail_errno(t, "%s", what);
}

static inline __attribute__((always_inline)) noreturn void
wis_mutex_loop(struct wis_task *t, pthread_mutex_t *mutex,
	       volatile unsigned long *val)
{
	struct wis_counter *ops = t->ops;
	int err;

	for (;;) {
		err = pthread_mutex_lock(mutex);
		if (WIS_UNLIKELY(err))
			wis_mutex_fail(t, "pthread_mutex_lock", err);
		if (val)
			(*val)++;
		err = pthread_mutex_unlock(mutex);
		if (WIS_UNLIKELY(err))
			wis_mutex_fail(t, "pthread_mutex_unlock", err);
		wis_inc(ops, 1);
	}
}

#endif
