/*
 * Unit tests: store (behind store.h): round trips, groups, samples,
 * commits, bisections, declared stats, the 'unsupported' status,
 * imports, deletion and concurrent writers, on SQLite (unit/test_store)
 * and on PostgreSQL (unit/test_store_pg, store_backend.h); the tests of
 * SQLite's files (foreign files, locking, bad paths, the migrations of
 * version-1 and version-2 files, damaged files) skip on PostgreSQL, and
 * PostgreSQL's own (an unreachable server, foreign, newer and empty
 * databases, two writers creating one) skip on SQLite.
 * Each test works in its own temp dir under $TMPDIR, removed afterwards.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "record/record.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "store_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct fixture {
	char *dir;
	char *db;	/* <dir>/results.db, or the PostgreSQL test database */
	struct store *s;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || make_temp_dir(NULL, "perfbot-unit-store", &f->dir))
		return -1;
	*state = f;
	return 0;
}

/*
 * The fixture with a fresh store location: called by the test, not by
 * setup(), since a test without its PostgreSQL cluster must skip, and
 * cmocka counts a skip in setup as an error.
 */
static struct fixture *fresh(void **state)
{
	struct fixture *f = *state;

	f->db = test_store_fresh(f->dir);
	return f;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	store_close(f->s);
	f->s = NULL;
	remove_tree(f->dir);
	free(f->dir);
	free(f->db);
	free(f);
	unsetenv("PERFBOT_DB_BUSY_MS");
	return 0;
}

/*
 * store_open() with its message copied into a fixed buffer, as the tests
 * read it (the messages they check are short; marked "..." if not).
 */
static int open_into(const char *path, enum store_mode mode, struct store **s,
		     char *err, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = store_open(path, mode, s, &sb);

	str_copy_marked(err, len, sb.buf);
	strbuf_release(&sb);
	return ret;
}

static struct store *open_ok(const char *path, enum store_mode mode)
{
	char err[1024] = "";
	struct store *s = NULL;
	int ret = open_into(path, mode, &s, err, sizeof(err));

	if (ret)
		fail_msg("open_into(%s): %d %s", path, ret, err);
	return s;
}

static void make_run(struct run_record *r, const char *testbox, const char *job,
		     const char *commit, enum run_status status, double started)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(record_set_str(&r->testbox, testbox), 0);
	assert_int_equal(record_set_str(&r->testcase, "will-it-scale"), 0);
	assert_int_equal(record_set_str(&r->job, job), 0);
	assert_int_equal(record_set_str(&r->commit, commit), 0);
	r->status = status;
	r->started = started;
	r->duration_s = 30.5;
}

static int64_t put(struct store *s, struct run_record *r)
{
	int64_t id = -1;
	int ret = store_put_run(s, r, &id);

	if (ret)
		fail_msg("store_put_run: %d %s", ret, store_error(s));
	assert_true(id > 0);
	run_record_release(r);
	return id;
}

/* A run of one group with the given stats: name i = "s.<i>" = base + i. */
static int64_t put_simple(struct store *s, const char *testbox, const char *job,
			  const char *commit, enum run_status status,
			  double started, size_t nstats, double base)
{
	struct run_record r;

	make_run(&r, testbox, job, commit, status, started);
	for (size_t i = 0; i < nstats; i++)
		assert_int_equal(statmap_addf(&r.stats, base + i, "s.%04zu", i), 0);
	return put(s, &r);
}

static void round_trip(void **state)
{
	struct fixture *f = fresh(state);
	struct run_record r, got;
	char *deep;
	int64_t id;

	/* STORE_WRITE makes the directories (of a file) */
	if (test_store_is_pg())
		deep = strdup(f->db);
	else
		assert_true(asprintf(&deep, "%s/a/b/c/results.db", f->dir) > 0);
	f->s = open_ok(deep, STORE_WRITE);

	make_run(&r, "box1", "will-it-scale-100%-thread-futex3",
		 "0123456789abcdef0123456789abcdef01234567", RUN_FAILED, 1700000000.25);
	r.duration_s = 301.125;
	assert_int_equal(record_set_str(&r.job_text, "suite: will-it-scale\nnr_task: 100%\n"), 0);
	assert_int_equal(strmap_set(&r.params, "nr_task", "100%"), 0);
	assert_int_equal(strmap_set(&r.params, "mode", "thread"), 0);
	assert_int_equal(strmap_set(&r.params, "test", "futex3"), 0);
	for (int i = 0; i < 40; i++)
		assert_int_equal(strmap_setf(&r.env, "k", "%d", i) |
				 strmap_setf(&r.env, "env.zz", "last") |
				 strmap_setf(&r.env, i % 2 ? "odd" : "even", "v%d", i), 0);
	assert_int_equal(strmap_set(&r.env, "kernel", "6.1.0-13-amd64 \"quoted\" 'x' ünï"), 0);
	/* 1,500 stats, added in reverse, one name twice (last wins) */
	for (int i = 1499; i >= 0; i--)
		assert_int_equal(statmap_addf(&r.stats, i * 1.5 - 100, "stat.%04d", i), 0);
	assert_int_equal(statmap_add(&r.stats, "stat.0007", 42), 0);
	assert_int_equal(statmap_add(&r.stats, "x.nan", NAN), 0);
	assert_int_equal(statmap_add(&r.stats, "x.inf", INFINITY), 0);
	assert_int_equal(statmap_add(&r.stats, "x.tiny", 1e-300), 0);
	assert_int_equal(statmap_add(&r.stats, "x.int", 12345678901234.0), 0);
	id = put(f->s, &r);

	/* read it back through a new connection */
	store_close(f->s);
	f->s = NULL;
	f->s = open_ok(deep, STORE_READ);
	assert_int_equal(store_get_run(f->s, id, &got), 0);
	assert_string_equal(got.testbox, "box1");
	assert_string_equal(got.testcase, "will-it-scale");
	assert_string_equal(got.job, "will-it-scale-100%-thread-futex3");
	assert_string_equal(got.commit, "0123456789abcdef0123456789abcdef01234567");
	assert_int_equal(got.status, RUN_FAILED);
	assert_true(got.started == 1700000000.25);
	assert_true(got.duration_s == 301.125);
	assert_string_equal(got.job_text, "suite: will-it-scale\nnr_task: 100%\n");
	assert_int_equal(got.params.n, 3);
	assert_string_equal(strmap_get(&got.params, "nr_task"), "100%");
	assert_string_equal(strmap_get(&got.params, "mode"), "thread");
	assert_string_equal(strmap_get(&got.params, "test"), "futex3");
	assert_int_equal(got.env.n, 5);
	assert_string_equal(strmap_get(&got.env, "k"), "39");
	assert_string_equal(strmap_get(&got.env, "odd"), "v39");
	assert_string_equal(strmap_get(&got.env, "even"), "v38");
	assert_string_equal(strmap_get(&got.env, "kernel"),
			    "6.1.0-13-amd64 \"quoted\" 'x' ünï");
	assert_int_equal(got.stats.n, 1504);
	assert_true(got.stats.sorted);
	for (size_t i = 1; i < got.stats.n; i++)
		assert_true(strcmp(got.stats.v[i - 1].name, got.stats.v[i].name) < 0);
	for (int i = 0; i < 1500; i++) {
		char name[32];
		const double *v;

		snprintf(name, sizeof(name), "stat.%04d", i);
		v = statmap_get(&got.stats, name);
		assert_non_null(v);
		assert_true(*v == (i == 7 ? 42 : i * 1.5 - 100));
	}
	assert_true(isnan(*statmap_get(&got.stats, "x.nan")));
	assert_true(isinf(*statmap_get(&got.stats, "x.inf")));
	assert_true(*statmap_get(&got.stats, "x.tiny") == 1e-300);
	assert_true(*statmap_get(&got.stats, "x.int") == 12345678901234.0);
	run_record_release(&got);

	/* an unknown run */
	assert_int_equal(store_get_run(f->s, id + 1, &got), -ENOENT);
	assert_non_null(strstr(store_error(f->s), "no run"));
	assert_non_null(strstr(store_error(f->s), deep));
	/* a reader cannot write */
	make_run(&r, "b", "j", "c", RUN_COMPLETE, 1);
	assert_int_equal(store_put_run(f->s, &r, NULL), -EBADF);
	run_record_release(&r);
	free(deep);
}

static void incomplete_record_refused(void **state)
{
	struct fixture *f = fresh(state);
	struct run_record r;

	f->s = open_ok(f->db, STORE_WRITE);
	make_run(&r, "box", "job", "c0ffee", RUN_COMPLETE, 1);
	record_set_str(&r.commit, NULL);
	assert_int_equal(store_put_run(f->s, &r, NULL), -EINVAL);
	run_record_release(&r);
}

