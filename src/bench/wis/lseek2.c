/* lseek2: lseek(fd, 0, SEEK_SET) on one shared file, own fd per task. */
#include "bench/wis/common.h"
#include "bench/wis/loops.h"

#include <fcntl.h>

static char shared_path[WIS_PATH_MAX];

static enum wis_status prepare(struct wis_env *env)
{
	return wis_env_shared_file(env, shared_path, "lseek2", 4096);
}

static noreturn void loop(struct wis_task *t)
{
	/* own open file description: tasks share the inode, not f_pos */
	wis_lseek_loop(t, wis_task_open(t, shared_path, O_RDWR));
}

const struct wis_test wis_test_lseek2 = {
	.name = "lseek2",
	.desc = "lseek(fd, 0, SEEK_SET) on one shared 4 KiB file, each task with its own fd",
	.prepare = prepare,
	.loop = loop,
};
