/* fallocate1: fallocate() 8 KiB steps of an own 1 MiB file on tmpfs. */
#include "bench/wis/common.h"
#include "bench/wis/loops.h"

static noreturn void loop(struct wis_task *t)
{
	/* tmpfs, as upstream: shmem allocation, no block layer */
	wis_fallocate_loop(t, t->env->shm_dir, "fallocate1");
}

const struct wis_test wis_test_fallocate1 = {
	.name = "fallocate1",
	.desc = "fallocate() 8 KiB at a growing offset of an own file on tmpfs, truncating at 1 MiB",
	.loop = loop,
};
