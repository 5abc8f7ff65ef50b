/* unlink2: create, close and unlink an own file in the task's own directory. */
#include "bench/wis/fileio.h"

static noreturn void loop(struct wis_task *t)
{
	char dir[WIS_PATH_MAX], path[WIS_PATH_MAX];

	/* a directory per task: no directory lock shared between tasks */
	fileio_task_dir(t, dir, "unlink2");
	fileio_task_join(t, path, dir, "file");
	fileio_unlink_loop(t, path);
}

const struct wis_test wis_test_unlink2 = {
	.name = "unlink2",
	.desc = "open(O_CREAT), close() and unlink() an own file in the task's own directory",
	.loop = loop,
};
