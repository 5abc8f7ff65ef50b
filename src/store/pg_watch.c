/*
 * pg_watch.c - the robot's state in the PostgreSQL backend (perfbot
 * watch, docs/store.md "The robot's state"): the points of each branch's
 * history (watch_point), the changes found (watch_alert) and the reports
 * written, one per culprit (watch_report).  The same behaviour and
 * messages as sqlite_watch.c.
 *
 * Concurrency: SQLite serialises a read-then-write under its one write
 * lock; here many robots and workers write at once, so each add is one
 * INSERT ... ON CONFLICT DO NOTHING against the table's key (a point's
 * (tree, branch, seq), an alert's (testbox, job, metric, before, after),
 * a report's culprit).  PostgreSQL makes a conflicting insert wait for
 * the other transaction, then skip: when nothing was inserted, the next
 * statement (a new snapshot under READ COMMITTED) sees what the other
 * one wrote.  The insert also skips a row it sees there already (NOT
 * EXISTS), so that only a lost race takes an id from the sequence: ids
 * stay consecutive as SQLite's are.  An add costs one round trip, two
 * when it loses a race or finds the row there already.  No explicit
 * transaction and no lock is held across round trips.
 *
 * Times are the server's clock (PG_NOW): the robots of a fleet read one
 * clock, so the points of a branch are in the order of their times too.
 * A reader of a database from before the robot's tables (schema 5)
 * finds none of their rows (pg_schema_has).
 *
 * Also here, for pg_kexec.c: pg_schema_has, pg_read_cols, pg_read_rows,
 * pg_row_id and pg_update (pg_internal.h, "pg_watch.c").
 */
#define _GNU_SOURCE
#include "store/pg_internal.h"
#include "util/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first schema version with the robot's tables (pg_schema.c). */
#define PG_SCHEMA_WATCH 5

/*
 * How often an add tries again when the row it collided with is gone by
 * the time it looks (a point of another sha took the seq it wanted): each
 * try means another writer got through, so this bounds nothing but a
 * storm of writers on one branch.
 */
#define PG_ADD_TRIES 100

#define ALERT_COLS \
	"id, tree, branch, testbox, job, metric, \"before\", \"after\", how," \
	" state, pct, bisect_id, culprit, report_id, note, created, updated"
#define REPORT_COLS "id, culprit, state, path, created, updated"

static int no_memory(struct pg_store *ps)
{
	return store_fail(&ps->base, -ENOMEM, "out of memory");
}

/* ---- shared with pg_kexec.c ---- */

/*
 * A reader opened before a writer migrated the database learns the new
 * version here: one query, only while the version it knows is older.
 */
int pg_schema_has(struct pg_store *ps, int version, bool *has)
{
	PGresult *res = NULL;
	char *text = NULL, *end;
	long v;
	int err;

	*has = ps->version >= version;
	if (*has)
		return 0;
	err = pg_exec(ps, "cannot read the schema version",
		      "SELECT value FROM meta WHERE key = 'schema_version'", 0, NULL, &res);
	if (!err && PQntuples(res) != 1)
		err = pg_damaged(ps, "the meta table holds %d schema versions", PQntuples(res));
	if (!err)
		err = pg_col_text(ps, res, 0, 0, false, "the schema version", &text);
	PQclear(res);
	if (err)
		return err;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < ps->version || v > pg_schema_version)
		err = pg_damaged(ps, "the schema version is '%.40s' (this perfbot knows %d to %d)",
				 text, ps->version, pg_schema_version);
	free(text);
	if (err)
		return err;
	ps->version = (int)v;
	*has = ps->version >= version;
	return 0;
}

