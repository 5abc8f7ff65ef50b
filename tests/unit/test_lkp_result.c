/*
 * Unit tests: lkp_result (LKP result roots into run records): a small
 * result root made in a temp dir, read from each level of it; what each
 * run holds; runs found twice; LKP's last_state; every kind of error with
 * its code and message; the tree left as it was, and nothing left after.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "record/lkp_result.h"
#include "util/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define A "1111111111111111111111111111111111111111"
#define B "2222222222222222222222222222222222222222"
/* LKP's layout below /result: TESTCASE/PARAMS/TBOX_GROUP/ROOTFS/KCONFIG/COMPILER */
#define GROUP "will-it-scale/performance-100%-thread-futex3/lkp-bdw-ep3/" \
	      "debian-12-x86_64-20240206.cgz/x86_64-rhel-8.3/gcc-12"

struct fixture {
	char *root;
	struct lkp_runs runs;
	struct lkp_result_error err;
};

static char *at(const struct fixture *f, const char *rel)
{
	struct strbuf p = STRBUF_INIT;

	strbuf_addf(&p, "%s/%s", f->root, rel);
	assert_int_equal(strbuf_error(&p), 0);
	return strbuf_detach(&p, NULL);
}

/* text into root/rel, its directories made */
static void put(const struct fixture *f, const char *rel, const char *text)
{
	char *p = at(f, rel), *slash = strrchr(p, '/');

	*slash = '\0';
	assert_int_equal(make_dirs(p), 0);
	*slash = '/';
	assert_int_equal(write_file_atomic(p, NULL, text, strlen(text), false), 0);
	free(p);
}

/*
 * dir/job.yaml as LKP writes it: the job file's keys, job_origin, then
 * what the queue, host file and defaults add; result_root /result/ROOT.
 * commit NULL: none (a local run).
 */
static void put_job(const struct fixture *f, const char *dir, const char *commit,
		    const char *root)
{
	char *text, *rel;

	assert_true(asprintf(&text,
		"suite: will-it-scale\n"
		"testcase: will-it-scale\n"
		"nr_task: 100%%\n"
		"will-it-scale:\n"
		"  mode: thread\n"
		"  test: futex3\n"
		"job_origin: will-it-scale.yaml\n"
		"testbox: lkp-bdw-ep3-2\n"
		"tbox_group: lkp-bdw-ep3\n"
		"%s%s%s"
		"nr_cpu: 88\n"
		"memory: 64G\n"
		"brand: Intel(R) Xeon(R) CPU E5-2699 v4 @ 2.20GHz\n"
		"kconfig: x86_64-rhel-8.3\n"
		"compiler: gcc-12\n"
		"rootfs: debian-12-x86_64-20240206.cgz\n"
		"result_root: /result/%s\n",
		commit ? "commit: " : "", commit ? commit : "", commit ? "\n" : "", root) > 0);
	assert_true(asprintf(&rel, "%s/job.yaml", dir) > 0);
	put(f, rel, text);
	free(rel);
	free(text);
}

/*
 * The root: commit A with runs 0 (stats.json) and 1 (none: its column of
 * A's matrix.json, and no commit in its job.yaml); commit B with run 0.
 */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || make_temp_dir(NULL, "perfbot-unit-lkp-result", &f->root))
		return -1;
	strbuf_init(&f->err.msg);
	put_job(f, GROUP "/" A "/0", A, GROUP "/" A "/0");
	put(f, GROUP "/" A "/0/stats.json",
	    "{\"will-it-scale.per_thread_ops\": 1000000, \"dmesg.boot_failures\": 0,"
	    " \"kmsg.timestamp\": \"x\"}\n");
	put_job(f, GROUP "/" A "/1", NULL, GROUP "/" A "/1");
	put(f, GROUP "/" A "/matrix.json",
	    "{\"will-it-scale.per_thread_ops\": [1000000, 1001000],\n"
	    " \"stats_source\": [\"/result/" GROUP "/" A "/0/stats.json\",\n"
	    "                  \"/result/" GROUP "/" A "/1/stats.json\"]}\n");
	put_job(f, GROUP "/" B "/0", B, GROUP "/" B "/0");
	put(f, GROUP "/" B "/0/stats.json", "{\"will-it-scale.per_thread_ops\": 1100000}\n");
	*state = f;
	return 0;
}

