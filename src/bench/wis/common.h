/*
 * common.h - helpers shared by the will-it-scale tests (src/bench/wis/).
 *
 * Task helpers run inside a task and end the run through wis_task_fail()
 * on error, so a test body never carries error paths.  Env helpers run in
 * prepare() and return -1 with env->why set.  Nothing here is for the
 * counted loop: call these in setup() or before the loop starts.
 */
#ifndef PERFBOT_BENCH_WIS_COMMON_H
#define PERFBOT_BENCH_WIS_COMMON_H

/* tests use Linux APIs (pipe2, fallocate, MADV_*): include this first */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "bench/wis.h"

#include <stdbool.h>
#include <stddef.h>

#define WIS_MiB (1024UL * 1024UL)
#define WIS_PATH_MAX 512
#define WIS_LIKELY(x) __builtin_expect(!!(x), 1)
#define WIS_UNLIKELY(x) __builtin_expect(!!(x), 0)

size_t wis_page_size(void);

/* "<dir>/<name>.<nr>" into buf (WIS_PATH_MAX bytes). */
void wis_task_path(struct wis_task *t, char *buf, const char *dir,
		   const char *name);

/*
 * Create `path` (truncating it), of `size` bytes: holes when `sparse`,
 * else written with non-zero data so reads touch real pages.  Returns a
 * descriptor opened with O_RDWR | extra_flags.
 */
int wis_task_create_file(struct wis_task *t, const char *path, size_t size,
			 bool sparse, int extra_flags);

/* The task's own file "<dir>/<name>.<nr>", created as above and unlinked. */
int wis_task_own_file(struct wis_task *t, const char *dir, const char *name,
		      size_t size, bool sparse);

/* Open an existing file; fails the task on error. */
int wis_task_open(struct wis_task *t, const char *path, int flags);

/* Allocate zeroed memory for t->priv or a buffer; fails the task on error. */
void *wis_task_alloc(struct wis_task *t, size_t size, size_t align);

/* In prepare(): create a shared file as wis_task_create_file() does. */
int wis_env_create_file(struct wis_env *env, const char *path, size_t size,
			bool sparse, int extra_flags);

/*
 * In prepare(): the file shared by all tasks, "<env->dir>/<name>" of `size`
 * bytes of data, its path into `path` (WIS_PATH_MAX bytes); each task then
 * opens it itself.  WIS_OK or WIS_ERROR with env->why set.
 */
enum wis_status wis_env_shared_file(struct wis_env *env, char *path,
				    const char *name, size_t size);

/* "<dir>/<name>" into buf (WIS_PATH_MAX bytes); -1 with env->why if too long. */
int wis_env_path(struct wis_env *env, char *buf, const char *dir,
		 const char *name);

#endif