int pg_read_cols(struct pg_store *ps, const PGresult *res, int row, const char *what,
		 const struct pg_col *cols, size_t n, void *out)
{
	for (size_t k = 0; k < n; k++) {
		const struct pg_col *c = &cols[k];
		void *field = (char *)out + c->offset;
		char name[300];
		int64_t v;
		int err = 0;

		/* "alert 3's pct": the row, then the column's name in the result */
		snprintf(name, sizeof(name), "%.200s's %.60s", what, PQfname(res, c->index));
		switch (c->type) {
		case PG_TEXT:
		case PG_TEXT_OR_NULL:
			err = pg_col_text(ps, res, row, c->index, c->type == PG_TEXT_OR_NULL,
					  name, field);
			break;
		case PG_ID:
			err = pg_col_int64(ps, res, row, c->index, 1, INT64_MAX, name, field);
			break;
		case PG_REF:
			*(int64_t *)field = 0;
			if (!PQgetisnull(res, row, c->index))
				err = pg_col_int64(ps, res, row, c->index, 1, INT64_MAX, name,
						   field);
			break;
		case PG_COUNT:
			err = pg_col_int64(ps, res, row, c->index, 0, INT64_MAX, name, &v);
			if (!err)
				*(size_t *)field = (size_t)v;
			break;
		case PG_REAL:
		case PG_REAL_OR_NAN:
			err = pg_col_real(ps, res, row, c->index, c->type == PG_REAL_OR_NAN,
					  name, field);
			break;
		}
		if (err)
			return err;
	}
	return 0;
}

int pg_read_rows(struct pg_store *ps, const PGresult *res, size_t size, pg_row_fn row,
		 void *ctx, void (*release)(void *v, size_t n), void **out, size_t *nr)
{
	size_t rows = res ? (size_t)PQntuples(res) : 0, n = 0;
	char *v;
	int err = 0;

	*out = NULL;
	*nr = 0;
	if (!rows)
		return 0;
	v = calloc(rows, size);
	if (!v)
		return no_memory(ps);
	for (; n < rows && !err; n++)
		err = row(ps, res, (int)n, ctx, v + n * size);
	if (err) {
		release(v, n);
		return err;
	}
	*out = v;
	*nr = n;
	return 0;
}

int pg_update(struct pg_store *ps, const char *what, const char *sql, int n,
	      const char *const *params, bool *changed)
{
	PGresult *res;
	const char *t;
	int err = pg_check_writer(ps);

	*changed = false;
	if (!err)
		err = pg_exec(ps, what, sql, n, params, &res);
	if (err)
		return err;
	t = PQcmdTuples(res);
	if (!*t)
		err = pg_damaged(ps, "the server did not say how many rows it changed");
	else
		*changed = strcmp(t, "0") != 0;
	PQclear(res);
	return err;
}

int pg_row_id(struct pg_store *ps, const PGresult *res, int row, const char *kind,
	      int64_t *prev, int64_t *id, char name[PG_ROW_NAME])
{
	char what[PG_ROW_NAME];
	int err;

	snprintf(what, PG_ROW_NAME, "the id of a %s", kind);
	err = pg_col_int64(ps, res, row, 0, 1, INT64_MAX, what, id);
	if (err)
		return err;
	if (prev && *id <= *prev)
		return pg_damaged(ps, "%s %" PRId64 " is held twice", kind, *id);
	if (prev)
		*prev = *id;
	snprintf(name, PG_ROW_NAME, "%s %" PRId64, kind, *id);
	return 0;
}

/* The result of a read, or NULL (and 0) without the robot's tables. */
static int watch_query(struct pg_store *ps, const char *what, const char *sql, int n,
		       const char *const *params, PGresult **res)
{
	bool has;
	int err = pg_schema_has(ps, PG_SCHEMA_WATCH, &has);

	*res = NULL;
	if (err || !has)
		return err;
	return pg_exec(ps, what, sql, n, params, res);
}

/* ---- points ---- */

static const struct pg_col point_cols[] = {
	PG_COL(0, PG_ID, struct store_point, seq),
	PG_COL(1, PG_TEXT, struct store_point, sha),
	PG_COL(2, PG_TEXT_OR_NULL, struct store_point, base),
	PG_COL(3, PG_REAL, struct store_point, tested),
};

/*
 * One statement: the branch's last point; the new one inserted after it
 * unless it is the same sha (or the last seq is the largest there is);
 * what was inserted, and the last point as the statement saw it.  A
 * concurrent writer that took the next seq makes the insert skip (its
 * row waited for, then left alone): then neither column 0 nor a same
 * sha in column 2 says done, and the caller tries again.
 */
