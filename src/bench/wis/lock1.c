/* lock1: fcntl write-lock and unlock byte 0 of an own file (2 per round). */
#include "bench/wis/common.h"
#include "bench/wis/loops.h"

static noreturn void loop(struct wis_task *t)
{
	wis_lock_loop(t, wis_task_own_file(t, t->env->dir, "lock1", 0, true));
}

const struct wis_test wis_test_lock1 = {
	.name = "lock1",
	.desc = "fcntl(F_SETLKW) write-lock byte 0 of an own file, then unlock (2 per round)",
	.loop = loop,
};
