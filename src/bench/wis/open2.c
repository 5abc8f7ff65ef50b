/* open2: open() and close() an own file in the task's own directory. */
#include "bench/wis/fileio.h"

#include <unistd.h>

static noreturn void loop(struct wis_task *t)
{
	char dir[WIS_PATH_MAX], path[WIS_PATH_MAX];

	/* a directory per task: the tasks share no parent directory */
	fileio_task_dir(t, dir, "open2");
	fileio_task_join(t, path, dir, "file");
	close(wis_task_create_file(t, path, 0, true, 0));
	fileio_open_loop(t, path);
}

const struct wis_test wis_test_open2 = {
	.name = "open2",
	.desc = "open(O_RDWR) and close() an own file in the task's own directory",
	.loop = loop,
};