static void groups_and_counts(void **state)
{
	struct fixture *f = fresh(state);
	static const char *A = "aaaa000000000000000000000000000000000000";
	static const char *B = "bbbb000000000000000000000000000000000000";
	struct store_filter flt = { 0 };
	struct store_group *g;
	int64_t *ids, first, second, third;
	size_t n, nids;

	f->s = open_ok(f->db, STORE_WRITE);
	assert_int_equal(store_list_groups(f->s, NULL, &g, &n), 0);
	assert_int_equal(n, 0);
	store_groups_release(g, n);

	/* group (box1, j1, A): 3 complete, 1 failed, 2 incomplete */
	second = put_simple(f->s, "box1", "j1", A, RUN_COMPLETE, 200, 3, 0);
	first = put_simple(f->s, "box1", "j1", A, RUN_COMPLETE, 100, 3, 0);
	put_simple(f->s, "box1", "j1", A, RUN_FAILED, 300, 3, 0);
	put_simple(f->s, "box1", "j1", A, RUN_INCOMPLETE, 400, 3, 0);
	put_simple(f->s, "box1", "j1", A, RUN_INCOMPLETE, 500, 3, 0);
	third = put_simple(f->s, "box1", "j1", A, RUN_COMPLETE, 600, 3, 0);
	put_simple(f->s, "box1", "j1", B, RUN_FAILED, 700, 3, 0);
	put_simple(f->s, "box2", "j1", A, RUN_COMPLETE, 800, 3, 0);
	put_simple(f->s, "box1", "j2", A, RUN_COMPLETE, 900, 3, 0);

	assert_int_equal(store_list_groups(f->s, NULL, &g, &n), 0);
	assert_int_equal(n, 4);
	/* by testbox, job, then first stored */
	assert_string_equal(g[0].testbox, "box1");
	assert_string_equal(g[0].job, "j1");
	assert_string_equal(g[0].commit, A);
	assert_string_equal(g[0].testcase, "will-it-scale");
	assert_int_equal(g[0].runs_complete, 3);
	assert_int_equal(g[0].runs_failed, 1);
	assert_int_equal(g[0].runs_incomplete, 2);
	assert_int_equal(g[0].last_run_id, third);
	assert_true(g[0].last_started == 600);
	assert_string_equal(g[1].commit, B);
	assert_int_equal(g[1].runs_complete, 0);
	assert_int_equal(g[1].runs_failed, 1);
	assert_string_equal(g[2].job, "j2");
	assert_string_equal(g[3].testbox, "box2");
	store_groups_release(g, n);

	flt.commit = "bbbb";
	assert_int_equal(store_list_groups(f->s, &flt, &g, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(g[0].commit, B);
	store_groups_release(g, n);
	flt.commit = A;
	flt.job = "j1";
	assert_int_equal(store_list_groups(f->s, &flt, &g, &n), 0);
	assert_int_equal(n, 2);
	store_groups_release(g, n);
	flt.testbox = "box2";
	assert_int_equal(store_list_groups(f->s, &flt, &g, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(g[0].testbox, "box2");
	store_groups_release(g, n);
	flt = (struct store_filter){ .testcase = "hackbench" };
	assert_int_equal(store_list_groups(f->s, &flt, &g, &n), 0);
	assert_int_equal(n, 0);
	store_groups_release(g, n);

	/* oldest first, every status */
	assert_int_equal(store_group_runs(f->s, "box1", "j1", A, &ids, &nids), 0);
	assert_int_equal(nids, 6);
	assert_int_equal(ids[0], first);
	assert_int_equal(ids[1], second);
	assert_int_equal(ids[5], third);
	free(ids);
	assert_int_equal(store_group_runs(f->s, "box1", "j1", "cafe", &ids, &nids), 0);
	assert_int_equal(nids, 0);
	free(ids);
}

static void samples_from_complete_runs(void **state)
{
	struct fixture *f = fresh(state);
	struct store_samples sm;
	struct run_record r;

	f->s = open_ok(f->db, STORE_WRITE);
	/* complete runs: 10, 20, 30 (+ i); others must not count */
	put_simple(f->s, "box", "job", "c1", RUN_COMPLETE, 1, 100, 10);
	put_simple(f->s, "box", "job", "c1", RUN_FAILED, 2, 100, 1000);
	put_simple(f->s, "box", "job", "c1", RUN_COMPLETE, 3, 100, 20);
	put_simple(f->s, "box", "job", "c1", RUN_INCOMPLETE, 4, 100, 2000);
	put_simple(f->s, "box", "job", "c2", RUN_COMPLETE, 5, 100, 5000);
	put_simple(f->s, "box", "job2", "c1", RUN_COMPLETE, 5, 100, 6000);
	put_simple(f->s, "box9", "job", "c1", RUN_COMPLETE, 5, 100, 7000);
	/* a run with fewer stats, one only it has, and a NaN */
	make_run(&r, "box", "job", "c1", RUN_COMPLETE, 6);
	for (size_t i = 0; i < 50; i++)
		assert_int_equal(statmap_addf(&r.stats, 30.0 + i, "s.%04zu", i), 0);
	assert_int_equal(statmap_add(&r.stats, "a.only", -1), 0);
	assert_int_equal(statmap_add(&r.stats, "s.0060", NAN), 0);
	put(f->s, &r);

	assert_int_equal(store_load_samples(f->s, "box", "job", "c1", &sm), 0);
	assert_int_equal(sm.nr_runs, 3);
	assert_int_equal(sm.nr, 101);
	/* the complete runs' starts, ascending: what compare_order() reads */
	assert_non_null(sm.started);
	assert_true(sm.started[0] == 1 && sm.started[1] == 3 && sm.started[2] == 6);
	/* sorted by name */
	for (size_t i = 1; i < sm.nr; i++)
		assert_true(strcmp(sm.names[i - 1], sm.names[i]) < 0);
	assert_string_equal(sm.names[0], "a.only");
	assert_int_equal(sm.counts[0], 1);
	assert_true(sm.values[0][0] == -1);
	for (size_t i = 1; i < sm.nr; i++) {
		size_t k = i - 1;
		char name[32];

		snprintf(name, sizeof(name), "s.%04zu", k);
		assert_string_equal(sm.names[i], name);
		/* in run order; NaN is no sample */
		assert_int_equal(sm.counts[i], k < 50 ? 3 : 2);
		assert_true(sm.values[i][0] == 10.0 + k);
		assert_true(sm.values[i][1] == 20.0 + k);
		if (k < 50)
			assert_true(sm.values[i][2] == 30.0 + k);
	}
	store_samples_release(&sm);
	/* a window: the complete runs that started at 3 or later */
	assert_int_equal(store_load_samples_since(f->s, "box", "job", "c1", 3, &sm), 0);
	assert_int_equal(sm.nr_runs, 2);
	assert_true(sm.started[0] == 3 && sm.started[1] == 6);
	assert_string_equal(sm.names[1], "s.0000");
	assert_int_equal(sm.counts[1], 2);
	assert_true(sm.values[1][0] == 20 && sm.values[1][1] == 30);
	store_samples_release(&sm);
	assert_int_equal(store_load_samples_since(f->s, "box", "job", "c1", 7, &sm), 0);
	assert_int_equal(sm.nr_runs, 0);
	store_samples_release(&sm);

	/* a group without complete runs, and no group at all */
	put_simple(f->s, "box", "job", "c3", RUN_FAILED, 7, 10, 0);
	assert_int_equal(store_load_samples(f->s, "box", "job", "c3", &sm), 0);
	assert_int_equal(sm.nr, 0);
	assert_int_equal(sm.nr_runs, 0);
	store_samples_release(&sm);
	assert_int_equal(store_load_samples(f->s, "nobox", "job", "c1", &sm), 0);
	assert_int_equal(sm.nr, 0);
	store_samples_release(&sm);
}

/* A run of class cls (NULL: none) on box: one stat, "s" = v. */
static void put_class_run(struct store *s, const char *box, const char *cls,
			  const char *commit, enum run_status status, double started, double v)
{
	struct run_record r;

	make_run(&r, box, "job", commit, status, started);
	assert_int_equal(statmap_add(&r.stats, "s", v), 0);
	if (cls)
		assert_int_equal(strmap_set(&r.env, STORE_CLASS_ENV, cls), 0);
	put(s, &r);
}

/*
 * The selector "class:NAME" reads the runs of class NAME, of whichever
 * box, as one group: not a box's runs outside the class, nor another
 * class's, even of a box that was in this one.  A box's own selector
 * still reads all its runs.
 */
static void class_selector(void **state)
{
	struct fixture *f = fresh(state);
	struct store_filter filt = { .commit = "c1", .testbox = STORE_CLASS_PREFIX "fast" };
	struct store_samples sm;
	struct store_group *g;
	int64_t *ids;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	put_class_run(f->s, "w1", "fast", "c1", RUN_COMPLETE, 1, 10);
	put_class_run(f->s, "w2", "fast", "c1", RUN_COMPLETE, 2, 11);
	put_class_run(f->s, "w2", "fast", "c1", RUN_FAILED, 3, 99);
	put_class_run(f->s, "w1", NULL, "c1", RUN_COMPLETE, 4, 1000);	/* w1 alone */
	put_class_run(f->s, "w3", "slow", "c1", RUN_COMPLETE, 5, 2000);	/* another class */
	put_class_run(f->s, "w1", "old", "c1", RUN_COMPLETE, 6, 3000);	/* w1 in another */
	put_class_run(f->s, "w1", "fast", "c2", RUN_COMPLETE, 7, 20);

	assert_int_equal(store_load_samples(f->s, STORE_CLASS_PREFIX "fast", "job", "c1", &sm), 0);
	assert_int_equal(sm.nr_runs, 2);
	assert_int_equal(sm.nr, 1);
	assert_int_equal(sm.counts[0], 2);
	assert_true(sm.values[0][0] == 10 && sm.values[0][1] == 11);
	assert_true(sm.started[0] == 1 && sm.started[1] == 2);
	store_samples_release(&sm);
	assert_int_equal(store_load_samples_since(f->s, STORE_CLASS_PREFIX "fast", "job", "c1",
						  2, &sm), 0);
	assert_int_equal(sm.nr_runs, 1);
	store_samples_release(&sm);

	assert_int_equal(store_list_groups(f->s, &filt, &g, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(g[0].testbox, STORE_CLASS_PREFIX "fast");
	assert_int_equal(g[0].runs_complete, 2);
	assert_int_equal(g[0].runs_failed, 1);
	store_groups_release(g, n);
	assert_int_equal(store_group_runs(f->s, STORE_CLASS_PREFIX "fast", "job", "c1", &ids, &n),
			 0);
	assert_int_equal(n, 3);
	free(ids);

	/* a box's selector: all its runs, as before classes */
	assert_int_equal(store_load_samples(f->s, "w1", "job", "c1", &sm), 0);
	assert_int_equal(sm.nr_runs, 3);
	store_samples_release(&sm);
	assert_int_equal(store_load_samples(f->s, STORE_CLASS_PREFIX "none", "job", "c1", &sm),
			 0);
	assert_int_equal(sm.nr_runs, 0);
	store_samples_release(&sm);
}

/*
 * The read goes run by run and finds names by id: many stats (the id
 * table grows), runs whose stats differ and come in another order, and
 * ids far apart (names looked up one by one instead of a range scan).
 */
static void samples_many_and_sparse(void **state)
{
	struct fixture *f = fresh(state);
	struct store_samples sm;
	struct run_record r;

	f->s = open_ok(f->db, STORE_WRITE);
	make_run(&r, "box", "job", "c1", RUN_COMPLETE, 1);
	assert_int_equal(statmap_add(&r.stats, "early", 1), 0);
	put(f->s, &r);
	/* 6,000 names of another job push the next ones far away */
	make_run(&r, "box", "other", "c1", RUN_COMPLETE, 2);
	for (unsigned i = 0; i < 6000; i++)
		assert_int_equal(statmap_addf(&r.stats, i, "o.%05u", i), 0);
	put(f->s, &r);
	make_run(&r, "box", "job", "c1", RUN_COMPLETE, 3);
	assert_int_equal(statmap_add(&r.stats, "early", 2), 0);
	assert_int_equal(statmap_add(&r.stats, "late", 3), 0);
	put(f->s, &r);
	assert_int_equal(store_load_samples(f->s, "box", "job", "c1", &sm), 0);
	assert_int_equal(sm.nr_runs, 2);
	assert_int_equal(sm.nr, 2);
	assert_string_equal(sm.names[0], "early");
	assert_int_equal(sm.counts[0], 2);
	assert_true(sm.values[0][0] == 1 && sm.values[0][1] == 2);
	assert_string_equal(sm.names[1], "late");
	assert_int_equal(sm.counts[1], 1);
	assert_true(sm.values[1][0] == 3);
	store_samples_release(&sm);

	/* 3,000 stats; the second run lacks every third and adds its own */
	for (unsigned run = 0; run < 3; run++) {
		make_run(&r, "box", "big", "c1", RUN_COMPLETE, 10 + run);
		for (unsigned i = 0; i < 3000; i++)
			if (run != 1 || i % 3)
				assert_int_equal(statmap_addf(&r.stats, run * 10000.0 + i,
							      "b.%04u", i), 0);
		if (run == 1)
			for (unsigned i = 0; i < 100; i++)
				assert_int_equal(statmap_addf(&r.stats, -1.0 * i,
							      "a.%03u", i), 0);
		put(f->s, &r);
	}
	assert_int_equal(store_load_samples(f->s, "box", "big", "c1", &sm), 0);
	assert_int_equal(sm.nr_runs, 3);
	assert_int_equal(sm.nr, 3100);
	for (unsigned i = 0; i < 100; i++) {
		assert_int_equal(sm.counts[i], 1);
		assert_true(sm.values[i][0] == -1.0 * i);
	}
	for (unsigned i = 0; i < 3000; i++) {
		size_t k = 100 + i;
		char name[16];

		snprintf(name, sizeof(name), "b.%04u", i);
		assert_string_equal(sm.names[k], name);
		assert_int_equal(sm.counts[k], i % 3 ? 3 : 2);
		assert_true(sm.values[k][0] == i);
		assert_true(sm.values[k][sm.counts[k] - 1] == 20000.0 + i);
	}
	store_samples_release(&sm);
}

static void resolve_commit(void **state)
{
	struct fixture *f = fresh(state);
	static const char *C1 = "0123456789abcdef0123456789abcdef01234567";
	static const char *C2 = "0123ffff9abcdef0123456789abcdef012345678";
	static const char *C3 = "abcdef0123456789abcdef0123456789abcdef01";
	char *full;

	f->s = open_ok(f->db, STORE_WRITE);
	put_simple(f->s, "box", "job", C1, RUN_COMPLETE, 1, 1, 0);
	put_simple(f->s, "box", "job", C2, RUN_COMPLETE, 2, 1, 0);
	put_simple(f->s, "box", "job", C3, RUN_FAILED, 3, 1, 0);
	put_simple(f->s, "box", "job", "6.1.0-13-amd64", RUN_COMPLETE, 4, 1, 0);

	assert_int_equal(store_resolve_commit(f->s, C1, &full), 0);
	assert_string_equal(full, C1);
	free(full);
	assert_int_equal(store_resolve_commit(f->s, "abcd", &full), 0);
	assert_string_equal(full, C3);
	free(full);
	assert_int_equal(store_resolve_commit(f->s, "ABCDEF01", &full), 0);
	assert_string_equal(full, C3);
	free(full);
	assert_int_equal(store_resolve_commit(f->s, "01234", &full), 0);
	assert_string_equal(full, C1);
	free(full);
	assert_int_equal(store_resolve_commit(f->s, "0123", &full), -EEXIST);
	assert_null(full);
	assert_non_null(strstr(store_error(f->s), "ambiguous"));
	assert_int_equal(store_resolve_commit(f->s, "6.1.0-13-amd64", &full), 0);
	assert_string_equal(full, "6.1.0-13-amd64");
	free(full);
	/* too short to be a prefix; a label is not matched by prefix */
	assert_int_equal(store_resolve_commit(f->s, "abc", &full), -ENOENT);
	assert_int_equal(store_resolve_commit(f->s, "6.1", &full), -ENOENT);
	assert_int_equal(store_resolve_commit(f->s, "6.1.0", &full), -ENOENT);
	assert_int_equal(store_resolve_commit(f->s, "fedc", &full), -ENOENT);
	assert_non_null(strstr(store_error(f->s), "no commit 'fedc'"));
	assert_int_equal(store_resolve_commit(f->s, "", &full), -ENOENT);
}

/* A file's bytes and mtime, to show it was left alone. */
struct snapshot {
	char *bytes;
	size_t len;
	struct timespec mtime;
};

static void take(const char *path, struct snapshot *snap)
{
	struct stat st;
	FILE *fp;

	assert_int_equal(stat(path, &st), 0);
	snap->len = st.st_size;
	snap->mtime = st.st_mtim;
	snap->bytes = malloc(snap->len + 1);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(snap->bytes, 1, snap->len, fp), snap->len);
	fclose(fp);
}

static void assert_untouched(const char *path, struct snapshot *before)
{
	struct snapshot now;
	char *side;

	take(path, &now);
	assert_int_equal(now.len, before->len);
	assert_memory_equal(now.bytes, before->bytes, now.len);
	assert_int_equal(now.mtime.tv_sec, before->mtime.tv_sec);
	assert_int_equal(now.mtime.tv_nsec, before->mtime.tv_nsec);
	free(now.bytes);
	free(before->bytes);
	/* and no journal left beside it */
	assert_true(asprintf(&side, "%s-wal", path) > 0);
	assert_int_equal(access(side, F_OK), -1);
	free(side);
}

static void sql(const char *path, const char *text)
{
	sqlite3 *db;
	char *msg = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, text, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", text, msg);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* The value of query's first column and row, from PostgreSQL (malloc'd). */
static char *pg_value(const char *query)
{
	PGconn *c = PQconnectdb(getenv("PERFBOT_TEST_PG_URL"));
	PGresult *r = PQexec(c, query);
	char *v;

	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) < 1)
		fail_msg("%s: %s", query, PQerrorMessage(c));
	v = strdup(PQgetvalue(r, 0, 0));
	PQclear(r);
	PQfinish(c);
	return v;
}

/* Edit the store past perfbot, on either backend (text must suit both). */
static void db_sql(const char *loc, const char *text)
{
	if (test_store_is_pg())
		test_store_pg_sql(text);
	else
		sql(loc, text);
}

static void expect_refused(const char *path, const char *msg)
{
	static const enum store_mode modes[] = { STORE_WRITE, STORE_READ };
	struct snapshot snap;
	char err[1024];

	for (int m = 0; m < 2; m++) {
		struct store *s = NULL;

		take(path, &snap);
		err[0] = '\0';
		assert_int_equal(open_into(path, modes[m], &s, err, sizeof(err)),
				 -EPROTO);
		assert_null(s);
		if (!strstr(err, msg) || !strstr(err, path))
			fail_msg("message '%s' lacks '%s' or the path", err, msg);
		assert_untouched(path, &snap);
	}
}

static void foreign_files_refused(void **state)
{
	struct fixture *f = fresh(state);
	char *path;
	FILE *fp;

	TEST_STORE_ONLY_SQLITE("SQLite files; PostgreSQL: pg_foreign_refused");
	/* someone else's SQLite database */
	assert_true(asprintf(&path, "%s/other.db", f->dir) > 0);
	sql(path, "CREATE TABLE t (a); INSERT INTO t VALUES (1), ('x');");
	expect_refused(path, "is not a perfbot database (it holds other tables)");
	free(path);

	/* one with a meta table that is not ours */
	assert_true(asprintf(&path, "%s/meta.db", f->dir) > 0);
	sql(path, "CREATE TABLE meta (key TEXT, value TEXT);"
		  "INSERT INTO meta VALUES ('created_by', 'someone');");
	expect_refused(path, "is not a perfbot database (its meta table is not perfbot's)");
	free(path);
	assert_true(asprintf(&path, "%s/meta2.db", f->dir) > 0);
	sql(path, "CREATE TABLE meta (x INTEGER);");
	expect_refused(path, "is not a perfbot database");
	free(path);

	/* not SQLite at all */
	assert_true(asprintf(&path, "%s/notes.txt", f->dir) > 0);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("these are my notes, not a database\n", fp);
	fclose(fp);
	expect_refused(path, "is not a perfbot database (not an SQLite file)");
	free(path);
	/* SQLite's magic followed by garbage */
	assert_true(asprintf(&path, "%s/garbage.db", f->dir) > 0);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("SQLite format 3", fp);
	fputc(0, fp);
	for (int i = 0; i < 5000; i++)
		fputc(i * 7, fp);
	fclose(fp);
	expect_refused(path, "is not a perfbot database");
	free(path);
}

static void newer_schema_refused(void **state)
{
	struct fixture *f = fresh(state);

	TEST_STORE_ONLY_SQLITE("edits an SQLite file; PostgreSQL: pg_newer_schema_refused");
	f->s = open_ok(f->db, STORE_WRITE);
	put_simple(f->s, "box", "job", "c", RUN_COMPLETE, 1, 5, 0);
	store_close(f->s);
	f->s = NULL;
	sql(f->db, "UPDATE meta SET value = '99' WHERE key = 'schema_version';"
		   "PRAGMA journal_mode = DELETE;");
	expect_refused(f->db, "has schema version 99, newer than this perfbot's");
	sql(f->db, "UPDATE meta SET value = 'x' WHERE key = 'schema_version';"
		   "PRAGMA journal_mode = DELETE;");
	expect_refused(f->db, "invalid schema version 'x'");
}

static void empty_file_initialised(void **state)
{
	struct fixture *f = fresh(state);
	struct store *s = NULL;
	struct store_group *g;
	char err[1024];
	size_t n;
	int fd;

	TEST_STORE_ONLY_SQLITE("an empty SQLite file; PostgreSQL: pg_empty_reader");
	fd = open(f->db, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
	/* a reader does not write: an empty file holds no results */
	assert_int_equal(open_into(f->db, STORE_READ, &s, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no results yet at"));
	f->s = open_ok(f->db, STORE_WRITE);
	store_close(f->s);
	f->s = NULL;
	/* now initialised: a reader opens it, and finds nothing */
	f->s = open_ok(f->db, STORE_READ);
	assert_int_equal(store_list_groups(f->s, NULL, &g, &n), 0);
	assert_int_equal(n, 0);
	store_groups_release(g, n);
	store_close(f->s);
	f->s = NULL;
	/* and a writer reopening it keeps what was stored */
	f->s = open_ok(f->db, STORE_WRITE);
	put_simple(f->s, "box", "job", "c", RUN_COMPLETE, 1, 5, 0);
	store_close(f->s);
	f->s = NULL;
	f->s = open_ok(f->db, STORE_WRITE);
	assert_int_equal(store_list_groups(f->s, NULL, &g, &n), 0);
	assert_int_equal(n, 1);
	store_groups_release(g, n);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void locked_database(void **state)
{
	struct fixture *f = fresh(state);
	struct store_group *g;
	struct run_record r;
	sqlite3 *other;
	double t0, waited;
	size_t n;

	TEST_STORE_ONLY_SQLITE("SQLite's file lock (-EBUSY); PostgreSQL writers do not lock each other out");
	setenv("PERFBOT_DB_BUSY_MS", "300", 1);
	f->s = open_ok(f->db, STORE_WRITE);
	assert_int_equal(sqlite3_open(f->db, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL),
			 SQLITE_OK);

	make_run(&r, "box", "job", "c", RUN_COMPLETE, 1);
	assert_int_equal(statmap_add(&r.stats, "x", 1), 0);
	t0 = now_s();
	assert_int_equal(store_put_run(f->s, &r, NULL), -EBUSY);
	waited = now_s() - t0;
	assert_non_null(strstr(store_error(f->s), "database is locked by another writer"));
	assert_non_null(strstr(store_error(f->s), f->db));
	/* it waited for the timeout, and not much longer */
	if (waited < 0.25 || waited > 3)
		fail_msg("waited %.3f s for a 0.3 s busy timeout", waited);

	/* a bisection is written the same way */
	assert_int_equal(store_bisect_add(f->s, "running", "{}", NULL), -EBUSY);
	assert_non_null(strstr(store_error(f->s), "database is locked by another writer"));

	/* a second connection can still open it and read */
	{
		struct store *reader = open_ok(f->db, STORE_READ);

		store_close(reader);
	}
	assert_int_equal(sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(other), SQLITE_OK);
	assert_int_equal(store_put_run(f->s, &r, NULL), 0);
	run_record_release(&r);
	assert_int_equal(store_list_groups(f->s, NULL, &g, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(g[0].runs_complete, 1);
	store_groups_release(g, n);
}

/* A run that fails half-way leaves nothing, and the name cache stays right. */
static void failed_write_leaves_nothing(void **state)
{
	struct fixture *f = fresh(state);
	struct store_group *g;
	struct run_record r, got;
	int64_t id;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	if (test_store_is_pg())	/* a constraint's SQLSTATE: -EINVAL, as SQLite's */
		test_store_pg_sql("CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS"
				  " $$BEGIN IF NEW.value = 666 THEN RAISE EXCEPTION 'boom'"
				  " USING ERRCODE = 'check_violation'; END IF; RETURN NEW; END$$;"
				  "CREATE TRIGGER boom BEFORE INSERT ON stat_value"
				  " FOR EACH ROW EXECUTE FUNCTION boom();");
	else
		sql(f->db, "CREATE TRIGGER boom BEFORE INSERT ON stat_value"
			   " WHEN NEW.value = 666 BEGIN SELECT RAISE(ABORT, 'boom'); END;");
	make_run(&r, "box", "job", "c", RUN_COMPLETE, 1);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(statmap_addf(&r.stats, i == 900 ? 666 : i, "new.%d", i), 0);
	assert_int_equal(store_put_run(f->s, &r, NULL), -EINVAL);
	assert_non_null(strstr(store_error(f->s), "boom"));
	run_record_release(&r);
	assert_int_equal(store_list_groups(f->s, NULL, &g, &n), 0);
	assert_int_equal(n, 0);
	store_groups_release(g, n);

	/* the names of the rolled-back run were not kept with stale ids */
	db_sql(f->db, test_store_is_pg() ? "DROP TRIGGER boom ON stat_value;"
					   " INSERT INTO stat_name (name) VALUES ('intruder');"
					 : "DROP TRIGGER boom;"
					   " INSERT INTO stat_name (name) VALUES ('intruder');");
	make_run(&r, "box", "job", "c", RUN_COMPLETE, 1);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(statmap_addf(&r.stats, i, "new.%d", i), 0);
	id = put(f->s, &r);
	assert_int_equal(store_get_run(f->s, id, &got), 0);
	assert_int_equal(got.stats.n, 1000);
	assert_true(*statmap_get(&got.stats, "new.0") == 0);
	assert_true(*statmap_get(&got.stats, "new.999") == 999);
	assert_null(statmap_get(&got.stats, "intruder"));
	run_record_release(&got);
}

static void bad_locations(void **state)
{
	struct fixture *f = fresh(state);
	struct store *s = NULL;
	char err[1024], *path;
	FILE *fp;

	TEST_STORE_ONLY_SQLITE("file paths; PostgreSQL: pg_unreachable");
	/* missing, for reading */
	assert_int_equal(open_into(f->db, STORE_READ, &s, err, sizeof(err)), -ENOENT);
	assert_null(s);
	assert_non_null(strstr(err, "no results yet at "));
	assert_non_null(strstr(err, f->db));
	assert_int_equal(access(f->db, F_OK), -1);

	/* a directory that cannot be made: a file is in the way */
	assert_true(asprintf(&path, "%s/file", f->dir) > 0);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
	free(path);
	assert_true(asprintf(&path, "%s/file/sub/results.db", f->dir) > 0);
	assert_int_equal(open_into(path, STORE_WRITE, &s, err, sizeof(err)), -ENOTDIR);
	assert_non_null(strstr(err, "/file/sub"));
	assert_non_null(strstr(err, strerror(ENOTDIR)));
	free(path);

	/* a directory is not a database */
	assert_int_equal(open_into(f->dir, STORE_WRITE, &s, err, sizeof(err)), -EISDIR);

	/* an unwritable directory (root writes anywhere: only as a user) */
	if (geteuid() != 0) {
		assert_true(asprintf(&path, "%s/ro", f->dir) > 0);
		assert_int_equal(mkdir(path, 0555), 0);
		free(path);
		assert_true(asprintf(&path, "%s/ro/results.db", f->dir) > 0);
		assert_int_equal(open_into(path, STORE_WRITE, &s, err, sizeof(err)),
				 -EACCES);
		assert_non_null(strstr(err, strerror(EACCES)));
		assert_non_null(strstr(err, "/ro"));
		free(path);
		assert_true(asprintf(&path, "%s/ro/sub/results.db", f->dir) > 0);
		assert_int_equal(open_into(path, STORE_WRITE, &s, err, sizeof(err)),
				 -EACCES);
		free(path);
	}

	assert_int_equal(open_into("", STORE_WRITE, &s, err, sizeof(err)), -EINVAL);
	assert_null(s);
}

/*
 * A message names its path whole, however long: a database 2,500 bytes
 * deep (fixed buffers cut such messages at 1024 bytes).
 */
static void long_path_messages_whole(void **state)
{
	struct fixture *f = fresh(state);
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT, err = STRBUF_INIT,
		      want = STRBUF_INIT;
	struct store *s = NULL;
	FILE *fp;

	TEST_STORE_ONLY_SQLITE("file paths");
	strbuf_addstr(&dir, f->dir);
	for (int i = 0; i < 12; i++) {
		strbuf_addch(&dir, '/');
		strbuf_addchars(&dir, 'd', 200);
	}
	assert_int_equal(make_dirs(dir.buf), 0);
	strbuf_addf(&path, "%s/results.db", dir.buf);
	assert_true(path.len > 2400);

	assert_int_equal(store_open(path.buf, STORE_READ, &s, &err), -ENOENT);
	assert_null(s);
	strbuf_addf(&want, "no results yet at %s", path.buf);
	assert_string_equal(err.buf, want.buf);

	/* a file where a directory must be: the path, whole */
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/file", dir.buf);
	fp = fopen(path.buf, "w");
	assert_non_null(fp);
	fclose(fp);
	strbuf_addf(&path, "/%0300d/results.db", 0);
	strbuf_reset(&want);
	strbuf_addf(&want, "cannot open %s: %s", path.buf, strerror(ENOTDIR));
	assert_int_equal(store_open(path.buf, STORE_WRITE, &s, &err), -ENOTDIR);
	assert_string_equal(err.buf, want.buf);
	assert_int_equal(strbuf_error(&err), 0);

	strbuf_release(&dir);
	strbuf_release(&path);
	strbuf_release(&err);
	strbuf_release(&want);
}

/* ---- bisections ---- */

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Stored times are doubles of ~1.7e9 s: allow for their rounding. */
static void assert_between(double t, double lo, double hi)
{
	if (t < lo - 1e-3 || t > hi + 1e-3)
		fail_msg("time %.6f not within [%.6f, %.6f]", t, lo, hi);
}

static int64_t bisect_add_ok(struct store *s, const char *status, const char *spec)
{
	int64_t id = -1;
	int ret = store_bisect_add(s, status, spec, &id);

	if (ret)
		fail_msg("store_bisect_add: %d %s", ret, store_error(s));
	assert_true(id > 0);
	return id;
}

static void assert_no_bisection(struct store *s, int ret, int64_t id,
				const char *path)
{
	char want[64];

	assert_int_equal(ret, -ENOENT);
	snprintf(want, sizeof(want), "no bisection %lld in", (long long)id);
	if (!strstr(store_error(s), want) || !strstr(store_error(s), path))
		fail_msg("message '%s' lacks '%s' or the path", store_error(s), want);
}

/* The first column of the first row of query on the file, past the store. */
static void assert_query(const char *path, const char *query, const char *want)
{
	sqlite3_stmt *st;
	sqlite3 *db;

	if (test_store_is_pg()) {
		char *got = pg_value(query);

		assert_string_equal(got, want);
		free(got);
		return;
	}
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	if (sqlite3_prepare_v2(db, query, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", query, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), want);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static void bisect_add_get_list(void **state)
{
	struct fixture *f = fresh(state);
	static const char *spec =
		"{\"good\": \"aaaa\", \"bad\": \"bbbb\",\n \"job\": \"wis-100%\", \"note\": \"ünï 'q'\"}";
	struct store_bisect b, *all;
	int64_t a, second, third;
	double t0, t1;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	assert_int_equal(store_bisect_latest(f->s, &b), -ENOENT);
	assert_non_null(strstr(store_error(f->s), "no bisection in"));
	assert_int_equal(store_bisect_list(f->s, &all, &n), 0);
	assert_int_equal(n, 0);
	assert_null(all);

	t0 = wall_s();
	a = bisect_add_ok(f->s, "running", spec);
	t1 = wall_s();
	second = bisect_add_ok(f->s, "found", "{}");
	third = bisect_add_ok(f->s, "no-change", "[1]");
	assert_true(a < second && second < third);

	assert_int_equal(store_bisect_get(f->s, a, &b), 0);
	assert_int_equal(b.id, a);
	assert_string_equal(b.status, "running");
	assert_string_equal(b.spec, spec);
	assert_null(b.result);
	assert_true(b.created == b.updated);
	assert_between(b.created, t0, t1);
	store_bisect_release(&b);
	assert_null(b.status);

	assert_int_equal(store_bisect_latest(f->s, &b), 0);
	assert_int_equal(b.id, third);
	assert_string_equal(b.status, "no-change");
	assert_string_equal(b.spec, "[1]");
	store_bisect_release(&b);

	/* oldest first, and kept: read back through a new connection */
	store_close(f->s);
	f->s = NULL;
	f->s = open_ok(f->db, STORE_READ);
	assert_int_equal(store_bisect_list(f->s, &all, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(all[0].id, a);
	assert_string_equal(all[0].spec, spec);
	assert_int_equal(all[1].id, second);
	assert_string_equal(all[1].status, "found");
	assert_int_equal(all[2].id, third);
	assert_null(all[2].result);
	store_bisects_release(all, n);
}

static void bisect_update_keeps_result(void **state)
{
	struct fixture *f = fresh(state);
	struct store_bisect b;
	int64_t a, other;
	double created;

	f->s = open_ok(f->db, STORE_WRITE);
	a = bisect_add_ok(f->s, "running", "{\"a\": 1}");
	other = bisect_add_ok(f->s, "running", "{\"b\": 2}");
	assert_int_equal(store_bisect_get(f->s, a, &b), 0);
	created = b.created;
	store_bisect_release(&b);

	assert_int_equal(store_bisect_update(f->s, a, "running", "{\"step\": 1}"), 0);
	assert_int_equal(store_bisect_get(f->s, a, &b), 0);
	assert_string_equal(b.status, "running");
	assert_string_equal(b.result, "{\"step\": 1}");
	assert_string_equal(b.spec, "{\"a\": 1}");
	assert_true(b.created == created);
	assert_true(b.updated >= created);
	store_bisect_release(&b);

	/* NULL keeps the stored result */
	assert_int_equal(store_bisect_update(f->s, a, "found", NULL), 0);
	assert_int_equal(store_bisect_get(f->s, a, &b), 0);
	assert_string_equal(b.status, "found");
	assert_string_equal(b.result, "{\"step\": 1}");
	store_bisect_release(&b);
	assert_int_equal(store_bisect_update(f->s, a, "reset", "{}"), 0);
	assert_int_equal(store_bisect_get(f->s, a, &b), 0);
	assert_string_equal(b.status, "reset");
	assert_string_equal(b.result, "{}");
	store_bisect_release(&b);

	/* the other one is untouched */
	assert_int_equal(store_bisect_get(f->s, other, &b), 0);
	assert_string_equal(b.status, "running");
	assert_null(b.result);
	assert_true(b.created == b.updated);
	store_bisect_release(&b);

	assert_int_equal(store_bisect_update(f->s, a, NULL, "{}"), -EINVAL);
}

static void bisect_unknown_ids(void **state)
{
	struct fixture *f = fresh(state);
	static const int64_t unknown[] = { 2, 0, -1, INT64_MAX };
	struct store_bisect_line *lines;
	struct store_bisect_mark *marks;
	struct store_bisect b;
	size_t n;
	int64_t a;

	f->s = open_ok(f->db, STORE_WRITE);
	a = bisect_add_ok(f->s, "running", "{}");
	assert_int_equal(a, 1);
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		int64_t id = unknown[i];

		assert_no_bisection(f->s, store_bisect_get(f->s, id, &b), id, f->db);
		assert_null(b.status);
		assert_no_bisection(f->s, store_bisect_update(f->s, id, "found", "{}"),
				    id, f->db);
		assert_no_bisection(f->s, store_bisect_log_add(f->s, id, "line"),
				    id, f->db);
		assert_no_bisection(f->s, store_bisect_mark(f->s, id, "cccc", "skip", NULL),
				    id, f->db);
		assert_no_bisection(f->s, store_bisect_log(f->s, id, &lines, &n), id,
				    f->db);
		assert_null(lines);
		assert_int_equal(n, 0);
		assert_no_bisection(f->s, store_bisect_marks(f->s, id, &marks, &n), id,
				    f->db);
		assert_null(marks);
		assert_int_equal(n, 0);
	}
	/* none of that wrote anything */
	assert_int_equal(store_bisect_get(f->s, a, &b), 0);
	assert_string_equal(b.status, "running");
	assert_null(b.result);
	store_bisect_release(&b);
	assert_int_equal(store_bisect_log(f->s, a, &lines, &n), 0);
	assert_int_equal(n, 0);
	store_bisect_lines_release(lines, n);
	assert_int_equal(store_bisect_marks(f->s, a, &marks, &n), 0);
	assert_int_equal(n, 0);
	store_bisect_marks_release(marks, n);
	assert_query(f->db, "SELECT (SELECT count(*) FROM bisect_log)"
			    " + (SELECT count(*) FROM bisect_mark)", "0");
}

static void bisect_log_in_order(void **state)
{
	struct fixture *f = fresh(state);
	struct store_bisect_line *lines;
	int64_t a, b;
	double t0, t1;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	a = bisect_add_ok(f->s, "running", "{}");
	b = bisect_add_ok(f->s, "running", "{}");
	assert_int_equal(store_bisect_log(f->s, a, &lines, &n), 0);
	assert_int_equal(n, 0);
	store_bisect_lines_release(lines, n);

	/* the two logs interleaved: seq counts per bisection */
	t0 = wall_s();
	for (int i = 1; i <= 5; i++) {
		char text[80];

		snprintf(text, sizeof(text), "step %d: testing %04x\twith \"quotes\"", i, i);
		assert_int_equal(store_bisect_log_add(f->s, a, text), 0);
		if (i % 2)
			assert_int_equal(store_bisect_log_add(f->s, b, i == 1 ? "" : "b"), 0);
	}
	t1 = wall_s();

	store_close(f->s);
	f->s = NULL;
	f->s = open_ok(f->db, STORE_READ);
	assert_int_equal(store_bisect_log(f->s, a, &lines, &n), 0);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++) {
		char text[80];

		snprintf(text, sizeof(text), "step %zu: testing %04zx\twith \"quotes\"",
			 i + 1, i + 1);
		assert_int_equal(lines[i].seq, i + 1);
		assert_string_equal(lines[i].text, text);
		assert_between(lines[i].time, t0, t1);
		if (i)
			assert_true(lines[i].time >= lines[i - 1].time);
	}
	store_bisect_lines_release(lines, n);
	assert_int_equal(store_bisect_log(f->s, b, &lines, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(lines[0].seq, 1);
	assert_string_equal(lines[0].text, "");
	assert_int_equal(lines[2].seq, 3);
	assert_string_equal(lines[2].text, "b");
	store_bisect_lines_release(lines, n);
}

static void bisect_marks_replaced(void **state)
{
	struct fixture *f = fresh(state);
	static const char *C = "cccc000000000000000000000000000000000000";
	static const char *A = "aaaa000000000000000000000000000000000000";
	struct store_bisect_mark *m;
	int64_t a, b;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	a = bisect_add_ok(f->s, "running", "{}");
	b = bisect_add_ok(f->s, "running", "{}");
	assert_int_equal(store_bisect_marks(f->s, a, &m, &n), 0);
	assert_int_equal(n, 0);
	store_bisect_marks_release(m, n);

	assert_int_equal(store_bisect_mark(f->s, a, C, "skip",
					   "build failed: /tmp/build-cccc.log, exit 2"), 0);
	assert_int_equal(store_bisect_mark(f->s, a, A, "skip", "no kernel"), 0);
	assert_int_equal(store_bisect_mark(f->s, b, C, "skip", "b's own"), 0);
	/* the second mark of a commit wins, note and all */
	assert_int_equal(store_bisect_mark(f->s, a, C, "good", NULL), 0);

	assert_int_equal(store_bisect_marks(f->s, a, &m, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(m[0].sha, A);	/* by sha */
	assert_string_equal(m[0].mark, "skip");
	assert_string_equal(m[0].note, "no kernel");
	assert_string_equal(m[1].sha, C);
	assert_string_equal(m[1].mark, "good");
	assert_null(m[1].note);
	store_bisect_marks_release(m, n);
	assert_int_equal(store_bisect_marks(f->s, b, &m, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(m[0].sha, C);
	assert_string_equal(m[0].mark, "skip");
	assert_string_equal(m[0].note, "b's own");
	store_bisect_marks_release(m, n);

	assert_int_equal(store_bisect_mark(f->s, a, NULL, "skip", NULL), -EINVAL);
	assert_int_equal(store_bisect_mark(f->s, a, C, NULL, NULL), -EINVAL);
}

/* Every bisect write through a reader fails, and writes nothing. */
static void bisect_reader_cannot_write(void **state)
{
	struct fixture *f = fresh(state);
	struct store_bisect_line *lines;
	struct store_bisect_mark *marks;
	struct store_bisect b;
	int64_t a, id = -1;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	a = bisect_add_ok(f->s, "running", "{}");
	store_close(f->s);
	f->s = NULL;
	f->s = open_ok(f->db, STORE_READ);
	assert_int_equal(store_bisect_add(f->s, "running", "{}", &id), -EBADF);
	assert_non_null(strstr(store_error(f->s), "opened for reading only"));
	assert_int_equal(id, -1);
	assert_int_equal(store_bisect_update(f->s, a, "found", "{}"), -EBADF);
	assert_int_equal(store_bisect_log_add(f->s, a, "line"), -EBADF);
	assert_int_equal(store_bisect_mark(f->s, a, "cccc", "skip", NULL), -EBADF);
	assert_int_equal(store_bisect_latest(f->s, &b), 0);
	assert_int_equal(b.id, a);
	assert_string_equal(b.status, "running");
	assert_null(b.result);
	store_bisect_release(&b);
	assert_int_equal(store_bisect_log(f->s, a, &lines, &n), 0);
	assert_int_equal(n, 0);
	store_bisect_lines_release(lines, n);
	assert_int_equal(store_bisect_marks(f->s, a, &marks, &n), 0);
	assert_int_equal(n, 0);
	store_bisect_marks_release(marks, n);
}

/*
 * A database as perfbot wrote it at schema version 1 (schema.c's first
 * migration, the meta rows migrate() adds, WAL), frozen here: the test
 * must not build it with the code it tests.
 */
#define SCHEMA_V1_TABLES \
	"CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)" \
	" WITHOUT ROWID;" \
	"CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT," \
	" testbox TEXT NOT NULL, testcase TEXT NOT NULL, job TEXT NOT NULL," \
	" \"commit\" TEXT NOT NULL, status TEXT NOT NULL" \
	" CHECK (status IN ('complete', 'failed', 'incomplete'))," \
	" started REAL NOT NULL, duration_s REAL NOT NULL, job_text TEXT);" \
	"CREATE INDEX runs_group ON runs (testbox, job, \"commit\");" \
	"CREATE INDEX runs_commit ON runs (\"commit\");" \
	"CREATE TABLE run_param (run_id INTEGER NOT NULL REFERENCES runs (id)" \
	" ON DELETE CASCADE, key TEXT NOT NULL, value TEXT NOT NULL," \
	" PRIMARY KEY (run_id, key)) WITHOUT ROWID;" \
	"CREATE TABLE run_env (run_id INTEGER NOT NULL REFERENCES runs (id)" \
	" ON DELETE CASCADE, key TEXT NOT NULL, value TEXT NOT NULL," \
	" PRIMARY KEY (run_id, key)) WITHOUT ROWID;" \
	"CREATE TABLE stat_name (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);" \
	"CREATE TABLE stat_value (run_id INTEGER NOT NULL REFERENCES runs (id)" \
	" ON DELETE CASCADE, name_id INTEGER NOT NULL REFERENCES stat_name (id)," \
	" value REAL, PRIMARY KEY (run_id, name_id)) WITHOUT ROWID;"

static const char schema_v1[] =
	"PRAGMA journal_mode = WAL;"
	SCHEMA_V1_TABLES
	"INSERT INTO meta VALUES ('created_by', 'perfbot'),"
	" ('created_with', '0.1.0'), ('schema_version', '1');"
	"INSERT INTO runs (testbox, testcase, job, \"commit\", status, started,"
	" duration_s, job_text) VALUES ('box1', 'will-it-scale', 'wis-job',"
	" 'aaaa000000000000000000000000000000000000', 'complete', 1700000000.5,"
	" 30, 'suite: will-it-scale');"
	"INSERT INTO run_param VALUES (1, 'nr_task', '100%');"
	"INSERT INTO run_env VALUES (1, 'kernel', '6.1.0');"
	"INSERT INTO stat_name VALUES (1, 'will-it-scale.per_thread_ops'), (2, 'x.nan');"
	"INSERT INTO stat_value VALUES (1, 1, 1234.5), (1, 2, NULL);";

static void assert_schema_version(const char *path, const char *want)
{
	assert_query(path, "SELECT value FROM meta WHERE key = 'schema_version'",
		     want);
}

static void assert_v1_run(struct store *s)
{
	struct run_record r;

	assert_int_equal(store_get_run(s, 1, &r), 0);
	assert_string_equal(r.testbox, "box1");
	assert_string_equal(r.commit, "aaaa000000000000000000000000000000000000");
	assert_int_equal(r.status, RUN_COMPLETE);
	assert_true(r.started == 1700000000.5);
	assert_string_equal(strmap_get(&r.params, "nr_task"), "100%");
	assert_string_equal(strmap_get(&r.env, "kernel"), "6.1.0");
	assert_true(*statmap_get(&r.stats, "will-it-scale.per_thread_ops") == 1234.5);
	assert_true(isnan(*statmap_get(&r.stats, "x.nan")));
	run_record_release(&r);
}

static void schema_v1_migrated(void **state)
{
	struct fixture *f = fresh(state);
	struct store_bisect_line *lines;
	struct store_bisect_mark *marks;
	struct store_bisect b, *all;
	struct store_group *g;
	struct store *reader;
	struct store_samples sm;
	int64_t a, id = -1;
	size_t n;

	TEST_STORE_ONLY_SQLITE("an SQLite file of schema 1");
	sql(f->db, schema_v1);

	/* a reader reads it as it is, runs and all, and finds no bisections */
	reader = open_ok(f->db, STORE_READ);
	assert_v1_run(reader);
	assert_int_equal(store_list_groups(reader, NULL, &g, &n), 0);
	assert_int_equal(n, 1);
	store_groups_release(g, n);
	assert_int_equal(store_bisect_latest(reader, &b), -ENOENT);
	assert_int_equal(store_bisect_list(reader, &all, &n), 0);
	assert_int_equal(n, 0);
	assert_no_bisection(reader, store_bisect_get(reader, 1, &b), 1, f->db);
	assert_no_bisection(reader, store_bisect_log(reader, 1, &lines, &n), 1, f->db);
	assert_no_bisection(reader, store_bisect_marks(reader, 1, &marks, &n), 1, f->db);
	assert_int_equal(store_bisect_add(reader, "running", "{}", &id), -EBADF);
	assert_schema_version(f->db, "1");

	/*
	 * a writer migrates it (to the latest version: schema_v2_migrated
	 * checks the last step), keeps its runs, and stores bisections
	 */
	f->s = open_ok(f->db, STORE_WRITE);
	assert_schema_version(f->db, "6");
	assert_v1_run(f->s);
	put_simple(f->s, "box1", "wis-job", "aaaa000000000000000000000000000000000000",
		   RUN_COMPLETE, 1700000100, 1, 0);
	assert_int_equal(store_load_samples(f->s, "box1", "wis-job",
					    "aaaa000000000000000000000000000000000000",
					    &sm), 0);
	assert_int_equal(sm.nr_runs, 2);
	store_samples_release(&sm);
	a = bisect_add_ok(f->s, "running", "{\"good\": \"aaaa\"}");
	assert_int_equal(store_bisect_log_add(f->s, a, "start"), 0);
	assert_int_equal(store_bisect_mark(f->s, a, "bbbb", "skip", NULL), 0);

	/* the reader, opened before, sees them now */
	assert_int_equal(store_bisect_latest(reader, &b), 0);
	assert_int_equal(b.id, a);
	assert_string_equal(b.spec, "{\"good\": \"aaaa\"}");
	store_bisect_release(&b);
	assert_int_equal(store_bisect_log(reader, a, &lines, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(lines[0].text, "start");
	store_bisect_lines_release(lines, n);
	store_close(reader);

	/* and a writer opening it again has nothing to do */
	store_close(f->s);
	f->s = NULL;
	f->s = open_ok(f->db, STORE_WRITE);
	assert_schema_version(f->db, "6");
	assert_int_equal(store_bisect_marks(f->s, a, &marks, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(marks[0].sha, "bbbb");
	store_bisect_marks_release(marks, n);
}

/* ---- declared stats (run_stat_meta) and the 'unsupported' status ---- */

static void declare(struct run_record *r, const char *name, const char *unit,
		    int better, bool kpi)
{
	assert_int_equal(stat_meta_set(&r->meta, name, unit, better, kpi), 0);
}

static void assert_meta(const struct stat_meta_list *l, size_t i,
			const char *name, const char *unit, int better, bool kpi)
{
	if (i >= l->n)
		fail_msg("no declaration %zu (of %zu): want %s", i, l->n, name);
	assert_string_equal(l->v[i].name, name);
	assert_string_equal(l->v[i].unit, unit);
	assert_int_equal(l->v[i].better, better);
	assert_int_equal(l->v[i].kpi, kpi);
}

static void meta_run(struct run_record *r, const char *commit,
		     enum run_status status, double started, double ops)
{
	make_run(r, "box", "job", commit, status, started);
	assert_int_equal(statmap_add(&r->stats, "wis.ops", ops), 0);
	assert_int_equal(statmap_add(&r->stats, "wis.time", 2), 0);
	assert_int_equal(statmap_add(&r->stats, "plain", 5), 0);
	assert_int_equal(statmap_add(&r->stats, "nan.only", NAN), 0);
}

static void assert_group_meta(struct store *s)
{
	struct store_samples sm;

	assert_int_equal(store_load_samples(s, "box", "job", "c1", &sm), 0);
	assert_int_equal(sm.nr_runs, 2);
	assert_int_equal(sm.nr, 3);	/* plain, wis.ops, wis.time: nan.only has no sample */
	/*
	 * the newest complete run's declaration of each stat (run 2's of
	 * wis.ops and plain, run 1's of wis.time), by name; not the failed
	 * run's, nor the other commit's; none for a stat without samples
	 */
	assert_int_equal(sm.meta.n, 3);
	assert_meta(&sm.meta, 0, "plain", "", STAT_BETTER_NONE, false);
	assert_meta(&sm.meta, 1, "wis.ops", "kops/s", STAT_BETTER_HIGHER, false);
	assert_meta(&sm.meta, 2, "wis.time", "s", STAT_BETTER_LOWER, false);
	assert_null(stat_meta_find(&sm.meta, "declared.only"));
	assert_null(stat_meta_find(&sm.meta, "nan.only"));
	store_samples_release(&sm);
	assert_int_equal(sm.meta.n, 0);
	assert_null(sm.meta.v);

	/* a group whose runs declare nothing */
	assert_int_equal(store_load_samples(s, "box", "job", "c3", &sm), 0);
	assert_int_equal(sm.nr, 3);
	assert_int_equal(sm.meta.n, 0);
	assert_null(stat_meta_find(&sm.meta, "wis.ops"));
	store_samples_release(&sm);
}

static void meta_round_trip(void **state)
{
	struct fixture *f = fresh(state);
	struct run_record r, got;
	int64_t first, second, plain;

	f->s = open_ok(f->db, STORE_WRITE);
	/* run 1: a KPI, a time, a stat it lacks, one that is only NaN */
	meta_run(&r, "c1", RUN_COMPLETE, 1, 100);
	declare(&r, "wis.ops", "ops/s", STAT_BETTER_HIGHER, true);
	declare(&r, "wis.time", "s", STAT_BETTER_LOWER, false);
	declare(&r, "declared.only", "", STAT_BETTER_NONE, false);
	declare(&r, "nan.only", "x", STAT_BETTER_NONE, false);
	first = put(f->s, &r);
	/* run 2, newer: wis.ops declared otherwise, plain with no unit */
	meta_run(&r, "c1", RUN_COMPLETE, 2, 110);
	declare(&r, "wis.ops", "kops/s", STAT_BETTER_HIGHER, false);
	declare(&r, "plain", NULL, STAT_BETTER_NONE, false);
	second = put(f->s, &r);
	/* newest, but failed: not a sample, so not a declaration that counts */
	meta_run(&r, "c1", RUN_FAILED, 3, 0);
	declare(&r, "wis.time", "ms", STAT_BETTER_HIGHER, true);
	declare(&r, "plain", "B", STAT_BETTER_LOWER, true);
	put(f->s, &r);
	/* the same job at another commit declares otherwise */
	meta_run(&r, "c2", RUN_COMPLETE, 4, 0);
	declare(&r, "wis.ops", "other", STAT_BETTER_LOWER, true);
	put(f->s, &r);
	/* and one declaring nothing */
	meta_run(&r, "c3", RUN_COMPLETE, 5, 0);
	plain = put(f->s, &r);

	assert_group_meta(f->s);
	/* read back through a new connection, as compare does */
	store_close(f->s);
	f->s = NULL;
	f->s = open_ok(f->db, STORE_READ);
	assert_group_meta(f->s);

	/* a run's own declarations, by name */
	assert_int_equal(store_get_run(f->s, first, &got), 0);
	assert_int_equal(got.meta.n, 4);
	assert_meta(&got.meta, 0, "declared.only", "", STAT_BETTER_NONE, false);
	assert_meta(&got.meta, 1, "nan.only", "x", STAT_BETTER_NONE, false);
	assert_meta(&got.meta, 2, "wis.ops", "ops/s", STAT_BETTER_HIGHER, true);
	assert_meta(&got.meta, 3, "wis.time", "s", STAT_BETTER_LOWER, false);
	assert_int_equal(got.stats.n, 4);
	run_record_release(&got);
	assert_int_equal(store_get_run(f->s, second, &got), 0);
	assert_int_equal(got.meta.n, 2);
	assert_meta(&got.meta, 0, "plain", "", STAT_BETTER_NONE, false);
	assert_meta(&got.meta, 1, "wis.ops", "kops/s", STAT_BETTER_HIGHER, false);
	run_record_release(&got);
	assert_int_equal(store_get_run(f->s, plain, &got), 0);
	assert_int_equal(got.meta.n, 0);
	assert_null(got.meta.v);
	run_record_release(&got);
}

/* Declarations pass the store's door as the stat names do. */
static void meta_refused(void **state)
{
	struct fixture *f = fresh(state);
	struct store_group *g;
	struct run_record r;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	meta_run(&r, "c1", RUN_COMPLETE, 1, 1);
	declare(&r, "wis.ops", "ops/s", STAT_BETTER_HIGHER, true);
	declare(&r, "bad\377", "", STAT_BETTER_NONE, false);
	assert_int_equal(store_put_run(f->s, &r, NULL), -EILSEQ);
	assert_string_equal(store_error(f->s),
			    "declared stat \"bad\\377\" is not valid UTF-8");
	run_record_release(&r);

	meta_run(&r, "c1", RUN_COMPLETE, 1, 1);
	declare(&r, "wis.ops", "ops\t/s", STAT_BETTER_HIGHER, true);
	assert_int_equal(store_put_run(f->s, &r, NULL), -EILSEQ);
	assert_non_null(strstr(store_error(f->s), "unit \"ops\\t/s\""));
	run_record_release(&r);

	meta_run(&r, "c1", RUN_COMPLETE, 1, 1);
	declare(&r, "wis.ops", "ops/s", 2, true);
	assert_int_equal(store_put_run(f->s, &r, NULL), -EINVAL);
	assert_string_equal(store_error(f->s),
			    "declared stat \"wis.ops\" has better = 2, not -1, 0 or 1");
	run_record_release(&r);

	/* a list built by hand: a declaration without a name */
	meta_run(&r, "c1", RUN_COMPLETE, 1, 1);
	r.meta.v = calloc(1, sizeof(*r.meta.v));
	assert_non_null(r.meta.v);
	r.meta.n = r.meta.cap = 1;
	assert_int_equal(store_put_run(f->s, &r, NULL), -EINVAL);
	assert_string_equal(store_error(f->s), "a declared stat needs a name");
	run_record_release(&r);

	/* none of them wrote anything */
	assert_int_equal(store_list_groups(f->s, NULL, &g, &n), 0);
	assert_int_equal(n, 0);
	store_groups_release(g, n);
	assert_query(f->db, "SELECT (SELECT count(*) FROM run_stat_meta)"
			    " + (SELECT count(*) FROM runs)", "0");
}

static void unsupported_status(void **state)
{
	struct fixture *f = fresh(state);
	struct store_samples sm;
	struct store_group *g;
	struct run_record got;
	int64_t id, *ids;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	put_simple(f->s, "box", "j1", "c1", RUN_COMPLETE, 1, 3, 0);
	id = put_simple(f->s, "box", "j1", "c1", RUN_UNSUPPORTED, 2, 0, 0);
	put_simple(f->s, "box", "j1", "c1", RUN_UNSUPPORTED, 3, 1, 0);
	put_simple(f->s, "box", "j1", "c1", RUN_FAILED, 4, 3, 0);
	put_simple(f->s, "box", "j2", "c1", RUN_UNSUPPORTED, 5, 0, 0);
	store_close(f->s);
	f->s = NULL;
	f->s = open_ok(f->db, STORE_READ);

	assert_int_equal(store_get_run(f->s, id, &got), 0);
	assert_int_equal(got.status, RUN_UNSUPPORTED);
	run_record_release(&got);
	assert_query(f->db, "SELECT status FROM runs WHERE id = 2", "unsupported");

	assert_int_equal(store_list_groups(f->s, NULL, &g, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(g[0].job, "j1");
	assert_int_equal(g[0].runs_complete, 1);
	assert_int_equal(g[0].runs_failed, 1);
	assert_int_equal(g[0].runs_incomplete, 0);
	assert_int_equal(g[0].runs_unsupported, 2);
	assert_int_equal(g[0].last_run_id, 4);
	assert_string_equal(g[1].job, "j2");
	assert_int_equal(g[1].runs_complete + g[1].runs_failed + g[1].runs_incomplete, 0);
	assert_int_equal(g[1].runs_unsupported, 1);
	store_groups_release(g, n);

	/* every run of the group, but samples only of complete ones */
	assert_int_equal(store_group_runs(f->s, "box", "j1", "c1", &ids, &n), 0);
	assert_int_equal(n, 4);
	free(ids);
	assert_int_equal(store_load_samples(f->s, "box", "j1", "c1", &sm), 0);
	assert_int_equal(sm.nr_runs, 1);
	assert_int_equal(sm.nr, 3);
	assert_int_equal(sm.counts[0], 1);
	store_samples_release(&sm);
}

/*
 * A database as perfbot wrote it at schema version 2: version 1's tables
 * and the bisect tables, frozen here as schema_v1 is.
 */
#define SCHEMA_V2_TABLES \
	SCHEMA_V1_TABLES \
	"CREATE TABLE bisect (id INTEGER PRIMARY KEY AUTOINCREMENT," \
	" status TEXT NOT NULL, spec TEXT NOT NULL, result TEXT," \
	" created REAL NOT NULL, updated REAL NOT NULL);" \
	"CREATE TABLE bisect_log (bisect_id INTEGER NOT NULL REFERENCES bisect (id)" \
	" ON DELETE CASCADE, seq INTEGER NOT NULL, time REAL NOT NULL," \
	" text TEXT NOT NULL, PRIMARY KEY (bisect_id, seq)) WITHOUT ROWID;" \
	"CREATE TABLE bisect_mark (bisect_id INTEGER NOT NULL REFERENCES bisect (id)" \
	" ON DELETE CASCADE, sha TEXT NOT NULL, mark TEXT NOT NULL, note TEXT," \
	" PRIMARY KEY (bisect_id, sha)) WITHOUT ROWID;"

#define V2_COMMIT "aaaa000000000000000000000000000000000000"

/* Runs 1..3 with their rows, then run 3 deleted as perfbot deletes: cascading. */
static const char schema_v2[] =
	"PRAGMA journal_mode = WAL;"
	SCHEMA_V2_TABLES
	"INSERT INTO meta VALUES ('created_by', 'perfbot'),"
	" ('created_with', '0.2.0'), ('schema_version', '2');"
	"PRAGMA foreign_keys = ON;"
	"INSERT INTO runs (testbox, testcase, job, \"commit\", status, started,"
	" duration_s, job_text) VALUES"
	" ('box1', 'will-it-scale', 'wis-job', '" V2_COMMIT "', 'complete',"
	"  1700000001, 30, 'suite: will-it-scale'),"
	" ('box1', 'will-it-scale', 'wis-job', '" V2_COMMIT "', 'failed',"
	"  1700000002, 31, NULL),"
	" ('box1', 'will-it-scale', 'wis-job', '" V2_COMMIT "', 'complete',"
	"  1700000003, 32, NULL);"
	"INSERT INTO run_param VALUES (1, 'nr_task', '100%'), (2, 'nr_task', '50%'),"
	" (3, 'nr_task', '1');"
	"INSERT INTO run_env VALUES (1, 'kernel', '6.1.0'), (2, 'kernel', '6.2.0'),"
	" (3, 'kernel', '6.3.0');"
	"INSERT INTO stat_name VALUES (1, 'wis.ops'), (2, 'x.nan');"
	"INSERT INTO stat_value VALUES (1, 1, 1234.5), (1, 2, NULL), (2, 1, 99),"
	" (3, 1, 7);"
	"INSERT INTO bisect (status, spec, created, updated)"
	" VALUES ('found', '{}', 1, 2);"
	"INSERT INTO bisect_log VALUES (1, 1, 1.5, 'start');"
	"DELETE FROM runs WHERE id = 3;";

static void assert_v2_runs(struct store *s)
{
	struct store_samples sm;
	struct run_record r;

	assert_int_equal(store_get_run(s, 1, &r), 0);
	assert_string_equal(r.testbox, "box1");
	assert_string_equal(r.commit, V2_COMMIT);
	assert_int_equal(r.status, RUN_COMPLETE);
	assert_true(r.started == 1700000001);
	assert_string_equal(r.job_text, "suite: will-it-scale");
	assert_int_equal(r.params.n, 1);
	assert_string_equal(strmap_get(&r.params, "nr_task"), "100%");
	assert_int_equal(r.env.n, 1);
	assert_string_equal(strmap_get(&r.env, "kernel"), "6.1.0");
	assert_int_equal(r.stats.n, 2);
	assert_true(*statmap_get(&r.stats, "wis.ops") == 1234.5);
	assert_true(isnan(*statmap_get(&r.stats, "x.nan")));
	assert_int_equal(r.meta.n, 0);
	run_record_release(&r);
	assert_int_equal(store_get_run(s, 2, &r), 0);
	assert_int_equal(r.status, RUN_FAILED);
	assert_true(r.duration_s == 31);
	assert_null(r.job_text);
	assert_string_equal(strmap_get(&r.params, "nr_task"), "50%");
	assert_string_equal(strmap_get(&r.env, "kernel"), "6.2.0");
	assert_true(*statmap_get(&r.stats, "wis.ops") == 99);
	assert_int_equal(r.meta.n, 0);
	run_record_release(&r);
	assert_int_equal(store_get_run(s, 3, &r), -ENOENT);

	assert_int_equal(store_load_samples(s, "box1", "wis-job", V2_COMMIT, &sm), 0);
	assert_int_equal(sm.nr_runs, 1);
	assert_int_equal(sm.nr, 1);
	assert_true(sm.values[0][0] == 1234.5);
	assert_int_equal(sm.meta.n, 0);
	store_samples_release(&sm);
}

/* An insert past the store: 0, or SQLite's primary result code. */
static int raw_insert_status(const char *path, const char *status)
{
	char *text;
	sqlite3 *db;
	int rc;

	assert_true(asprintf(&text,
			     "INSERT INTO runs (testbox, testcase, job, \"commit\","
			     " status, started, duration_s)"
			     " VALUES ('b', 't', 'j', 'c', '%s', 1, 1)", status) > 0);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	rc = sqlite3_exec(db, text, NULL, NULL, NULL);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	free(text);
	return rc & 0xff;
}

static void schema_v2_migrated(void **state)
{
	struct fixture *f = fresh(state);
	struct store_bisect_line *lines;
	struct store_samples sm;
	struct store_group *g;
	struct store *reader;
	struct run_record r;
	int64_t id;
	size_t n;

	TEST_STORE_ONLY_SQLITE("an SQLite file of schema 2");
	sql(f->db, schema_v2);
	assert_query(f->db, "SELECT seq FROM sqlite_sequence WHERE name = 'runs'", "3");
	assert_query(f->db, "SELECT count(*) FROM stat_value WHERE run_id = 3", "0");

	/* a reader reads it as it is: no declarations, never an error */
	reader = open_ok(f->db, STORE_READ);
	assert_v2_runs(reader);
	assert_int_equal(store_list_groups(reader, NULL, &g, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(g[0].runs_complete, 1);
	assert_int_equal(g[0].runs_failed, 1);
	assert_int_equal(g[0].runs_unsupported, 0);
	store_groups_release(g, n);
	assert_schema_version(f->db, "2");

	/* a writer migrates it: every run, param, env and value kept */
	f->s = open_ok(f->db, STORE_WRITE);
	assert_schema_version(f->db, "6");
	assert_v2_runs(f->s);
	assert_query(f->db, "SELECT (SELECT count(*) FROM stat_value) || ','"
			    " || (SELECT count(*) FROM run_param) || ','"
			    " || (SELECT count(*) FROM run_env)", "3,2,2");
	assert_int_equal(store_bisect_log(f->s, 1, &lines, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(lines[0].text, "start");
	store_bisect_lines_release(lines, n);
	/* migration 4: the imports' hashes, none for runs stored before */
	assert_query(f->db, "SELECT count(*) FROM run_import", "0");
	/* the table rebuilt in place: its indexes, one sequence, no leftover */
	assert_query(f->db, "SELECT group_concat(name) FROM (SELECT name FROM"
			    " sqlite_master WHERE type = 'index' AND tbl_name = 'runs'"
			    " AND name NOT LIKE 'sqlite_%' ORDER BY name)",
		     "runs_commit,runs_group");
	assert_query(f->db, "SELECT count(*) FROM sqlite_master"
			    " WHERE name LIKE '%new_runs%' OR sql LIKE '%new_runs%'", "0");
	assert_query(f->db, "SELECT group_concat(name || '=' || seq) FROM"
			    " (SELECT * FROM sqlite_sequence ORDER BY name)",
		     "bisect=1,runs=3");

	/* the deleted run's id stays used; declarations and 'unsupported' are new */
	make_run(&r, "box1", "wis-job", V2_COMMIT, RUN_COMPLETE, 1700000004);
	assert_int_equal(statmap_add(&r.stats, "wis.ops", 1), 0);
	declare(&r, "wis.ops", "ops/s", STAT_BETTER_HIGHER, true);
	id = put(f->s, &r);
	assert_int_equal(id, 4);
	id = put_simple(f->s, "box1", "wis-job", V2_COMMIT, RUN_UNSUPPORTED,
			1700000005, 0, 0);
	assert_int_equal(id, 5);
	assert_int_equal(store_get_run(f->s, 5, &r), 0);
	assert_int_equal(r.status, RUN_UNSUPPORTED);
	run_record_release(&r);

	/* the reader opened before sees them now: it looks at the version again */
	assert_int_equal(store_get_run(reader, 4, &r), 0);
	assert_int_equal(r.meta.n, 1);
	assert_meta(&r.meta, 0, "wis.ops", "ops/s", STAT_BETTER_HIGHER, true);
	run_record_release(&r);
	assert_int_equal(store_load_samples(reader, "box1", "wis-job", V2_COMMIT, &sm), 0);
	assert_int_equal(sm.nr_runs, 2);
	assert_int_equal(sm.meta.n, 1);
	assert_string_equal(sm.meta.v[0].name, "wis.ops");
	store_samples_release(&sm);
	assert_int_equal(store_list_groups(reader, NULL, &g, &n), 0);
	assert_int_equal(g[0].runs_unsupported, 1);
	store_groups_release(g, n);
	store_close(reader);

	/* the new CHECK: 'unsupported' in, anything else still out */
	assert_int_equal(raw_insert_status(f->db, "unsupported"), SQLITE_OK);
	assert_int_equal(raw_insert_status(f->db, "bogus"), SQLITE_CONSTRAINT);
	assert_query(f->db, "SELECT max(id) FROM runs", "6");

	/* the references hold on the new table: deleting a run cascades */
	sql(f->db, "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id IN (1, 4);");
	assert_query(f->db, "SELECT (SELECT count(*) FROM stat_value WHERE run_id IN (1, 4))"
			    " + (SELECT count(*) FROM run_param WHERE run_id = 1)"
			    " + (SELECT count(*) FROM run_stat_meta)", "0");

	/* and a writer opening it again has nothing to do */
	store_close(f->s);
	f->s = NULL;
	f->s = open_ok(f->db, STORE_WRITE);
	assert_schema_version(f->db, "6");
	assert_int_equal(put_simple(f->s, "box1", "wis-job", V2_COMMIT, RUN_COMPLETE,
				    1700000006, 1, 0), 7);
}

/* ---- imports (their content hash) and deleting runs ---- */

#define HASH_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define HASH_B "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* n imported runs of one group, each with one stat, a param and an env key */
static void make_imported(struct run_record *runs, size_t n, const char *commit)
{
	for (size_t i = 0; i < n; i++) {
		make_run(&runs[i], "box1", "imported-job", commit, RUN_COMPLETE, 1700000000 + i);
		assert_int_equal(statmap_add(&runs[i].stats, "wis.ops", 10.0 + i), 0);
		assert_int_equal(strmap_set(&runs[i].params, "nr_task", "1"), 0);
		assert_int_equal(strmap_set(&runs[i].env, "import_format", "csv"), 0);
	}
}

static void release_runs(struct run_record *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		run_record_release(&runs[i]);
}

static void import_hash_kept(void **state)
{
	struct fixture *f = fresh(state);
	struct run_record runs[2];
	int64_t ids[2], *found;
	struct store *reader;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	assert_int_equal(store_import_runs(f->s, HASH_A, &found, &n), 0);
	assert_int_equal(n, 0);
	make_imported(runs, 2, "c0ffee00");
	assert_int_equal(store_put_import(f->s, runs, 2, HASH_A, true, ids), 0);
	assert_true(ids[0] > 0 && ids[1] == ids[0] + 1);

	/* the same content again: refused whole, nothing written */
	assert_int_equal(store_put_import(f->s, runs, 2, HASH_A, true, NULL), -EEXIST);
	assert_non_null(strstr(store_error(f->s), HASH_A));
	assert_query(f->db, "SELECT count(*) FROM runs", "2");
	/* other content is another import */
	assert_int_equal(store_put_import(f->s, runs, 1, HASH_B, true, NULL), 0);
	/* not `once` (import --force): written beside the first */
	assert_int_equal(store_put_import(f->s, runs, 2, HASH_A, false, NULL), 0);
	assert_query(f->db, "SELECT count(*) FROM runs", "5");

	reader = open_ok(f->db, STORE_READ);
	assert_int_equal(store_import_runs(reader, HASH_A, &found, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(found[0], ids[0]);
	assert_int_equal(found[1], ids[1]);
	free(found);
	assert_int_equal(store_import_runs(reader, HASH_B, &found, &n), 0);
	assert_int_equal(n, 1);
	free(found);
	store_close(reader);
	/* a hash is 64 lowercase hex digits */
	assert_int_equal(store_put_import(f->s, runs, 1, "ABC", true, NULL), -EINVAL);
	assert_int_equal(store_import_runs(f->s, NULL, &found, &n), -EINVAL);
	/* an imported run is refused at the door like any other */
	assert_int_equal(record_set_str(&runs[1].job, "bad\tjob"), 0);
	assert_int_equal(store_put_import(f->s, runs, 2, HASH_B, false, NULL), -EILSEQ);
	assert_query(f->db, "SELECT count(*) FROM runs", "5");
	release_runs(runs, 2);
}

/*
 * Two writers at once, each on its own connection: work(s, arg) on both
 * threads, started together by a barrier, the store opened before it
 * (open_first) or as the first thing after it.  ret[i] and err[i] say
 * how writer i ended.
 */
struct at_once {
	const char *db;
	bool open_first;
	int (*work)(struct store *s, void *arg);
	void *arg;
	pthread_barrier_t *start;
	int ret;
	char err[512];
};

static void *at_once_thread(void *p)
{
	struct at_once *a = p;
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;

	if (a->open_first)
		a->ret = store_open(a->db, STORE_WRITE, &s, &err);
	pthread_barrier_wait(a->start);
	if (!a->open_first)
		a->ret = store_open(a->db, STORE_WRITE, &s, &err);
	snprintf(a->err, sizeof(a->err), "open: %s", err.buf);
	strbuf_release(&err);
	if (!a->ret) {
		a->ret = a->work(s, a->arg);
		snprintf(a->err, sizeof(a->err), "%s", store_error(s));
	}
	store_close(s);
	return NULL;
}

static void two_at_once(const char *db, bool open_first,
			int (*work)(struct store *s, void *arg), void *arg,
			struct at_once a[2])
{
	pthread_barrier_t start;
	pthread_t t[2];

	assert_int_equal(pthread_barrier_init(&start, NULL, 2), 0);
	for (int i = 0; i < 2; i++) {
		a[i] = (struct at_once){ .db = db, .open_first = open_first, .work = work,
					 .arg = arg, .start = &start };
		assert_int_equal(pthread_create(&t[i], NULL, at_once_thread, &a[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	pthread_barrier_destroy(&start);
}

struct import_job {
	const struct run_record *runs;
	size_t nr;
};

static int import_once(struct store *s, void *arg)
{
	const struct import_job *job = arg;

	return store_put_import(s, job->runs, job->nr, HASH_B, true, NULL);
}

/* Two imports of one file at once, once: one writes, the other -EEXIST. */
static void concurrent_imports(void **state)
{
	struct fixture *f = fresh(state);
	struct run_record runs[3];
	struct import_job job = { runs, 3 };
	struct at_once im[2];

	f->s = open_ok(f->db, STORE_WRITE);
	make_imported(runs, 3, "c0ffee00");
	/* names new to both, different in each run */
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 500; k++)
			assert_int_equal(statmap_addf(&runs[i].stats, k, "imp.%d.%03d", (i + k) % 4,
						      k), 0);
	for (int round = 0; round < 3; round++) {
		int ok = 0, dup = 0;

		two_at_once(f->db, true, import_once, &job, im);
		for (int i = 0; i < 2; i++) {
			ok += !im[i].ret;
			dup += im[i].ret == -EEXIST;
			if (im[i].ret && im[i].ret != -EEXIST)
				fail_msg("importer %d: %d %s", i, im[i].ret, im[i].err);
		}
		/* the first round imports; later ones find it imported */
		assert_int_equal(ok, round ? 0 : 1);
		assert_int_equal(dup, round ? 2 : 1);
		assert_query(f->db, "SELECT count(*) FROM runs", "3");
	}
	release_runs(runs, 3);
}

/* How many rows of any table that has a run_id column belong to run id. */
static long rows_of_run(const char *path, int64_t id)
{
	sqlite3_stmt *tables;
	sqlite3 *db;
	long total = 0;

	if (test_store_is_pg()) {
		char *q, *v;

		/* every table with a run_id column, summed in one query */
		assert_true(asprintf(&q, "SELECT coalesce(sum((xpath('/row/c/text()',"
				     " query_to_xml(format('SELECT count(*) AS c FROM %%I"
				     " WHERE run_id = %lld', table_name), false, true, '')))[1]"
				     "::text::bigint), 0) FROM information_schema.columns"
				     " WHERE table_schema = current_schema() AND column_name = 'run_id'",
				     (long long)id) > 0);
		v = pg_value(q);
		total = atol(v);
		free(v);
		free(q);
		return total;
	}
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	/* every table of the schema, so that a table added later is counted too */
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT m.name FROM sqlite_master m,"
					    " pragma_table_info(m.name) c WHERE m.type = 'table'"
					    " AND c.name = 'run_id'", -1, &tables, NULL),
			 SQLITE_OK);
	while (sqlite3_step(tables) == SQLITE_ROW) {
		char *q = sqlite3_mprintf("SELECT count(*) FROM \"%w\" WHERE run_id = %lld",
					  (const char *)sqlite3_column_text(tables, 0),
					  (long long)id);
		sqlite3_stmt *st;

		assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		total += sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		sqlite3_free(q);
	}
	sqlite3_finalize(tables);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return total;
}

static void delete_runs_whole(void **state)
{
	struct fixture *f = fresh(state);
	struct run_record runs[2], r, got;
	int64_t ids[2], keep, gone, both[3], *found;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	make_imported(runs, 2, "c0ffee00");
	assert_int_equal(store_put_import(f->s, runs, 2, HASH_A, true, ids), 0);
	release_runs(runs, 2);
	make_run(&r, "box1", "wis-job", "c0ffee00", RUN_COMPLETE, 1700000100);
	assert_int_equal(statmap_add(&r.stats, "wis.ops", 5), 0);
	assert_int_equal(strmap_set(&r.params, "mode", "thread"), 0);
	assert_int_equal(strmap_set(&r.env, "kernel", "6.1"), 0);
	declare(&r, "wis.ops", "ops/s", STAT_BETTER_HIGHER, true);
	gone = put(f->s, &r);
	keep = put_simple(f->s, "box1", "wis-job", "c0ffee00", RUN_COMPLETE, 1700000200, 3, 1);
	assert_int_equal(rows_of_run(f->db, gone), 4);	/* param, env, value, meta */
	assert_int_equal(rows_of_run(f->db, ids[0]), 4);	/* param, env, value, hash */

	/* an unknown id: named, and nothing deleted, not even the known ones */
	both[0] = gone;
	both[1] = 999;
	assert_int_equal(store_delete_runs(f->s, both, 2), -ENOENT);
	assert_non_null(strstr(store_error(f->s), "no run 999 in"));
	assert_int_equal(store_get_run(f->s, gone, &got), 0);
	run_record_release(&got);

	/* every row a run owns goes, in every table; an id given twice is fine */
	both[0] = gone;
	both[1] = ids[0];
	both[2] = gone;
	assert_int_equal(store_delete_runs(f->s, both, 3), 0);
	assert_int_equal(rows_of_run(f->db, gone), 0);
	assert_int_equal(rows_of_run(f->db, ids[0]), 0);
	assert_int_equal(store_get_run(f->s, gone, &got), -ENOENT);
	/* the others are untouched, with everything they own */
	assert_int_equal(store_get_run(f->s, keep, &got), 0);
	assert_int_equal(got.stats.n, 3);
	run_record_release(&got);
	assert_int_equal(store_get_run(f->s, ids[1], &got), 0);
	assert_int_equal(got.stats.n, 1);
	assert_string_equal(strmap_get(&got.params, "nr_task"), "1");
	run_record_release(&got);
	assert_int_equal(store_import_runs(f->s, HASH_A, &found, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(found[0], ids[1]);
	free(found);
	/* stat names stay (other runs share them); ids are not handed out again */
	assert_query(f->db, "SELECT count(*) FROM stat_name WHERE name = 'wis.ops'", "1");
	assert_true(put_simple(f->s, "box1", "wis-job", "c0ffee00", RUN_COMPLETE,
			       1700000300, 1, 0) > keep);
	/* deleting through a reader is refused */
	{
		struct store *reader = open_ok(f->db, STORE_READ);

		assert_int_equal(store_delete_runs(reader, &keep, 1), -EBADF);
		store_close(reader);
	}
}

static void default_location(void **state)
{
	char *saved[3], *loc;
	static const char *const vars[3] = { "PERFBOT_DB", "XDG_DATA_HOME", "HOME" };

	(void)state;
	for (int i = 0; i < 3; i++)
		saved[i] = getenv(vars[i]) ? strdup(getenv(vars[i])) : NULL;

	setenv("PERFBOT_DB", "/x/y.db", 1);
	setenv("XDG_DATA_HOME", "/data", 1);
	setenv("HOME", "/home/u", 1);
	loc = store_default_location();
	assert_string_equal(loc, "/x/y.db");
	free(loc);
	unsetenv("PERFBOT_DB");
	loc = store_default_location();
	assert_string_equal(loc, "/data/perfbot/results.db");
	free(loc);
	setenv("XDG_DATA_HOME", "relative", 1);	/* invalid per XDG: ignored */
	loc = store_default_location();
	assert_string_equal(loc, "/home/u/.local/share/perfbot/results.db");
	free(loc);
	unsetenv("XDG_DATA_HOME");
	setenv("PERFBOT_DB", "", 1);
	loc = store_default_location();
	assert_string_equal(loc, "/home/u/.local/share/perfbot/results.db");
	free(loc);

	for (int i = 0; i < 3; i++) {
		if (saved[i])
			setenv(vars[i], saved[i], 1);
		else
			unsetenv(vars[i]);
		free(saved[i]);
	}
}


/*
 * Damaged or crafted stores (docs/store.md, "Untrusted store files"): a
 * group of 3 complete runs of 5 stats, then the file edited as an
 * attacker would, and every read must say -EBADMSG "the database is
 * damaged", never write past a buffer (this runs under ASan).
 */
static void damaged_store(struct fixture *f, const char *edit)
{
	TEST_STORE_ONLY_SQLITE("a damaged SQLite file");
	f->s = open_ok(f->db, STORE_WRITE);
	for (int i = 1; i <= 3; i++)
		put_simple(f->s, "box", "job", "c0ffee", RUN_COMPLETE, i, 5, 100);
	assert_int_equal(store_bisect_add(f->s, "running", "{}", NULL), 0);
	store_close(f->s);
	f->s = NULL;
	sql(f->db, edit);
	f->s = open_ok(f->db, STORE_READ);
}

static void expect_damaged(struct store *s, int err, const char *what)
{
	const char *msg = store_error(s);

	assert_int_equal(err, -EBADMSG);
	if (!strstr(msg, "the database is damaged: ") || !strstr(msg, what))
		fail_msg("message '%s' lacks 'the database is damaged: ... %s'", msg, what);
}

static void expect_samples_damaged(struct store *s, const char *what)
{
	struct store_samples sm;

	expect_damaged(s, store_load_samples(s, "box", "job", "c0ffee", &sm), what);
	assert_int_equal(sm.nr, 0);
	assert_null(sm.names);
}

static void expect_run_damaged(struct store *s, int64_t id, const char *what)
{
	struct run_record r;

	expect_damaged(s, store_get_run(s, id, &r), what);
	assert_null(r.testbox);
	assert_int_equal(r.stats.n, 0);
}

/* stat_value again, without its primary key, so a row can be planted twice */
#define UNKEYED_VALUES \
	"PRAGMA foreign_keys = OFF;" \
	"CREATE TABLE v2 (run_id INTEGER, name_id INTEGER, value REAL);" \
	"INSERT INTO v2 SELECT * FROM stat_value; DROP TABLE stat_value;" \
	"ALTER TABLE v2 RENAME TO stat_value;"

static void damaged_duplicate_value(void **state)
{
	struct fixture *f = fresh(state);

	damaged_store(f, UNKEYED_VALUES
		      "INSERT INTO stat_value SELECT * FROM stat_value"
		      " WHERE run_id = 2 AND name_id = 3;");
	expect_samples_damaged(f->s, "run 2 holds stat 3 twice");
	expect_run_damaged(f->s, 2, "run 2 holds a stat twice");
	/* the runs without the duplicate read as before */
	{
		struct run_record r;

		assert_int_equal(store_get_run(f->s, 1, &r), 0);
		assert_int_equal(r.stats.n, 5);
		run_record_release(&r);
	}
}

/*
 * A stat the first run lacks, twice in the last: counts stay within
 * nr_runs, so only the per-run check sees it (a silent extra sample).
 */
static void damaged_duplicate_after_gap(void **state)
{
	struct fixture *f = fresh(state);

	damaged_store(f, UNKEYED_VALUES
		      "DELETE FROM stat_value WHERE run_id = 1 AND name_id = 2;"
		      "INSERT INTO stat_value SELECT * FROM stat_value"
		      " WHERE run_id = 3 AND name_id = 2;");
	expect_samples_damaged(f->s, "run 3 holds stat 2 twice");
}

static void damaged_missing_name(void **state)
{
	struct fixture *f = fresh(state);

	damaged_store(f, "PRAGMA foreign_keys = OFF;"
		      "UPDATE stat_value SET name_id = 999 WHERE run_id = 2 AND name_id = 1;");
	expect_samples_damaged(f->s, "stat 999 has values but no name");
	expect_run_damaged(f->s, 2, "run 2 holds a value of stat 999, which has no name");
}

static void damaged_bad_ids(void **state)
{
	struct fixture *f = fresh(state);

	damaged_store(f, "PRAGMA foreign_keys = OFF;"
		      "UPDATE stat_value SET name_id = -5 WHERE run_id = 1 AND name_id = 1;");
	expect_samples_damaged(f->s, "holds the id -5 in name_id");
	expect_run_damaged(f->s, 1, "holds the id -5 in name_id");
	store_close(f->s);
	f->s = NULL;
	/* huge: a name id far off the others, with no name (the lookup path) */
	sql(f->db, "PRAGMA foreign_keys = OFF;"
		   "UPDATE stat_value SET name_id = 9223372036854775807"
		   " WHERE name_id = -5;");
	f->s = open_ok(f->db, STORE_READ);
	expect_samples_damaged(f->s, "stat 9223372036854775807 has values but no name");
	store_close(f->s);
	f->s = NULL;
	/* a text where an id belongs */
	sql(f->db, "PRAGMA foreign_keys = OFF;"
		   "UPDATE stat_value SET name_id = 'x'"
		   " WHERE name_id = 9223372036854775807;");
	f->s = open_ok(f->db, STORE_READ);
	expect_samples_damaged(f->s, "holds a text in name_id, not an id");
	expect_run_damaged(f->s, 1, "holds a text in name_id, not an id");
}

static void damaged_text_columns(void **state)
{
	struct fixture *f = fresh(state);
	struct store_group *g;
	struct store_bisect b;
	char *full;
	size_t n;

	/* NOT NULL dropped from the schema text, as a crafted file would have it */
	damaged_store(f, "PRAGMA writable_schema = ON;"
		      "UPDATE sqlite_master SET sql = replace(sql, 'testcase TEXT NOT NULL',"
		      " 'testcase TEXT') WHERE name = 'runs';");
	store_close(f->s);
	f->s = NULL;
	sql(f->db, "UPDATE runs SET testcase = NULL WHERE id = 1;"
		   "UPDATE runs SET testbox = X'00ff' WHERE id = 2;"
		   "UPDATE stat_name SET name = X'41' WHERE id = 1;"
		   "UPDATE bisect SET spec = X'7b7d' WHERE id = 1;");
	f->s = open_ok(f->db, STORE_READ);
	expect_run_damaged(f->s, 1, "run 1 holds NULL in testcase, not a text");
	expect_run_damaged(f->s, 2, "run 2 holds a blob in testbox, not a text");
	expect_run_damaged(f->s, 3, "holds a blob in name, not a text");
	expect_damaged(f->s, store_list_groups(f->s, NULL, &g, &n), "holds a blob in testbox");
	assert_null(g);
	expect_damaged(f->s, store_bisect_get(f->s, 1, &b),
		       "bisection 1 holds a blob in spec, not a text");
	assert_null(b.status);
	/* a commit lookup reads the commit column only: it is fine */
	assert_int_equal(store_resolve_commit(f->s, "c0ff", &full), 0);
	free(full);
}

static void damaged_status(void **state)
{
	struct fixture *f = fresh(state);
	struct store_group *g;
	size_t n;

	damaged_store(f, "PRAGMA ignore_check_constraints = ON;"
		      "UPDATE runs SET status = 'weird' WHERE id = 2;");
	expect_run_damaged(f->s, 2, "run 2 has an unknown status 'weird'");
	expect_damaged(f->s, store_list_groups(f->s, NULL, &g, &n), "has an unknown status");
}

/*
 * The pages (numbered from 1) of the schema's b-tree below max, marked in
 * is[]: by SQLite's dbstat table where it has one, else page 1 alone.
 */
static void schema_pages(const char *path, bool *is, int max)
{
	sqlite3_stmt *st;
	sqlite3 *db;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, "SELECT pageno FROM dbstat WHERE name IN"
			       " ('sqlite_schema', 'sqlite_master')", -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			int p = sqlite3_column_int(st, 0);

			if (p > 0 && p < max)
				is[p] = true;
		}
		sqlite3_finalize(st);
	}
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* Corrupt b-tree pages: SQLite's SQLITE_CORRUPT is the same -EBADMSG. */
static void damaged_pages(void **state)
{
	struct fixture *f = fresh(state);
	struct store_samples sm;
	char garbage[4096], msg[1024];
	int fd, err;

	TEST_STORE_ONLY_SQLITE("a damaged SQLite file");
	bool schema[65] = { [1] = true };	/* by page number, 1 to 64 */

	damaged_store(f, "PRAGMA journal_mode = DELETE;");
	store_close(f->s);
	f->s = NULL;
	schema_pages(f->db, schema, 65);
	memset(garbage, 0x5a, sizeof(garbage));
	fd = open(f->db, O_WRONLY);
	assert_true(fd >= 0);
	/* every page but the schema's (the first, and more as it grows): the tables' b-trees */
	for (off_t at = 4096; at < 64 * 4096; at += 4096) {
		if (schema[at / 4096 + 1])
			continue;
		if (pwrite(fd, garbage, sizeof(garbage), at) != sizeof(garbage))
			break;
	}
	close(fd);
	/* the meta table is among them: open says so, or the first read */
	err = open_into(f->db, STORE_READ, &f->s, msg, sizeof(msg));
	if (err) {
		assert_int_equal(err, -EBADMSG);
		assert_non_null(strstr(msg, ": the database is damaged: "));
		return;
	}
	err = store_load_samples(f->s, "box", "job", "c0ffee", &sm);
	expect_damaged(f->s, err, "");
}

/*
 * Damaged declarations: 3 complete runs of 5 stats (ids 1..5), each
 * declaring s.0000 (id 1) and s.0001 (id 2), then the file edited.
 */
static void damaged_meta_store(struct fixture *f, const char *edit)
{
	TEST_STORE_ONLY_SQLITE("a damaged SQLite file");
	f->s = open_ok(f->db, STORE_WRITE);
	for (int i = 1; i <= 3; i++) {
		struct run_record r;

		make_run(&r, "box", "job", "c0ffee", RUN_COMPLETE, i);
		for (size_t k = 0; k < 5; k++)
			assert_int_equal(statmap_addf(&r.stats, 100.0 + k, "s.%04zu", k), 0);
		declare(&r, "s.0000", "ops/s", STAT_BETTER_HIGHER, true);
		declare(&r, "s.0001", "s", STAT_BETTER_LOWER, false);
		put(f->s, &r);
	}
	store_close(f->s);
	f->s = NULL;
	sql(f->db, edit);
	f->s = open_ok(f->db, STORE_READ);
}

/* A damaged declaration of run 2: its reads and the group's say so. */
static void expect_meta_damaged(struct fixture *f, const char *what_run,
				const char *what_samples)
{
	struct run_record r;

	expect_run_damaged(f->s, 2, what_run);
	expect_samples_damaged(f->s, what_samples);
	/* the other runs read as before */
	assert_int_equal(store_get_run(f->s, 1, &r), 0);
	assert_int_equal(r.meta.n, 2);
	run_record_release(&r);
	store_close(f->s);
	f->s = NULL;
}

static void damaged_meta_values(void **state)
{
	struct fixture *f = fresh(state);
	static const struct {
		const char *set, *what;
	} cases[] = {
		{ "better = 5", "run 2 holds 5 in better, not -1, 0 or 1" },
		{ "better = 0.5", "run 2 holds a real in better, not -1, 0 or 1" },
		{ "better = NULL", "run 2 holds NULL in better, not -1, 0 or 1" },
		{ "kpi = 2", "run 2 holds 2 in kpi, not 0 or 1" },
		{ "kpi = -1", "run 2 holds -1 in kpi, not 0 or 1" },
		{ "kpi = 'yes'", "run 2 holds a text in kpi, not 0 or 1" },
		{ "unit = X'00ff'", "run 2 holds a blob in unit, not a text" },
		{ "unit = 7", "run 2 holds a text in unit" },	/* TEXT affinity: '7' */
		{ "unit = CAST(X'610062' AS TEXT)", "run 2 holds a NUL byte in unit" },
		{ "unit = NULL", "run 2 holds NULL in unit, not a text" },
	};

	/* NOT NULL and the CHECKs dropped, as a crafted file would have them */
	damaged_meta_store(f, "PRAGMA writable_schema = ON;"
			   "UPDATE sqlite_master SET sql = replace(replace(sql,"
			   " 'unit TEXT NOT NULL', 'unit TEXT'),"
			   " 'better INTEGER NOT NULL', 'better INTEGER')"
			   " WHERE name = 'run_stat_meta';");
	store_close(f->s);
	f->s = NULL;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *edit;

		assert_true(asprintf(&edit, "PRAGMA ignore_check_constraints = ON;"
				     "UPDATE run_stat_meta SET %s"
				     " WHERE run_id = 2 AND name_id = 2;", cases[i].set) > 0);
		sql(f->db, edit);
		free(edit);
		f->s = open_ok(f->db, STORE_READ);
		if (!strcmp(cases[i].set, "unit = 7")) {
			/* a number given to a TEXT column is stored as text: no damage */
			struct run_record r;

			assert_int_equal(store_get_run(f->s, 2, &r), 0);
			assert_string_equal(r.meta.v[1].unit, "7");
			run_record_release(&r);
			store_close(f->s);
			f->s = NULL;
		} else {
			expect_meta_damaged(f, cases[i].what, cases[i].what);
		}
		sql(f->db, "PRAGMA ignore_check_constraints = ON;"
			   "UPDATE run_stat_meta SET unit = 's', better = -1, kpi = 0"
			   " WHERE run_id = 2 AND name_id = 2;");
	}
}

static void damaged_meta_references(void **state)
{
	struct fixture *f = fresh(state);
	struct store_samples sm;
	struct run_record r;

	/* a name id without a name */
	damaged_meta_store(f, "PRAGMA foreign_keys = OFF;"
			   "UPDATE run_stat_meta SET name_id = 999"
			   " WHERE run_id = 2 AND name_id = 2;");
	expect_meta_damaged(f, "run 2 declares stat 999, which has no name",
			    "run 2 declares stat 999, which has no name");
	/* an id that is no id */
	sql(f->db, "PRAGMA foreign_keys = OFF;"
		   "UPDATE run_stat_meta SET name_id = -5 WHERE name_id = 999;");
	f->s = open_ok(f->db, STORE_READ);
	expect_meta_damaged(f, "run 2 holds the id -5 in name_id",
			    "run 2 holds the id -5 in name_id");
	sql(f->db, "PRAGMA foreign_keys = OFF;"
		   "UPDATE run_stat_meta SET name_id = 'x' WHERE name_id = -5;");
	f->s = open_ok(f->db, STORE_READ);
	expect_meta_damaged(f, "run 2 holds a text in name_id, not an id",
			    "run 2 holds a text in name_id, not an id");

	/*
	 * A declaration of a run that does not exist is read by nothing
	 * (every read goes through its run): it cannot change a result.
	 */
	sql(f->db, "PRAGMA foreign_keys = OFF; PRAGMA ignore_check_constraints = ON;"
		   "UPDATE run_stat_meta SET name_id = 2 WHERE name_id = 'x';"
		   "INSERT INTO run_stat_meta VALUES (99, 1, 'x', 5, 7);");
	f->s = open_ok(f->db, STORE_READ);
	assert_int_equal(store_get_run(f->s, 99, &r), -ENOENT);
	assert_int_equal(store_get_run(f->s, 2, &r), 0);
	assert_int_equal(r.meta.n, 2);
	run_record_release(&r);
	assert_int_equal(store_load_samples(f->s, "box", "job", "c0ffee", &sm), 0);
	assert_int_equal(sm.meta.n, 2);
	assert_meta(&sm.meta, 0, "s.0000", "ops/s", STAT_BETTER_HIGHER, true);
	store_samples_release(&sm);
}

static void damaged_meta_duplicate(void **state)
{
	struct fixture *f = fresh(state);

	/* run_stat_meta again, without its primary key, so a row can be planted twice */
	damaged_meta_store(f, "PRAGMA foreign_keys = OFF;"
			   "CREATE TABLE m2 (run_id INTEGER, name_id INTEGER,"
			   " unit TEXT, better INTEGER, kpi INTEGER);"
			   "INSERT INTO m2 SELECT * FROM run_stat_meta;"
			   "DROP TABLE run_stat_meta;"
			   "ALTER TABLE m2 RENAME TO run_stat_meta;"
			   "INSERT INTO run_stat_meta SELECT * FROM run_stat_meta"
			   " WHERE run_id = 2 AND name_id = 1;");
	expect_meta_damaged(f, "run 2 declares the stat 's.0000' twice",
			    "run 2 declares stat 1 twice");
}

/* A schema 3 file without the table: its schema is not perfbot's. */
static void damaged_meta_table(void **state)
{
	struct fixture *f = fresh(state);

	damaged_meta_store(f, "DROP TABLE run_stat_meta;");
	expect_run_damaged(f->s, 1, "its schema is not perfbot's: no such table: run_stat_meta");
	expect_samples_damaged(f->s, "its schema is not perfbot's: no such table: run_stat_meta");
}

static void not_regular_refused(void **state)
{
	struct fixture *f = fresh(state);
	struct store *s = NULL;
	char err[1024], *fifo;
	int had_journal = !access("/dev/null-journal", F_OK);

	TEST_STORE_ONLY_SQLITE("SQLite files");
	for (int m = 0; m < 2; m++) {
		enum store_mode mode = m ? STORE_READ : STORE_WRITE;

		assert_int_equal(open_into("/dev/null", mode, &s, err, sizeof(err)), -EINVAL);
		assert_null(s);
		assert_non_null(strstr(err, "/dev/null is not a regular file"));
	}
	/* only when there was none: a test checks what it made */
	if (!had_journal)
		assert_int_not_equal(access("/dev/null-journal", F_OK), 0);
	assert_true(asprintf(&fifo, "%s/fifo", f->dir) > 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(open_into(fifo, STORE_READ, &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is not a regular file"));
	free(fifo);
}

/* ---- concurrency, and what a server holds (PostgreSQL) ---- */

#define CONC_RUNS 4
#define CONC_STATS 2000
#define CONC_LINES 40

/*
 * One writer of concurrent_writers: runs whose stat names the other adds
 * at the same time, and log lines appended to one bisection (*arg).
 */
static int write_along(struct store *s, void *arg)
{
	int64_t bisection = *(const int64_t *)arg;
	int ret = 0;

	for (int run = 0; !ret && run < CONC_RUNS; run++) {
		struct run_record r = { 0 };

		r.testbox = strdup("box");
		r.testcase = strdup("tc");
		r.job = strdup("job");
		r.commit = strdup("c0ffee");
		r.status = RUN_COMPLETE;
		r.started = run;
		for (int i = 0; i < CONC_STATS; i++)
			statmap_addf(&r.stats, i, "c.%04d.%d", i, run);
		ret = store_put_run(s, &r, NULL);
		run_record_release(&r);
		for (int i = 0; !ret && i < CONC_LINES / CONC_RUNS; i++)
			ret = store_bisect_log_add(s, bisection, "line");
	}
	return ret;
}

static void concurrent_writers(void **state)
{
	struct fixture *f = fresh(state);
	struct store_bisect_line *lines;
	struct at_once w[2];
	struct store_group *g;
	int64_t bisection;
	char want[32];
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	bisection = bisect_add_ok(f->s, "running", "{}");
	two_at_once(f->db, true, write_along, &bisection, w);
	for (int i = 0; i < 2; i++)
		if (w[i].ret)
			fail_msg("writer %d: %d %s", i, w[i].ret, w[i].err);
	/* every name once, every run whole, every line its own seq */
	snprintf(want, sizeof(want), "%d", CONC_RUNS * CONC_STATS);
	assert_query(f->db, "SELECT count(*) FROM stat_name", want);
	snprintf(want, sizeof(want), "%d", 2 * CONC_RUNS * CONC_STATS);
	assert_query(f->db, "SELECT count(*) FROM stat_value", want);
	assert_int_equal(store_list_groups(f->s, NULL, &g, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(g[0].runs_complete, 2 * CONC_RUNS);
	store_groups_release(g, n);
	assert_int_equal(store_bisect_log(f->s, bisection, &lines, &n), 0);
	assert_int_equal(n, 2 * CONC_LINES);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(lines[i].seq, i + 1);
	store_bisect_lines_release(lines, n);
}

/* NaN is stored as NULL (no sample), infinities as themselves. */
static void nan_inf_round_trip(void **state)
{
	struct fixture *f = fresh(state);
	struct store_samples sm;
	struct run_record r, got;
	int64_t id;

	f->s = open_ok(f->db, STORE_WRITE);
	make_run(&r, "box", "job", "c", RUN_COMPLETE, 1);
	assert_int_equal(statmap_add(&r.stats, "a.nan", NAN), 0);
	assert_int_equal(statmap_add(&r.stats, "b.inf", INFINITY), 0);
	assert_int_equal(statmap_add(&r.stats, "c.minf", -INFINITY), 0);
	assert_int_equal(statmap_add(&r.stats, "d.max", 1.7976931348623157e308), 0);
	assert_int_equal(statmap_add(&r.stats, "e.denormal", 4.9e-324), 0);
	assert_int_equal(statmap_add(&r.stats, "f.third", 1.0 / 3), 0);
	id = put(f->s, &r);
	assert_query(f->db, "SELECT count(*) FROM stat_value WHERE value IS NULL", "1");
	assert_int_equal(store_get_run(f->s, id, &got), 0);
	assert_int_equal(got.stats.n, 6);
	assert_true(isnan(*statmap_get(&got.stats, "a.nan")));
	assert_true(*statmap_get(&got.stats, "b.inf") == INFINITY);
	assert_true(*statmap_get(&got.stats, "c.minf") == -INFINITY);
	assert_true(*statmap_get(&got.stats, "d.max") == 1.7976931348623157e308);
	assert_true(*statmap_get(&got.stats, "e.denormal") == 4.9e-324);
	assert_true(*statmap_get(&got.stats, "f.third") == 1.0 / 3);
	run_record_release(&got);
	assert_int_equal(store_load_samples(f->s, "box", "job", "c", &sm), 0);
	assert_int_equal(sm.nr, 5);	/* NaN: no sample */
	assert_string_equal(sm.names[0], "b.inf");
	assert_true(sm.values[0][0] == INFINITY);
	assert_true(sm.values[1][0] == -INFINITY);
	assert_true(sm.values[4][0] == 1.0 / 3);
	store_samples_release(&sm);
}

/* A run of 10,000 stats (and its declarations) there and back, twice. */
static void ten_thousand_stats(void **state)
{
	struct fixture *f = fresh(state);
	struct store_samples sm;
	struct run_record r, got;
	int64_t id = 0;

	f->s = open_ok(f->db, STORE_WRITE);
	for (int run = 0; run < 2; run++) {
		make_run(&r, "box", "job", "c", RUN_COMPLETE, run);
		for (int i = 0; i < 10000; i++)
			assert_int_equal(statmap_addf(&r.stats, i * 0.5 + run,
						      "big.%05d \"q\\\\'", i), 0);
		declare(&r, "big.00007 \"q\\\\'", "ops/s", STAT_BETTER_HIGHER, true);
		id = put(f->s, &r);
	}
	assert_int_equal(store_get_run(f->s, id, &got), 0);
	assert_int_equal(got.stats.n, 10000);
	assert_true(*statmap_get(&got.stats, "big.09999 \"q\\\\'") == 9999 * 0.5 + 1);
	assert_int_equal(got.meta.n, 1);
	assert_string_equal(got.meta.v[0].unit, "ops/s");
	run_record_release(&got);
	assert_int_equal(store_load_samples(f->s, "box", "job", "c", &sm), 0);
	assert_int_equal(sm.nr_runs, 2);
	assert_int_equal(sm.nr, 10000);
	assert_string_equal(sm.names[9999], "big.09999 \"q\\\\'");
	assert_int_equal(sm.counts[9999], 2);
	assert_true(sm.values[9999][0] == 9999 * 0.5 && sm.values[9999][1] == 9999 * 0.5 + 1);
	assert_int_equal(sm.meta.n, 1);
	store_samples_release(&sm);
}

/* Neither password in any message: the location is shown masked. */
static void pg_unreachable(void **state)
{
	static const char *url =
		"postgresql://perfbot:secret@127.0.0.1:1/perfbot?password=secret2&connect_timeout=3";
	struct store *s = NULL;
	char err[1024];

	(void)state;
	TEST_STORE_ONLY_PG("a PostgreSQL server");
	for (int m = 0; m < 2; m++) {
		assert_int_equal(open_into(url, m ? STORE_READ : STORE_WRITE, &s, err,
					   sizeof(err)), -ENOTCONN);
		assert_null(s);
		if (!strstr(err, "postgresql://perfbot:***@127.0.0.1:1/perfbot?password=***"))
			fail_msg("'%s' does not name the location masked", err);
		if (strstr(err, "secret"))
			fail_msg("'%s' shows a password", err);
	}
}

/* A database of someone else's: refused, and left as it was. */
static void pg_foreign_refused(void **state)
{
	struct fixture *f = fresh(state);
	struct store *s = NULL;
	char err[1024], *v;

	TEST_STORE_ONLY_PG("a PostgreSQL database's tables");
	test_store_pg_sql("CREATE TABLE t (a int); INSERT INTO t VALUES (1)");
	for (int m = 0; m < 2; m++) {
		assert_int_equal(open_into(f->db, m ? STORE_READ : STORE_WRITE, &s, err,
					   sizeof(err)), -EPROTO);
		assert_null(s);
		assert_non_null(strstr(err, "is not a perfbot database (it holds other tables)"));
		assert_non_null(strstr(err, f->db));
	}
	v = pg_value("SELECT string_agg(tablename, ',') FROM pg_tables"
		     " WHERE schemaname = current_schema()");
	assert_string_equal(v, "t");
	free(v);
}

static void pg_newer_schema_refused(void **state)
{
	struct fixture *f = fresh(state);
	struct store *s = NULL;
	char err[1024];

	TEST_STORE_ONLY_PG("a PostgreSQL database's meta table");
	f->s = open_ok(f->db, STORE_WRITE);
	put_simple(f->s, "box", "job", "c", RUN_COMPLETE, 1, 5, 0);
	store_close(f->s);
	f->s = NULL;
	test_store_pg_sql("UPDATE meta SET value = '99' WHERE key = 'schema_version'");
	for (int m = 0; m < 2; m++) {
		assert_int_equal(open_into(f->db, m ? STORE_READ : STORE_WRITE, &s, err,
					   sizeof(err)), -EPROTO);
		assert_non_null(strstr(err, "has schema version 99, newer than this perfbot's"));
	}
	assert_query(f->db, "SELECT value FROM meta WHERE key = 'schema_version'", "99");
}

static void pg_empty_reader(void **state)
{
	struct fixture *f = fresh(state);
	struct store *s = NULL;
	char err[1024];

	TEST_STORE_ONLY_PG("an empty PostgreSQL database");
	assert_int_equal(open_into(f->db, STORE_READ, &s, err, sizeof(err)), -ENOENT);
	assert_null(s);
	assert_non_null(strstr(err, "no results yet at"));
	assert_non_null(strstr(err, f->db));
	/* and the reader made nothing */
	assert_query(f->db, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()",
		     "0");
}

static int add_bisection(struct store *s, void *arg)
{
	(void)arg;
	return store_bisect_add(s, "running", "{}", NULL);
}

/* Two writers creating one database at once: both open it, one schema. */
static void pg_two_writers_fresh(void **state)
{
	struct fixture *f = fresh(state);
	char want[32];

	TEST_STORE_ONLY_PG("a PostgreSQL server's concurrent sessions");
	for (int round = 0; round < 3; round++) {
		struct at_once o[2];

		if (round)
			test_store_pg_sql("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
		two_at_once(f->db, false, add_bisection, NULL, o);
		for (int i = 0; i < 2; i++)
			if (o[i].ret)
				fail_msg("round %d, writer %d: %d %s", round, i, o[i].ret, o[i].err);
		/* PostgreSQL's version: it has the fleet's queue beyond SQLite's 6 */
		snprintf(want, sizeof(want), "1 %d", pg_schema_version);
		assert_query(f->db, "SELECT count(*) || ' ' || max(value) FROM meta"
			     " WHERE key = 'schema_version'", want);
		assert_query(f->db, "SELECT count(*) FROM bisect", "2");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(incomplete_record_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(groups_and_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(samples_from_complete_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(class_selector, setup, teardown),
		cmocka_unit_test_setup_teardown(samples_many_and_sparse, setup, teardown),
		cmocka_unit_test_setup_teardown(resolve_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(foreign_files_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(newer_schema_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(empty_file_initialised, setup, teardown),
		cmocka_unit_test_setup_teardown(locked_database, setup, teardown),
		cmocka_unit_test_setup_teardown(failed_write_leaves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_locations, setup, teardown),
		cmocka_unit_test_setup_teardown(long_path_messages_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(bisect_add_get_list, setup, teardown),
		cmocka_unit_test_setup_teardown(bisect_update_keeps_result, setup, teardown),
		cmocka_unit_test_setup_teardown(bisect_unknown_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(bisect_log_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(bisect_marks_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(bisect_reader_cannot_write, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_v1_migrated, setup, teardown),
		cmocka_unit_test_setup_teardown(meta_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(meta_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(unsupported_status, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_v2_migrated, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_duplicate_value, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_duplicate_after_gap, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_missing_name, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_bad_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_text_columns, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_status, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_meta_values, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_meta_references, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_meta_duplicate, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_meta_table, setup, teardown),
		cmocka_unit_test_setup_teardown(not_regular_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(import_hash_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(delete_runs_whole, setup, teardown),
		cmocka_unit_test(default_location),
		cmocka_unit_test_setup_teardown(concurrent_writers, setup, teardown),
		cmocka_unit_test_setup_teardown(concurrent_imports, setup, teardown),
		cmocka_unit_test_setup_teardown(nan_inf_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(ten_thousand_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(pg_unreachable, setup, teardown),
		cmocka_unit_test_setup_teardown(pg_foreign_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(pg_newer_schema_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(pg_empty_reader, setup, teardown),
		cmocka_unit_test_setup_teardown(pg_two_writers_fresh, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
