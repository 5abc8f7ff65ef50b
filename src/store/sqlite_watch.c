/*
 * sqlite_watch.c - the robot's state in the SQLite backend (perfbot
 * watch, docs/store.md "The robot's state"): the points of each branch's
 * history (watch_point), the changes found (watch_alert) and the reports
 * written, one per culprit (watch_report).
 *
 * A write that reads before it writes (a point after the branch's last
 * one, an alert or a report that must not exist yet) holds the write
 * lock from its read to its commit (BEGIN IMMEDIATE), so two writers
 * cannot both add the same point, alert or report.  Other writes are one
 * statement, hence their own transaction; one that names no row writes
 * nothing, so -ENOENT needs no second query.  A reader of a file from
 * before the robot's tables (schema 5) finds none of their rows.
 */
#define _GNU_SOURCE
#include "store/sqlite_internal.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ALERT_COLS \
	"id, tree, branch, testbox, job, metric, \"before\", \"after\", how," \
	" state, pct, bisect_id, culprit, report_id, note, created, updated"
#define REPORT_COLS "id, culprit, state, path, created, updated"

static const char *const watch_sql[NR_STMTS] = {
	[ST_POINT_LAST] =
		"SELECT seq, sha FROM watch_point WHERE tree = ?1 AND branch = ?2"
		" ORDER BY seq DESC LIMIT 1",
	[ST_POINT_ADD] =
		"INSERT INTO watch_point (tree, branch, seq, sha, base, tested)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_POINTS] =
		"SELECT seq, sha, base, tested FROM watch_point"
		" WHERE tree = ?1 AND branch = ?2 ORDER BY seq",
	/* each branch's last point beside its count, by its key */
	[ST_BRANCHES] =
		"SELECT p.tree, p.branch, c.n, p.seq, p.sha, p.base, p.tested"
		" FROM (SELECT tree, branch, count(*) AS n, max(seq) AS last"
		"       FROM watch_point GROUP BY tree, branch) c"
		" JOIN watch_point p ON p.tree = c.tree AND p.branch = c.branch"
		"  AND p.seq = c.last"
		" ORDER BY p.tree, p.branch",
	[ST_ALERT_FIND] =
		"SELECT id FROM watch_alert WHERE testbox = ?1 AND job = ?2"
		" AND metric = ?3 AND \"before\" = ?4 AND \"after\" = ?5",
	[ST_ALERT_ADD] =
		"INSERT INTO watch_alert (tree, branch, testbox, job, metric,"
		" \"before\", \"after\", how, state, pct, bisect_id, culprit,"
		" report_id, note, created, updated)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
		" ?14, ?15, ?15)",
	[ST_ALERT_UPDATE] =
		"UPDATE watch_alert SET state = ?2, pct = ?3, bisect_id = ?4,"
		" culprit = ?5, report_id = ?6, note = ?7, updated = ?8"
		" WHERE id = ?1",
	[ST_ALERT_GET] = "SELECT " ALERT_COLS " FROM watch_alert WHERE id = ?1",
	[ST_ALERTS] =
		"SELECT " ALERT_COLS " FROM watch_alert"
		" WHERE ?1 IS NULL OR state = ?1 ORDER BY id",
	[ST_REPORT_FIND] =
		"SELECT " REPORT_COLS " FROM watch_report WHERE culprit = ?1",
	[ST_REPORT_ADD] =
		"INSERT INTO watch_report (culprit, state, created, updated)"
		" VALUES (?1, ?2, ?3, ?3)",
	[ST_REPORT_GET] = "SELECT " REPORT_COLS " FROM watch_report WHERE id = ?1",
	[ST_REPORTS] = "SELECT " REPORT_COLS " FROM watch_report ORDER BY id",
	[ST_REPORT_UPDATE] =
		"UPDATE watch_report SET state = coalesce(?2, state),"
		" path = coalesce(?3, path), updated = ?4 WHERE id = ?1",
};

