/* tlb_flush2: write, MADV_DONTNEED, reread each page of 1 MiB anonymous. */
#include "bench/wis/mm.h"

#define SIZE WIS_MiB

/* The page is dropped, so the byte reads back from the zero page: 0. */
static noreturn void loop(struct wis_task *t)
{
	wis_mm_tlb_flush_loop(t, SIZE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

const struct wis_test wis_test_tlb_flush2 = {
	.name = "tlb_flush2",
	.desc = "write a byte to a page of a 1 MiB anonymous private mapping, MADV_DONTNEED it, read it back (one per page)",
	.loop = loop,
};
