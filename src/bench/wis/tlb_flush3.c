/* tlb_flush3: write, MADV_DONTNEED, reread each page of own file, shared. */
#include "bench/wis/mm.h"

#define SIZE (128 * WIS_MiB)

/* Only the PTE is dropped; the page cache keeps the write: reads back 1. */
static noreturn void loop(struct wis_task *t)
{
	int fd = wis_task_own_file(t, t->env->dir, "tlb_flush3", SIZE, true);

	wis_mm_tlb_flush_loop(t, SIZE, MAP_SHARED, fd, 1);
}

const struct wis_test wis_test_tlb_flush3 = {
	.name = "tlb_flush3",
	.desc = "write a byte to a page of an own 128 MiB sparse file mapped shared, MADV_DONTNEED it, read it back (one per page)",
	.loop = loop,
};
