/*
 * sqlite_bisect.c - bisections in the SQLite backend: a row per
 * bisection (status word, spec and result as opaque JSON text), its log
 * and its per-commit marks (docs/store.md).
 *
 * Each write is one statement, hence its own transaction; one that names
 * no existing bisection writes nothing (it selects the bisection), so
 * -ENOENT needs no second query.  A reader of a file from before the
 * bisect tables (schema 1) finds no bisections.
 */
#define _GNU_SOURCE
#include "store/sqlite_internal.h"
#include "util/vec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const bisect_sql[NR_STMTS] = {
	[ST_BISECT_ADD] =
		"INSERT INTO bisect (status, spec, created, updated)"
		" VALUES (?1, ?2, ?3, ?3)",
	[ST_BISECT_GET] =
		"SELECT id, status, spec, result, created, updated FROM bisect"
		" WHERE id = ?1",
	[ST_BISECT_LATEST] =
		"SELECT id, status, spec, result, created, updated FROM bisect"
		" ORDER BY id DESC LIMIT 1",
	[ST_BISECT_LIST] =
		"SELECT id, status, spec, result, created, updated FROM bisect"
		" ORDER BY id",
	[ST_BISECT_UPDATE] =
		"UPDATE bisect SET status = ?2, result = coalesce(?3, result),"
		" updated = ?4 WHERE id = ?1",
	/*
	 * Like the update, the appends write nothing (changes() = 0) when
	 * there is no such bisection: they select it.  One statement reads
	 * the last seq and appends after it, in one transaction.
	 */
	[ST_BISECT_LOG_ADD] =
		"INSERT INTO bisect_log (bisect_id, seq, time, text)"
		" SELECT id, (SELECT coalesce(max(seq), 0) + 1 FROM bisect_log"
		"             WHERE bisect_id = ?1), ?2, ?3"
		" FROM bisect WHERE id = ?1",
	[ST_BISECT_MARK] =
		"INSERT OR REPLACE INTO bisect_mark (bisect_id, sha, mark, note)"
		" SELECT id, ?2, ?3, ?4 FROM bisect WHERE id = ?1",
	/*
	 * Through the bisection, so no rows means no bisection and one row
	 * of NULLs an empty log or no marks.
	 */
	[ST_BISECT_LOG] =
		"SELECT l.seq, l.time, l.text FROM bisect b"
		" LEFT JOIN bisect_log l ON l.bisect_id = b.id"
		" WHERE b.id = ?1 ORDER BY l.seq",
	[ST_BISECT_MARKS] =
		"SELECT m.sha, m.mark, m.note FROM bisect b"
		" LEFT JOIN bisect_mark m ON m.bisect_id = b.id"
		" WHERE b.id = ?1 ORDER BY m.sha",
};

static sqlite3_stmt *stmt(struct sqlite_store *ss, enum stmt_id id)
{
	return ss_stmt(ss, id, bisect_sql[id]);
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int no_bisection(struct sqlite_store *ss, int64_t id)
{
	return store_fail(&ss->base, -ENOENT, "no bisection %lld in %s",
			  (long long)id, ss->path);
}

/*
 * The statement of a bisect query, or NULL (and 0) when the file has no
 * bisect tables: a reader of an older database, which holds no
 * bisections.
 */
static int bisect_query(struct sqlite_store *ss, enum stmt_id id,
			sqlite3_stmt **st)
{
	bool has;
	int err = ss_schema_has(ss, SCHEMA_BISECT, &has);

	*st = NULL;
	if (err || !has)
		return err;
	*st = stmt(ss, id);
	return *st ? 0 : ss_prep_err(ss);
}

/* ---- writing ---- */

/*
 * The statement of a write to the existing bisection id (its ?1), for
 * the caller to bind the rest, or NULL with the error in *err.
 */
static sqlite3_stmt *bisect_writer(struct sqlite_store *ss, enum stmt_id which,
				   int64_t id, int *err)
{
	sqlite3_stmt *st;

	*err = ss_check_writer(ss);
	if (*err)
		return NULL;
	st = stmt(ss, which);
	if (!st) {
		*err = ss_prep_err(ss);
		return NULL;
	}
	sqlite3_bind_int64(st, 1, id);
	return st;
}

/* Step bisect_writer()'s statement: -ENOENT when it wrote nothing. */
static int bisect_write(struct sqlite_store *ss, sqlite3_stmt *st, int64_t id,
			const char *what)
{
	int rc = sqlite3_step(st);

	ss_done(st);
	if (rc != SQLITE_DONE)
		return ss_db_fail(ss, rc, what);
	return sqlite3_changes(ss->db) ? 0 : no_bisection(ss, id);
}

int sqlite_bisect_add(struct store *s, const char *status, const char *spec,
		      int64_t *id)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int err;

	if (!status || !spec)
		return store_fail(s, -EINVAL, "a bisection needs a status and a spec");
	err = ss_check_writer(ss);
	if (err)
		return err;
	st = stmt(ss, ST_BISECT_ADD);
	if (!st)
		return ss_prep_err(ss);
	ss_bind_text(st, 1, status);
	ss_bind_text(st, 2, spec);
	sqlite3_bind_double(st, 3, wall_now());
	return ss_insert(ss, st, "a bisection", id);
}