static sqlite3_stmt *stmt(struct sqlite_store *ss, enum stmt_id id)
{
	return ss_stmt(ss, id, watch_sql[id]);
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int no_memory(struct sqlite_store *ss)
{
	return store_fail(&ss->base, -ENOMEM, "out of memory");
}

/*
 * The statement of a read, or NULL (and 0) when the file has no watch
 * tables: a reader of an older database, which holds none of their rows.
 */
static int watch_query(struct sqlite_store *ss, enum stmt_id id,
		       sqlite3_stmt **st)
{
	bool has;
	int err = ss_schema_has(ss, SCHEMA_WATCH, &has);

	*st = NULL;
	if (err || !has)
		return err;
	*st = stmt(ss, id);
	return *st ? 0 : ss_prep_err(ss);
}

/* The statement of a write, or NULL with the error in *err. */
static sqlite3_stmt *watch_writer(struct sqlite_store *ss, enum stmt_id id,
				  int *err)
{
	sqlite3_stmt *st;

	*err = ss_check_writer(ss);
	if (*err)
		return NULL;
	st = stmt(ss, id);
	if (!st)
		*err = ss_prep_err(ss);
	return st;
}

/* NaN is NULL: SQLite stores no NaN. */
static void bind_real_or_nan(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

/* An id of another row, 0 (none) as NULL. */
static void bind_ref(sqlite3_stmt *st, int i, int64_t id)
{
	if (id)
		sqlite3_bind_int64(st, i, id);
	else
		sqlite3_bind_null(st, i);
}

/* A reference read back: NULL is 0 (none), else an id >= 1. */
static int col_ref(struct sqlite_store *ss, sqlite3_stmt *st, int i,
		   const char *what, int64_t *id)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL) {
		*id = 0;
		return 0;
	}
	return col_id(ss, st, i, what, id);
}

/* ---- points ---- */

static const struct col point_cols[] = {
	COL(0, COL_ID, struct store_point, seq),
	COL(1, COL_TEXT, struct store_point, sha),
	COL(2, COL_TEXT_OR_NULL, struct store_point, base),
	COL(3, COL_REAL, struct store_point, tested),
};

/* "a point of branch B of tree T", whole, for the messages */
static int point_name(struct sqlite_store *ss, const char *tree,
		      const char *branch, struct strbuf *sb)
{
	strbuf_addf(sb, "a point of branch %s of tree %s", branch, tree);
	return strbuf_error(sb) ? no_memory(ss) : 0;
}

/* What follows "a point of ": "branch B of tree T". */
#define BRANCH_NAME(what) ((what) + strlen("a point of "))

int sqlite_point_add(struct store *s, const char *tree, const char *branch,
		     const char *sha, const char *base, int64_t *seq)
{
	struct sqlite_store *ss = to_ss(s);
	struct strbuf name = STRBUF_INIT;
	int64_t last = 0;
	bool same = false;
	sqlite3_stmt *st;
	int rc, err;

	st = watch_writer(ss, ST_POINT_LAST, &err);
	if (!st)
		return err;
	err = point_name(ss, tree, branch, &name);
	if (err)
		return err;
	err = ss_begin(ss, true);
	if (err)
		goto out;
	/* the last point and the new one, under one write lock */
	ss_bind_text(st, 1, tree);
	ss_bind_text(st, 2, branch);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		char *last_sha = NULL;

		err = col_id(ss, st, 0, name.buf, &last);
		if (!err)
			err = col_text(ss, st, 1, false, name.buf, &last_sha);
		same = !err && !strcmp(last_sha, sha);
		free(last_sha);
	} else if (rc != SQLITE_DONE) {
		err = ss_db_fail(ss, rc, "cannot read a branch's last point");
	}
	ss_done(st);
	if (err)
		goto fail;
	if (same) {
		/* nothing written: the transaction ends as it began */
		ss_rollback(ss);
		if (seq)
			*seq = last;
		goto out;
	}
	if (last == INT64_MAX) {
		err = ss_damaged(ss, "%s holds point %lld", BRANCH_NAME(name.buf),
				 (long long)last);
		goto fail;
	}
	st = stmt(ss, ST_POINT_ADD);
	if (!st) {
		err = ss_prep_err(ss);
		goto fail;
	}
	ss_bind_text(st, 1, tree);
	ss_bind_text(st, 2, branch);
	sqlite3_bind_int64(st, 3, last + 1);
	ss_bind_text(st, 4, sha);
	ss_bind_text(st, 5, base);
	sqlite3_bind_double(st, 6, wall_now());
	rc = sqlite3_step(st);
	ss_done(st);
	if (rc != SQLITE_DONE) {
		err = ss_db_fail(ss, rc, "cannot store a point");
		goto fail;
	}
	err = ss_commit(ss, "cannot commit a point");
	if (err)
		goto fail;
	if (seq)
		*seq = last + 1;
	goto out;
