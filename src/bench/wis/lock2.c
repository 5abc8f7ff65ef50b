/* lock2: fcntl write-lock and unlock byte 0 of one shared file (2 per round). */
#include "bench/wis/common.h"
#include "bench/wis/loops.h"

#include <fcntl.h>

static char shared_path[WIS_PATH_MAX];

static enum wis_status prepare(struct wis_env *env)
{
	return wis_env_shared_file(env, shared_path, "lock2", 0);
}

static noreturn void loop(struct wis_task *t)
{
	/* each task opens the file itself: its own open file description */
	wis_lock_loop(t, wis_task_open(t, shared_path, O_RDWR));
}

const struct wis_test wis_test_lock2 = {
	.name = "lock2",
	.desc = "fcntl(F_SETLKW) write-lock byte 0 of one shared file, then unlock (2 per round)",
	.prepare = prepare,
	.loop = loop,
};
