/* brk1: brk() the heap top up by one page and back down (2 per round). */
#include "bench/wis/mm.h"

#include <unistd.h>

/*
 * Starts from the current top: in thread mode every thread shares it and
 * the tops the threads read may differ by a page, as upstream's do; every
 * brk() stays at or above the initial top, so none can cut the heap.
 */
static noreturn void loop(struct wis_task *t)
{
	wis_mm_brk_loop(t, sbrk(0));
}

const struct wis_test wis_test_brk1 = {
	.name = "brk1",
	.desc = "brk() the heap top up by one page, then back down (2 per round)",
	.loop = loop,
};