fail:
	ss_rollback(ss);
out:
	strbuf_release(&name);
	return err;
}

struct points_ctx {
	const char *what;
	int64_t prev;	/* the seq of the row before */
};

static int point_row(struct sqlite_store *ss, sqlite3_stmt *st, void *ctx,
		     void *elem)
{
	struct points_ctx *c = ctx;
	struct store_point *p = elem;
	int err = ss_read_cols(ss, st, c->what, point_cols,
			       ARRAY_LEN(point_cols), p);

	if (err)
		return err;
	/* the key promises one point per seq: a rebuilt table may not keep it */
	if (p->seq <= c->prev)
		return ss_damaged(ss, "%s holds point %lld twice",
				  BRANCH_NAME(c->what), (long long)p->seq);
	c->prev = p->seq;
	return 0;
}

static void release_points(void *v, size_t n)
{
	store_points_release(v, n);
}

int sqlite_points(struct store *s, const char *tree, const char *branch,
		  struct store_point **out, size_t *nr)
{
	struct sqlite_store *ss = to_ss(s);
	struct strbuf name = STRBUF_INIT;
	struct points_ctx c = { 0 };
	sqlite3_stmt *st;
	int err;

	err = watch_query(ss, ST_POINTS, &st);
	if (err || !st)
		return err;
	err = point_name(ss, tree, branch, &name);
	if (err) {
		ss_done(st);
		return err;
	}
	c.what = name.buf;
	ss_bind_text(st, 1, tree);
	ss_bind_text(st, 2, branch);
	err = ss_read_rows(ss, st, sizeof(**out), point_row, &c, release_points,
			"cannot read a branch's points", (void **)out, nr);
	strbuf_release(&name);
	return err;
}

static const struct col branch_cols[] = {
	COL(0, COL_TEXT, struct store_branch, tree),
	COL(1, COL_TEXT, struct store_branch, branch),
	COL(2, COL_COUNT, struct store_branch, points),
	COL(3, COL_ID, struct store_branch, last.seq),
	COL(4, COL_TEXT, struct store_branch, last.sha),
	COL(5, COL_TEXT_OR_NULL, struct store_branch, last.base),
	COL(6, COL_REAL, struct store_branch, last.tested),
};

static int branch_row(struct sqlite_store *ss, sqlite3_stmt *st, void *ctx,
		      void *elem)
{
	struct store_branch *b = elem;
	int err = ss_read_cols(ss, st, "a branch's last point", branch_cols,
			       ARRAY_LEN(branch_cols), b);

	(void)ctx;
	if (!err && !b->points)
		err = ss_damaged(ss, "branch %s of tree %s has no points but a last one",
				 b->branch, b->tree);
	return err;
}

static void release_branches(void *v, size_t n)
{
	store_branches_release(v, n);
}

int sqlite_branches(struct store *s, struct store_branch **out, size_t *nr)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int err = watch_query(ss, ST_BRANCHES, &st);

	if (err)
		return err;
	return ss_read_rows(ss, st, sizeof(**out), branch_row, NULL, release_branches,
			 "cannot list the branches", (void **)out, nr);
}

/* ---- alerts ---- */

static int no_alert(struct sqlite_store *ss, int64_t id)
{
	return store_fail(&ss->base, -ENOENT, "no alert %lld in %s", (long long)id,
			  ss->path);
}

