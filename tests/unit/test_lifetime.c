/*
 * Unit tests: util/lifetime (the sweep of dead temp roots) and the cap on
 * a captured benchmark output (bench/exec).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/exec.h"
#include "util/fsutil.h"
#include "util/lifetime.h"

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* base/name (a dir with a file in it) and, unless lock is NULL, its lock */
static void make_fake_root(const char *base, const char *name, int *lock_fd)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", base, name);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/%s/data", base, name);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	if (!lock_fd)
		return;
	snprintf(path, sizeof(path), "%s/%s.lock", base, name);
	*lock_fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	assert_true(*lock_fd >= 0);
}

static void sweep_keeps_live_and_foreign_removes_dead(void **state)
{
	char *base = NULL, path[4096];
	int live_fd, dead_fd, orphan_fd;

	(void)state;
	assert_int_equal(make_temp_dir(NULL, "perfbot-unit", &base), 0);

	/* a live owner: it holds the lock */
	make_fake_root(base, "perfbot.1.aaaaaa", &live_fd);
	assert_int_equal(flock(live_fd, LOCK_EX), 0);
	/* a dead owner: the lock file is there, nobody holds it */
	make_fake_root(base, "perfbot.2.bbbbbb", &dead_fd);
	close(dead_fd);
	/* the right name, no lock file: not perfbot's */
	make_fake_root(base, "perfbot.3.cccccc", NULL);
	/* a lock without its root (killed between the two): dead, removed */
	snprintf(path, sizeof(path), "%s/perfbot.4.dddddd.lock", base);
	orphan_fd = open(path, O_CREAT | O_RDWR, 0600);
	assert_true(orphan_fd >= 0);
	close(orphan_fd);
	/* a lock file of another name: untouched */
	snprintf(path, sizeof(path), "%s/perfbot-other.lock", base);
	close(open(path, O_CREAT | O_RDWR, 0600));

	assert_int_equal(lifetime_sweep(base), 2);

	snprintf(path, sizeof(path), "%s/perfbot.1.aaaaaa/data", base);
	assert_true(exists(path));
	snprintf(path, sizeof(path), "%s/perfbot.1.aaaaaa.lock", base);
	assert_true(exists(path));
	assert_true(lifetime_owner_alive(path));

	snprintf(path, sizeof(path), "%s/perfbot.2.bbbbbb", base);
	assert_false(exists(path));
	snprintf(path, sizeof(path), "%s/perfbot.2.bbbbbb.lock", base);
	assert_false(exists(path));
	assert_false(lifetime_owner_alive(path));

	snprintf(path, sizeof(path), "%s/perfbot.3.cccccc/data", base);
	assert_true(exists(path));
	snprintf(path, sizeof(path), "%s/perfbot.4.dddddd.lock", base);
	assert_false(exists(path));
	snprintf(path, sizeof(path), "%s/perfbot-other.lock", base);
	assert_true(exists(path));

	/* the owner dies: the next sweep takes its root */
	close(live_fd);
	assert_int_equal(lifetime_sweep(base), 1);
	snprintf(path, sizeof(path), "%s/perfbot.1.aaaaaa", base);
	assert_false(exists(path));

	assert_int_equal(remove_tree(base), 0);
	free(base);
}

/* A live root from a child process that holds it, then dies by SIGKILL. */
static void sweep_takes_a_killed_owners_root(void **state)
{
	char *base = NULL, path[4096];
	int ready[2], st;
	pid_t pid;

	(void)state;
	assert_int_equal(make_temp_dir(NULL, "perfbot-unit", &base), 0);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd;

		snprintf(path, sizeof(path), "%s/perfbot.9.zzzzzz", base);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/perfbot.9.zzzzzz.lock", base);
		fd = open(path, O_CREAT | O_RDWR, 0600);
		if (fd < 0 || flock(fd, LOCK_EX) || write(ready[1], "", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], path, 1), 1);
	close(ready[0]);
	assert_int_equal(lifetime_sweep(base), 0);
	snprintf(path, sizeof(path), "%s/perfbot.9.zzzzzz", base);
	assert_true(exists(path));
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(lifetime_sweep(base), 1);
	assert_false(exists(path));
	assert_int_equal(remove_tree(base), 0);
	free(base);
}

/* A $TMPDIR of 5,000 bytes is named whole in the error (main cut it at 512). */
static void start_error_names_a_long_tmpdir_whole(void **state)
{
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	char *saved = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	char *base = malloc(5001);

	(void)state;
	assert_non_null(base);
	memset(base, 'd', 5000);
	base[0] = '/';
	base[5000] = '\0';
	setenv("TMPDIR", base, 1);
	assert_int_equal(lifetime_start(&err), -ENAMETOOLONG);
	strbuf_addf(&want, "cannot make a temporary directory in %s: %s", base,
		    strerror(ENAMETOOLONG));
	assert_string_equal(err.buf, want.buf);
	assert_null(lifetime_tmp_root());
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
	free(base);
	strbuf_release(&err);
	strbuf_release(&want);
}

static void output_below_the_cap_is_kept_whole(void **state)
{
	char *argv[] = { "sh", "-c", "head -c 300000 /dev/zero | tr '\\0' x; echo end", NULL };
	struct exec_opts o = { .timeout_s = 60, .capture_max = 1 << 20 };
	struct exec_run r;

	(void)state;
	assert_int_equal(exec_run_once(argv, &o, &r), 0);
	assert_int_equal(r.outcome, EXEC_EXITED);
	assert_true(exec_run_ok(&r));
	assert_int_equal(r.output_len, 300004);
	assert_string_equal(r.output + 300000, "end\n");
	exec_run_release(&r);
}

/* Over the cap: killed there, never run to its end, nothing on disk. */
static void output_over_the_cap_kills_the_command(void **state)
{
	/* endless output, and a background writer that keeps the pipe open */
	char *argv[] = { "sh", "-c", "sleep 300 & yes", NULL };
	struct exec_opts o = { .timeout_s = 120, .capture_max = 1 << 20 };
	struct exec_run r;

	(void)state;
	assert_int_equal(exec_run_once(argv, &o, &r), 0);
	assert_int_equal(r.outcome, EXEC_OUTPUT_LIMIT);
	assert_int_equal(r.output_len, 1 << 20);
	assert_int_equal(r.output[r.output_len], '\0');
	assert_memory_equal(r.output, "y\ny\n", 4);
	exec_run_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sweep_keeps_live_and_foreign_removes_dead),
		cmocka_unit_test(sweep_takes_a_killed_owners_root),
		cmocka_unit_test(start_error_names_a_long_tmpdir_whole),
		cmocka_unit_test(output_below_the_cap_is_kept_whole),
		cmocka_unit_test(output_over_the_cap_kills_the_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
