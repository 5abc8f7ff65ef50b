/* Unit tests: vcs/git (resolve, commit info, worktrees, the build cache). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "util/timeutil.h"
#include "vcs/git.h"

#define ID "-c", "user.name=perfbot", "-c", "user.email=perfbot@example.invalid"

struct fixture {
	char *tmp;		/* everything lives under it */
	char repo[1024];
	char c1[41], c2[41];	/* first and second commit */
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void head_into(const char *repo, char *sha)
{
	struct strbuf err = STRBUF_INIT;
	char *out = NULL;

	assert_int_equal(git_cmd(repo, &out, &err, "rev-parse",
				 "HEAD", NULL), 0);
	assert_true(strlen(out) >= 40);
	memcpy(sha, out, 40);
	sha[40] = '\0';
	free(out);
	strbuf_release(&err);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct strbuf err = STRBUF_INIT;
	char path[4096];

	assert_non_null(f);
	assert_int_equal(make_temp_dir(NULL, "perfbot-test-git", &f->tmp), 0);
	snprintf(f->repo, sizeof(f->repo), "%s/repo", f->tmp);
	assert_int_equal(mkdir(f->repo, 0755), 0);
	if (git_cmd(f->repo, NULL, &err, "init", "-q", NULL))
		fail_msg("%s", err.buf);

	snprintf(path, sizeof(path), "%s/a.txt", f->repo);
	write_file(path, "one\n");
	assert_int_equal(git_cmd(f->repo, NULL, &err, "add",
				 "a.txt", NULL), 0);
	/* a subject a shell would expand, and a fixed author date */
	if (git_cmd(f->repo, NULL, &err, ID, "commit", "-q",
		    "--date=2020-01-02T03:04:05+00:00",
		    "-m", "first: \"quoted\" $(touch pwned) `x` & ;", NULL))
		fail_msg("%s", err.buf);
	head_into(f->repo, f->c1);
	if (git_cmd(f->repo, NULL, &err, ID, "tag", "-a", "v1",
		    "-m", "release one", NULL))
		fail_msg("%s", err.buf);

	write_file(path, "two\n");
	if (git_cmd(f->repo, NULL, &err, ID, "commit", "-q", "-a",
		    "-m", "second", NULL))
		fail_msg("%s", err.buf);
	head_into(f->repo, f->c2);
	*state = f;
	strbuf_release(&err);
	return 0;
}

/* The repository has no worktree but its own, whatever a test did. */
static void assert_worktrees_clean(const char *repo)
{
	struct strbuf err = STRBUF_INIT;
	char *out = NULL;

	assert_int_equal(git_cmd(repo, &out, &err, "worktree",
				 "list", "--porcelain", NULL), 0);
	assert_null(strstr(out + 1, "\nworktree "));
	free(out);
	strbuf_release(&err);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	assert_worktrees_clean(f->repo);
	assert_int_equal(remove_tree(f->tmp), 0);
	free(f->tmp);
	free(f);
	return 0;
}

static void resolve(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	char *sha = NULL, shortsha[8];

	if (git_resolve(f->repo, "HEAD", &sha, &err))
		fail_msg("%s", err.buf);
	assert_string_equal(sha, f->c2);
	free(sha);
	assert_int_equal(git_resolve(f->repo, "HEAD~1", &sha, &err), 0);
	assert_string_equal(sha, f->c1);
	free(sha);
	/* an annotated tag names its commit, not the tag object */
	assert_int_equal(git_resolve(f->repo, "v1", &sha, &err), 0);
	assert_string_equal(sha, f->c1);
	free(sha);
	snprintf(shortsha, sizeof(shortsha), "%.7s", f->c1);
	assert_int_equal(git_resolve(f->repo, shortsha, &sha, &err), 0);
	assert_string_equal(sha, f->c1);
	free(sha);
	/* a tree is not a commit */
	assert_int_equal(git_resolve(f->repo, "HEAD^{tree}", &sha, &err), -ENOENT);
	strbuf_release(&err);
}

static void resolve_errors(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	char *sha = (char *)"x";

	assert_int_equal(git_resolve(f->repo, "v9.9", &sha, &err),
			 -ENOENT);
	assert_null(sha);
	assert_string_equal(err.buf, "git rev-parse: unknown revision 'v9.9'");
	/* an option is not a revision */
	assert_int_equal(git_resolve(f->repo, "--all", &sha, &err),
			 -EINVAL);
	assert_int_equal(git_resolve(f->repo, "", &sha, &err),
			 -EINVAL);
	/* the temp dir itself is no repository */
	assert_int_equal(git_resolve(f->tmp, "HEAD", &sha, &err),
			 -EINVAL);
	assert_non_null(strstr(err.buf, "not a git repository"));
	assert_int_equal(git_resolve("/nonexistent/perfbot", "HEAD", &sha, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "git rev-parse: "));
	strbuf_release(&err);
}

