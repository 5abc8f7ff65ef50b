/*
 * mm.h - the counted loops shared by the memory tests (brk, malloc, mmap,
 * page_fault, tlb_flush).
 *
 * Contract: each wis_mm_*_loop() is the whole counted part of a test's
 * loop(): it runs in the task, never returns, counts into t->ops exactly as
 * its comment says, and ends the run through wis_task_fail*() when a call
 * fails.  Anything the loop needs (an own file, a heap top) is made by the
 * caller before the call.  Nothing is allocated here, so nothing is freed.
 *
 * Why header-only and always inlined: every test passes constants (size,
 * flags, expected byte), so each test gets a loop specialised for it with
 * no per-iteration indirection, and the tests need no extra object file.
 */
#ifndef PERFBOT_BENCH_WIS_MM_H
#define PERFBOT_BENCH_WIS_MM_H

#include "bench/wis/common.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define WIS_MM_INLINE static inline __attribute__((always_inline))

/*
 * brk() the heap top to top + one page and back to top; counts 2 per round.
 * The task must not malloc() from the brk heap while this runs: the shrink
 * would cut it off.
 */
WIS_MM_INLINE noreturn void wis_mm_brk_loop(struct wis_task *t, char *top)
{
	struct wis_counter *ops = t->ops;
	char *grown = top + wis_page_size();

	for (;;) {
		if (WIS_UNLIKELY(brk(grown)))
			wis_task_fail_errno(t, "brk grow");
		if (WIS_UNLIKELY(brk(top)))
			wis_task_fail_errno(t, "brk shrink");
		wis_inc(ops, 2);
	}
}

/* malloc(size) then free() it; counts 1 per pair. */
WIS_MM_INLINE noreturn void wis_mm_malloc_loop(struct wis_task *t, size_t size)
{
	struct wis_counter *ops = t->ops;

	for (;;) {
		void *p = malloc(size);

		if (WIS_UNLIKELY(!p))
			wis_task_fail_errno(t, "malloc %zu", size);
		/*
		 * GCC deletes a malloc() whose pointer is only freed; an empty
		 * asm that takes the pointer makes it used at no cost.
		 */
		__asm__ volatile("" : : "r"(p) : "memory");
		free(p);
		wis_inc(ops, 1);
	}
}

/* mmap() size bytes read-write with flags (fd -1 for anonymous), munmap(). */
WIS_MM_INLINE noreturn void wis_mm_map_loop(struct wis_task *t, size_t size,
					    int flags, int fd)
{
	struct wis_counter *ops = t->ops;

	for (;;) {
		void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, fd, 0);

		if (WIS_UNLIKELY(p == MAP_FAILED))
			wis_task_fail_errno(t, "mmap %zu bytes", size);
		if (WIS_UNLIKELY(munmap(p, size)))
			wis_task_fail_errno(t, "munmap");
		wis_inc(ops, 1);
	}
}

/*
 * Map as wis_mm_map_loop(), write one byte to every page, unmap; counts 1
 * per page written, as upstream does (with transparent huge pages one
 * fault may populate many of those pages; upstream counts them the same).
 */
WIS_MM_INLINE noreturn void wis_mm_fault_loop(struct wis_task *t, size_t size,
					      int flags, int fd)
{
	struct wis_counter *ops = t->ops;
	size_t page = wis_page_size();

	for (;;) {
		volatile char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
					flags, fd, 0);

		if (WIS_UNLIKELY(p == MAP_FAILED))
			wis_task_fail_errno(t, "mmap %zu bytes", size);
		/* volatile: each store is the fault being measured */
		for (size_t off = 0; off < size; off += page) {
			p[off] = 0;
			wis_inc(ops, 1);
		}
		if (WIS_UNLIKELY(munmap((void *)p, size)))
			wis_task_fail_errno(t, "munmap");
	}
}

/*
 * Map as wis_mm_map_loop(); per page: write 1, madvise(MADV_DONTNEED) the
 * page, read the byte back and check it is `expect` (0 where the write was
 * a private copy, 1 for a shared file mapping); unmap.  Counts 1 per page.
 * The read-back is upstream's assert and part of what it measures: it
 * faults the page in again after the zap.
 */
WIS_MM_INLINE noreturn void wis_mm_tlb_flush_loop(struct wis_task *t,
						  size_t size, int flags,
						  int fd, char expect)
{
	struct wis_counter *ops = t->ops;
	size_t page = wis_page_size();

	for (;;) {
		volatile char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
					flags, fd, 0);

		if (WIS_UNLIKELY(p == MAP_FAILED))
			wis_task_fail_errno(t, "mmap %zu bytes", size);
		for (size_t off = 0; off < size; off += page) {
			char got;

			p[off] = 1;
			if (WIS_UNLIKELY(madvise((void *)(p + off), page,
						 MADV_DONTNEED)))
				wis_task_fail_errno(t, "madvise");
			got = p[off];
			if (WIS_UNLIKELY(got != expect))
				wis_task_fail(t, WIS_FAILED,
					      "byte reads back %d after MADV_DONTNEED, expected %d",
					      got, expect);
			wis_inc(ops, 1);
		}
		if (WIS_UNLIKELY(munmap((void *)p, size)))
			wis_task_fail_errno(t, "munmap");
	}
}

#endif
