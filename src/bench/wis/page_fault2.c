/* page_fault2: write-fault each page of an own sparse file mapped private. */
#include "bench/wis/mm.h"

#define SIZE (128 * WIS_MiB)

static noreturn void loop(struct wis_task *t)
{
	int fd = wis_task_own_file(t, t->env->dir, "page_fault2", SIZE, true);

	wis_mm_fault_loop(t, SIZE, MAP_PRIVATE, fd);
}

const struct wis_test wis_test_page_fault2 = {
	.name = "page_fault2",
	.desc = "write one byte to a page of an own 128 MiB sparse file mapped private, remapped when all are done (one per page)",
	.loop = loop,
};