/* The columns after the id of ST_ALERT_GET and ST_ALERTS, but the refs. */
static const struct col alert_cols[] = {
	COL(1, COL_TEXT, struct store_alert, tree),
	COL(2, COL_TEXT, struct store_alert, branch),
	COL(3, COL_TEXT, struct store_alert, testbox),
	COL(4, COL_TEXT, struct store_alert, job),
	COL(5, COL_TEXT, struct store_alert, metric),
	COL(6, COL_TEXT, struct store_alert, before),
	COL(7, COL_TEXT, struct store_alert, after),
	COL(8, COL_TEXT, struct store_alert, how),
	COL(9, COL_TEXT, struct store_alert, state),
	COL(10, COL_REAL_OR_NAN, struct store_alert, pct),
	COL(12, COL_TEXT_OR_NULL, struct store_alert, culprit),
	COL(14, COL_TEXT_OR_NULL, struct store_alert, note),
	COL(15, COL_REAL, struct store_alert, created),
	COL(16, COL_REAL, struct store_alert, updated),
};

static int alert_row(struct sqlite_store *ss, sqlite3_stmt *st, void *ctx,
		     void *elem)
{
	struct store_alert *a = elem;
	char row[64];
	int err;

	a->pct = NAN;
	err = col_id(ss, st, 0, "an alert", &a->id);
	if (err)
		return err;
	if (ctx && !(a->id > *(int64_t *)ctx))
		return ss_damaged(ss, "alert %lld is held twice", (long long)a->id);
	if (ctx)
		*(int64_t *)ctx = a->id;
	snprintf(row, sizeof(row), "alert %lld", (long long)a->id);
	err = ss_read_cols(ss, st, row, alert_cols, ARRAY_LEN(alert_cols), a);
	if (!err)
		err = col_ref(ss, st, 11, row, &a->bisect_id);
	if (!err)
		err = col_ref(ss, st, 13, row, &a->report_id);
	return err;
}

static void release_alerts(void *v, size_t n)
{
	store_alerts_release(v, n);
}

int sqlite_alert_add(struct store *s, struct store_alert *a)
{
	struct sqlite_store *ss = to_ss(s);
	int64_t found = 0;
	sqlite3_stmt *st;
	double now;
	int rc, err;

	st = watch_writer(ss, ST_ALERT_FIND, &err);
	if (!st)
		return err;
	err = ss_begin(ss, true);
	if (err)
		return err;
	/* found once, however many passes see it: looked for under the lock */
	ss_bind_text(st, 1, a->testbox);
	ss_bind_text(st, 2, a->job);
	ss_bind_text(st, 3, a->metric);
	ss_bind_text(st, 4, a->before);
	ss_bind_text(st, 5, a->after);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		err = col_id(ss, st, 0, "an alert", &found);
	else if (rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, "cannot look for an alert");
	ss_done(st);
	if (err)
		goto fail;
	if (found) {
		ss_rollback(ss);
		a->id = found;
		return store_fail(s, -EEXIST,
				  "alert %lld already holds the change of %s in %s on %s"
				  " from %s to %s", (long long)found, a->metric,
				  a->job, a->testbox, a->before, a->after);
	}
	st = stmt(ss, ST_ALERT_ADD);
	if (!st) {
		err = ss_prep_err(ss);
		goto fail;
	}
	now = wall_now();
	ss_bind_text(st, 1, a->tree);
	ss_bind_text(st, 2, a->branch);
	ss_bind_text(st, 3, a->testbox);
	ss_bind_text(st, 4, a->job);
	ss_bind_text(st, 5, a->metric);
	ss_bind_text(st, 6, a->before);
	ss_bind_text(st, 7, a->after);
	ss_bind_text(st, 8, a->how);
	ss_bind_text(st, 9, a->state);
	bind_real_or_nan(st, 10, a->pct);
	bind_ref(st, 11, a->bisect_id);
	ss_bind_text(st, 12, a->culprit);
	bind_ref(st, 13, a->report_id);
	ss_bind_text(st, 14, a->note);
	sqlite3_bind_double(st, 15, now);
	err = ss_insert(ss, st, "an alert", &found);
	if (!err)
		err = ss_commit(ss, "cannot commit an alert");
	if (err)
		goto fail;
	a->id = found;
	a->created = a->updated = now;
	return 0;
fail:
	ss_rollback(ss);
	return err;
}

