/* loops: counted loops shared by several tests; contract in loops.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* fallocate() */
#endif

#include "bench/wis/loops.h"
#include "bench/wis/common.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

noreturn void wis_echo_loop(struct wis_task *t, int wfd, int rfd, void *buf,
			    size_t len)
{
	struct wis_counter *ops = t->ops;

	for (;;) {
		if (WIS_UNLIKELY(write(wfd, buf, len) != (ssize_t)len))
			wis_task_fail_errno(t, "write");
		if (WIS_UNLIKELY(read(rfd, buf, len) != (ssize_t)len))
			wis_task_fail_errno(t, "read");
		wis_inc(ops, 1);
	}
}

#define FALLOC_FILE_SIZE WIS_MiB
/* upstream: FILESIZE / 128 */
#define FALLOC_CHUNK (8 * 1024)

/* Out of line so the loop keeps a single cheap test on the hot path. */
static noreturn __attribute__((cold)) void
fallocate_failed(struct wis_task *t, const char *dir)
{
	if (errno == EOPNOTSUPP)
		wis_task_fail(t, WIS_UNSUPPORTED,
			      "fallocate() not supported on the filesystem of %s",
			      dir);
	wis_task_fail_errno(t, "fallocate in %s", dir);
}

noreturn void wis_fallocate_loop(struct wis_task *t, const char *dir,
				 const char *name)
{
	struct wis_counter *ops = t->ops;
	int fd = wis_task_own_file(t, dir, name, 0, true);
	off_t place = 0;

	for (;;) {
		if (WIS_UNLIKELY(fallocate(fd, 0, place, FALLOC_CHUNK)))
			fallocate_failed(t, dir);
		place += FALLOC_CHUNK;
		if (WIS_UNLIKELY(place >= (off_t)FALLOC_FILE_SIZE)) {
			/* the wrap is part of the operation, as upstream */
			if (ftruncate(fd, 0))
				wis_task_fail_errno(t, "ftruncate");
			place = 0;
		}
		wis_inc(ops, 1);
	}
}

noreturn void wis_futex_wait_loop(struct wis_task *t, int op)
{
	struct wis_counter *ops = t->ops;
	unsigned int futex_word = 0;

	for (;;) {
		long ret = syscall(SYS_futex, &futex_word, op, 1, NULL, NULL,
				   0);

		if (WIS_UNLIKELY(ret != -1 || errno != EAGAIN)) {
			if (ret == -1)
				wis_task_fail_errno(t, "futex wait");
			wis_task_fail(t, WIS_FAILED, "futex wait returned %ld",
				      ret);
		}
		wis_inc(ops, 1);
	}
}

noreturn void wis_lock_loop(struct wis_task *t, int fd)
{
	struct wis_counter *ops = t->ops;
	struct flock lck = { .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };

	for (;;) {
		lck.l_type = F_WRLCK;
		if (WIS_UNLIKELY(fcntl(fd, F_SETLKW, &lck)))
			wis_task_fail_errno(t, "lock");
		lck.l_type = F_UNLCK;
		if (WIS_UNLIKELY(fcntl(fd, F_SETLK, &lck)))
			wis_task_fail_errno(t, "unlock");
		wis_inc(ops, 2);
	}
}

noreturn void wis_lseek_loop(struct wis_task *t, int fd)
{
	struct wis_counter *ops = t->ops;

	for (;;) {
		if (WIS_UNLIKELY(lseek(fd, 0, SEEK_SET)))
			wis_task_fail_errno(t, "lseek");
		wis_inc(ops, 1);
	}
}