/* A ref of 3,000 bytes: "refs/heads/" and 30 components of 100 bytes. */
static char *long_ref(void)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "refs/heads/");
	for (int i = 0; i < 30; i++) {
		if (i)
			strbuf_addch(&sb, '/');
		strbuf_addchars(&sb, 'r', 100);
	}
	assert_int_equal(strbuf_error(&sb), 0);
	return strbuf_detach(&sb, NULL);
}

/*
 * Errors quoting a long ref are whole: perfbot's own (main cut them at the
 * caller's 512 bytes) and git's first line of stderr (cut at 512 before).
 */
static void errors_quote_a_long_ref_whole(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	char *ref = long_ref(), *sha = NULL;

	assert_int_equal(git_resolve(f->repo, ref, &sha, &err), -ENOENT);
	strbuf_addf(&want, "git rev-parse: unknown revision '%s'", ref);
	assert_string_equal(err.buf, want.buf);

	assert_int_equal(git_cmd(f->repo, NULL, &err, "show", ref, NULL), -EIO);
	strbuf_reset(&want);
	strbuf_addf(&want, "git show: ambiguous argument '%s': unknown revision", ref);
	assert_memory_equal(err.buf, want.buf, want.len);
	/* the first line, to its end, and no more */
	assert_null(strchr(err.buf, '\n'));
	assert_true(strbuf_ends_with(&err, "not in the working tree."));
	free(ref);
	strbuf_release(&err);
	strbuf_release(&want);
}

/* A cache directory of 5,000 bytes is named whole in the error. */
static void checkout_error_names_a_long_path_whole(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT, cache = STRBUF_INIT, want = STRBUF_INIT;
	char *wt = (char *)"x";

	strbuf_addf(&cache, "%s/", f->tmp);
	while (cache.len < 5000)
		strbuf_addstr(&cache, "a-long-directory-name/");
	assert_int_equal(git_checkout_built(f->repo, f->c1, NULL, cache.buf, 60, NULL, &wt,
					    &err), -ENAMETOOLONG);
	assert_null(wt);
	strbuf_addf(&want, "checkout: %s: %s", cache.buf, strerror(ENAMETOOLONG));
	assert_string_equal(err.buf, want.buf);
	strbuf_release(&err);
	strbuf_release(&cache);
	strbuf_release(&want);
}

static void commit_info(void **state)
{
	struct fixture *f = *state;
	struct git_commit c;
	char path[4096];

	assert_int_equal(git_commit_info(f->repo, f->c1, &c), 0);
	assert_string_equal(c.sha, f->c1);
	assert_string_equal(c.subject, "first: \"quoted\" $(touch pwned) `x` & ;");
	assert_string_equal(c.author, "perfbot <perfbot@example.invalid>");
	assert_string_equal(c.date, "2020-01-02T03:04:05+00:00");
	git_commit_release(&c);
	assert_null(c.sha);
	snprintf(path, sizeof(path), "%s/pwned", f->repo);
	assert_false(exists(path));

	assert_int_equal(git_commit_info(f->repo, "v1", &c), 0);
	assert_string_equal(c.sha, f->c1);
	git_commit_release(&c);
	assert_int_equal(git_commit_info(f->repo, "nosuchrev", &c), -ENOENT);
	assert_null(c.subject);
	assert_int_equal(git_commit_info(f->repo, "--help", &c), -EINVAL);
}

static void worktree_add_remove(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	char wt[1024], path[4096], buf[16] = "";
	FILE *file;

	snprintf(wt, sizeof(wt), "%s/wt", f->tmp);
	if (git_worktree_add(f->repo, f->c1, wt, &err))
		fail_msg("%s", err.buf);
	snprintf(path, sizeof(path), "%s/a.txt", wt);
	file = fopen(path, "r");
	assert_non_null(file);
	assert_non_null(fgets(buf, sizeof(buf), file));
	fclose(file);
	assert_string_equal(buf, "one\n");
	/* build products and edits do not keep it from going */
	snprintf(path, sizeof(path), "%s/product.o", wt);
	write_file(path, "x");
	assert_int_equal(git_worktree_remove(f->repo, wt), 0);
	assert_false(exists(wt));
	assert_worktrees_clean(f->repo);

	/* the directory exists already: git refuses, and says so */
	assert_int_equal(mkdir(wt, 0755), 0);
	snprintf(path, sizeof(path), "%s/x", wt);
	write_file(path, "x");
	assert_int_equal(git_worktree_add(f->repo, f->c1, wt, &err),
			 -EIO);
	assert_non_null(strstr(err.buf, "git worktree add: "));
	assert_int_equal(remove_tree(wt), 0);
	assert_int_equal(git_worktree_add(f->repo, "nosuchrev", wt, &err), -EIO);
	assert_false(exists(wt));
	assert_worktrees_clean(f->repo);
	strbuf_release(&err);
}

