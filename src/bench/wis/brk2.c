/* brk2: as brk1, above a page of heap the task first takes for itself. */
#include "bench/wis/mm.h"

#include <unistd.h>

/*
 * The page taken with sbrk() first keeps the moving top off the page where
 * the heap (and malloc's data) ended, as upstream's brk2 does.  In thread
 * mode the threads still share one heap top, as upstream's do.
 */
static noreturn void loop(struct wis_task *t)
{
	size_t page = wis_page_size();
	char *own = sbrk((intptr_t)page);

	if (own == (void *)-1)
		wis_task_fail_errno(t, "sbrk one page");
	wis_mm_brk_loop(t, own + page);
}

const struct wis_test wis_test_brk2 = {
	.name = "brk2",
	.desc = "brk() the heap top up by one page, then back down, above an own page (2 per round)",
	.loop = loop,
};
