/* lseek1: lseek(fd, 0, SEEK_SET) on an own 4 KiB file. */
#include "bench/wis/common.h"

#include <unistd.h>

#define FILE_SIZE 4096

static noreturn void loop(struct wis_task *t)
{
	struct wis_counter *ops = t->ops;
	int fd = wis_task_own_file(t, t->env->dir, "lseek1", FILE_SIZE, false);

	for (;;) {
		if (WIS_UNLIKELY(lseek(fd, 0, SEEK_SET)))
			wis_task_fail_errno(t, "lseek");
		wis_inc(ops, 1);
	}
}

const struct wis_test wis_test_lseek1 = {
	.name = "lseek1",
	.desc = "lseek(fd, 0, SEEK_SET) on an own 4 KiB file",
	.loop = loop,
};