static const char point_add_sql[] =
	"WITH last AS (SELECT seq, sha FROM watch_point WHERE tree = $1 AND branch = $2"
	"              ORDER BY seq DESC LIMIT 1),"
	" ins AS (INSERT INTO watch_point (tree, branch, seq, sha, base, tested)"
	"         SELECT $1, $2, coalesce((SELECT seq FROM last), 0) + 1, $3, $4, " PG_NOW
	"         WHERE NOT EXISTS (SELECT 1 FROM last WHERE sha = $3"
	"                           OR seq = 9223372036854775807)"
	"         ON CONFLICT (tree, branch, seq) DO NOTHING RETURNING seq)"
	" SELECT (SELECT seq FROM ins), (SELECT seq FROM last), (SELECT sha = $3 FROM last)";

int pg_point_add(struct store *s, const char *tree, const char *branch,
		 const char *sha, const char *base, int64_t *seq)
{
	struct pg_store *ps = to_ps(s);
	const char *params[] = { tree, branch, sha, base };
	char what[300];
	int err = pg_check_writer(ps);

	if (err)
		return err;
	snprintf(what, sizeof(what), "the last point of branch %.120s of tree %.120s",
		 branch, tree);
	for (int tries = 0; tries < PG_ADD_TRIES; tries++) {
		PGresult *res;
		int64_t got = 0, last = 0;

		err = pg_exec(ps, "cannot store a point", point_add_sql, 4, params, &res);
		if (err)
			return err;
		if (!PQgetisnull(res, 0, 0)) {
			err = pg_col_int64(ps, res, 0, 0, 1, INT64_MAX, "a new point", &got);
		} else if (!PQgetisnull(res, 0, 1)) {
			err = pg_col_int64(ps, res, 0, 1, 1, INT64_MAX, what, &last);
			/* the head again: nothing added, its seq */
			if (!err && !strcmp(PQgetvalue(res, 0, 2), "t"))
				got = last;
			else if (!err && last == INT64_MAX)
				err = pg_damaged(ps, "branch %s of tree %s holds point %" PRId64,
						 branch, tree, last);
		}
		PQclear(res);
		if (err)
			return err;
		if (got) {
			if (seq)
				*seq = got;
			return 0;
		}
		/* another writer took the seq: look again */
	}
	return store_fail(s, -EAGAIN, "%s: cannot store a point of branch %s of tree %s:"
			  " %d other writers got there first", ps->shown, branch, tree,
			  PG_ADD_TRIES);
}

struct points_ctx {
	char what[300];	/* "a point of branch B of tree T" */
	int64_t prev;	/* the seq of the row before */
	const char *tree, *branch;
};

static int point_row(struct pg_store *ps, const PGresult *res, int row, void *ctx,
		     void *elem)
{
	struct points_ctx *c = ctx;
	struct store_point *p = elem;
	int err = pg_read_cols(ps, res, row, c->what, point_cols,
			       PG_ARRAY_LEN(point_cols), p);

	if (err)
		return err;
	/* the key promises one point per seq: a table rebuilt may not keep it */
	if (p->seq <= c->prev)
		return pg_damaged(ps, "branch %s of tree %s holds point %" PRId64 " twice",
				  c->branch, c->tree, p->seq);
	c->prev = p->seq;
	return 0;
}

static void release_points(void *v, size_t n)
{
	store_points_release(v, n);
}

int pg_points(struct store *s, const char *tree, const char *branch,
	      struct store_point **out, size_t *nr)
{
	struct pg_store *ps = to_ps(s);
	const char *params[] = { tree, branch };
	struct points_ctx c = { .tree = tree, .branch = branch };
	PGresult *res;
	int err = watch_query(ps, "cannot read a branch's points",
			      "SELECT seq, sha, base, tested FROM watch_point"
			      " WHERE tree = $1 AND branch = $2 ORDER BY seq",
			      2, params, &res);

