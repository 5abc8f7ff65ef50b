/* page_fault1: write-fault each page of a 128 MiB anonymous private mapping. */
#include "bench/wis/mm.h"

#define SIZE (128 * WIS_MiB)

static noreturn void loop(struct wis_task *t)
{
	wis_mm_fault_loop(t, SIZE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
}

const struct wis_test wis_test_page_fault1 = {
	.name = "page_fault1",
	.desc = "write one byte to a page of a 128 MiB anonymous private mapping, remapped when all are done (one per page)",
	.loop = loop,
};
