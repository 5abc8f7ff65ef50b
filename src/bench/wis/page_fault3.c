/* page_fault3: write-fault each page of an own sparse file mapped shared. */
#include "bench/wis/mm.h"

#define SIZE (128 * WIS_MiB)

static noreturn void loop(struct wis_task *t)
{
	int fd = wis_task_own_file(t, t->env->dir, "page_fault3", SIZE, true);

	wis_mm_fault_loop(t, SIZE, MAP_SHARED, fd);
}

const struct wis_test wis_test_page_fault3 = {
	.name = "page_fault3",
	.desc = "write one byte to a page of an own 128 MiB sparse file mapped shared, remapped when all are done (one per page)",
	.loop = loop,
};
