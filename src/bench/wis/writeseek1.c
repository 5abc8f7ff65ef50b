/* writeseek1: lseek() to 0, then write() 4 KiB to an own file. */
#include "bench/wis/fileio.h"

static noreturn void loop(struct wis_task *t)
{
	int fd = wis_task_own_file(t, t->env->dir, "writeseek1",
				   FILEIO_BUF_SIZE, false);

	fileio_writeseek_loop(t, fd, 0);
}

const struct wis_test wis_test_writeseek1 = {
	.name = "writeseek1",
	.desc = "lseek() to 0, then write() 4 KiB to an own file",
	.loop = loop,
};
