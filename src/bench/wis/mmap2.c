/* mmap2: mmap() 128 MiB private of an own file and munmap() it, untouched. */
#include "bench/wis/mm.h"

#define SIZE (128 * WIS_MiB)

/*
 * Upstream ftruncate()s its file to the mapping's size (sparse); the file
 * size does not change what mmap()/munmap() cost, but we match it anyway.
 */
static noreturn void loop(struct wis_task *t)
{
	int fd = wis_task_own_file(t, t->env->dir, "mmap2", SIZE, true);

	wis_mm_map_loop(t, SIZE, MAP_PRIVATE, fd);
}

const struct wis_test wis_test_mmap2 = {
	.name = "mmap2",
	.desc = "mmap() 128 MiB private of an own sparse file, then munmap() (no touching)",
	.loop = loop,
};
