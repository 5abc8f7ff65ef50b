/* pread1: pread() 4 KiB at offset 0 of an own file. */
#include "bench/wis/fileio.h"

static noreturn void loop(struct wis_task *t)
{
	int fd = wis_task_own_file(t, t->env->dir, "pread1",
				   FILEIO_BUF_SIZE, false);

	fileio_pread_loop(t, fd, 0);
}

const struct wis_test wis_test_pread1 = {
	.name = "pread1",
	.desc = "pread() 4 KiB at offset 0 of an own file",
	.loop = loop,
};