static void checkout_built_caches(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	char cache[1024], counter[1024], path[4096];
	char *wt = NULL, *wt2 = NULL;
	char *build[] = { "sh", "-c", "echo built >> \"$1\" && echo ok > product",
			  "sh", counter, NULL };
	char *build2[] = { "sh", "-c", "echo rebuilt >> \"$1\"", "sh", counter,
			   NULL };

	snprintf(cache, sizeof(cache), "%s/cache/sub", f->tmp);
	snprintf(counter, sizeof(counter), "%s/counter", f->tmp);
	if (git_checkout_built(f->repo, f->c2, build, cache, 60, NULL, &wt,
			       &err))
		fail_msg("%s", err.buf);
	snprintf(path, sizeof(path), "%s/%s", cache, f->c2);
	assert_string_equal(wt, path);
	snprintf(path, sizeof(path), "%s/product", wt);
	assert_true(exists(path));
	snprintf(path, sizeof(path), "%s/%s.ok", cache, f->c2);
	assert_true(exists(path));
	assert_int_equal(count_lines(counter), 1);

	/* second call: the same worktree, no build */
	assert_int_equal(git_checkout_built(f->repo, f->c2, build, cache, 60,
					    NULL, &wt2, &err), 0);
	assert_string_equal(wt2, wt);
	assert_int_equal(count_lines(counter), 1);
	free(wt2);

	/* another build command is another build */
	assert_int_equal(git_checkout_built(f->repo, f->c2, build2, cache, 60,
					    NULL, &wt2, &err), 0);
	assert_int_equal(count_lines(counter), 2);
	free(wt2);

	/* a worktree deleted behind perfbot's back is rebuilt */
	assert_int_equal(remove_tree(wt), 0);
	assert_int_equal(git_checkout_built(f->repo, f->c2, build2, cache, 60,
					    NULL, &wt2, &err), 0);
	assert_int_equal(count_lines(counter), 3);
	assert_true(exists(wt2));
	free(wt2);

	/* no build step */
	assert_int_equal(git_checkout_built(f->repo, f->c1, NULL, cache, 60,
					    NULL, &wt2, &err), 0);
	snprintf(path, sizeof(path), "%s/a.txt", wt2);
	assert_true(exists(path));
	assert_int_equal(count_lines(counter), 3);

	assert_int_equal(git_worktree_remove(f->repo, wt2), 0);
	assert_int_equal(git_worktree_remove(f->repo, wt), 0);
	free(wt2);
	free(wt);
	/* a short or non-hex sha is no cache key */
	assert_int_equal(git_checkout_built(f->repo, "HEAD", NULL, cache, 60,
					    NULL, &wt, &err), -EINVAL);
	assert_null(wt);
	assert_int_equal(git_checkout_built(f->repo, "../../etc/passwd", NULL,
					    cache, 60, NULL, &wt, &err), -EINVAL);
	strbuf_release(&err);
}

static void checkout_failed_build(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	char cache[1024], path[4096], *wt = (char *)"x";
	char *build[] = { "sh", "-c", "echo oops; echo to-stderr >&2; exit 3",
			  NULL };
	FILE *log;
	char line[64];

	snprintf(cache, sizeof(cache), "%s/cache-fail", f->tmp);
	assert_int_equal(git_checkout_built(f->repo, f->c1, build, cache, 60,
					    NULL, &wt, &err),
			 -GIT_EBUILD);
	assert_null(wt);
	snprintf(path, sizeof(path), "%s/%s.log", cache, f->c1);
	assert_non_null(strstr(err.buf, path));
	assert_non_null(strstr(err.buf, "status 3"));
	log = fopen(path, "r");
	assert_non_null(log);
	assert_non_null(fgets(line, sizeof(line), log));
	assert_string_equal(line, "oops\n");
	assert_non_null(fgets(line, sizeof(line), log));
	assert_string_equal(line, "to-stderr\n");
	fclose(log);
	snprintf(path, sizeof(path), "%s/%s", cache, f->c1);
	assert_false(exists(path));
	snprintf(path, sizeof(path), "%s/%s.ok", cache, f->c1);
	assert_false(exists(path));
	assert_worktrees_clean(f->repo);

	/* a command that does not exist */
	char *missing[] = { "perfbot-no-such-build-command", NULL };

	assert_int_equal(git_checkout_built(f->repo, f->c1, missing, cache, 60,
					    NULL, &wt, &err), -ENOENT);
	assert_non_null(strstr(err.buf, "perfbot-no-such-build-command"));
	assert_worktrees_clean(f->repo);
	strbuf_release(&err);
}

