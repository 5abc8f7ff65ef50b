/* malloc1: malloc(128 MiB) and free(): glibc serves it with mmap/munmap. */
#include "bench/wis/mm.h"

/*
 * 128 MiB is above glibc's largest dynamic mmap threshold (32 MiB), so
 * every malloc() is an mmap() and every free() a munmap(), as upstream.
 */
#define SIZE (128 * WIS_MiB)

static noreturn void loop(struct wis_task *t)
{
	wis_mm_malloc_loop(t, SIZE);
}

const struct wis_test wis_test_malloc1 = {
	.name = "malloc1",
	.desc = "malloc(128 MiB) then free() (an mmap/munmap inside glibc)",
	.loop = loop,
};
