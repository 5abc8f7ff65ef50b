/* lseek2: lseek(fd, 0, SEEK_SET) on one shared file, own fd per task. */
#include "bench/wis/common.h"

#include <fcntl.h>
#include <unistd.h>

#define FILE_SIZE 4096

static char shared_path[WIS_PATH_MAX];

static enum wis_status prepare(struct wis_env *env)
{
	int fd;

	if (wis_env_path(env, shared_path, env->dir, "lseek2"))
		return WIS_ERROR;
	fd = wis_env_create_file(env, shared_path, FILE_SIZE, false, 0);
	if (fd < 0)
		return WIS_ERROR;
	close(fd);
	return WIS_OK;
}

static noreturn void loop(struct wis_task *t)
{
	struct wis_counter *ops = t->ops;
	/* own open file description: tasks share the inode, not f_pos */
	int fd = wis_task_open(t, shared_path, O_RDWR);

	for (;;) {
		if (WIS_UNLIKELY(lseek(fd, 0, SEEK_SET)))
			wis_task_fail_errno(t, "lseek");
		wis_inc(ops, 1);
	}
}

const struct wis_test wis_test_lseek2 = {
	.name = "lseek2",
	.desc = "lseek(fd, 0, SEEK_SET) on one shared 4 KiB file, each task with its own fd",
	.prepare = prepare,
	.loop = loop,
};