/* Files and directories under path, recursively. */
static size_t entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		assert_true(asprintf(&sub, "%s/%s", path, e->d_name) > 0);
		n += 1 + entries(sub);
		free(sub);
	}
	closedir(d);
	return n;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct stat st;

	lkp_runs_release(&f->runs);
	lkp_result_error_release(&f->err);
	assert_int_equal(remove_tree(f->root), 0);
	/* nothing left of the temp dir */
	assert_int_not_equal(stat(f->root, &st), 0);
	free(f->root);
	free(f);
	return 0;
}

/* lkp_result_read() of the paths (relative to the root) given. */
static int read_at(struct fixture *f, const char *const *rel, size_t nr)
{
	char *dirs[4];
	int ret;

	assert_true(nr <= 4);
	lkp_runs_release(&f->runs);
	for (size_t i = 0; i < nr; i++)
		dirs[i] = at(f, rel[i]);
	ret = lkp_result_read(dirs, nr, 1700000000.5, &f->runs, &f->err);
	for (size_t i = 0; i < nr; i++)
		free(dirs[i]);
	return ret;
}

static int read_one(struct fixture *f, const char *rel)
{
	return read_at(f, &rel, 1);
}

/* run i's directory, relative to the root */
static void assert_run_dir(const struct fixture *f, size_t i, const char *rel)
{
	char *want = at(f, rel);

	assert_true(i < f->runs.n);
	assert_string_equal(f->runs.v[i].dir, want);
	free(want);
}

static double stat_of(const struct run_record *r, const char *name)
{
	const double *v = statmap_get(&r->stats, name);

	assert_non_null(v);
	return *v;
}

static void levels(void **state)
{
	struct fixture *f = *state;
	size_t before = entries(f->root);

	/* a run directory, with and without its trailing slash */
	assert_int_equal(read_one(f, GROUP "/" A "/0"), 0);
	assert_int_equal(f->runs.n, 1);
	assert_run_dir(f, 0, GROUP "/" A "/0");
	assert_int_equal(read_one(f, GROUP "/" A "/1/"), 0);
	assert_int_equal(f->runs.n, 1);
	assert_string_equal(f->runs.v[0].rec.commit, A);
	/* a commit's directory: its runs in name order */
	assert_int_equal(read_one(f, GROUP "/" A), 0);
	assert_int_equal(f->runs.n, 2);
	assert_run_dir(f, 0, GROUP "/" A "/0");
	assert_run_dir(f, 1, GROUP "/" A "/1");
	/* higher up: every commit's */
	assert_int_equal(read_one(f, "will-it-scale"), 0);
	assert_int_equal(f->runs.n, 3);
	assert_run_dir(f, 2, GROUP "/" B "/0");
	assert_int_equal(read_one(f, "."), 0);
	assert_int_equal(f->runs.n, 3);
	for (size_t i = 0; i < f->runs.n; i++)
		assert_false(f->runs.v[i].twin);
	/* read, never written: the tree is as it was */
	assert_int_equal(entries(f->root), before);
}

