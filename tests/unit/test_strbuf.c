/* Unit tests: util/strbuf, util/vec, util/parse's suggest, util/bug. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/bug.h"
#include "util/parse.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void builds_and_detaches(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len;
	char *s;

	(void)state;
	assert_non_null(sb.buf);
	assert_string_equal(sb.buf, "");
	strbuf_addstr(&sb, "run ");
	strbuf_addf(&sb, "%d: %s", 42, "futex1");
	strbuf_addch(&sb, '!');
	strbuf_addchars(&sb, '-', 3);
	assert_int_equal(strbuf_error(&sb), 0);
	assert_string_equal(sb.buf, "run 42: futex1!---");
	assert_int_equal(sb.len, strlen(sb.buf));
	strbuf_setlen(&sb, 3);
	assert_string_equal(sb.buf, "run");
	s = strbuf_detach(&sb, &len);
	assert_string_equal(s, "run");
	assert_int_equal(len, 3);
	assert_string_equal(sb.buf, "");	/* detached: empty again */
	free(s);
	/* an empty buffer detaches to a string of its own */
	s = strbuf_detach(&sb, &len);
	assert_non_null(s);
	assert_string_equal(s, "");
	free(s);
	strbuf_release(&sb);
}

/* A formatted add far longer than the first allocation is whole. */
static void long_format_is_whole(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char big[10000];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	strbuf_addstr(&sb, "a");
	strbuf_addf(&sb, "<%s>", big);
	assert_int_equal(sb.len, 1 + 2 + sizeof(big) - 1);
	assert_int_equal(sb.buf[sb.len - 1], '>');
	assert_int_equal(sb.buf[1], '<');
	strbuf_rtrim(&sb);
	strbuf_addstr(&sb, " \n\t");
	strbuf_rtrim(&sb);
	assert_true(strbuf_ends_with(&sb, "x>"));
	strbuf_release(&sb);
}

/* A failure is sticky: later adds do nothing, what came before stays. */
static void error_is_sticky(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_addstr(&sb, "kept");
	assert_int_equal(strbuf_grow(&sb, SIZE_MAX - 2), -ENOMEM);
	strbuf_addstr(&sb, "lost");
	strbuf_addf(&sb, "%s", "lost");
	assert_int_equal(strbuf_error(&sb), -ENOMEM);
	assert_string_equal(sb.buf, "kept");
	assert_null(strbuf_detach(&sb, NULL));
	assert_int_equal(strbuf_error(&sb), 0);	/* released: usable again */
	strbuf_addstr(&sb, "again");
	assert_string_equal(sb.buf, "again");
	strbuf_release(&sb);
}

/* setf replaces the content, also from arguments that point into it. */
static void setf_replaces(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_setf(&sb, "git %s", "rev-parse");
	assert_string_equal(sb.buf, "git rev-parse");
	strbuf_setf(&sb, "checkout: %s: %s", sb.buf, "failed");
	assert_string_equal(sb.buf, "checkout: git rev-parse: failed");
	assert_int_equal(sb.len, strlen(sb.buf));
	strbuf_setf(&sb, "%s", "");
	assert_string_equal(sb.buf, "");
	assert_int_equal(strbuf_error(&sb), 0);
	strbuf_release(&sb);
	/* an error out-parameter the caller has no use for */
	strbuf_setf(NULL, "dropped %d", 1);
}

static void reads_fd_with_limit(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char path[] = "/tmp/perfbot-test-strbuf.XXXXXX";
	char data[20000];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)('a' + i % 26);
	data[100] = '\0';	/* NULs are data too */
	assert_int_equal(write(fd, data, sizeof(data)), (ssize_t)sizeof(data));
	close(fd);
	strbuf_addstr(&sb, ">");
	assert_int_equal(strbuf_read_file(&sb, path, 0), 0);
	assert_int_equal(sb.len, 1 + sizeof(data));
	assert_memory_equal(sb.buf + 1, data, sizeof(data));
	assert_int_equal(sb.buf[sb.len], '\0');
	strbuf_release(&sb);
	/* over the limit: -EFBIG, nothing of that read kept */
	strbuf_addstr(&sb, ">");
	assert_int_equal(strbuf_read_file(&sb, path, 1000), -EFBIG);
	assert_string_equal(sb.buf, ">");
	strbuf_release(&sb);
	assert_int_equal(strbuf_read_file(&sb, "/nonexistent/perfbot", 0), -ENOENT);
	assert_int_equal(strbuf_error(&sb), 0);
	unlink(path);
}

