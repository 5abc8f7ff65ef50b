/* read1: read() 4 KiB sequentially from an own 1 MiB file, rewinding at EOF. */
#include "bench/wis/common.h"

#include <unistd.h>

#define FILE_SIZE WIS_MiB
#define BUF_SIZE 4096

static noreturn void loop(struct wis_task *t)
{
	struct wis_counter *ops = t->ops;
	int fd = wis_task_own_file(t, t->env->dir, "read1", FILE_SIZE, false);
	char *buf = wis_task_alloc(t, BUF_SIZE, 0);

	for (;;) {
		ssize_t n = read(fd, buf, BUF_SIZE);

		if (WIS_UNLIKELY(n != BUF_SIZE)) {
			if (n < 0)
				wis_task_fail_errno(t, "read");
			lseek(fd, 0, SEEK_SET);	/* EOF: rewind, as upstream */
			continue;
		}
		wis_inc(ops, 1);
	}
}

const struct wis_test wis_test_read1 = {
	.name = "read1",
	.desc = "read() 4 KiB sequentially from an own 1 MiB file, rewinding at EOF",
	.loop = loop,
};