	if (err)
		return err;
	snprintf(c.what, sizeof(c.what), "a point of branch %.120s of tree %.120s",
		 branch, tree);
	err = pg_read_rows(ps, res, sizeof(**out), point_row, &c, release_points,
			   (void **)out, nr);
	PQclear(res);
	return err;
}

static const struct pg_col branch_cols[] = {
	PG_COL(0, PG_TEXT, struct store_branch, tree),
	PG_COL(1, PG_TEXT, struct store_branch, branch),
	PG_COL(2, PG_COUNT, struct store_branch, points),
	PG_COL(3, PG_ID, struct store_branch, last.seq),
	PG_COL(4, PG_TEXT, struct store_branch, last.sha),
	PG_COL(5, PG_TEXT_OR_NULL, struct store_branch, last.base),
	PG_COL(6, PG_REAL, struct store_branch, last.tested),
};

static int branch_row(struct pg_store *ps, const PGresult *res, int row, void *ctx,
		      void *elem)
{
	struct store_branch *b = elem;
	int err = pg_read_cols(ps, res, row, "a branch's last point", branch_cols,
			       PG_ARRAY_LEN(branch_cols), b);

	(void)ctx;
	if (!err && !b->points)
		err = pg_damaged(ps, "branch %s of tree %s has no points but a last one",
				 b->branch, b->tree);
	return err;
}

static void release_branches(void *v, size_t n)
{
	store_branches_release(v, n);
}

int pg_branches(struct store *s, struct store_branch **out, size_t *nr)
{
	struct pg_store *ps = to_ps(s);
	PGresult *res;
	/* each branch's last point beside its count, by its key: one scan */
	int err = watch_query(ps, "cannot list the branches",
			      "SELECT p.tree, p.branch, c.n, p.seq, p.sha, p.base, p.tested"
			      " FROM (SELECT tree, branch, count(*) AS n, max(seq) AS last"
			      "       FROM watch_point GROUP BY tree, branch) c"
			      " JOIN watch_point p ON p.tree = c.tree AND p.branch = c.branch"
			      "  AND p.seq = c.last"
			      " ORDER BY p.tree COLLATE \"C\", p.branch COLLATE \"C\"",
			      0, NULL, &res);

	if (err)
		return err;
	err = pg_read_rows(ps, res, sizeof(**out), branch_row, NULL, release_branches,
			   (void **)out, nr);
	PQclear(res);
	return err;
}

/* ---- alerts ---- */

static int no_alert(struct pg_store *ps, int64_t id)
{
	return store_fail(&ps->base, -ENOENT, "no alert %" PRId64 " in %s", id, ps->shown);
}

static const struct pg_col alert_cols[] = {
	PG_COL(1, PG_TEXT, struct store_alert, tree),
	PG_COL(2, PG_TEXT, struct store_alert, branch),
	PG_COL(3, PG_TEXT, struct store_alert, testbox),
	PG_COL(4, PG_TEXT, struct store_alert, job),
	PG_COL(5, PG_TEXT, struct store_alert, metric),
	PG_COL(6, PG_TEXT, struct store_alert, before),
	PG_COL(7, PG_TEXT, struct store_alert, after),
	PG_COL(8, PG_TEXT, struct store_alert, how),
	PG_COL(9, PG_TEXT, struct store_alert, state),
	PG_COL(10, PG_REAL_OR_NAN, struct store_alert, pct),
	PG_COL(11, PG_REF, struct store_alert, bisect_id),
	PG_COL(12, PG_TEXT_OR_NULL, struct store_alert, culprit),
	PG_COL(13, PG_REF, struct store_alert, report_id),
	PG_COL(14, PG_TEXT_OR_NULL, struct store_alert, note),
	PG_COL(15, PG_REAL, struct store_alert, created),
	PG_COL(16, PG_REAL, struct store_alert, updated),
};

/*
 * One row of ALERT_COLS.  ctx, when not NULL, is the id of the row
 * before: rows ordered by id each have a larger one.
 */