static void a_run(void **state)
{
	struct fixture *f = *state;
	const struct run_record *r;

	assert_int_equal(read_one(f, GROUP "/" A), 0);
	r = &f->runs.v[0].rec;
	assert_string_equal(r->testbox, "lkp-bdw-ep3");
	assert_string_equal(r->testcase, "will-it-scale");
	assert_string_equal(r->job, "will-it-scale-100%-thread-futex3");
	assert_string_equal(r->commit, A);
	assert_int_equal(r->status, RUN_COMPLETE);
	assert_true(r->started == 1700000000.5);
	assert_true(r->duration_s == 0);
	assert_int_equal(r->params.n, 3);
	assert_string_equal(strmap_get(&r->params, "nr_task"), "100%");
	assert_string_equal(strmap_get(&r->params, "mode"), "thread");
	assert_string_equal(strmap_get(&r->params, "test"), "futex3");
	assert_non_null(strstr(r->job_text, "will-it-scale:\n  mode: thread\n  test: futex3\n"));
	assert_null(strstr(r->job_text, "result_root"));
	assert_string_equal(strmap_get(&r->env, "job.kconfig"), "x86_64-rhel-8.3");
	assert_string_equal(strmap_get(&r->env, "job.compiler"), "gcc-12");
	assert_string_equal(strmap_get(&r->env, "job.rootfs"), "debian-12-x86_64-20240206.cgz");
	assert_string_equal(strmap_get(&r->env, "machine"),
			    "88 threads Intel(R) Xeon(R) CPU E5-2699 v4 @ 2.20GHz with 64G memory");
	assert_string_equal(strmap_get(&r->env, "testbox"), "lkp-bdw-ep3");
	assert_string_equal(strmap_get(&r->env, "lkp.testbox"), "lkp-bdw-ep3-2");
	assert_string_equal(strmap_get(&r->env, "lkp.result_root"), "/result/" GROUP "/" A "/0");
	assert_string_equal(strmap_get(&r->env, "import_format"), "lkp-result");
	assert_string_equal(strmap_get(&r->env, "import_run"), "0");
	assert_string_equal(strmap_get(&r->env, "imported_from"), f->runs.v[0].dir);
	/* stats.json: its numbers, not its strings */
	assert_int_equal(r->stats.n, 2);
	assert_true(stat_of(r, "will-it-scale.per_thread_ops") == 1000000);
	assert_true(stat_of(r, "dmesg.boot_failures") == 0);
	/* no stats.json: the commit's matrix column; no commit: the directory's */
	r = &f->runs.v[1].rec;
	assert_int_equal(r->stats.n, 1);
	assert_true(stat_of(r, "will-it-scale.per_thread_ops") == 1001000);
	assert_string_equal(r->commit, A);
	assert_string_equal(strmap_get(&r->env, "import_run"), "1");
	assert_int_equal(strlen(f->runs.v[1].hash), IMPORT_HASH_LEN);
	assert_string_not_equal(f->runs.v[0].hash, f->runs.v[1].hash);
}

static void twins(void **state)
{
	struct fixture *f = *state;
	const char *dirs[] = { GROUP "/" A "/1", GROUP "/" A };

	/* run 1 found twice: the second is its twin */
	assert_int_equal(read_at(f, dirs, 2), 0);
	assert_int_equal(f->runs.n, 3);
	assert_false(f->runs.v[0].twin);
	assert_false(f->runs.v[1].twin);
	assert_true(f->runs.v[2].twin);
	assert_string_equal(f->runs.v[0].hash, f->runs.v[2].hash);
	/* a copy elsewhere is the same run: result_root names it, not the path */
	put_job(f, "copy/0", A, GROUP "/" A "/0");
	put(f, "copy/0/stats.json", "{\"will-it-scale.per_thread_ops\": 1000000,"
	    " \"dmesg.boot_failures\": 0}\n");
	dirs[0] = GROUP "/" A "/0";
	dirs[1] = "copy";
	assert_int_equal(read_at(f, dirs, 2), 0);
	assert_int_equal(f->runs.n, 2);
	assert_true(f->runs.v[1].twin);
	assert_string_equal(f->runs.v[0].hash, f->runs.v[1].hash);
	/* other stats: another run */
	put(f, "copy/0/stats.json", "{\"will-it-scale.per_thread_ops\": 999999}\n");
	assert_int_equal(read_at(f, dirs, 2), 0);
	assert_false(f->runs.v[1].twin);
	assert_string_not_equal(f->runs.v[0].hash, f->runs.v[1].hash);
}

static void last_state(void **state)
{
	struct fixture *f = *state;

	put(f, GROUP "/" B "/0/stats.json",
	    "{\"will-it-scale.per_thread_ops\": 5, \"last_state.exit_fail\": 1}\n");
	assert_int_equal(read_one(f, GROUP "/" B), 0);
	assert_int_equal(f->runs.v[0].rec.status, RUN_FAILED);
	assert_string_equal(strmap_get(&f->runs.v[0].rec.env, "last_state.reason"),
			    "LKP: last_state.exit_fail 1");
	put(f, GROUP "/" B "/0/stats.json",
	    "{\"will-it-scale.per_thread_ops\": 5, \"last_state.is_incomplete_run\": 1,"
	    " \"last_state.exit_fail\": 1}\n");
	assert_int_equal(read_one(f, GROUP "/" B), 0);
	assert_int_equal(f->runs.v[0].rec.status, RUN_INCOMPLETE);
}

