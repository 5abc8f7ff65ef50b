/* tlb_flush1: write, MADV_DONTNEED, reread each page of own file, private. */
#include "bench/wis/mm.h"

#define SIZE (128 * WIS_MiB)

/* The private copy is dropped, so the byte reads back from the file: 0. */
static noreturn void loop(struct wis_task *t)
{
	int fd = wis_task_own_file(t, t->env->dir, "tlb_flush1", SIZE, true);

	wis_mm_tlb_flush_loop(t, SIZE, MAP_PRIVATE, fd, 0);
}

const struct wis_test wis_test_tlb_flush1 = {
	.name = "tlb_flush1",
	.desc = "write a byte to a page of an own 128 MiB sparse file mapped private, MADV_DONTNEED it, read it back (one per page)",
	.loop = loop,
};
