/* fallocate2: fallocate() 8 KiB steps of an own 1 MiB file on disk. */
#include "bench/wis/common.h"
#include "bench/wis/loops.h"

static noreturn void loop(struct wis_task *t)
{
	wis_fallocate_loop(t, t->env->dir, "fallocate2");
}

const struct wis_test wis_test_fallocate2 = {
	.name = "fallocate2",
	.desc = "fallocate() 8 KiB at a growing offset of an own file in the temp dir, truncating at 1 MiB",
	.loop = loop,
};
