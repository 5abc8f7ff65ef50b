/* open1: open() and close() an own file; all tasks' files in one directory. */
#include "bench/wis/fileio.h"

#include <unistd.h>

static noreturn void loop(struct wis_task *t)
{
	char path[WIS_PATH_MAX];

	wis_task_path(t, path, t->env->dir, "open1");
	close(wis_task_create_file(t, path, 0, true, 0));
	fileio_open_loop(t, path);
}

const struct wis_test wis_test_open1 = {
	.name = "open1",
	.desc = "open(O_RDWR) and close() an own file; all tasks' files in one directory",
	.loop = loop,
};