int sqlite_bisect_update(struct store *s, int64_t id, const char *status,
			 const char *result)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int err;

	if (!status)
		return store_fail(s, -EINVAL, "a bisection needs a status");
	st = bisect_writer(ss, ST_BISECT_UPDATE, id, &err);
	if (!st)
		return err;
	ss_bind_text(st, 2, status);
	ss_bind_text(st, 3, result);
	sqlite3_bind_double(st, 4, wall_now());
	return bisect_write(ss, st, id, "cannot update a bisection");
}

int sqlite_bisect_log_add(struct store *s, int64_t id, const char *text)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int err;

	if (!text)
		return store_fail(s, -EINVAL, "a bisection's log line needs a text");
	st = bisect_writer(ss, ST_BISECT_LOG_ADD, id, &err);
	if (!st)
		return err;
	sqlite3_bind_double(st, 2, wall_now());
	ss_bind_text(st, 3, text);
	return bisect_write(ss, st, id, "cannot add to a bisection's log");
}

int sqlite_bisect_mark(struct store *s, int64_t id, const char *sha,
		       const char *mark, const char *note)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int err;

	if (!sha || !mark)
		return store_fail(s, -EINVAL, "a bisection's mark needs a commit and a mark");
	st = bisect_writer(ss, ST_BISECT_MARK, id, &err);
	if (!st)
		return err;
	ss_bind_text(st, 2, sha);
	ss_bind_text(st, 3, mark);
	ss_bind_text(st, 4, note);
	return bisect_write(ss, st, id, "cannot mark a commit");
}

/* ---- reading ---- */

/* The columns after the id of ST_BISECT_GET, _LATEST and _LIST. */
static const struct col bisect_cols[] = {
	COL(1, COL_TEXT, struct store_bisect, status),
	COL(2, COL_TEXT, struct store_bisect, spec),
	COL(3, COL_TEXT_OR_NULL, struct store_bisect, result),
	COL(4, COL_REAL, struct store_bisect, created),
	COL(5, COL_REAL, struct store_bisect, updated),
};

/*
 * The row at st into *b, which is overwritten: on an error what was read
 * stays in it for store_bisect_release(), and the rest is NULL.
 */
static int bisect_row(struct sqlite_store *ss, sqlite3_stmt *st,
		      struct store_bisect *b)
{
	char row[64];
	int err;

	memset(b, 0, sizeof(*b));
	err = col_id(ss, st, 0, "a bisection", &b->id);
	if (err)
		return err;
	snprintf(row, sizeof(row), "bisection %lld", (long long)b->id);
	return ss_read_cols(ss, st, row, bisect_cols, ARRAY_LEN(bisect_cols), b);
}

/* The one bisection st selects; -ENOENT, without a message, when none. */
static int bisect_one(struct sqlite_store *ss, sqlite3_stmt *st,
		      struct store_bisect *out)
{
	int rc, err;

	if (!st)
		return -ENOENT;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		err = bisect_row(ss, st, out);
	else if (rc == SQLITE_DONE)
		err = -ENOENT;
	else
		err = ss_db_fail(ss, rc, "cannot read a bisection");
	ss_done(st);
	if (err)
		store_bisect_release(out);
	return err;
}

int sqlite_bisect_get(struct store *s, int64_t id, struct store_bisect *out)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int err = bisect_query(ss, ST_BISECT_GET, &st);

	if (err)
		return err;
	if (st)
		sqlite3_bind_int64(st, 1, id);
	err = bisect_one(ss, st, out);
	return err == -ENOENT ? no_bisection(ss, id) : err;
}