/* A shortened message ends in "..." and is still valid UTF-8. */
static void marked_truncation(void **state)
{
	char buf[8];

	(void)state;
	assert_string_equal(fmt_marked(buf, sizeof(buf), "%s", "short"), "short");
	assert_string_equal(fmt_marked(buf, sizeof(buf), "%s", "exactly"), "exactly");
	assert_string_equal(fmt_marked(buf, sizeof(buf), "%s", "too long here"), "too ...");
	/* "ab" then a 3-byte character cut in its middle: cut before it */
	assert_string_equal(str_copy_marked(buf, sizeof(buf), "abc\xe2\x82\xac\xe2\x82\xac"),
			    "abc...");
	assert_string_equal(str_copy_marked(buf, 3, "abcdef"), "ab");
}

struct int_vec {
	int *v;
	size_t n, cap;
};

static void vec_grows(void **state)
{
	struct int_vec iv = { 0 };
	int *z;

	(void)state;
	for (int i = 0; i < 1000; i++)
		assert_int_equal(vec_push(&iv, i * 2), 0);
	assert_int_equal(iv.n, 1000);
	assert_true(iv.cap >= 1000);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(iv.v[i], i * 2);
	z = vec_push_zero(&iv);
	assert_non_null(z);
	assert_int_equal(*z, 0);
	assert_int_equal(iv.n, 1001);
	/* a size that overflows fails and leaves the array as it was */
	assert_int_equal(vec_reserve(&iv, SIZE_MAX / 2), -ENOMEM);
	assert_int_equal(iv.n, 1001);
	assert_int_equal(iv.v[999], 1998);
	vec_free(&iv);
	assert_null(iv.v);
	assert_int_equal(iv.n, 0);
}

static void suggests_near_names_only(void **state)
{
	static const char *const names[] = { "test", "mode", "nr_task", "warmup", NULL };

	(void)state;
	assert_string_equal(suggest_nearest("nr_tasks", names), "nr_task");
	assert_string_equal(suggest_nearest("mdoe", names), "mode");
	assert_null(suggest_nearest("completely-different", names));
	assert_null(suggest_nearest("x", NULL));
}

/* fn, run in a child with stderr silenced, must die of SIGABRT (a BUG). */
static void assert_aborts(void (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* stderr to /dev/null: the message is not this test's output */
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGABRT);
}

static void failing_bug_on(void)
{
	BUG_ON(1 + 1 == 2);
}

static void bug_aborts(void **state)
{
	(void)state;
	assert_aborts(failing_bug_on);
}

static void setlen_past_the_end(void)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "abc");
	strbuf_setlen(&sb, 3);	/* the whole: fine */
	strbuf_setlen(&sb, 4);
}

/* Setting a length past the end is perfbot's bug, not a silent no-op. */
static void setlen_past_end_is_a_bug(void **state)
{
	(void)state;
	assert_aborts(setlen_past_the_end);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(builds_and_detaches),
		cmocka_unit_test(long_format_is_whole),
		cmocka_unit_test(error_is_sticky),
		cmocka_unit_test(setf_replaces),
		cmocka_unit_test(reads_fd_with_limit),
		cmocka_unit_test(marked_truncation),
		cmocka_unit_test(vec_grows),
		cmocka_unit_test(suggests_near_names_only),
		cmocka_unit_test(bug_aborts),
		cmocka_unit_test(setlen_past_end_is_a_bug),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
