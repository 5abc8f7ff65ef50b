/* read1: read() 4 KiB sequentially from an own 1 MiB file, rewinding at EOF. */
#include "bench/wis/common.h"
#include "bench/wis/fileio.h"

static noreturn void loop(struct wis_task *t)
{
	int fd = wis_task_own_file(t, t->env->dir, "read1", FILEIO_FILE_SIZE,
				   false);

	fileio_read_loop(t, fd, FILEIO_BUF_SIZE);
}

const struct wis_test wis_test_read1 = {
	.name = "read1",
	.desc = "read() 4 KiB sequentially from an own 1 MiB file, rewinding at EOF",
	.loop = loop,
};