static int alert_row(struct pg_store *ps, const PGresult *res, int row, void *ctx,
		     void *elem)
{
	struct store_alert *a = elem;
	char name[PG_ROW_NAME];
	int err;

	a->pct = NAN;
	err = pg_row_id(ps, res, row, "alert", ctx, &a->id, name);
	return err ? err : pg_read_cols(ps, res, row, name, alert_cols,
					PG_ARRAY_LEN(alert_cols), a);
}

static void release_alerts(void *v, size_t n)
{
	store_alerts_release(v, n);
}

int pg_alert_add(struct store *s, struct store_alert *a)
{
	struct pg_store *ps = to_ps(s);
	char pct[PG_REAL_BUF], bisect[PG_INT_BUF], report[PG_INT_BUF];
	const char *params[] = {
		a->tree, a->branch, a->testbox, a->job, a->metric, a->before, a->after,
		a->how, a->state, pg_real_param(pct, a->pct),
		a->bisect_id ? pg_int_param(bisect, a->bisect_id) : NULL, a->culprit,
		a->report_id ? pg_int_param(report, a->report_id) : NULL, a->note,
	};
	int err = pg_check_writer(ps);

	if (err)
		return err;
	/* found once, however many passes (or robots) see it: the key decides */
	for (int tries = 0; tries < PG_ADD_TRIES; tries++) {
		PGresult *res;
		int64_t found = 0;

		err = pg_exec(ps, "cannot store an alert",
			      "INSERT INTO watch_alert (tree, branch, testbox, job, metric,"
			      " \"before\", \"after\", how, state, pct, bisect_id, culprit,"
			      " report_id, note, created, updated)"
			      " SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,"
			      "  $14, t, t FROM (SELECT " PG_NOW " AS t) now"
			      " WHERE NOT EXISTS (SELECT 1 FROM watch_alert WHERE testbox = $3"
			      "  AND job = $4 AND metric = $5 AND \"before\" = $6 AND \"after\" = $7)"
			      " ON CONFLICT (testbox, job, metric, \"before\", \"after\")"
			      " DO NOTHING RETURNING id, created",
			      14, params, &res);
		if (err)
			return err;
		if (PQntuples(res) == 1) {
			err = pg_col_int64(ps, res, 0, 0, 1, INT64_MAX, "a new alert's id", &found);
			if (!err)
				err = pg_col_real(ps, res, 0, 1, false, "a new alert's time",
						  &a->created);
			PQclear(res);
			if (err)
				return err;
			a->id = found;
			a->updated = a->created;
			return 0;
		}
		PQclear(res);
		/* there already: which one */
		err = pg_exec(ps, "cannot look for an alert",
			      "SELECT id FROM watch_alert WHERE testbox = $1 AND job = $2"
			      " AND metric = $3 AND \"before\" = $4 AND \"after\" = $5",
			      5, params + 2, &res);
		if (err)
			return err;
		if (PQntuples(res) > 1)
			err = pg_damaged(ps, "the change of %s in %s on %s from %s to %s"
					 " is held twice", a->metric, a->job, a->testbox,
					 a->before, a->after);
		else if (PQntuples(res) == 1)
			err = pg_col_int64(ps, res, 0, 0, 1, INT64_MAX, "an alert's id", &found);
		PQclear(res);
		if (err)
			return err;
		if (found) {
			a->id = found;
			return store_fail(s, -EEXIST,
					  "alert %" PRId64 " already holds the change of %s in %s"
					  " on %s from %s to %s", found, a->metric, a->job,
					  a->testbox, a->before, a->after);
		}
	}
	return store_fail(s, -EAGAIN, "%s: cannot store an alert: it came and went %d times",
			  ps->shown, PG_ADD_TRIES);
}

int pg_alert_update(struct store *s, const struct store_alert *a)
{
	struct pg_store *ps = to_ps(s);
	char id[PG_INT_BUF], pct[PG_REAL_BUF], bisect[PG_INT_BUF], report[PG_INT_BUF];
	const char *params[] = {
		pg_int_param(id, a->id), a->state, pg_real_param(pct, a->pct),
		a->bisect_id ? pg_int_param(bisect, a->bisect_id) : NULL, a->culprit,
		a->report_id ? pg_int_param(report, a->report_id) : NULL, a->note,
	};
	bool changed;
	int err = pg_update(ps, "cannot update an alert",
			    "UPDATE watch_alert SET state = $2, pct = $3, bisect_id = $4,"
			    " culprit = $5, report_id = $6, note = $7, updated = " PG_NOW
			    " WHERE id = $1",
			    7, params, &changed);

	if (err)
		return err;
	return changed ? 0 : no_alert(ps, a->id);
}

