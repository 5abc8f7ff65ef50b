/*
 * test_store_copy.c - copying a history (store/copy.h, perfbot db copy):
 * origins parsed, runs copied whole in batches with their import hash,
 * a second copy adding nothing, a copy resumed from what TO holds, a copy
 * of a copy keeping the first origin, store ids (derived while a store
 * has none, kept by a writer), one store refused, and the robot's state
 * refused unless runs_only.  FROM is SQLite; TO is the backend under test
 * (store_backend.h: unit/test_store_copy on SQLite, _pg on PostgreSQL).
 */
#include "store_backend.h"
#include "store/copy.h"
#include "util/fsutil.h"

#include <errno.h>
#include <math.h>

struct fixture {
	char *dir, *to, *from;	/* TO: the backend's fresh store; FROM: <dir>/from.db */
};

static int setup(void **state)
{
	struct fixture *f;

	/* a skip in setup runs no teardown: skip before making anything */
	test_store_need_pg_cluster();
	f = calloc(1, sizeof(*f));
	if (!f || make_temp_dir(NULL, "perfbot-unit-copy", &f->dir) ||
	    asprintf(&f->from, "%s/from.db", f->dir) < 0)
		return -1;
	*state = f;
	return 0;
}

static struct fixture *fresh(void **state)
{
	struct fixture *f = *state;

	f->to = test_store_fresh(f->dir);
	return f;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	remove_tree(f->dir);
	free(f->dir);
	free(f->to);
	free(f->from);
	free(f);
	return 0;
}

static struct store *open_ok(const char *loc, enum store_mode mode)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;

	if (store_open(loc, mode, &s, &err))
		fail_msg("store_open %s: %s", loc, err.buf);
	strbuf_release(&err);
	return s;
}

/* Run i: its job and commit from i, a NaN stat, a failed one now and then. */
static void make_run(struct run_record *r, int i)
{
	char job[32];

	memset(r, 0, sizeof(*r));
	snprintf(job, sizeof(job), "job-%d", i % 2);
	assert_int_equal(record_set_str(&r->testbox, "box"), 0);
	assert_int_equal(record_set_str(&r->testcase, "tc"), 0);
	assert_int_equal(record_set_str(&r->job, job), 0);
	assert_int_equal(record_set_str(&r->commit, i < 4 ? "aaaa1111" : "bbbb2222"), 0);
	assert_int_equal(record_set_str(&r->job_text, "testcase: tc\n"), 0);
	r->status = i == 3 ? RUN_FAILED : RUN_COMPLETE;
	r->started = 1700000000.25 + i;
	r->duration_s = 1.5;
	assert_int_equal(strmap_set(&r->params, "nr_task", "1"), 0);
	assert_int_equal(strmap_set(&r->env, "kernel", "6.1"), 0);
	assert_int_equal(statmap_add(&r->stats, "tc.ops", 1000.0 + i), 0);
	assert_int_equal(statmap_add(&r->stats, "tc.nan", NAN), 0);
	assert_int_equal(stat_meta_set(&r->meta, "tc.ops", "ops/s", 1, true), 0);
}

#define HASH "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* FROM: 6 runs by put_run and 2 imported (with HASH): 8. */
static void make_from(const char *loc)
{
	struct store *s = open_ok(loc, STORE_WRITE);
	struct run_record r[2];

	for (int i = 0; i < 6; i++) {
		make_run(&r[0], i);
		assert_int_equal(store_put_run(s, &r[0], NULL), 0);
		run_record_release(&r[0]);
	}
	make_run(&r[0], 6);
	make_run(&r[1], 7);
	assert_int_equal(store_put_import(s, r, 2, HASH, true, NULL), 0);
	run_record_release(&r[0]);
	run_record_release(&r[1]);
	store_close(s);
}

struct seen {
	size_t calls, last;
};

static void progress(void *ctx, size_t copied, size_t to_copy)
{
	struct seen *p = ctx;

	p->calls++;
	p->last = copied;
	(void)to_copy;
}

static int copy(const char *from_loc, const char *to_loc, size_t batch, bool runs_only,
		struct store_copy_counts *c, struct seen *seen, char *msg, size_t len)
{
	struct store *from = open_ok(from_loc, STORE_READ), *to = open_ok(to_loc, STORE_WRITE);
	struct store_copy_opts o = { .batch_runs = batch, .runs_only = runs_only,
				     .progress = progress, .ctx = seen };
	struct strbuf err = STRBUF_INIT;
	int ret = store_copy(from, to, &o, c, &err);

	if (msg)
		snprintf(msg, len, "%s", err.buf);
	strbuf_release(&err);
	store_close(from);
	store_close(to);
	return ret;
}

