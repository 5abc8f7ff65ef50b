#define _GNU_SOURCE
#include "bench/exec.h"
#include "util/child.h"
#include "util/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

bool exec_run_ok(const struct exec_run *r)
{
	return r->outcome == EXEC_EXITED && WIFEXITED(r->status) &&
	       WEXITSTATUS(r->status) == 0;
}

static int check_executable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	return access(path, X_OK) ? -errno : 0;
}

int exec_find(const char *argv0)
{
	const char *path = getenv("PATH");
	int err = -ENOENT;

	if (!*argv0)
		return -ENOENT;
	if (strchr(argv0, '/'))
		return check_executable(argv0);
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchrnul(path, ':');
		char full[4096];
		int n = snprintf(full, sizeof(full), "%.*s/%s",
				 (int)(end - path), end == path ? "." : path, argv0);

		if (n > 0 && (size_t)n < sizeof(full)) {
			int e = check_executable(full);

			if (!e)
				return 0;
			/* keep the most telling error: found but not runnable */
			if (e != -ENOENT && e != -ENOTDIR)
				err = e;
		}
		path = *end ? end + 1 : end;
	}
	return err;
}

static double tv_secs(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

int exec_run_once(char *const argv[], const struct exec_opts *opts,
		  struct exec_run *out)
{
	struct child_io io = { .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1 };
	struct child c;
	struct rusage ru;
	sigset_t wait_mask;
	double t0, deadline;
	int null_fd, out_fd = -1, err;

	memset(out, 0, sizeof(*out));
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null_fd < 0)
		return -errno;
	io.stdin_fd = null_fd;
	io.cwd = opts->cwd;
	if (!opts->show_output)
		io.stdout_fd = io.stderr_fd = null_fd;
	if (opts->stdout_path) {
		out_fd = open(opts->stdout_path,
			      O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (out_fd < 0) {
			err = -errno;
			close(null_fd);
			return err;
		}
		io.stdout_fd = out_fd;
	}
	child_signals_block(&wait_mask);
	t0 = mono_now();
	err = child_spawn(&c, argv, &io);
	if (err)
		goto out;
	deadline = opts->timeout_s > 0 ? t0 + opts->timeout_s : INFINITY;
	switch (child_wait_until(&c, deadline, opts->stop, &wait_mask)) {
	case CHILD_EXITED:
		out->outcome = EXEC_EXITED;
		break;
	case CHILD_DEADLINE:
		out->outcome = EXEC_TIMED_OUT;
		break;
	case CHILD_STOPPED:
		out->outcome = EXEC_STOPPED;
		break;
	}
	out->wall_s = mono_now() - t0;
	child_stop(&c, &out->status, &ru);
	out->user_s = tv_secs(ru.ru_utime);
	out->sys_s = tv_secs(ru.ru_stime);
	out->maxrss_kib = ru.ru_maxrss;
out:
	child_signals_restore(&wait_mask);
	close(null_fd);
	if (out_fd >= 0)
		close(out_fd);
	return err;
}