int pg_alert_get(struct store *s, int64_t id, struct store_alert *out)
{
	struct pg_store *ps = to_ps(s);
	char idbuf[PG_INT_BUF];
	const char *params[] = { pg_int_param(idbuf, id) };
	struct store_alert *v = NULL;
	PGresult *res;
	size_t n = 0;
	int err = watch_query(ps, "cannot read an alert",
			      "SELECT " ALERT_COLS " FROM watch_alert WHERE id = $1",
			      1, params, &res);

	if (!err)
		err = pg_read_rows(ps, res, sizeof(*v), alert_row, NULL, release_alerts,
				   (void **)&v, &n);
	PQclear(res);
	if (err)
		return err;
	if (!n)
		return no_alert(ps, id);
	if (n > 1) {
		/* the id is the key: a table rebuilt without it may not keep it */
		store_alerts_release(v, n);
		return pg_damaged(ps, "alert %" PRId64 " is held twice", id);
	}
	*out = v[0];
	free(v);
	return 0;
}

int pg_alerts(struct store *s, const char *state, struct store_alert **out, size_t *nr)
{
	struct pg_store *ps = to_ps(s);
	const char *params[] = { state };
	int64_t prev = 0;	/* ordered by id: each one above the one before */
	PGresult *res;
	int err = watch_query(ps, "cannot list the alerts",
			      "SELECT " ALERT_COLS " FROM watch_alert"
			      " WHERE $1::text IS NULL OR state = $1 ORDER BY id",
			      1, params, &res);

	if (!err)
		err = pg_read_rows(ps, res, sizeof(**out), alert_row, &prev, release_alerts,
				   (void **)out, nr);
	PQclear(res);
	return err;
}

/* ---- reports ---- */

static const struct pg_col report_cols[] = {
	PG_COL(1, PG_TEXT, struct store_report, culprit),
	PG_COL(2, PG_TEXT, struct store_report, state),
	PG_COL(3, PG_TEXT_OR_NULL, struct store_report, path),
	PG_COL(4, PG_REAL, struct store_report, created),
	PG_COL(5, PG_REAL, struct store_report, updated),
};

static int report_row(struct pg_store *ps, const PGresult *res, int row, void *ctx,
		      void *elem)
{
	struct store_report *r = elem;
	char name[PG_ROW_NAME];
	int err = pg_row_id(ps, res, row, "report", ctx, &r->id, name);

	return err ? err : pg_read_cols(ps, res, row, name, report_cols,
					PG_ARRAY_LEN(report_cols), r);
}

static void release_reports(void *v, size_t n)
{
	store_reports_release(v, n);
}

/*
 * The one report sql selects (by $1) into *out, or -ENOENT without a
 * message when none.  culprit, else id, names it for the message of a
 * table rebuilt without its keys, which holds it twice.
 */
static int report_one(struct pg_store *ps, const char *sql, const char *param,
		      const char *culprit, int64_t id, struct store_report *out)
{
	const char *params[] = { param };
	struct store_report *v = NULL;
	PGresult *res;
	size_t n = 0;
	int err = watch_query(ps, "cannot read a report", sql, 1, params, &res);

	if (!err)
		err = pg_read_rows(ps, res, sizeof(*v), report_row, NULL, release_reports,
				   (void **)&v, &n);
	PQclear(res);
	if (err)
		return err;
	if (!n)
		return -ENOENT;
	if (n > 1) {
		store_reports_release(v, n);
		return culprit ? pg_damaged(ps, "culprit %s has two reports", culprit)
			       : pg_damaged(ps, "report %" PRId64 " is held twice", id);
	}
	*out = v[0];
	free(v);
	return 0;
}

