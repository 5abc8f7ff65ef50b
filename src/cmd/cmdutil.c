#define _GNU_SOURCE
#include "cmd/cmdutil.h"
#include "report/tabular.h"
#include "util/lifetime.h"
#include "util/parse.h"
#include "cmd/cmds.h"
#include "run/runner.h"
#include "util/quote.h"
#include "util/strbuf.h"

#include "util/child.h"
#include "vcs/git.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The message echoes values from files, benchmarks and git: their control
 * characters and invalid bytes are escaped here, once, so an error is one
 * line and cannot drive the terminal.
 */
static void vprint_error(const char *who, const char *fmt, va_list ap)
{
	char *msg = NULL;

	fputs("perfbot: ", stderr);
	quote_line_fputs(who, stderr);
	fputs(": ", stderr);
	if (vasprintf(&msg, fmt, ap) < 0)
		fputs("(out of memory)", stderr);
	else
		quote_line_fputs(msg, stderr);
	free(msg);
	fputc('\n', stderr);
}

int cmd_usage_error(const char *who, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint_error(who, fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

int cmd_parse_format(const char *who, const char *arg, bool *json, int *tabular)
{
	enum tabular_format f;

	*json = !strcmp(arg, "json");
	*tabular = -1;
	if (tabular_format_parse(arg, &f))
		*tabular = (int)f;
	else if (!*json && strcmp(arg, "text"))
		return cmd_usage_error(who, "invalid --format '%s': expected text, json, csv or"
				       " markdown", arg);
	return 0;
}

int cmd_parse_duration(const char *who, const char *what, const char *arg,
		       double *out)
{
	switch (parse_duration(arg, out)) {
	case PARSE_OK:
		return 0;
	case PARSE_TOO_LARGE:
		return cmd_usage_error(who, "invalid %s '%s': more than 30 days", what, arg);
	default:
		return cmd_usage_error(who, "invalid %s '%s': expected seconds, or a number with ms, s, m or h",
				       what, arg);
	}
}

int cmd_check_set(const char *who, const char *arg)
{
	if (!strchr(arg, '=') || *arg == '=')
		return cmd_usage_error(who, "invalid -s '%s': expected KEY=VALUE", arg);
	return 0;
}

int cmd_take_set(const char *who, char *arg, char **sets, size_t *nr, size_t max)
{
	int err = cmd_check_set(who, arg);

	if (err)
		return err;
	if (*nr >= max)
		return cmd_usage_error(who, "at most %zu -s", max);
	sets[(*nr)++] = arg;
	return 0;
}

int cmd_colour_option(const char *who, const char *arg, enum colour_when *out)
{
	if (colour_parse(arg, out))
		return cmd_usage_error(who, "invalid --color '%s': expected auto, always or never",
				       arg);
	return 0;
}

int cmd_failure(const char *who, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint_error(who, fmt, ap);
	va_end(ap);
	return EXIT_FAILED;
}

int cmd_lifetime_start(const char *who)
{
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	if (lifetime_start(&err))
		ret = cmd_failure(who, "%s", err.buf);
	strbuf_release(&err);
	return ret;
}

void cmd_print_job_error(const struct job_error *e)
{
	fputs("perfbot: ", stderr);
	if (e->file.len) {
		quote_line_fputs(e->file.buf, stderr);
		if (e->line)
			fprintf(stderr, ":%u:%u", e->line, e->column);
		fputs(": ", stderr);
	}
	quote_line_fputs(e->msg.buf, stderr);
	fputc('\n', stderr);
}

int cmd_check_runnable_job(const struct atomic_job *job)
{
	struct job_error jerr = { 0 };
	const char *why = name_problem(job->testcase);

	/* the store would refuse it after the run (store.h): say so first */
	if (why) {
		char *q = quote_c(job->testcase, true);

		fprintf(stderr, "perfbot: %s: testcase %s %s\n", job->file, q ? q : "?", why);
		free(q);
		return EXIT_USAGE;
	}
	if (runner_check_job(job, &jerr)) {
		cmd_print_job_error(&jerr);
		job_error_release(&jerr);
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_print_json(const char *who, json_t *j)
{
	int err = !j || json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));

	json_decref(j);
	if (err) {
		fprintf(stderr, "perfbot: %s: cannot write the JSON result\n", who);
		return -1;
	}
	putchar('\n');
	return 0;
}

static const char *store_given;	/* --db as given, pointing into argv */
static char *store_location;	/* resolved, owned; freed at exit */

static void free_store_location(void)
{
	free(store_location);
}

int cmd_store_take_option(const char *who, int *argc, char **argv)
{
	int out = 1;

	for (int i = 1; i < *argc; i++) {
		const char *value = NULL;

		if (!strcmp(argv[i], "--")) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		if (!strcmp(argv[i], "--db")) {
			if (i + 1 >= *argc)
				return cmd_usage_error(who, "option '--db' needs a value");
			value = argv[++i];
		} else if (!strncmp(argv[i], "--db=", 5)) {
			value = argv[i] + 5;
		} else {
			argv[out++] = argv[i];
			continue;
		}
		if (!*value)
			return cmd_usage_error(who, "--db needs a path");
		store_given = value;	/* the last one wins, as getopt's would */
	}
	argv[out] = NULL;
	*argc = out;
	return 0;
}

const char *cmd_store_location(const char *who)
{
	if (store_location)
		return store_location;
	store_location = store_given ? strdup(store_given) : store_default_location();
	if (!store_location) {
		if (store_given)
			cmd_failure(who, "out of memory");
		else
			cmd_failure(who, "no database location: give --db PATH or set PERFBOT_DB (no home directory is known)");
		return NULL;
	}
	atexit(free_store_location);
	return store_location;
}

int cmd_store_open(const char *who, enum store_mode mode, struct store **s)
{
	const char *location = cmd_store_location(who);
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	*s = NULL;
	if (!location)
		return EXIT_FAILED;
	if (store_open(location, mode, s, &err))
		ret = cmd_failure(who, "%s", strbuf_error(&err) ? "out of memory" : err.buf);
	strbuf_release(&err);
	return ret;
}

int cmd_pipe_message(const char *who, char *const *argv, const char *msg, size_t len)
{
	struct child c = { 0 };
	struct child_io io = { .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1 };
	void (*old_pipe)(int);
	sigset_t mask;
	int fds[2], err, status = 0;
	size_t done = 0;

	if (pipe2(fds, O_CLOEXEC))
		return cmd_failure(who, "cannot make a pipe: %s", strerror(errno));
	io.stdin_fd = fds[0];
	child_signals_block(&mask);
	err = child_spawn(&c, argv, &io);
	close(fds[0]);
	if (err) {
		close(fds[1]);
		child_signals_restore(&mask);
		return cmd_failure(who, "cannot run '%s': %s", argv[0], strerror(-err));
	}
	/* a sender that exits early must not kill perfbot with SIGPIPE */
	old_pipe = signal(SIGPIPE, SIG_IGN);
	while (done < len) {
		ssize_t n = write(fds[1], msg + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		done += n;
	}
	close(fds[1]);
	signal(SIGPIPE, old_pipe);
	child_wait_until(&c, INFINITY, NULL, &mask);
	child_stop(&c, &status, NULL);
	child_signals_restore(&mask);
	if (err)
		cmd_failure(who, "cannot write to '%s': %s", argv[0], strerror(-err));
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		err = cmd_failure(who, "'%s' failed (%s %d)", argv[0],
			      WIFEXITED(status) ? "exit status" : "signal",
			      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return err ? EXIT_FAILED : EXIT_OK;
}


void cmd_format_utc(char *buf, size_t len, double t)
{
	time_t secs = (time_t)t;
	struct tm tm;

	if (!isfinite(t) || !gmtime_r(&secs, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "%.3f", t);
}

void cmd_robot_stamp(char *buf, size_t len)
{
	char when[32];
	time_t t = time(NULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(when, sizeof(when), "?");
	snprintf(buf, len, "%s perfbot watch: ", when);
}

int cmd_kernel_jobs_fit(const char *repo, const char *rev, const char *sha,
			const struct atomic_job *jobs, size_t nr, bool kexec, struct strbuf *why)
{
	size_t with = 0;
	bool kernel = false;
	int ret;

	for (size_t i = 0; i < nr; i++) {
		with += jobs[i].kernel.present;
		if (jobs[i].kernel.present && jobs[i].kernel.boot == JOB_BOOT_KEXEC && !kexec) {
			strbuf_setf(why, "%s:%u:%u: boot: kexec reboots this machine, which only"
				    " perfbot run and the kexec resume can come back from; use boot: qemu",
				    jobs[i].file, jobs[i].kernel.line, jobs[i].kernel.column);
			return -EINVAL;
		}
	}
	ret = git_is_kernel_tree(repo, sha, &kernel, why);
	if (ret) {
		struct strbuf e = STRBUF_INIT;

		strbuf_setf(&e, "cannot read the tree of %s in %s: %s", rev, repo, why->buf);
		strbuf_setf(why, "%s", e.buf);
		strbuf_release(&e);
		return ret;
	}
	if (kernel && with < nr)
		strbuf_setf(why, "%s at %s is a Linux kernel tree and the job %s has no kernel:"
			    " section (docs/kernel.md) to build and boot it: its runs would"
			    " measure the running kernel and be filed under %.12s; nothing run",
			    repo, rev, jobs[0].file, sha);
	else if (!kernel && with)
		strbuf_setf(why, "%s: a kernel: section, but %s at %s is no Linux kernel tree;"
			    " nothing run", jobs[0].file, repo, rev);
	else
		return 0;
	return -EINVAL;
}
