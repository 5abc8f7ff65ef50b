/*
 * pg_bisect.c - bisections in the PostgreSQL backend (sqlite_bisect.c's
 * twin): a row per bisection (status word, spec and result as opaque
 * JSON text), its log and its per-commit marks (docs/store.md).
 *
 * Each write is one statement, hence its own transaction, but for a log
 * line: its seq is the last + 1, and two writers appending at once must
 * not both take one number, so the append locks the bisection's row
 * (SELECT ... FOR UPDATE) and reads the last seq after the lock, in a
 * statement of its own (READ COMMITTED: a new snapshot, which holds the
 * other writer's line).  A write that names no bisection writes nothing
 * (it selects the bisection), so -ENOENT needs no second query.  A
 * reader of a database from before the bisect tables finds none.
 */
#define _GNU_SOURCE
#include "store/pg_internal.h"
#include "util/vec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BISECT_COLS "id, status, spec, result, created, updated"

/*
 * Times are the server's clock (Unix s): one clock for every writer of
 * a fleet, where SQLite's backend has only one machine's.
 */
#define SERVER_NOW "extract(epoch FROM clock_timestamp())::double precision"

static int no_bisection(struct pg_store *ps, int64_t id)
{
	return store_fail(&ps->base, -ENOENT, "no bisection %" PRId64 " in %s", id,
			  ps->shown);
}

/* ---- writing ---- */

int pg_bisect_add(struct store *s, const char *status, const char *spec, int64_t *id)
{
	struct pg_store *ps = to_ps(s);
	const char *params[] = { status, spec };
	PGresult *res = NULL;
	int64_t new_id;
	int err;

	if (!status || !spec)
		return store_fail(s, -EINVAL, "a bisection needs a status and a spec");
	err = pg_check_writer(ps);
	if (err)
		return err;
	err = pg_exec(ps, "cannot store a bisection",
		      "WITH t AS (SELECT " SERVER_NOW " AS now)"
		      " INSERT INTO bisect (status, spec, created, updated)"
		      " SELECT $1, $2, now, now FROM t RETURNING id", 2, params, &res);
	if (!err)
		err = pg_col_int64(ps, res, 0, 0, 1, INT64_MAX, "the new bisection's id", &new_id);
	PQclear(res);
	if (!err && id)
		*id = new_id;
	return err;
}

/* A write of bisection params[0]: -ENOENT when it touched no row. */
static int bisect_write(struct pg_store *ps, int64_t id, const char *sql, int n,
			const char *const *params, const char *what)
{
	PGresult *res = NULL;
	int err = pg_check_writer(ps);

	if (!err)
		err = pg_exec(ps, what, sql, n, params, &res);
	if (!err && !strcmp(PQcmdTuples(res), "0"))
		err = no_bisection(ps, id);
	PQclear(res);
	return err;
}

int pg_bisect_update(struct store *s, int64_t id, const char *status, const char *result)
{
	char idb[PG_INT_BUF];
	const char *params[] = { pg_int_param(idb, id), status, result };

	if (!status)
		return store_fail(s, -EINVAL, "a bisection needs a status");
	return bisect_write(to_ps(s), id,
			    "UPDATE bisect SET status = $2, result = coalesce($3, result),"
			    " updated = " SERVER_NOW " WHERE id = $1", 3, params,
			    "cannot update a bisection");
}

int pg_bisect_log_add(struct store *s, int64_t id, const char *text)
{
	struct pg_store *ps = to_ps(s);
	char idb[PG_INT_BUF];
	const char *params[] = { pg_int_param(idb, id), text };
	int err;

	if (!text)
		return store_fail(s, -EINVAL, "a bisection's log line needs a text");
	err = pg_check_writer(ps);
	if (!err)
		err = pg_begin(ps);
	if (err)
		return err;
	err = bisect_write(ps, id, "SELECT 1 FROM bisect WHERE id = $1 FOR UPDATE", 1,
			   params, "cannot lock a bisection");
	if (!err)
		err = pg_exec(ps, "cannot add to a bisection's log",
			      "INSERT INTO bisect_log (bisect_id, seq, time, text)"
			      " SELECT $1, coalesce(max(seq), 0) + 1, " SERVER_NOW ", $2"
			      " FROM bisect_log WHERE bisect_id = $1", 2, params, NULL);
	if (!err)
		err = pg_commit(ps, "cannot commit a bisection's log line");
	if (err)
		pg_rollback(ps);
	return err;
}