#define REPORT_BY_CULPRIT "SELECT " REPORT_COLS " FROM watch_report WHERE culprit = $1"
#define REPORT_BY_ID "SELECT " REPORT_COLS " FROM watch_report WHERE id = $1"

int pg_report_add(struct store *s, const char *culprit, const char *state,
		  struct store_report *out)
{
	struct pg_store *ps = to_ps(s);
	const char *params[] = { culprit, state };
	int err = pg_check_writer(ps);

	if (err)
		return err;
	/* one report per culprit, ever: the unique culprit decides */
	for (int tries = 0; tries < PG_ADD_TRIES; tries++) {
		struct store_report r = { 0 };
		PGresult *res;

		err = pg_exec(ps, "cannot store a report",
			      "INSERT INTO watch_report (culprit, state, created, updated)"
			      " SELECT $1, $2, t, t FROM (SELECT " PG_NOW " AS t) now"
			      " WHERE NOT EXISTS (SELECT 1 FROM watch_report WHERE culprit = $1)"
			      " ON CONFLICT (culprit) DO NOTHING RETURNING " REPORT_COLS,
			      2, params, &res);
		if (err)
			return err;
		if (PQntuples(res) == 1) {
			/* stored: a failure now is only the copy's */
			err = report_row(ps, res, 0, NULL, &r);
			PQclear(res);
			if (err || !out)
				store_report_release(&r);
			else
				*out = r;
			return err;
		}
		PQclear(res);
		err = report_one(ps, REPORT_BY_CULPRIT, culprit, culprit, 0, &r);
		if (!err) {
			err = store_fail(s, -EEXIST, "culprit %s already has report %" PRId64,
					 culprit, r.id);
			if (out)
				*out = r;
			else
				store_report_release(&r);
			return err;
		}
		if (err != -ENOENT)
			return err;
	}
	return store_fail(s, -EAGAIN, "%s: cannot store a report: it came and went %d times",
			  ps->shown, PG_ADD_TRIES);
}

int pg_report_find(struct store *s, const char *culprit, struct store_report *out)
{
	struct pg_store *ps = to_ps(s);
	int err = report_one(ps, REPORT_BY_CULPRIT, culprit, culprit, 0, out);

	return err == -ENOENT ? store_fail(s, err, "no report of culprit %s in %s",
					   culprit, ps->shown)
			      : err;
}

int pg_report_get(struct store *s, int64_t id, struct store_report *out)
{
	struct pg_store *ps = to_ps(s);
	char idbuf[PG_INT_BUF];
	int err = report_one(ps, REPORT_BY_ID, pg_int_param(idbuf, id), NULL, id, out);

	return err == -ENOENT ? store_fail(s, err, "no report %" PRId64 " in %s", id,
					   ps->shown)
			      : err;
}

int pg_reports(struct store *s, struct store_report **out, size_t *nr)
{
	struct pg_store *ps = to_ps(s);
	int64_t prev = 0;	/* ordered by id: each one above the one before */
	PGresult *res;
	int err = watch_query(ps, "cannot list the reports",
			      "SELECT " REPORT_COLS " FROM watch_report ORDER BY id",
			      0, NULL, &res);

	if (!err)
		err = pg_read_rows(ps, res, sizeof(**out), report_row, &prev,
				   release_reports, (void **)out, nr);
	PQclear(res);
	return err;
}

int pg_report_update(struct store *s, int64_t id, const char *state, const char *path)
{
	struct pg_store *ps = to_ps(s);
	char idbuf[PG_INT_BUF];
	const char *params[] = { pg_int_param(idbuf, id), state, path };
	bool changed;
	int err = pg_update(ps, "cannot update a report",
			    "UPDATE watch_report SET state = coalesce($2, state),"
			    " path = coalesce($3, path), updated = " PG_NOW " WHERE id = $1",
			    3, params, &changed);

	if (err)
		return err;
	return changed ? 0 : store_fail(s, -ENOENT, "no report %" PRId64 " in %s", id,
					ps->shown);
}
