/* mmap1: mmap() 128 MiB anonymous private and munmap() it, untouched. */
#include "bench/wis/mm.h"

#define SIZE (128 * WIS_MiB)

static noreturn void loop(struct wis_task *t)
{
	wis_mm_map_loop(t, SIZE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
}

const struct wis_test wis_test_mmap1 = {
	.name = "mmap1",
	.desc = "mmap() 128 MiB anonymous private, then munmap() (no touching)",
	.loop = loop,
};