int sqlite_bisect_latest(struct store *s, struct store_bisect *out)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int err = bisect_query(ss, ST_BISECT_LATEST, &st);

	if (err)
		return err;
	err = bisect_one(ss, st, out);
	return err == -ENOENT ? store_fail(s, err, "no bisection in %s", ss->path)
			      : err;
}

int sqlite_bisect_list(struct store *s, struct store_bisect **out, size_t *nr)
{
	struct sqlite_store *ss = to_ss(s);
	struct { struct store_bisect *v; size_t n, cap; } all = { 0 };
	sqlite3_stmt *st;
	int rc, err;

	err = bisect_query(ss, ST_BISECT_LIST, &st);
	if (err || !st)
		return err;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_bisect *b = vec_push_zero(&all);

		err = b ? bisect_row(ss, st, b) : store_fail(s, -ENOMEM, "out of memory");
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, "cannot list the bisections");
	ss_done(st);
	if (err) {
		store_bisects_release(all.v, all.n);
		return err;
	}
	*out = all.v;
	*nr = all.n;
	return 0;
}

/*
 * The rows of one bisection's log or marks (ST_BISECT_LOG or
 * ST_BISECT_MARKS: the bisection LEFT JOINed, so no row means no
 * bisection and a row of NULLs one without any), each read by the
 * column table cols into an array of `size` bytes per element.  On
 * failure the elements read so far are released by release(v, n).
 */
static int bisect_rows(struct sqlite_store *ss, enum stmt_id which, int64_t id,
		       const struct col *cols, size_t ncols, size_t size,
		       void (*release)(void *v, size_t n), const char *what,
		       void **out, size_t *nr)
{
	char *v = NULL;
	size_t n = 0, cap = 0;
	bool found = false;
	sqlite3_stmt *st;
	char row[64];
	int rc, err;

	snprintf(row, sizeof(row), "bisection %lld", (long long)id);
	err = bisect_query(ss, which, &st);
	if (err)
		return err;
	if (!st)
		return no_bisection(ss, id);
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		found = true;
		/* the bisection, without rows (a row's key is never NULL) */
		if (sqlite3_column_type(st, 0) == SQLITE_NULL &&
		    sqlite3_column_type(st, 1) == SQLITE_NULL)
			continue;
		if (vec_reserve_((void **)&v, &cap, n + 1, size)) {
			err = store_fail(&ss->base, -ENOMEM, "out of memory");
			break;
		}
		memset(v + n * size, 0, size);
		err = ss_read_cols(ss, st, row, cols, ncols, v + n++ * size);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, what);
	ss_done(st);
	if (!err && !found)
		err = no_bisection(ss, id);
	if (err) {
		release(v, n);
		return err;
	}
	*out = v;
	*nr = n;
	return 0;
}

static const struct col line_cols[] = {
	COL(0, COL_ID, struct store_bisect_line, seq),
	COL(1, COL_REAL, struct store_bisect_line, time),
	COL(2, COL_TEXT, struct store_bisect_line, text),
};

static void release_lines(void *v, size_t n)
{
	store_bisect_lines_release(v, n);
}

int sqlite_bisect_log(struct store *s, int64_t id,
		      struct store_bisect_line **lines, size_t *nr)
{
	return bisect_rows(to_ss(s), ST_BISECT_LOG, id, line_cols,
			   ARRAY_LEN(line_cols), sizeof(**lines), release_lines,
			   "cannot read a bisection's log", (void **)lines, nr);
}

static const struct col mark_cols[] = {
	COL(0, COL_TEXT, struct store_bisect_mark, sha),
	COL(1, COL_TEXT, struct store_bisect_mark, mark),
	COL(2, COL_TEXT_OR_NULL, struct store_bisect_mark, note),
};

static void release_marks(void *v, size_t n)
{
	store_bisect_marks_release(v, n);
}

int sqlite_bisect_marks(struct store *s, int64_t id,
			struct store_bisect_mark **marks, size_t *nr)
{
	return bisect_rows(to_ss(s), ST_BISECT_MARKS, id, mark_cols,
			   ARRAY_LEN(mark_cols), sizeof(**marks), release_marks,
			   "cannot read a bisection's marks", (void **)marks, nr);
}