static void origins_parsed(void **state)
{
	char id[STORE_ID_LEN + 1];
	int64_t run = 0;

	(void)state;
	assert_true(store_origin_parse("0123456789abcdef0123456789abcdef:42", id, &run));
	assert_string_equal(id, "0123456789abcdef0123456789abcdef");
	assert_int_equal(run, 42);
	assert_true(store_origin_parse("0123456789abcdef0123456789abcdef:9223372036854775807",
				       NULL, &run));
	assert_true(run == INT64_MAX);
	static const char *const bad[] = {
		"", ":1", "0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef:",
		"0123456789abcdef0123456789abcdef:0", "0123456789abcdef0123456789abcdef:01",
		"0123456789abcdef0123456789abcdef:-1", "0123456789abcdef0123456789abcdef:1x",
		"0123456789ABCDEF0123456789abcdef:1", "0123456789abcdef0123456789abcde:1",
		"0123456789abcdef0123456789abcdef0:1",
		"0123456789abcdef0123456789abcdef:9223372036854775808",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (store_origin_parse(bad[i], NULL, NULL))
			fail_msg("'%s' parsed as an origin", bad[i]);
}

/* TO's run with origin `origin`, or 0; fails if TO holds it twice. */
static int64_t find_origin(struct store *to, const char *origin)
{
	struct store_run_ref *refs;
	size_t nr;
	int64_t found = 0;

	assert_int_equal(store_run_refs(to, &refs, &nr), 0);
	for (size_t i = 0; i < nr; i++)
		if (refs[i].origin && !strcmp(refs[i].origin, origin)) {
			if (found)
				fail_msg("origin %s is in TO twice", origin);
			found = refs[i].id;
		}
	store_run_refs_release(refs, nr);
	return found;
}

static void copied_whole_in_batches(void **state)
{
	struct fixture *f = fresh(state);
	struct store_copy_counts c;
	struct seen seen = { 0 };
	struct store *from, *to;
	char from_id[STORE_ID_LEN + 1], again[STORE_ID_LEN + 1], origin[64], msg[512];
	int64_t *ids;
	size_t nr;

	make_from(f->from);
	assert_int_equal(copy(f->from, f->to, 3, false, &c, &seen, msg, sizeof(msg)), 0);
	assert_int_equal(c.from_runs, 8);
	assert_int_equal(c.copied, 8);
	assert_int_equal(c.present, 0);
	/* 3 + 3 + 2: one transaction each */
	assert_int_equal(seen.calls, 3);
	assert_int_equal(seen.last, 8);

	from = open_ok(f->from, STORE_READ);
	to = open_ok(f->to, STORE_READ);
	/* FROM is read only: its id derived, the same each time, not kept */
	assert_int_equal(store_id(from, false, from_id), 0);
	assert_int_equal(store_id(from, false, again), 0);
	assert_string_equal(from_id, again);
	test_store_assert_query(f->to, "SELECT count(*) FROM meta WHERE key = 'store_id'", "1");
	for (int64_t id = 1; id <= 8; id++) {
		struct run_record a, b;
		int64_t tid;

		snprintf(origin, sizeof(origin), "%s:%lld", from_id, (long long)id);
		tid = find_origin(to, origin);
		assert_true(tid > 0);
		assert_int_equal(store_get_run(from, id, &a), 0);
		assert_int_equal(store_get_run(to, tid, &b), 0);
		assert_string_equal(strmap_get(&b.env, STORE_ORIGIN_KEY), origin);
		assert_string_equal(a.job, b.job);
		assert_string_equal(a.commit, b.commit);
		assert_string_equal(a.job_text, b.job_text);
		assert_int_equal(a.status, b.status);
		assert_true(a.started == b.started && a.duration_s == b.duration_s);
		assert_int_equal(a.stats.n, b.stats.n);
		for (size_t i = 0; i < a.stats.n; i++) {
			assert_string_equal(a.stats.v[i].name, b.stats.v[i].name);
			assert_true(a.stats.v[i].value == b.stats.v[i].value ||
				    (isnan(a.stats.v[i].value) && isnan(b.stats.v[i].value)));
		}
		assert_int_equal(b.meta.n, 1);
		assert_string_equal(b.meta.v[0].unit, "ops/s");
		assert_int_equal(b.env.n, a.env.n + 1);
		run_record_release(&a);
		run_record_release(&b);
	}
	/* the import hash went with its runs */
	assert_int_equal(store_import_runs(to, HASH, &ids, &nr), 0);
	assert_int_equal(nr, 2);
	free(ids);
	store_close(from);
	store_close(to);

	/* again: nothing */
	seen = (struct seen){ 0 };
	assert_int_equal(copy(f->from, f->to, 3, false, &c, &seen, msg, sizeof(msg)), 0);
	assert_int_equal(c.copied, 0);
	assert_int_equal(c.present, 8);
	test_store_assert_query(f->to, "SELECT count(*) FROM runs", "8");
}

/* A copy cut off leaves whole batches; the next takes what TO lacks. */
static void resumed_from_what_to_holds(void **state)
{
	struct fixture *f = fresh(state);
	struct store_copy_counts c;
	struct seen seen = { 0 };
	struct store *to;
	struct run_record r;
	int64_t gone[3] = { 2, 5, 8 }, own;

	make_from(f->from);
	/* TO has a run of its own before: it stays, and is not FROM's */
	to = open_ok(f->to, STORE_WRITE);
	make_run(&r, 1);
	assert_int_equal(store_put_run(to, &r, &own), 0);
	run_record_release(&r);
	store_close(to);
	assert_int_equal(copy(f->from, f->to, 0, false, &c, &seen, NULL, 0), 0);
	assert_int_equal(c.copied, 8);
	/* as if the batches of three runs had not been committed */
	to = open_ok(f->to, STORE_WRITE);
	gone[0] = own + 2;
	gone[1] = own + 5;
	gone[2] = own + 8;
	assert_int_equal(store_delete_runs(to, gone, 3), 0);
	store_close(to);
	assert_int_equal(copy(f->from, f->to, 2, false, &c, &seen, NULL, 0), 0);
	assert_int_equal(c.copied, 3);
	assert_int_equal(c.present, 5);
	test_store_assert_query(f->to, "SELECT count(*) FROM runs", "9");
	test_store_assert_query(f->to, "SELECT count(DISTINCT value) FROM run_env"
				" WHERE key = 'store.origin'", "8");
}

/* FROM -> TO -> a third store: the first origins stay; back to FROM: nothing. */
static void copy_of_a_copy(void **state)
{
	struct fixture *f = fresh(state);
	struct store_copy_counts c;
	struct seen seen = { 0 };
	char *third = NULL, msg[512];

	make_from(f->from);
	assert_true(asprintf(&third, "%s/third.db", f->dir) > 0);
	assert_int_equal(copy(f->from, f->to, 0, false, &c, &seen, NULL, 0), 0);
	assert_int_equal(copy(f->to, third, 0, false, &c, &seen, msg, sizeof(msg)), 0);
	assert_int_equal(c.copied, 8);
	assert_int_equal(copy(third, f->from, 0, false, &c, &seen, msg, sizeof(msg)), 0);
	assert_int_equal(c.copied, 0);
	assert_int_equal(c.present, 8);
	assert_int_equal(copy(third, f->to, 0, false, &c, &seen, msg, sizeof(msg)), 0);
	assert_int_equal(c.copied, 0);
	/* one store under two names: refused */
	assert_int_equal(copy(f->to, f->to, 0, false, &c, &seen, msg, sizeof(msg)), -EXDEV);
	assert_non_null(strstr(msg, "one store"));
	free(third);
}

/* A store's id: derived while it has none, the same once a writer keeps it. */
static void store_ids(void **state)
{
	struct fixture *f = fresh(state);
	char a[STORE_ID_LEN + 1], b[STORE_ID_LEN + 1], e1[STORE_ID_LEN + 1];
	struct store *s;

	/* an empty store: a random id, kept by a writer */
	s = open_ok(f->to, STORE_WRITE);
	assert_int_equal(store_id(s, true, e1), 0);
	assert_int_equal(strlen(e1), STORE_ID_LEN);
	assert_int_equal(store_id(s, true, a), 0);
	assert_string_equal(a, e1);
	store_close(s);

	make_from(f->from);
	s = open_ok(f->from, STORE_READ);
	assert_int_equal(store_id(s, false, a), 0);
	store_close(s);
	test_store_sql(f->from, "SELECT 1");
	s = open_ok(f->from, STORE_WRITE);
	assert_int_equal(store_id(s, true, b), 0);
	store_close(s);
	assert_string_equal(a, b);
	assert_string_not_equal(a, e1);
}

static void robot_state_needs_runs_only(void **state)
{
	struct fixture *f = fresh(state);
	struct store_copy_counts c;
	struct seen seen = { 0 };
	struct store *s;
	char msg[512];

	make_from(f->from);
	s = open_ok(f->from, STORE_WRITE);
	assert_int_equal(store_bisect_add(s, "found", "{}", NULL), 0);
	assert_int_equal(store_point_add(s, "linux", "master", "aaaa1111", NULL, NULL), 0);
	store_close(s);
	assert_int_equal(copy(f->from, f->to, 0, false, &c, &seen, msg, sizeof(msg)), -ENOTSUP);
	assert_non_null(strstr(msg, "1 bisection, 1 watch point"));
	assert_non_null(strstr(msg, "--runs-only"));
	test_store_assert_query(f->to, "SELECT count(*) FROM runs", "0");
	assert_int_equal(copy(f->from, f->to, 0, true, &c, &seen, msg, sizeof(msg)), 0);
	assert_int_equal(c.copied, 8);
	assert_int_equal(c.bisections, 1);
	assert_int_equal(c.points, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(origins_parsed),
		cmocka_unit_test_setup_teardown(copied_whole_in_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(resumed_from_what_to_holds, setup, teardown),
		cmocka_unit_test_setup_teardown(copy_of_a_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(store_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(robot_state_needs_runs_only, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