static volatile sig_atomic_t stop_flag;

static void on_alarm(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void checkout_build_stopped_and_timed_out(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	char cache[1024], path[4096], *wt = NULL;
	char *build[] = { "sh", "-c", "sleep 30 & sleep 30", NULL };
	struct itimerval it = { .it_value = { .tv_usec = 200000 } };
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	double t0;

	snprintf(cache, sizeof(cache), "%s/cache-stop", f->tmp);
	sigaction(SIGALRM, &sa, &old);
	stop_flag = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	t0 = mono_now();
	assert_int_equal(git_checkout_built(f->repo, f->c2, build, cache, 0,
					    &stop_flag, &wt, &err),
			 -ECANCELED);
	assert_true(mono_now() - t0 < 10);
	sigaction(SIGALRM, &old, NULL);
	assert_null(wt);
	assert_non_null(strstr(err.buf, "stopped"));
	snprintf(path, sizeof(path), "%s/%s", cache, f->c2);
	assert_false(exists(path));
	assert_worktrees_clean(f->repo);

	t0 = mono_now();
	assert_int_equal(git_checkout_built(f->repo, f->c2, build, cache, 0.3,
					    NULL, &wt, &err),
			 -ETIMEDOUT);
	assert_true(mono_now() - t0 < 10);
	assert_non_null(strstr(err.buf, "timed out"));
	assert_false(exists(path));
	assert_worktrees_clean(f->repo);
	strbuf_release(&err);
}

static void build_in_worktree(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	char log[4096], path[4096];
	char *build[] = { "sh", "-c", "pwd > where", NULL };
	int status = -1;

	snprintf(log, sizeof(log), "%s/build.log", f->tmp);
	assert_int_equal(git_build(f->repo, build, 0, NULL, log, &status, &err), 0);
	assert_int_equal(status, 0);
	snprintf(path, sizeof(path), "%s/where", f->repo);
	assert_true(exists(path));
	unlink(path);
	snprintf(path, sizeof(path), "%s/nonexistent", f->tmp);
	assert_int_equal(git_build(path, build, 0, NULL, log, &status, &err), -ENOENT);
	strbuf_release(&err);
}

/* A build's TMPDIR is its own: what a killed build leaves there is removed. */
static void build_tmpdir_removed(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	char log[4096], outer[4096];
	char *build[] = { "sh", "-c", "touch \"$TMPDIR/left\"; sleep 30", NULL };
	const char *before = getenv("TMPDIR");
	char *saved = before ? strdup(before) : NULL;
	int status = -1;
	DIR *d;
	struct dirent *e;
	size_t entries = 0;

	snprintf(outer, sizeof(outer), "%s/outer", f->tmp);
	assert_int_equal(mkdir(outer, 0755), 0);
	setenv("TMPDIR", outer, 1);
	snprintf(log, sizeof(log), "%s/build.log", f->tmp);
	assert_int_equal(git_build(f->repo, build, 0.3, NULL, log, &status, &err), -ETIMEDOUT);
	/* perfbot's own TMPDIR is as it was, and holds nothing of the build */
	assert_string_equal(getenv("TMPDIR"), outer);
	d = opendir(outer);
	assert_non_null(d);
	while ((e = readdir(d)))
		entries += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	assert_int_equal(entries, 0);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(resolve, setup, teardown),
		cmocka_unit_test_setup_teardown(resolve_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(errors_quote_a_long_ref_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(checkout_error_names_a_long_path_whole, setup,
						teardown),
		cmocka_unit_test_setup_teardown(commit_info, setup, teardown),
		cmocka_unit_test_setup_teardown(worktree_add_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(checkout_built_caches, setup, teardown),
		cmocka_unit_test_setup_teardown(checkout_failed_build, setup, teardown),
		cmocka_unit_test_setup_teardown(checkout_build_stopped_and_timed_out,
						setup, teardown),
		cmocka_unit_test_setup_teardown(build_in_worktree, setup, teardown),
		cmocka_unit_test_setup_teardown(build_tmpdir_removed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