int sqlite_alert_update(struct store *s, const struct store_alert *a)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int rc, err;

	st = watch_writer(ss, ST_ALERT_UPDATE, &err);
	if (!st)
		return err;
	sqlite3_bind_int64(st, 1, a->id);
	ss_bind_text(st, 2, a->state);
	bind_real_or_nan(st, 3, a->pct);
	bind_ref(st, 4, a->bisect_id);
	ss_bind_text(st, 5, a->culprit);
	bind_ref(st, 6, a->report_id);
	ss_bind_text(st, 7, a->note);
	sqlite3_bind_double(st, 8, wall_now());
	rc = sqlite3_step(st);
	ss_done(st);
	if (rc != SQLITE_DONE)
		return ss_db_fail(ss, rc, "cannot update an alert");
	return sqlite3_changes(ss->db) ? 0 : no_alert(ss, a->id);
}

int sqlite_alert_get(struct store *s, int64_t id, struct store_alert *out)
{
	struct sqlite_store *ss = to_ss(s);
	struct store_alert *v = NULL;
	sqlite3_stmt *st;
	size_t n = 0;
	int err = watch_query(ss, ST_ALERT_GET, &st);

	if (err)
		return err;
	if (st)
		sqlite3_bind_int64(st, 1, id);
	err = ss_read_rows(ss, st, sizeof(*v), alert_row, NULL, release_alerts,
			"cannot read an alert", (void **)&v, &n);
	if (err)
		return err;
	if (!n) {
		free(v);
		return no_alert(ss, id);
	}
	if (n > 1) {
		/* the id is the key: a table rebuilt without it may not keep it */
		store_alerts_release(v, n);
		return ss_damaged(ss, "alert %lld is held twice", (long long)id);
	}
	*out = v[0];
	free(v);
	return 0;
}

int sqlite_alerts(struct store *s, const char *state, struct store_alert **out,
		  size_t *nr)
{
	struct sqlite_store *ss = to_ss(s);
	int64_t prev = 0;	/* ordered by id: each one above the one before */
	sqlite3_stmt *st;
	int err = watch_query(ss, ST_ALERTS, &st);

	if (err)
		return err;
	if (st)
		ss_bind_text(st, 1, state);
	return ss_read_rows(ss, st, sizeof(**out), alert_row, &prev, release_alerts,
			 "cannot list the alerts", (void **)out, nr);
}

/* ---- reports ---- */

static const struct col report_cols[] = {
	COL(1, COL_TEXT, struct store_report, culprit),
	COL(2, COL_TEXT, struct store_report, state),
	COL(3, COL_TEXT_OR_NULL, struct store_report, path),
	COL(4, COL_REAL, struct store_report, created),
	COL(5, COL_REAL, struct store_report, updated),
};

static int report_row(struct sqlite_store *ss, sqlite3_stmt *st, void *ctx,
		      void *elem)
{
	struct store_report *r = elem;
	char row[64];
	int err;

	err = col_id(ss, st, 0, "a report", &r->id);
	if (err)
		return err;
	if (ctx && !(r->id > *(int64_t *)ctx))
		return ss_damaged(ss, "report %lld is held twice", (long long)r->id);
	if (ctx)
		*(int64_t *)ctx = r->id;
	snprintf(row, sizeof(row), "report %lld", (long long)r->id);
	return ss_read_cols(ss, st, row, report_cols, ARRAY_LEN(report_cols), r);
}

static void release_reports(void *v, size_t n)
{
	store_reports_release(v, n);
}

/*
 * The one report st selects (bound by the caller) into *out, or -ENOENT
 * without a message when none.  culprit, else id, names it for the
 * message of a table rebuilt without its keys, which holds it twice.
 */
static int report_one(struct sqlite_store *ss, sqlite3_stmt *st,
		      const char *culprit, int64_t id, struct store_report *out)
{
	struct store_report *v = NULL;
	size_t n = 0;
	int err = ss_read_rows(ss, st, sizeof(*v), report_row, NULL, release_reports,
			    "cannot read a report", (void **)&v, &n);

	if (err)
		return err;
	if (!n) {
		free(v);
		return -ENOENT;
	}
	if (n > 1) {
		store_reports_release(v, n);
		return culprit ? ss_damaged(ss, "culprit %s has two reports", culprit)
			       : ss_damaged(ss, "report %lld is held twice", (long long)id);
	}
	*out = v[0];
	free(v);
	return 0;
}

