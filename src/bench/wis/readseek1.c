/* readseek1: lseek() to 0, then read() 4 KiB of an own file. */
#include "bench/wis/fileio.h"

static noreturn void loop(struct wis_task *t)
{
	int fd = wis_task_own_file(t, t->env->dir, "readseek1",
				   FILEIO_BUF_SIZE, false);

	fileio_readseek_loop(t, fd, 0);
}

const struct wis_test wis_test_readseek1 = {
	.name = "readseek1",
	.desc = "lseek() to 0, then read() 4 KiB of an own file",
	.loop = loop,
};
