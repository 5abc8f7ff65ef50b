/* unlink1: create, close and unlink an own file; all in one directory. */
#include "bench/wis/fileio.h"

static noreturn void loop(struct wis_task *t)
{
	char path[WIS_PATH_MAX];

	wis_task_path(t, path, t->env->dir, "unlink1");
	fileio_unlink_loop(t, path);
}

const struct wis_test wis_test_unlink1 = {
	.name = "unlink1",
	.desc = "open(O_CREAT), close() and unlink() an own file; all tasks' files in one directory",
	.loop = loop,
};
