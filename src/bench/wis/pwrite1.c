/* pwrite1: pwrite() 4 KiB at offset 0 of an own file. */
#include "bench/wis/fileio.h"

static noreturn void loop(struct wis_task *t)
{
	int fd = wis_task_own_file(t, t->env->dir, "pwrite1",
				   FILEIO_BUF_SIZE, false);

	fileio_pwrite_loop(t, fd, 0);
}

const struct wis_test wis_test_pwrite1 = {
	.name = "pwrite1",
	.desc = "pwrite() 4 KiB at offset 0 of an own file",
	.loop = loop,
};