int pg_bisect_mark(struct store *s, int64_t id, const char *sha, const char *mark,
		   const char *note)
{
	char idb[PG_INT_BUF];
	const char *params[] = { pg_int_param(idb, id), sha, mark, note };

	if (!sha || !mark)
		return store_fail(s, -EINVAL, "a bisection's mark needs a commit and a mark");
	return bisect_write(to_ps(s), id,
			    "INSERT INTO bisect_mark (bisect_id, sha, mark, note)"
			    " SELECT id, $2, $3, $4 FROM bisect WHERE id = $1"
			    " ON CONFLICT (bisect_id, sha)"
			    " DO UPDATE SET mark = excluded.mark, note = excluded.note",
			    4, params, "cannot mark a commit");
}

/* ---- reading ---- */

/* Row i of a query of BISECT_COLS into *b (what was read stays for release). */
static int bisect_row(struct pg_store *ps, const PGresult *res, int i,
		      struct store_bisect *b)
{
	char row[64];
	int err;

	memset(b, 0, sizeof(*b));
	err = pg_col_int64(ps, res, i, 0, 1, INT64_MAX, "a bisection", &b->id);
	if (err)
		return err;
	snprintf(row, sizeof(row), "bisection %" PRId64, b->id);
	err = pg_col_text(ps, res, i, 1, false, row, &b->status);
	if (!err)
		err = pg_col_text(ps, res, i, 2, false, row, &b->spec);
	if (!err)
		err = pg_col_text(ps, res, i, 3, true, row, &b->result);
	if (!err)
		err = pg_col_real(ps, res, i, 4, false, row, &b->created);
	if (!err)
		err = pg_col_real(ps, res, i, 5, false, row, &b->updated);
	return err;
}

/*
 * The bisections sql selects (n params), into a new array; a database
 * without the bisect tables holds none.
 */
static int bisect_query(struct pg_store *ps, const char *sql, int n,
			const char *const *params, struct store_bisect **out,
			size_t *nr)
{
	struct { struct store_bisect *v; size_t n, cap; } all = { 0 };
	PGresult *res = NULL;
	int err = 0;

	*out = NULL;
	*nr = 0;
	if (ps->version < PG_SCHEMA_BISECT)
		return 0;
	err = pg_exec(ps, "cannot read the bisections", sql, n, params, &res);
	for (int i = 0; !err && i < PQntuples(res); i++) {
		struct store_bisect *b = vec_push_zero(&all);

		err = b ? bisect_row(ps, res, i, b)
			: store_fail(&ps->base, -ENOMEM, "out of memory");
	}
	PQclear(res);
	if (err) {
		store_bisects_release(all.v, all.n);
		return err;
	}
	*out = all.v;
	*nr = all.n;
	return 0;
}

/* The one bisection sql selects into *out; 1 when there is none. */
static int bisect_one(struct pg_store *ps, const char *sql, int n,
		      const char *const *params, struct store_bisect *out)
{
	struct store_bisect *all;
	size_t nr;
	int err = bisect_query(ps, sql, n, params, &all, &nr);

	if (err)
		return err;
	if (!nr) {
		free(all);
		return 1;
	}
	*out = all[0];
	memset(&all[0], 0, sizeof(all[0]));
	store_bisects_release(all, nr);
	return 0;
}

int pg_bisect_get(struct store *s, int64_t id, struct store_bisect *out)
{
	char idb[PG_INT_BUF];
	const char *params[] = { pg_int_param(idb, id) };
	int err = bisect_one(to_ps(s), "SELECT " BISECT_COLS " FROM bisect WHERE id = $1",
			     1, params, out);

	return err == 1 ? no_bisection(to_ps(s), id) : err;
}

int pg_bisect_latest(struct store *s, struct store_bisect *out)
{
	int err = bisect_one(to_ps(s), "SELECT " BISECT_COLS " FROM bisect"
			     " ORDER BY id DESC LIMIT 1", 0, NULL, out);

	return err == 1 ? store_fail(s, -ENOENT, "no bisection in %s", to_ps(s)->shown)
			: err;
}

