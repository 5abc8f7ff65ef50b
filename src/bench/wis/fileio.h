/*
 * fileio.h - the loops and set-up helpers shared by the file tests
 * (open*, unlink*, poll*, pread*, pwrite*, read2-4, readseek*, write1,
 * writeseek*).
 *
 * Contract of every fileio_*_loop():
 *   - runs inside a task, never returns, and counts one operation per
 *     iteration into t->ops (open+close, create+close+unlink, one poll,
 *     one read/write, one seek+read/write);
 *   - takes ownership of the descriptors it is given and allocates its own
 *     page-aligned buffer, so a test's loop() is set-up plus one call;
 *   - ends the run through wis_task_fail*() on an error or a short
 *     transfer; an O_DIRECT read refused with EINVAL ends it as
 *     WIS_UNSUPPORTED naming the directory.
 *
 * Helpers named fileio_env_*() run in prepare() and return a wis_status
 * with env->why set on failure; fileio_task_*() ones run in a task and
 * fail it on error.  Files live in the run's temp dir, which the engine
 * removes, so nothing here unlinks what it creates unless a test wants it
 * unlinked while it runs.
 */
#ifndef PERFBOT_BENCH_WIS_FILEIO_H
#define PERFBOT_BENCH_WIS_FILEIO_H

#include "bench/wis/common.h"

#include <poll.h>
#include <stddef.h>
#include <sys/types.h>

/* Upstream's transfer size and its sequential files' size. */
#define FILEIO_BUF_SIZE 4096
#define FILEIO_FILE_SIZE WIS_MiB

/* Shared file for offsets nr x page size: nr_tasks pages, at least 1 MiB. */
size_t fileio_per_task_size(const struct wis_env *env);

/*
 * In prepare(): WIS_UNSUPPORTED unless `path` can be opened with O_DIRECT
 * and a page read from offset 0 through it.  Syncs the file first.
 */
enum wis_status fileio_env_probe_direct(struct wis_env *env, const char *path);

/* Open `path` O_DIRECT|O_RDONLY; EINVAL fails the task as unsupported. */
int fileio_task_open_direct(struct wis_task *t, const char *path);

/* Create the task's own directory "<env->dir>/<name>.<nr>" into dir. */
void fileio_task_dir(struct wis_task *t, char *dir, const char *name);

/* "<dir>/<name>" into path (WIS_PATH_MAX bytes). */
void fileio_task_join(struct wis_task *t, char *path, const char *dir,
		      const char *name);

/* open(path, O_RDWR), close() */
noreturn void fileio_open_loop(struct wis_task *t, const char *path);
/* open(path, O_RDWR | O_CREAT, 0600), close(), unlink() */
noreturn void fileio_unlink_loop(struct wis_task *t, const char *path);
/* poll(pfd, nfds, 0) */
noreturn void fileio_poll_loop(struct wis_task *t, struct pollfd *pfd,
			       nfds_t nfds);
/* pread(fd, FILEIO_BUF_SIZE, offset) */
noreturn void fileio_pread_loop(struct wis_task *t, int fd, off_t offset);
/* pwrite(fd, FILEIO_BUF_SIZE, offset) */
noreturn void fileio_pwrite_loop(struct wis_task *t, int fd, off_t offset);
/* lseek(fd, offset, SEEK_SET), read(fd, FILEIO_BUF_SIZE) */
noreturn void fileio_readseek_loop(struct wis_task *t, int fd, off_t offset);
/* lseek(fd, offset, SEEK_SET), write(fd, FILEIO_BUF_SIZE) */
noreturn void fileio_writeseek_loop(struct wis_task *t, int fd, off_t offset);
/* write(fd, FILEIO_BUF_SIZE) sequentially, rewinding every `wrap` bytes */
noreturn void fileio_write_loop(struct wis_task *t, int fd, size_t wrap);
/*
 * read(fd, len) sequentially, rewinding at EOF; one count per read(), the
 * one that finds EOF included, as upstream; len must suit O_DIRECT if fd
 * has it.
 */
noreturn void fileio_read_loop(struct wis_task *t, int fd, size_t len);

#endif
