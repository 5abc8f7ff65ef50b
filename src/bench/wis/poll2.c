/*
 * poll2: poll() 128 fds of own files for POLLOUT, timeout 0.
 * RLIMIT_NOFILE is raised for the run (soft up to hard, hard only with
 * CAP_SYS_RESOURCE) and restored by cleanup().
 */
#include "bench/wis/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#define NR_FILES 128
/* fds the engine may open per task and in total beyond the ones counted */
#define SLACK_PER_TASK 4
#define SLACK 32

static struct rlimit saved_limit;
static bool restore_limit;

/* Descriptors open now: the tasks inherit them and allocate above them. */
static rlim_t open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	rlim_t n = 0;

	if (!d)
		return 0;	/* no /proc: SLACK has to do */
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static enum wis_status prepare(struct wis_env *env)
{
	/* threads share one fd table; processes each have their own */
	rlim_t sharing = env->mode == WIS_THREAD ? env->nr_tasks : 1;
	rlim_t need = sharing * (NR_FILES + SLACK_PER_TASK) + SLACK;
	struct rlimit *old = &saved_limit, want;

	need += open_fds();
	restore_limit = false;
	if (getrlimit(RLIMIT_NOFILE, old))
		return wis_env_fail(env, WIS_ERROR,
				    "getrlimit(RLIMIT_NOFILE): %s",
				    strerror(errno));
	if (old->rlim_cur == RLIM_INFINITY || old->rlim_cur >= need)
		return WIS_OK;
	want = *old;
	want.rlim_cur = need;
	if (want.rlim_max != RLIM_INFINITY && want.rlim_max < need)
		want.rlim_max = need;
	if (setrlimit(RLIMIT_NOFILE, &want))
		return wis_env_fail(env, WIS_UNSUPPORTED,
				    "poll2 needs %llu fds (%llu x %d + slack) but RLIMIT_NOFILE is %llu, hard %llu, and raising it failed: %s",
				    (unsigned long long)need,
				    (unsigned long long)sharing, NR_FILES,
				    (unsigned long long)old->rlim_cur,
				    (unsigned long long)old->rlim_max,
				    strerror(errno));
	restore_limit = true;
	return WIS_OK;
}

static void setup(struct wis_task *t)
{
	struct pollfd *pfd = wis_task_alloc(t, NR_FILES * sizeof(*pfd), 0);
	char name[32];

	for (int i = 0; i < NR_FILES; i++) {
		snprintf(name, sizeof(name), "poll2.%d", i);
		pfd[i].fd = wis_task_own_file(t, t->env->dir, name, 0, true);
		pfd[i].events = POLLOUT;
	}
	t->priv = pfd;
}

static noreturn void loop(struct wis_task *t)
{
	fileio_poll_loop(t, t->priv, NR_FILES);
}

static void cleanup(struct wis_env *env)
{
	(void)env;
	if (restore_limit)
		setrlimit(RLIMIT_NOFILE, &saved_limit);
	restore_limit = false;
}

const struct wis_test wis_test_poll2 = {
	.name = "poll2",
	.desc = "poll() 128 fds of own files for POLLOUT, timeout 0",
	.prepare = prepare,
	.setup = setup,
	.loop = loop,
	.cleanup = cleanup,
};
