/* lock1: fcntl write-lock and unlock byte 0 of an own file (2 per round). */
#include "bench/wis/common.h"

#include <fcntl.h>
#include <unistd.h>

static noreturn void loop(struct wis_task *t)
{
	struct wis_counter *ops = t->ops;
	int fd = wis_task_own_file(t, t->env->dir, "lock1", 0, true);
	struct flock lck = { .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };

	for (;;) {
		lck.l_type = F_WRLCK;
		if (WIS_UNLIKELY(fcntl(fd, F_SETLKW, &lck)))
			wis_task_fail_errno(t, "lock");
		lck.l_type = F_UNLCK;
		if (WIS_UNLIKELY(fcntl(fd, F_SETLK, &lck)))
			wis_task_fail_errno(t, "unlock");
		wis_inc(ops, 2);
	}
}

const struct wis_test wis_test_lock1 = {
	.name = "lock1",
	.desc = "fcntl(F_SETLKW) write-lock byte 0 of an own file, then unlock (2 per round)",
	.loop = loop,
};
