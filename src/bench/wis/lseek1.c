/* lseek1: lseek(fd, 0, SEEK_SET) on an own 4 KiB file. */
#include "bench/wis/common.h"
#include "bench/wis/loops.h"

static noreturn void loop(struct wis_task *t)
{
	wis_lseek_loop(t, wis_task_own_file(t, t->env->dir, "lseek1", 4096, false));
}

const struct wis_test wis_test_lseek1 = {
	.name = "lseek1",
	.desc = "lseek(fd, 0, SEEK_SET) on an own 4 KiB file",
	.loop = loop,
};