/* what read_one(rel) must fail with: code, message (each @: the root), job_file */
static void refused(struct fixture *f, const char *rel, int code, const char *fmt,
		    bool job_file)
{
	struct strbuf want = STRBUF_INIT;

	for (const char *c = fmt; *c; c++)
		if (*c == '@')
			strbuf_addstr(&want, f->root);
		else
			strbuf_addch(&want, *c);
	assert_int_equal(read_one(f, rel), code);
	if (strncmp(f->err.msg.buf, want.buf, want.len))
		fail_msg("got '%s', want '%s...'", f->err.msg.buf, want.buf);
	assert_int_equal(f->err.job_file, job_file);
	/* nothing of a refused tree is returned */
	assert_int_equal(f->runs.n, 0);
	assert_null(f->runs.v);
	strbuf_release(&want);
}

static void errors(void **state)
{
	struct fixture *f = *state;
	char *path;

	/* a broken stats.json: file:line:column, the other runs not returned */
	put(f, GROUP "/" B "/0/stats.json",
	    "{\n  \"will-it-scale.per_thread_ops\": 1,\n  \"a.b\": [1 2]\n}\n");
	refused(f, ".", -EINVAL, "@/./" GROUP "/" B "/0/stats.json:3:13: ", false);
	put(f, GROUP "/" B "/0/stats.json", "{\"will-it-scale.per_thread_ops\": 1}\n");
	/* a broken matrix.json, read for run 1 */
	put(f, GROUP "/" A "/matrix.json", "{\"x\": [1,\n");
	refused(f, GROUP "/" A, -EINVAL, "@/" GROUP "/" A "/matrix.json:", false);
	/* no column for run 1 */
	put(f, GROUP "/" A "/matrix.json", "{\"x\": [1], \"stats_source\": [\"/r/0/stats.json\"]}");
	refused(f, GROUP "/" A, -EINVAL, "@/" GROUP "/" A "/1 is not an LKP run: it has no "
		"stats.json, and @/" GROUP "/" A "/matrix.json has no column for it "
		"(no stats_source ending in /1/stats.json)", false);
	/* no matrix.json either */
	path = at(f, GROUP "/" A "/matrix.json");
	assert_int_equal(unlink(path), 0);
	free(path);
	refused(f, GROUP "/" A, -EINVAL, "@/" GROUP "/" A "/1 is not an LKP run: it has job.yaml "
		"but no stats.json (nor a matrix.json beside it, in @/" GROUP "/" A ")", false);
	/* job.yaml's errors are the job parser's, positions and all */
	put(f, GROUP "/" B "/0/job.yaml", "testcase: will-it-scale\nnr_task: [1, 2]\n");
	refused(f, GROUP "/" B, -EINVAL, "@/" GROUP "/" B "/0/job.yaml:2:10: 'nr_task' is a "
		"list: an LKP run's job.yaml is one atomic job", true);
	put(f, GROUP "/" B "/0/job.yaml", "testcase: will-it-scale\nnr_task: 1\n");
	refused(f, GROUP "/" B, -EINVAL, "@/" GROUP "/" B "/0/job.yaml: no tbox_group or "
		"testbox: LKP's job.yaml names it (the machine the run is of)", false);
	/* DIRs that are no LKP result: -ENOENT */
	refused(f, "nope", -ENOENT, "@/nope: No such file or directory", false);
	refused(f, GROUP "/" A "/0/stats.json", -ENOENT, "@/" GROUP "/" A "/0/stats.json is "
		"not a directory: lkp-result takes LKP result directories", false);
	put(f, "empty/x/.keep", "");
	refused(f, "empty", -ENOENT, "@/empty is not an LKP result: no job.yaml in it or in a "
		"directory under it (an LKP run", false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(levels, setup, teardown),
		cmocka_unit_test_setup_teardown(a_run, setup, teardown),
		cmocka_unit_test_setup_teardown(twins, setup, teardown),
		cmocka_unit_test_setup_teardown(last_state, setup, teardown),
		cmocka_unit_test_setup_teardown(errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
