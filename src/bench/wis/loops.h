/*
 * loops.h - counted loops shared by will-it-scale tests that differ only in
 * the file, descriptor or futex op they work on (src/bench/wis/).
 *
 * Contract: each function is a test's whole loop.  It runs inside a task,
 * never returns, counts into t->ops exactly as the caller's test describes,
 * and ends the run through wis_task_fail*() on any error.  Descriptors and
 * buffers passed in stay owned by the caller (in practice: by the task,
 * until it is killed).  Nothing here allocates in the counted loop.
 */
#ifndef PERFBOT_BENCH_WIS_LOOPS_H
#define PERFBOT_BENCH_WIS_LOOPS_H

#include "bench/wis.h"

#include <stddef.h>

/*
 * Write `len` bytes of `buf` to wfd, then read `len` bytes back from rfd
 * into `buf`; one count per write+read.  wfd and rfd may be the same
 * descriptor (eventfd).  Both must be blocking.
 */
noreturn void wis_echo_loop(struct wis_task *t, int wfd, int rfd, void *buf,
			    size_t len);

/*
 * fallocate() 8 KiB at a growing offset of the task's own unlinked file
 * "<dir>/<name>.<nr>"; at 1 MiB ftruncate() it to 0 and start again.  One
 * count per fallocate().  A filesystem that refuses fallocate() ends the
 * run as WIS_UNSUPPORTED.
 */
noreturn void wis_fallocate_loop(struct wis_task *t, const char *dir,
				 const char *name);

/*
 * futex(op) on a task-local word holding 0 with an expected value of 1:
 * the kernel compares, sees a mismatch and returns EAGAIN without
 * sleeping.  One count per call; anything but EAGAIN fails the run.
 * op is FUTEX_WAIT or FUTEX_WAIT_PRIVATE.
 */
noreturn void wis_futex_wait_loop(struct wis_task *t, int op);

/*
 * fcntl(F_SETLKW) write-lock byte 0 of fd, then unlock it; counts 2 per
 * round.  Whether fd is an own file or one shared file is the caller's.
 */
noreturn void wis_lock_loop(struct wis_task *t, int fd);

/* lseek(fd, 0, SEEK_SET); one count per call. */
noreturn void wis_lseek_loop(struct wis_task *t, int fd);

#endif
