/*
 * Unit tests: the robot's state in the store (store.h's last section,
 * sqlite_watch.c and pg_watch.c): the points of a branch's history,
 * alerts found once, one report per culprit, what is refused (NULL, bad
 * names, writing read-only), a database from before the robot's tables
 * (schema 4) read without error and migrated by a writer, damaged rows,
 * and writers at once (points, the same alert and report).  Every test
 * runs on both backends (store_backend.h: unit/test_store_watch on
 * SQLite, unit/test_store_watch_pg on a throw-away PostgreSQL cluster),
 * on a fresh store, in its own temp dir under $TMPDIR removed afterwards.
 */
#define _GNU_SOURCE
#include "store_backend.h"

#include "store/internal.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SHA_A "aaaa000000000000000000000000000000000000"
#define SHA_B "bbbb000000000000000000000000000000000000"
#define SHA_C "cccc000000000000000000000000000000000000"
#define SHA_D "dddd000000000000000000000000000000000000"

struct fixture {
	char *dir;
	char *db;	/* test_store_fresh()'s: <dir>/results.db, or the test database */
	struct store *s;
};

static int setup(void **state)
{
	struct fixture *f;

	/* a skip in setup runs no teardown: skip before making anything */
	test_store_need_pg_cluster();
	f = calloc(1, sizeof(*f));
	if (!f || make_temp_dir(NULL, "perfbot-unit-watch", &f->dir))
		return -1;
	*state = f;
	f->db = test_store_fresh(f->dir);
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	store_close(f->s);
	remove_tree(f->dir);
	free(f->dir);
	free(f->db);
	free(f);
	return 0;
}

static struct store *open_ok(const char *path, enum store_mode mode)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;
	int ret = store_open(path, mode, &s, &err);

	if (ret)
		fail_msg("store_open(%s): %d %s", path, ret, err.buf);
	strbuf_release(&err);
	return s;
}

#define sql test_store_sql
#define assert_query test_store_assert_query