int sqlite_report_add(struct store *s, const char *culprit, const char *state,
		      struct store_report *out)
{
	struct sqlite_store *ss = to_ss(s);
	struct store_report r = { 0 };
	sqlite3_stmt *st;
	int err;

	st = watch_writer(ss, ST_REPORT_FIND, &err);
	if (!st)
		return err;
	err = ss_begin(ss, true);
	if (err)
		return err;
	/* one report per culprit, ever: looked for under the lock */
	ss_bind_text(st, 1, culprit);
	err = report_one(ss, st, culprit, 0, &r);
	if (!err) {
		ss_rollback(ss);
		err = store_fail(s, -EEXIST, "culprit %s already has report %lld",
				 culprit, (long long)r.id);
		if (out)
			*out = r;
		else
			store_report_release(&r);
		return err;
	}
	if (err != -ENOENT)
		goto fail;
	st = stmt(ss, ST_REPORT_ADD);
	if (!st) {
		err = ss_prep_err(ss);
		goto fail;
	}
	r.created = r.updated = wall_now();
	ss_bind_text(st, 1, culprit);
	ss_bind_text(st, 2, state);
	sqlite3_bind_double(st, 3, r.created);
	err = ss_insert(ss, st, "a report", &r.id);
	if (!err)
		err = ss_commit(ss, "cannot commit a report");
	if (err)
		goto fail;
	if (out) {
		out->id = r.id;
		out->created = r.created;
		out->updated = r.updated;
		out->path = NULL;
		out->culprit = strdup(culprit);
		out->state = strdup(state);
		/* stored: only the copy failed */
		if (!out->culprit || !out->state) {
			store_report_release(out);
			return no_memory(ss);
		}
	}
	return 0;
fail:
	ss_rollback(ss);
	return err;
}

int sqlite_report_find(struct store *s, const char *culprit,
		       struct store_report *out)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int err = watch_query(ss, ST_REPORT_FIND, &st);

	if (err)
		return err;
	if (st)
		ss_bind_text(st, 1, culprit);
	err = report_one(ss, st, culprit, 0, out);
	return err == -ENOENT ? store_fail(s, err, "no report of culprit %s in %s",
					   culprit, ss->path)
			      : err;
}

int sqlite_report_get(struct store *s, int64_t id, struct store_report *out)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int err = watch_query(ss, ST_REPORT_GET, &st);

	if (err)
		return err;
	if (st)
		sqlite3_bind_int64(st, 1, id);
	err = report_one(ss, st, NULL, id, out);
	return err == -ENOENT ? store_fail(s, err, "no report %lld in %s",
					   (long long)id, ss->path)
			      : err;
}

int sqlite_reports(struct store *s, struct store_report **out, size_t *nr)
{
	struct sqlite_store *ss = to_ss(s);
	int64_t prev = 0;	/* ordered by id: each one above the one before */
	sqlite3_stmt *st;
	int err = watch_query(ss, ST_REPORTS, &st);

	if (err)
		return err;
	return ss_read_rows(ss, st, sizeof(**out), report_row, &prev, release_reports,
			 "cannot list the reports", (void **)out, nr);
}

int sqlite_report_update(struct store *s, int64_t id, const char *state,
			 const char *path)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int rc, err;

	st = watch_writer(ss, ST_REPORT_UPDATE, &err);
	if (!st)
		return err;
	sqlite3_bind_int64(st, 1, id);
	ss_bind_text(st, 2, state);
	ss_bind_text(st, 3, path);
	sqlite3_bind_double(st, 4, wall_now());
	rc = sqlite3_step(st);
	ss_done(st);
	if (rc != SQLITE_DONE)
		return ss_db_fail(ss, rc, "cannot update a report");
	return sqlite3_changes(ss->db) ? 0 : store_fail(s, -ENOENT, "no report %lld in %s",
						       (long long)id, ss->path);
}