int pg_bisect_list(struct store *s, struct store_bisect **out, size_t *nr)
{
	return bisect_query(to_ps(s), "SELECT " BISECT_COLS " FROM bisect ORDER BY id",
			    0, NULL, out, nr);
}

/*
 * The rows of one bisection's log or marks: sql LEFT JOINs them to the
 * bisection, so no row means no bisection and a row of NULLs one
 * without any.  read() takes one row into element i of *v (zeroed).
 */
static int bisect_rows(struct pg_store *ps, int64_t id, const char *sql, size_t size,
		       int (*read)(struct pg_store *ps, const PGresult *res, int i,
				   const char *row, void *elem),
		       void (*release)(void *v, size_t n), void **out, size_t *nr)
{
	char idb[PG_INT_BUF], row[64];
	const char *params[] = { pg_int_param(idb, id) };
	char *v = NULL;
	size_t n = 0, cap = 0;
	PGresult *res = NULL;
	int err;

	if (ps->version < PG_SCHEMA_BISECT)
		return no_bisection(ps, id);
	snprintf(row, sizeof(row), "bisection %" PRId64, id);
	err = pg_exec(ps, "cannot read a bisection", sql, 1, params, &res);
	if (!err && !PQntuples(res))
		err = no_bisection(ps, id);
	for (int i = 0; !err && i < PQntuples(res); i++) {
		/* the bisection, without rows (a row's key is never NULL) */
		if (PQgetisnull(res, i, 0) && PQgetisnull(res, i, 1))
			continue;
		if (vec_reserve_((void **)&v, &cap, n + 1, size)) {
			err = store_fail(&ps->base, -ENOMEM, "out of memory");
			break;
		}
		memset(v + n * size, 0, size);
		err = read(ps, res, i, row, v + n++ * size);
	}
	PQclear(res);
	if (err) {
		release(v, n);
		return err;
	}
	*out = v;
	*nr = n;
	return 0;
}

static int read_line(struct pg_store *ps, const PGresult *res, int i, const char *row,
		     void *elem)
{
	struct store_bisect_line *l = elem;
	int err = pg_col_int64(ps, res, i, 0, 1, INT64_MAX, row, &l->seq);

	if (!err)
		err = pg_col_real(ps, res, i, 1, false, row, &l->time);
	if (!err)
		err = pg_col_text(ps, res, i, 2, false, row, &l->text);
	return err;
}

static void release_lines(void *v, size_t n)
{
	store_bisect_lines_release(v, n);
}

int pg_bisect_log(struct store *s, int64_t id, struct store_bisect_line **lines,
		  size_t *nr)
{
	return bisect_rows(to_ps(s), id,
			   "SELECT l.seq, l.time, l.text FROM bisect b"
			   " LEFT JOIN bisect_log l ON l.bisect_id = b.id"
			   " WHERE b.id = $1 ORDER BY l.seq",
			   sizeof(**lines), read_line, release_lines, (void **)lines, nr);
}

static int read_mark(struct pg_store *ps, const PGresult *res, int i, const char *row,
		     void *elem)
{
	struct store_bisect_mark *m = elem;
	int err = pg_col_text(ps, res, i, 0, false, row, &m->sha);

	if (!err)
		err = pg_col_text(ps, res, i, 1, false, row, &m->mark);
	if (!err)
		err = pg_col_text(ps, res, i, 2, true, row, &m->note);
	return err;
}

static void release_marks(void *v, size_t n)
{
	store_bisect_marks_release(v, n);
}

int pg_bisect_marks(struct store *s, int64_t id, struct store_bisect_mark **marks,
		    size_t *nr)
{
	return bisect_rows(to_ps(s), id,
			   "SELECT m.sha, m.mark, m.note FROM bisect b"
			   " LEFT JOIN bisect_mark m ON m.bisect_id = b.id"
			   " WHERE b.id = $1 ORDER BY m.sha COLLATE \"C\"",
			   sizeof(**marks), read_mark, release_marks, (void **)marks, nr);
}
