/* malloc2: malloc(1 KiB) and free(): the allocator's fast path. */
#include "bench/wis/mm.h"

#define SIZE 1024

static noreturn void loop(struct wis_task *t)
{
	wis_mm_malloc_loop(t, SIZE);
}

const struct wis_test wis_test_malloc2 = {
	.name = "malloc2",
	.desc = "malloc(1 KiB) then free()",
	.loop = loop,
};
