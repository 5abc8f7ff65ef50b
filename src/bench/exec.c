#define _GNU_SOURCE
#include "bench/exec.h"
#include "util/child.h"
#include "util/strbuf.h"
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
	struct strbuf full = STRBUF_INIT;
	int err = -ENOENT;

	if (!*argv0)
		return -ENOENT;
	if (strchr(argv0, '/'))
		return check_executable(argv0);
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchrnul(path, ':');
		int e;

		strbuf_reset(&full);
		if (end == path)
			strbuf_addch(&full, '.');
		else
			strbuf_add(&full, path, (size_t)(end - path));
		strbuf_addf(&full, "/%s", argv0);
		if (strbuf_error(&full)) {
			err = -ENOMEM;
			break;
		}
		/* a path the kernel cannot take says so (-ENAMETOOLONG) */
		e = check_executable(full.buf);
		if (!e) {
			err = 0;
			break;
		}
		/* keep the most telling error: found but not runnable */
		if (e != -ENOENT && e != -ENOTDIR)
			err = e;
		path = *end ? end + 1 : end;
	}
	strbuf_release(&full);
	return err;
}

static double tv_secs(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

void exec_run_release(struct exec_run *r)
{
	free(r->output);
	r->output = NULL;
	r->output_len = 0;
}

/* The chunk a capture reads at a time. */
#define CAPTURE_CHUNK 65536

struct capture {
	int fd;			/* the pipe's read end; -1 after EOF */
	struct strbuf out;	/* at most max bytes */
	size_t max;
	bool over;		/* more than max bytes came */
};

/* Read what is there (fd is non-blocking); 0, or -ENOMEM. */
static int capture_read(struct capture *k)
{
	for (;;) {
		/* up to max + 1 bytes: the one past max tells "over" */
		size_t want = k->max + 1 - k->out.len;
		ssize_t n;

		if (want > CAPTURE_CHUNK)
			want = CAPTURE_CHUNK;
		if (strbuf_grow(&k->out, want))
			return -ENOMEM;
		n = read(k->fd, k->out.buf + k->out.len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			/* EOF, or an error that ends the stream the same way */
			close(k->fd);
			k->fd = -1;
			return 0;
		}
		k->out.len += (size_t)n;
		k->out.buf[k->out.len] = '\0';
		if (k->out.len > k->max) {
			k->over = true;
			strbuf_setlen(&k->out, k->max);
			return 0;
		}
	}
}

static int capture_open(struct capture *k, size_t max, int *write_fd)
{
	int p[2];

	*k = (struct capture){ .fd = -1, .out = STRBUF_INIT, .max = max };
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	if (fcntl(p[0], F_SETFL, O_NONBLOCK)) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		return err;
	}
	k->fd = p[0];
	*write_fd = p[1];
	return 0;
}

int exec_run_once(char *const argv[], const struct exec_opts *opts,
		  struct exec_run *out)
{
	struct child_io io = { .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1 };
	struct capture k = { .fd = -1, .out = STRBUF_INIT };
	struct child c;
	struct rusage ru;
	sigset_t wait_mask;
	double t0, deadline;
	int null_fd, out_fd = -1, err;
	bool done = false;

	memset(out, 0, sizeof(*out));
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null_fd < 0)
		return -errno;
	io.stdin_fd = null_fd;
	io.cwd = opts->cwd;
	if (!opts->show_output)
		io.stdout_fd = io.stderr_fd = null_fd;
	if (opts->capture_max) {
		err = capture_open(&k, opts->capture_max, &out_fd);
		if (err) {
			close(null_fd);
			return err;
		}
		io.stdout_fd = out_fd;
	}
	child_signals_block(&wait_mask);
	t0 = mono_now();
	err = child_spawn(&c, argv, &io);
	if (out_fd >= 0) {
		close(out_fd);	/* the child has it: EOF when its group is gone */
		out_fd = -1;
	}
	if (err)
		goto out;
	deadline = opts->timeout_s > 0 ? t0 + opts->timeout_s : INFINITY;
	while (!done) {
		switch (child_wait_fd(&c, k.fd, deadline, opts->stop, &wait_mask)) {
		case CHILD_READABLE:
			err = capture_read(&k);
			if (err || k.over) {
				out->outcome = EXEC_OUTPUT_LIMIT;
				done = true;
			}
			break;
		case CHILD_EXITED:
			out->outcome = EXEC_EXITED;
			done = true;
			break;
		case CHILD_DEADLINE:
			out->outcome = EXEC_TIMED_OUT;
			done = true;
			break;
		default:
			out->outcome = EXEC_STOPPED;
			done = true;
			break;
		}
	}
	out->wall_s = mono_now() - t0;
	child_stop(&c, &out->status, &ru);
	out->user_s = tv_secs(ru.ru_utime);
	out->sys_s = tv_secs(ru.ru_stime);
	out->maxrss_kib = ru.ru_maxrss;
	/* the group is dead: what is left in the pipe is the output's end */
	if (!err && k.fd >= 0 && !k.over)
		err = capture_read(&k);
	if (!err && k.over)
		out->outcome = EXEC_OUTPUT_LIMIT;
	if (!err && opts->capture_max) {
		out->output = strbuf_detach(&k.out, &out->output_len);
		if (!out->output)
			err = -ENOMEM;
	}
out:
	child_signals_restore(&wait_mask);
	close(null_fd);
	if (k.fd >= 0)
		close(k.fd);
	strbuf_release(&k.out);
	return err;
}
