/* write1: write() 4 KiB sequentially to an own file, rewinding every 1 MiB. */
#include "bench/wis/fileio.h"

static noreturn void loop(struct wis_task *t)
{
	int fd = wis_task_own_file(t, t->env->dir, "write1", 0, true);

	fileio_write_loop(t, fd, FILEIO_FILE_SIZE);
}

const struct wis_test wis_test_write1 = {
	.name = "write1",
	.desc = "write() 4 KiB sequentially into an own file, rewinding every 1 MiB",
	.loop = loop,
};