/* The call failed with err and store_error() says `msg` (and `path`, if given). */
static void assert_fails(struct store *s, int ret, int err, const char *msg,
			 const char *path)
{
	assert_int_equal(ret, err);
	if (!strstr(store_error(s), msg))
		fail_msg("'%s' does not say '%s'", store_error(s), msg);
	if (path && !strstr(store_error(s), path))
		fail_msg("'%s' does not name %s", store_error(s), path);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int64_t point_ok(struct store *s, const char *tree, const char *branch,
			const char *sha, const char *base)
{
	int64_t seq = -1;
	int ret = store_point_add(s, tree, branch, sha, base, &seq);

	if (ret)
		fail_msg("store_point_add(%s %s %s): %d %s", tree, branch, sha, ret,
			 store_error(s));
	return seq;
}

/* A filled-in alert of (box1, job1, metric) from before to after. */
static struct store_alert alert_of(const char *metric, const char *before,
				   const char *after)
{
	struct store_alert a = {
		.tree = "demo", .branch = "main", .testbox = "box1", .job = "job1",
		.metric = (char *)metric, .before = (char *)before,
		.after = (char *)after, .how = "head", .state = "tentative",
		.pct = -10.5,
	};

	return a;
}

static int64_t alert_ok(struct store *s, struct store_alert *a)
{
	int ret = store_alert_add(s, a);

	if (ret)
		fail_msg("store_alert_add: %d %s", ret, store_error(s));
	assert_true(a->id > 0);
	return a->id;
}

/* ---- points ---- */

static void points_in_order(void **state)
{
	struct fixture *f = *state;
	struct store_point *p;
	double t0 = now();
	int64_t seq;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	/* none yet: nothing, no error */
	assert_int_equal(store_points(f->s, "demo", "main", &p, &n), 0);
	assert_int_equal(n, 0);
	store_points_release(p, n);

	assert_int_equal(point_ok(f->s, "demo", "main", SHA_A, NULL), 1);
	assert_int_equal(point_ok(f->s, "demo", "main", SHA_B, SHA_A), 2);
	assert_int_equal(point_ok(f->s, "demo", "main", SHA_C, SHA_B), 3);
	/* the head again (a pass that finds it has not moved): not added */
	assert_int_equal(point_ok(f->s, "demo", "main", SHA_C, SHA_B), 3);
	assert_int_equal(point_ok(f->s, "demo", "main", SHA_C, NULL), 3);
	/* seq may be NULL */
	assert_int_equal(store_point_add(f->s, "demo", "main", SHA_C, NULL, NULL), 0);
	assert_query(f->db, "SELECT count(*) FROM watch_point", "3");

	assert_int_equal(store_points(f->s, "demo", "main", &p, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(p[0].seq, 1);
	assert_string_equal(p[0].sha, SHA_A);
	assert_null(p[0].base);
	assert_int_equal(p[1].seq, 2);
	assert_string_equal(p[1].sha, SHA_B);
	assert_string_equal(p[1].base, SHA_A);
	assert_int_equal(p[2].seq, 3);
	assert_string_equal(p[2].sha, SHA_C);
	assert_string_equal(p[2].base, SHA_B);
	for (size_t i = 0; i < n; i++) {
		assert_true(p[i].tested >= t0 - 1 && p[i].tested <= now() + 1);
		assert_true(i == 0 || p[i].tested >= p[i - 1].tested);
	}
	store_points_release(p, n);

	/* an older head coming back (a reset branch) is a new point */
	assert_int_equal(point_ok(f->s, "demo", "main", SHA_A, SHA_C), 4);

	/* the state outlives the connection: a restart goes on from it */
	store_close(f->s);
	f->s = open_ok(f->db, STORE_WRITE);
	assert_int_equal(point_ok(f->s, "demo", "main", SHA_A, SHA_C), 4);
	assert_int_equal(point_ok(f->s, "demo", "main", SHA_D, SHA_A), 5);
	assert_int_equal(store_points(f->s, "demo", "main", &p, &n), 0);
	assert_int_equal(n, 5);
	assert_string_equal(p[3].sha, SHA_A);
	assert_string_equal(p[4].sha, SHA_D);
	store_points_release(p, n);

	/* another writer sees the same last point */
	{
		struct store *other = open_ok(f->db, STORE_WRITE);

		assert_int_equal(store_point_add(other, "demo", "main", SHA_D, NULL, &seq), 0);
		assert_int_equal(seq, 5);
		assert_int_equal(store_point_add(other, "demo", "main", SHA_B, NULL, &seq), 0);
		assert_int_equal(seq, 6);
		store_close(other);
	}
	assert_int_equal(point_ok(f->s, "demo", "main", SHA_B, NULL), 6);
}

static void points_kept_apart(void **state)
{
	struct fixture *f = *state;
	struct store_branch *b;
	struct store_point *p;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	assert_int_equal(store_branches(f->s, &b, &n), 0);
	assert_int_equal(n, 0);
	store_branches_release(b, n);

	/* two branches of one tree, and a branch of the same name elsewhere */
	assert_int_equal(point_ok(f->s, "demo", "main", SHA_A, NULL), 1);
	assert_int_equal(point_ok(f->s, "demo", "next", SHA_A, NULL), 1);
	assert_int_equal(point_ok(f->s, "demo", "main", SHA_B, SHA_A), 2);
	assert_int_equal(point_ok(f->s, "other", "main", SHA_C, NULL), 1);
	assert_int_equal(point_ok(f->s, "demo", "next", SHA_C, SHA_A), 2);
	assert_int_equal(point_ok(f->s, "demo", "next", SHA_D, SHA_C), 3);
	/* the head of another branch is not this one's last point */
	assert_int_equal(point_ok(f->s, "other", "main", SHA_B, SHA_C), 2);
	assert_int_equal(point_ok(f->s, "other", "next", SHA_D, NULL), 1);

	assert_int_equal(store_points(f->s, "demo", "main", &p, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(p[0].sha, SHA_A);
	assert_string_equal(p[1].sha, SHA_B);
	store_points_release(p, n);
	assert_int_equal(store_points(f->s, "demo", "next", &p, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(p[0].sha, SHA_A);
	assert_string_equal(p[1].sha, SHA_C);
	assert_string_equal(p[2].sha, SHA_D);
	assert_int_equal(p[2].seq, 3);
	store_points_release(p, n);
	assert_int_equal(store_points(f->s, "other", "main", &p, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(p[0].sha, SHA_C);
	assert_string_equal(p[1].sha, SHA_B);
	assert_string_equal(p[1].base, SHA_C);
	store_points_release(p, n);
	/* a tree or branch with no points: none, no error */
	assert_int_equal(store_points(f->s, "demo", "nosuch", &p, &n), 0);
	assert_int_equal(n, 0);
	assert_null(p);
	assert_int_equal(store_points(f->s, "nosuch", "main", &p, &n), 0);
	assert_int_equal(n, 0);

	/* by tree then branch, each with its count and last point */
	assert_int_equal(store_branches(f->s, &b, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(b[0].tree, "demo");
	assert_string_equal(b[0].branch, "main");
	assert_int_equal(b[0].points, 2);
	assert_int_equal(b[0].last.seq, 2);
	assert_string_equal(b[0].last.sha, SHA_B);
	assert_string_equal(b[0].last.base, SHA_A);
	assert_true(b[0].last.tested > 0);
	assert_string_equal(b[1].tree, "demo");
	assert_string_equal(b[1].branch, "next");
	assert_int_equal(b[1].points, 3);
	assert_int_equal(b[1].last.seq, 3);
	assert_string_equal(b[1].last.sha, SHA_D);
	assert_string_equal(b[2].tree, "other");
	assert_string_equal(b[2].branch, "main");
	assert_int_equal(b[2].points, 2);
	assert_string_equal(b[2].last.sha, SHA_B);
	assert_string_equal(b[3].tree, "other");
	assert_string_equal(b[3].branch, "next");
	assert_int_equal(b[3].points, 1);
	assert_int_equal(b[3].last.seq, 1);
	assert_string_equal(b[3].last.sha, SHA_D);
	assert_null(b[3].last.base);
	store_branches_release(b, n);
}

/* ---- alerts ---- */

static void alerts_found_once(void **state)
{
	struct fixture *f = *state;
	struct store_alert a = alert_of("wis.ops", SHA_A, SHA_B), dup, b, got, *all;
	double t0 = now();
	int64_t first, second;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	assert_int_equal(store_alerts(f->s, NULL, &all, &n), 0);
	assert_int_equal(n, 0);
	store_alerts_release(all, n);

	a.note = "seen on head";
	first = alert_ok(f->s, &a);
	assert_true(a.created >= t0 - 1 && a.created == a.updated);

	assert_int_equal(store_alert_get(f->s, first, &got), 0);
	assert_int_equal(got.id, first);
	assert_string_equal(got.tree, "demo");
	assert_string_equal(got.branch, "main");
	assert_string_equal(got.testbox, "box1");
	assert_string_equal(got.job, "job1");
	assert_string_equal(got.metric, "wis.ops");
	assert_string_equal(got.before, SHA_A);
	assert_string_equal(got.after, SHA_B);
	assert_string_equal(got.how, "head");
	assert_string_equal(got.state, "tentative");
	assert_true(got.pct == -10.5);
	assert_int_equal(got.bisect_id, 0);
	assert_null(got.culprit);
	assert_int_equal(got.report_id, 0);
	assert_string_equal(got.note, "seen on head");
	assert_true(got.created == a.created && got.updated == a.updated);
	store_alert_release(&got);

	/* the same change seen again (another pass, another way): -EEXIST, the first's id */
	dup = alert_of("wis.ops", SHA_A, SHA_B);
	dup.tree = "other";
	dup.how = "changepoint";
	dup.state = "confirmed";
	dup.id = 12345;
	assert_fails(f->s, store_alert_add(f->s, &dup), -EEXIST, "already", NULL);
	assert_int_equal(dup.id, first);
	assert_query(f->db, "SELECT count(*) || max(state) FROM watch_alert", "1tentative");

	/* another metric, or other points, is another change */
	b = alert_of("wis.ops", SHA_B, SHA_C);
	b.pct = NAN;
	b.how = "changepoint";
	second = alert_ok(f->s, &b);
	assert_true(second > first);
	b = alert_of("other.metric", SHA_A, SHA_B);
	b.state = "confirmed";
	b.culprit = SHA_B;
	alert_ok(f->s, &b);
	b = alert_of("wis.ops", SHA_A, SHA_B);
	b.testbox = "box2";
	alert_ok(f->s, &b);
	b = alert_of("wis.ops", SHA_A, SHA_B);
	b.job = "job2";
	alert_ok(f->s, &b);

	/* NaN goes in as NULL and comes back NaN */
	assert_query(f->db, "SELECT pct FROM watch_alert WHERE id = 2", "NULL");
	assert_int_equal(store_alert_get(f->s, second, &got), 0);
	assert_true(isnan(got.pct));
	assert_string_equal(got.how, "changepoint");
	assert_null(got.note);
	store_alert_release(&got);

	/* oldest first; by state */
	assert_int_equal(store_alerts(f->s, NULL, &all, &n), 0);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(all[i].id, first + (int64_t)i);
	assert_string_equal(all[2].metric, "other.metric");
	assert_string_equal(all[2].culprit, SHA_B);
	assert_string_equal(all[3].testbox, "box2");
	assert_string_equal(all[4].job, "job2");
	store_alerts_release(all, n);
	assert_int_equal(store_alerts(f->s, "confirmed", &all, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(all[0].metric, "other.metric");
	store_alerts_release(all, n);
	assert_int_equal(store_alerts(f->s, "reported", &all, &n), 0);
	assert_int_equal(n, 0);
	store_alerts_release(all, n);
}

static void alerts_updated(void **state)
{
	struct fixture *f = *state;
	struct store_alert a = alert_of("wis.ops", SHA_A, SHA_C), got, *all;
	struct store_report r;
	int64_t bisect, id;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	id = alert_ok(f->s, &a);
	assert_int_equal(store_bisect_add(f->s, "running", "{}", &bisect), 0);
	assert_int_equal(store_report_add(f->s, SHA_B, "writing", &r), 0);

	/* every field the robot changes, written and read back */
	a.state = "reported";
	a.pct = 12.25;
	a.bisect_id = bisect;
	a.culprit = SHA_B;
	a.report_id = r.id;
	a.note = "line one\nline two";
	a.metric = "ignored.by.update";
	assert_int_equal(store_alert_update(f->s, &a), 0);
	assert_int_equal(store_alert_get(f->s, id, &got), 0);
	assert_string_equal(got.state, "reported");
	assert_true(got.pct == 12.25);
	assert_int_equal(got.bisect_id, bisect);
	assert_string_equal(got.culprit, SHA_B);
	assert_int_equal(got.report_id, r.id);
	assert_string_equal(got.note, "line one\nline two");
	assert_string_equal(got.metric, "wis.ops");	/* the key stays */
	assert_true(got.updated >= got.created && got.created == a.created);
	store_alert_release(&got);

	/* and back: NaN, no culprit, no note, no references */
	a.state = "invalid";
	a.pct = NAN;
	a.bisect_id = 0;
	a.culprit = NULL;
	a.report_id = 0;
	a.note = NULL;
	assert_int_equal(store_alert_update(f->s, &a), 0);
	assert_int_equal(store_alert_get(f->s, id, &got), 0);
	assert_string_equal(got.state, "invalid");
	assert_true(isnan(got.pct));
	assert_int_equal(got.bisect_id, 0);
	assert_null(got.culprit);
	assert_int_equal(got.report_id, 0);
	assert_null(got.note);
	store_alert_release(&got);
	assert_int_equal(store_alerts(f->s, "invalid", &all, &n), 0);
	assert_int_equal(n, 1);
	store_alerts_release(all, n);

	/* a reference to nothing is refused, and nothing changes */
	a.state = "reported";
	a.report_id = r.id + 100;
	assert_int_equal(store_alert_update(f->s, &a), -EINVAL);
	a.report_id = 0;
	a.bisect_id = bisect + 100;
	assert_int_equal(store_alert_update(f->s, &a), -EINVAL);
	assert_query(f->db, "SELECT state FROM watch_alert", "invalid");

	/* unknown ids */
	a.id = id + 1;
	a.bisect_id = 0;
	assert_fails(f->s, store_alert_update(f->s, &a), -ENOENT, "no alert 2 in", f->db);
	assert_fails(f->s, store_alert_get(f->s, 99, &got), -ENOENT, "no alert 99 in", f->db);
	assert_null(got.state);
	store_report_release(&r);
}

/* ---- reports ---- */

static void reports_one_per_culprit(void **state)
{
	struct fixture *f = *state;
	struct store_report r, again, got, *all;
	double t0 = now();
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	assert_int_equal(store_reports(f->s, &all, &n), 0);
	assert_int_equal(n, 0);
	assert_fails(f->s, store_report_find(f->s, SHA_B, &got), -ENOENT,
		     "no report of culprit " SHA_B " in", f->db);

	assert_int_equal(store_report_add(f->s, SHA_B, "writing", &r), 0);
	assert_true(r.id > 0);
	assert_string_equal(r.culprit, SHA_B);
	assert_string_equal(r.state, "writing");
	assert_null(r.path);
	assert_true(r.created >= t0 - 1 && r.created == r.updated);

	/* a second report of the culprit: -EEXIST, and the first one */
	assert_fails(f->s, store_report_add(f->s, SHA_B, "written", &again), -EEXIST,
		     SHA_B, NULL);
	assert_int_equal(again.id, r.id);
	assert_string_equal(again.state, "writing");
	assert_true(again.created == r.created);
	store_report_release(&again);
	assert_int_equal(store_report_add(f->s, SHA_B, "written", NULL), -EEXIST);
	assert_query(f->db, "SELECT count(*) || max(state) FROM watch_report", "1writing");

	/* found by culprit and by id */
	assert_int_equal(store_report_find(f->s, SHA_B, &got), 0);
	assert_int_equal(got.id, r.id);
	store_report_release(&got);
	assert_int_equal(store_report_get(f->s, r.id, &got), 0);
	assert_string_equal(got.culprit, SHA_B);
	store_report_release(&got);

	/* the path once known; NULL keeps what is stored, either one */
	assert_int_equal(store_report_update(f->s, r.id, NULL, "/outbox/new/1.eml"), 0);
	assert_int_equal(store_report_get(f->s, r.id, &got), 0);
	assert_string_equal(got.state, "writing");
	assert_string_equal(got.path, "/outbox/new/1.eml");
	assert_true(got.updated >= r.updated);
	store_report_release(&got);
	assert_int_equal(store_report_update(f->s, r.id, "written", NULL), 0);
	assert_int_equal(store_report_find(f->s, SHA_B, &got), 0);
	assert_string_equal(got.state, "written");
	assert_string_equal(got.path, "/outbox/new/1.eml");
	store_report_release(&got);

	/* another culprit, with out NULL; all, oldest first */
	assert_int_equal(store_report_add(f->s, SHA_C, "writing", NULL), 0);
	assert_int_equal(store_reports(f->s, &all, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(all[0].id, r.id);
	assert_string_equal(all[0].state, "written");
	assert_string_equal(all[1].culprit, SHA_C);
	assert_true(all[1].id > r.id);
	assert_null(all[1].path);
	store_reports_release(all, n);

	/* unknown ids */
	assert_fails(f->s, store_report_get(f->s, 77, &got), -ENOENT, "no report 77 in", f->db);
	assert_fails(f->s, store_report_update(f->s, 77, "sent", NULL), -ENOENT,
		     "no report 77 in", f->db);
	store_report_release(&r);
}

/* ---- what is refused ---- */

static void refused(void **state)
{
	struct fixture *f = *state;
	struct store_alert a, *all;
	struct store_report r;
	struct store_point *p;
	int64_t seq = 42;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	assert_int_equal(store_point_add(f->s, NULL, "main", SHA_A, NULL, &seq), -EINVAL);
	assert_int_equal(seq, 0);
	assert_int_equal(store_point_add(f->s, "demo", NULL, SHA_A, NULL, &seq), -EINVAL);
	assert_int_equal(store_point_add(f->s, "demo", "main", NULL, NULL, &seq), -EINVAL);
	assert_int_equal(store_points(f->s, NULL, "main", &p, &n), -EINVAL);
	assert_int_equal(store_points(f->s, "demo", NULL, &p, &n), -EINVAL);
	/* names follow the rule of runs' */
	assert_fails(f->s, store_point_add(f->s, "de\nmo", "main", SHA_A, NULL, &seq),
		     -EILSEQ, "tree \"de\\nmo\"", NULL);
	assert_fails(f->s, store_point_add(f->s, "demo", "main", SHA_A, "\377", &seq),
		     -EILSEQ, "base", NULL);

	a = alert_of("wis.ops", SHA_A, SHA_B);
	a.tree = NULL;
	assert_int_equal(store_alert_add(f->s, &a), -EINVAL);
	a = alert_of("wis.ops", SHA_A, SHA_B);
	a.after = NULL;
	assert_int_equal(store_alert_add(f->s, &a), -EINVAL);
	a = alert_of(NULL, SHA_A, SHA_B);
	assert_int_equal(store_alert_add(f->s, &a), -EINVAL);
	a = alert_of("wis.ops", SHA_A, SHA_B);
	a.how = NULL;
	assert_int_equal(store_alert_add(f->s, &a), -EINVAL);
	a = alert_of("wis.ops", SHA_A, SHA_B);
	a.state = NULL;
	assert_int_equal(store_alert_add(f->s, &a), -EINVAL);
	a = alert_of("wis.ops", SHA_A, SHA_B);
	a.bisect_id = -1;
	assert_int_equal(store_alert_add(f->s, &a), -EINVAL);
	a = alert_of("wis\tops", SHA_A, SHA_B);
	assert_fails(f->s, store_alert_add(f->s, &a), -EILSEQ, "metric", NULL);
	assert_int_equal(a.id, 0);
	a = alert_of("wis.ops", SHA_A, SHA_B);
	a.note = "\377";
	assert_int_equal(store_alert_add(f->s, &a), -EILSEQ);

	a = alert_of("wis.ops", SHA_A, SHA_B);
	alert_ok(f->s, &a);
	a.state = NULL;
	assert_int_equal(store_alert_update(f->s, &a), -EINVAL);
	a.state = "confirmed";
	a.report_id = -2;
	assert_int_equal(store_alert_update(f->s, &a), -EINVAL);
	assert_query(f->db, "SELECT state FROM watch_alert", "tentative");

	assert_int_equal(store_report_add(f->s, NULL, "writing", &r), -EINVAL);
	assert_int_equal(store_report_add(f->s, SHA_B, NULL, &r), -EINVAL);
	assert_int_equal(store_report_find(f->s, NULL, &r), -EINVAL);
	assert_int_equal(store_report_add(f->s, SHA_B, "writing", &r), 0);
	assert_int_equal(store_report_update(f->s, r.id, NULL, "a\nb"), -EILSEQ);
	store_report_release(&r);

	/* nothing of the refused was written */
	assert_query(f->db, "SELECT (SELECT count(*) FROM watch_point) || ','"
			    " || (SELECT count(*) FROM watch_alert) || ','"
			    " || (SELECT count(*) FROM watch_report) || ','"
			    " || (SELECT count(*) FROM watch_report WHERE path IS NULL)", "0,1,1,1");
	assert_int_equal(store_alerts(f->s, NULL, &all, &n), 0);
	assert_int_equal(n, 1);
	store_alerts_release(all, n);
}

static void reader_cannot_write(void **state)
{
	struct fixture *f = *state;
	struct store_alert a = alert_of("wis.ops", SHA_A, SHA_B), got;
	struct store_branch *b;
	struct store_report r;
	struct store *reader;
	int64_t id, seq;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	point_ok(f->s, "demo", "main", SHA_A, NULL);
	id = alert_ok(f->s, &a);
	assert_int_equal(store_report_add(f->s, SHA_B, "writing", NULL), 0);

	reader = open_ok(f->db, STORE_READ);
	assert_fails(reader, store_point_add(reader, "demo", "main", SHA_B, SHA_A, &seq),
		     -EBADF, "opened for reading only", f->db);
	a = alert_of("wis.ops", SHA_B, SHA_C);
	assert_int_equal(store_alert_add(reader, &a), -EBADF);
	a.id = id;
	a.state = "ignored";
	assert_int_equal(store_alert_update(reader, &a), -EBADF);
	assert_int_equal(store_report_add(reader, SHA_C, "writing", &r), -EBADF);
	assert_int_equal(store_report_update(reader, 1, "sent", NULL), -EBADF);
	/* it reads */
	assert_int_equal(store_branches(reader, &b, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(b[0].last.sha, SHA_A);
	store_branches_release(b, n);
	assert_int_equal(store_alert_get(reader, id, &got), 0);
	assert_string_equal(got.state, "tentative");
	store_alert_release(&got);
	assert_int_equal(store_report_find(reader, SHA_B, &r), 0);
	store_report_release(&r);
	store_close(reader);
	assert_query(f->db, "SELECT (SELECT count(*) FROM watch_point) || ','"
			    " || (SELECT count(*) FROM watch_alert) || ','"
			    " || (SELECT count(*) FROM watch_report)", "1,1,1");
}

/* ---- a database from before the robot's tables ---- */

/*
 * A database at schema version 4, made by the migrations before the
 * robot's, with the meta rows perfbot writes, a run and a bisection.
 */
static void make_v4(const char *loc)
{
	test_store_make_schema(loc, 4,
			       "INSERT INTO runs (testbox, testcase, job, \"commit\", status,"
			       " started, duration_s) VALUES ('box1', 'will-it-scale', 'job1',"
			       " '" SHA_A "', 'complete', 1700000000, 30);"
			       "INSERT INTO bisect (status, spec, created, updated)"
			       " VALUES ('found', '{}', 1, 2);");
}

static void older_database(void **state)
{
	struct fixture *f = *state;
	struct store_alert a = alert_of("wis.ops", SHA_A, SHA_B), *all;
	struct store_report r, *reports;
	struct store_branch *b;
	struct store_point *p;
	struct store_bisect bi;
	struct store *reader;
	char current[16];	/* PostgreSQL's has the fleet's queue beyond SQLite's */
	size_t n;

	snprintf(current, sizeof(current), "%d",
		 test_store_is_pg() ? pg_schema_version : sqlite_schema_version);
	make_v4(f->db);
	assert_query(f->db, TEST_STORE_COUNT_TABLES("watch%"), "0");

	/* a reader finds none of the robot's rows, without an error */
	reader = open_ok(f->db, STORE_READ);
	assert_int_equal(store_points(reader, "demo", "main", &p, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(store_branches(reader, &b, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(store_alerts(reader, NULL, &all, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(store_alerts(reader, "tentative", &all, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(store_reports(reader, &reports, &n), 0);
	assert_int_equal(n, 0);
	assert_fails(reader, store_alert_get(reader, 1, &a), -ENOENT, "no alert 1 in", f->db);
	assert_fails(reader, store_report_get(reader, 1, &r), -ENOENT, "no report 1 in", f->db);
	assert_fails(reader, store_report_find(reader, SHA_B, &r), -ENOENT, "no report of", f->db);
	assert_int_equal(store_point_add(reader, "demo", "main", SHA_A, NULL, NULL), -EBADF);
	/* and leaves the file as it was */
	assert_query(f->db, "SELECT value FROM meta WHERE key = 'schema_version'", "4");
	assert_query(f->db, TEST_STORE_COUNT_TABLES("watch%"), "0");

	/* a writer migrates it, keeping what it held, and stores the robot's state */
	f->s = open_ok(f->db, STORE_WRITE);
	assert_query(f->db, "SELECT value FROM meta WHERE key = 'schema_version'", current);
	assert_query(f->db, "SELECT count(*) FROM runs", "1");
	assert_int_equal(store_bisect_get(f->s, 1, &bi), 0);
	assert_string_equal(bi.status, "found");
	store_bisect_release(&bi);
	assert_int_equal(point_ok(f->s, "demo", "main", SHA_A, NULL), 1);
	a = alert_of("wis.ops", SHA_A, SHA_B);
	a.bisect_id = 1;
	alert_ok(f->s, &a);
	assert_int_equal(store_report_add(f->s, SHA_B, "writing", NULL), 0);

	/* the reader opened before sees them now */
	assert_int_equal(store_points(reader, "demo", "main", &p, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(p[0].sha, SHA_A);
	store_points_release(p, n);
	assert_int_equal(store_alerts(reader, NULL, &all, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(all[0].bisect_id, 1);
	store_alerts_release(all, n);
	assert_int_equal(store_report_find(reader, SHA_B, &r), 0);
	store_report_release(&r);
	store_close(reader);

	/* a writer opening it again has nothing to do */
	store_close(f->s);
	f->s = open_ok(f->db, STORE_WRITE);
	assert_query(f->db, "SELECT value FROM meta WHERE key = 'schema_version'", current);
	assert_int_equal(point_ok(f->s, "demo", "main", SHA_B, SHA_A), 2);
}

/* ---- damaged rows ---- */

static void damaged_rows(void **state)
{
	struct fixture *f = *state;
	struct store_alert a = alert_of("wis.ops", SHA_A, SHA_B), *all;
	struct store_report r, *reports;
	struct store_branch *b;
	struct store_point *p;
	size_t n;

	f->s = open_ok(f->db, STORE_WRITE);
	point_ok(f->s, "demo", "main", SHA_A, NULL);
	point_ok(f->s, "demo", "main", SHA_B, SHA_A);
	alert_ok(f->s, &a);
	assert_int_equal(store_report_add(f->s, SHA_B, "writing", NULL), 0);
	store_close(f->s);
	f->s = NULL;

	/* values of another type than the column's (SQLite), or NULL where none may be */
	if (test_store_is_pg())
		sql(f->db, "ALTER TABLE watch_point ALTER sha DROP NOT NULL;"
			   "UPDATE watch_point SET sha = NULL WHERE seq = 2;"
			   "ALTER TABLE watch_alert ALTER pct TYPE text;"
			   "UPDATE watch_alert SET pct = 'much';"
			   "ALTER TABLE watch_report ALTER created TYPE text;"
			   "UPDATE watch_report SET created = 'then';");
	else
		sql(f->db, "UPDATE watch_point SET sha = x'00ff' WHERE seq = 2;"
			   "UPDATE watch_alert SET pct = 'much';"
			   "UPDATE watch_report SET created = 'then';");
	f->s = open_ok(f->db, STORE_READ);
	assert_fails(f->s, store_points(f->s, "demo", "main", &p, &n), -EBADMSG,
		     test_store_is_pg()
			     ? "the database is damaged: a point of branch main of tree demo's sha is NULL"
			     : "the database is damaged: a point of branch main of tree demo holds a blob in sha",
		     f->db);
	assert_null(p);
	assert_int_equal(n, 0);
	assert_int_equal(store_branches(f->s, &b, &n), -EBADMSG);
	assert_fails(f->s, store_alerts(f->s, NULL, &all, &n), -EBADMSG,
		     test_store_is_pg() ? "alert 1's pct is 'much', not a number"
					: "alert 1 holds a text in pct", f->db);
	assert_int_equal(store_alert_get(f->s, 1, &a), -EBADMSG);
	assert_null(a.tree);
	assert_fails(f->s, store_reports(f->s, &reports, &n), -EBADMSG,
		     test_store_is_pg() ? "report 1's created is 'then', not a number"
					: "report 1 holds a text in created", f->db);
	assert_int_equal(store_report_find(f->s, SHA_B, &r), -EBADMSG);
	store_close(f->s);
	f->s = NULL;

	/* a table rebuilt without its key: a point held twice */
	sql(f->db, "UPDATE watch_point SET sha = '" SHA_B "' WHERE seq = 2;"
		   "ALTER TABLE watch_point RENAME TO old_point;"
		   "CREATE TABLE watch_point (tree TEXT, branch TEXT, seq INTEGER,"
		   " sha TEXT, base TEXT, tested REAL);"
		   "INSERT INTO watch_point SELECT * FROM old_point;"
		   "INSERT INTO watch_point SELECT * FROM old_point WHERE seq = 2;"
		   "DROP TABLE old_point;");
	f->s = open_ok(f->db, STORE_READ);
	assert_fails(f->s, store_points(f->s, "demo", "main", &p, &n), -EBADMSG,
		     "holds point 2 twice", f->db);
	store_close(f->s);
	f->s = NULL;

	/* alerts and reports rebuilt without their keys, each held twice */
	sql(f->db, "UPDATE watch_alert SET pct = 1; UPDATE watch_report SET created = 1;"
		   "ALTER TABLE watch_alert RENAME TO old_alert;"
		   "CREATE TABLE watch_alert AS SELECT * FROM old_alert;"
		   "INSERT INTO watch_alert SELECT * FROM old_alert;"
		   "DROP TABLE old_alert;"
		   "ALTER TABLE watch_report RENAME TO old_report;"
		   "CREATE TABLE watch_report AS SELECT * FROM old_report;"
		   "INSERT INTO watch_report SELECT * FROM old_report;"
		   "DROP TABLE old_report;");
	f->s = open_ok(f->db, STORE_READ);
	assert_fails(f->s, store_alert_get(f->s, 1, &a), -EBADMSG,
		     "alert 1 is held twice", f->db);
	assert_null(a.tree);
	assert_fails(f->s, store_report_get(f->s, 1, &r), -EBADMSG,
		     "report 1 is held twice", f->db);
	assert_fails(f->s, store_report_find(f->s, SHA_B, &r), -EBADMSG,
		     "culprit " SHA_B " has two reports", f->db);
	assert_null(r.culprit);
	assert_fails(f->s, store_alerts(f->s, NULL, &all, &n), -EBADMSG,
		     "alert 1 is held twice", f->db);
	assert_null(all);
	assert_fails(f->s, store_reports(f->s, &reports, &n), -EBADMSG,
		     "report 1 is held twice", f->db);
}

/* ---- writers at once, each with its own connection ---- */

#define RACERS 4
#define POINTS_EACH 25
#define ROUNDS 20

struct point_race {
	int64_t seq[RACERS][POINTS_EACH];
	int ret[RACERS][POINTS_EACH];
};

static void sha_of(char out[41], int who, int i)
{
	snprintf(out, 41, "%08x%032x", (unsigned)who + 1, (unsigned)i);
}

static void add_point(struct store *s, int who, int i, void *ctx)
{
	struct point_race *r = ctx;
	char sha[41];

	sha_of(sha, who, i);
	r->ret[who][i] = store_point_add(s, "demo", "main", sha, NULL, &r->seq[who][i]);
}

/* Every head a point of its own: the seqs are 1..N, each once, in each writer's order. */
static void points_at_once(void **state)
{
	struct fixture *f = *state;
	struct point_race *r = calloc(1, sizeof(*r));
	bool seen[RACERS * POINTS_EACH + 1] = { false };
	struct store_point *p;
	char sha[41];
	size_t n;

	assert_non_null(r);
	f->s = open_ok(f->db, STORE_WRITE);
	test_store_race(f->db, RACERS, POINTS_EACH, add_point, r);
	for (int w = 0; w < RACERS; w++)
		for (int i = 0; i < POINTS_EACH; i++) {
			int64_t seq = r->seq[w][i];

			if (r->ret[w][i])
				fail_msg("writer %d, point %d: %d", w, i, r->ret[w][i]);
			assert_in_range(seq, 1, RACERS * POINTS_EACH);
			assert_false(seen[seq]);
			seen[seq] = true;
			assert_true(i == 0 || seq > r->seq[w][i - 1]);
		}
	assert_int_equal(store_points(f->s, "demo", "main", &p, &n), 0);
	assert_int_equal(n, RACERS * POINTS_EACH);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(p[i].seq, (int64_t)i + 1);
		assert_true(i == 0 || p[i].tested >= p[i - 1].tested);
	}
	/* each point is the one its writer was told */
	for (int w = 0; w < RACERS; w++)
		for (int i = 0; i < POINTS_EACH; i++) {
			sha_of(sha, w, i);
			assert_string_equal(p[r->seq[w][i] - 1].sha, sha);
		}
	store_points_release(p, n);
	free(r);
}

/* One head seen by every writer at once: one point. */
static void add_same_point(struct store *s, int who, int round, void *ctx)
{
	struct point_race *r = ctx;
	char sha[41];

	sha_of(sha, 0, round);
	r->ret[who][round] = store_point_add(s, "demo", "main", sha, NULL, &r->seq[who][round]);
}

static void same_point_at_once(void **state)
{
	struct fixture *f = *state;
	struct point_race *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	f->s = open_ok(f->db, STORE_WRITE);
	test_store_race(f->db, RACERS, POINTS_EACH, add_same_point, r);
	for (int w = 0; w < RACERS; w++)
		for (int i = 0; i < POINTS_EACH; i++) {
			assert_int_equal(r->ret[w][i], 0);
			assert_int_equal(r->seq[w][i], i + 1);
		}
	assert_query(f->db, "SELECT count(*) FROM watch_point", "25");
	free(r);
}

struct alert_race {
	int ret[RACERS][ROUNDS], report_ret[RACERS][ROUNDS];
	int64_t id[RACERS][ROUNDS], report_id[RACERS][ROUNDS];
};

/* Each round, every writer finds the same change and blames the same culprit. */
static void add_alert(struct store *s, int who, int round, void *ctx)
{
	struct alert_race *r = ctx;
	struct store_alert a = alert_of("wis.ops", SHA_A, NULL);
	struct store_report rep = { 0 };
	char after[41];

	sha_of(after, 0, round);
	a.after = after;
	a.how = who % 2 ? "changepoint" : "head";
	r->ret[who][round] = store_alert_add(s, &a);
	r->id[who][round] = a.id;
	r->report_ret[who][round] = store_report_add(s, after, "writing", &rep);
	r->report_id[who][round] = rep.id;
	store_report_release(&rep);
}

/* The winner of each round, or a failure: one 0, the others -EEXIST with its id. */
static int64_t one_winner(int ret[RACERS][ROUNDS], int64_t id[RACERS][ROUNDS], int round)
{
	int64_t won = 0;

	for (int w = 0; w < RACERS; w++)
		if (!ret[w][round]) {
			if (won)
				fail_msg("round %d: two writers added it", round);
			won = id[w][round];
		}
	if (!won)
		fail_msg("round %d: nobody added it", round);
	for (int w = 0; w < RACERS; w++) {
		if (ret[w][round] && ret[w][round] != -EEXIST)
			fail_msg("round %d, writer %d: %d", round, w, ret[w][round]);
		assert_int_equal(id[w][round], won);
	}
	return won;
}

static void alerts_at_once(void **state)
{
	struct fixture *f = *state;
	struct alert_race *r = calloc(1, sizeof(*r));
	struct store_alert *all;
	struct store_report *reps;
	size_t n;

	assert_non_null(r);
	f->s = open_ok(f->db, STORE_WRITE);
	test_store_race(f->db, RACERS, ROUNDS, add_alert, r);
	for (int round = 0; round < ROUNDS; round++) {
		one_winner(r->ret, r->id, round);
		one_winner(r->report_ret, r->report_id, round);
	}
	assert_int_equal(store_alerts(f->s, NULL, &all, &n), 0);
	assert_int_equal(n, ROUNDS);
	store_alerts_release(all, n);
	assert_int_equal(store_reports(f->s, &reps, &n), 0);
	assert_int_equal(n, ROUNDS);
	store_reports_release(reps, n);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(points_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(points_kept_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(alerts_found_once, setup, teardown),
		cmocka_unit_test_setup_teardown(alerts_updated, setup, teardown),
		cmocka_unit_test_setup_teardown(reports_one_per_culprit, setup, teardown),
		cmocka_unit_test_setup_teardown(refused, setup, teardown),
		cmocka_unit_test_setup_teardown(reader_cannot_write, setup, teardown),
		cmocka_unit_test_setup_teardown(older_database, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(points_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(same_point_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(alerts_at_once, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
