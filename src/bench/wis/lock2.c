/* lock2: fcntl write-lock and unlock byte 0 of one shared file (2 per round). */
#include "bench/wis/common.h"

#include <fcntl.h>
#include <unistd.h>

static char shared_path[WIS_PATH_MAX];

static enum wis_status prepare(struct wis_env *env)
{
	int fd;

	if (wis_env_path(env, shared_path, env->dir, "lock2"))
		return WIS_ERROR;
	fd = wis_env_create_file(env, shared_path, 0, true, 0);
	if (fd < 0)
		return WIS_ERROR;
	close(fd);
	return WIS_OK;
}

static noreturn void loop(struct wis_task *t)
{
	struct wis_counter *ops = t->ops;
	/* each task opens the file itself: its own open file description */
	int fd = wis_task_open(t, shared_path, O_RDWR);
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

const struct wis_test wis_test_lock2 = {
	.name = "lock2",
	.desc = "fcntl(F_SETLKW) write-lock byte 0 of one shared file, then unlock (2 per round)",
	.prepare = prepare,
	.loop = loop,
};
