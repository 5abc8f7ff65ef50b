/*
 * sqlite_kexec.c - the kexec boots in the SQLite backend (boot: kexec,
 * store.h's last section): one row per boot in kexec_boot.
 *
 * An add reads before it writes (the test box's active boot must not
 * exist yet) under the write lock (BEGIN IMMEDIATE); the partial unique
 * index kexec_boot_active keeps the rule for any other writer too.  An
 * update is one statement that names the state it leaves, so a
 * transition happens once however many processes try it; when it wrote
 * nothing, a read says why (no such boot, or another state).  A reader
 * of a file from before the table (schema 6) finds no boots.
 */
#define _GNU_SOURCE
#include "store/sqlite_internal.h"
#include "util/vec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEXEC_COLS \
	"id, state, reason, created, updated, testbox, repo, sha, job_file, sets," \
	" job, runs, kernel, release, cmdline, run_id, continuation"
#define KEXEC_ACTIVE_STATES "('built', 'booting', 'running', 'stored')"

static const char *const kexec_sql[NR_STMTS] = {
	[ST_KEXEC_ACTIVE] =
		"SELECT " KEXEC_COLS " FROM kexec_boot WHERE testbox = ?1"
		" AND state IN " KEXEC_ACTIVE_STATES " ORDER BY id",
	[ST_KEXEC_ADD] =
		"INSERT INTO kexec_boot (state, reason, created, updated, testbox, repo,"
		" sha, job_file, sets, job, runs, kernel, release, cmdline, run_id,"
		" continuation)"
		" VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
		" ?14, ?15)",
	[ST_KEXEC_UPDATE] =
		"UPDATE kexec_boot SET state = ?2, reason = ?3, kernel = ?4, cmdline = ?5,"
		" run_id = ?6, updated = ?7 WHERE id = ?1 AND state = ?8",
	[ST_KEXEC_GET] = "SELECT " KEXEC_COLS " FROM kexec_boot WHERE id = ?1",
	[ST_KEXEC_LIST] = "SELECT " KEXEC_COLS " FROM kexec_boot ORDER BY id",
};

static sqlite3_stmt *stmt(struct sqlite_store *ss, enum stmt_id id)
{
	return ss_stmt(ss, id, kexec_sql[id]);
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The statement of a read, or NULL (and 0) on a file without the table. */
static int kexec_query(struct sqlite_store *ss, enum stmt_id id, sqlite3_stmt **st)
{
	bool has;
	int err = ss_schema_has(ss, SCHEMA_KEXEC, &has);

	*st = NULL;
	if (err || !has)
		return err;
	*st = stmt(ss, id);
	return *st ? 0 : ss_prep_err(ss);
}

static const struct col kexec_cols[] = {
	COL(1, COL_TEXT, struct store_kexec, state),
	COL(2, COL_TEXT_OR_NULL, struct store_kexec, reason),
	COL(3, COL_REAL, struct store_kexec, created),
	COL(4, COL_REAL, struct store_kexec, updated),
	COL(5, COL_TEXT, struct store_kexec, testbox),
	COL(6, COL_TEXT_OR_NULL, struct store_kexec, repo),
	COL(7, COL_TEXT, struct store_kexec, sha),
	COL(8, COL_TEXT, struct store_kexec, job_file),
	COL(9, COL_TEXT, struct store_kexec, sets),
	COL(10, COL_TEXT, struct store_kexec, job),
	COL(12, COL_TEXT_OR_NULL, struct store_kexec, kernel),
	COL(13, COL_TEXT, struct store_kexec, release),
	COL(14, COL_TEXT_OR_NULL, struct store_kexec, cmdline),
	COL(16, COL_TEXT_OR_NULL, struct store_kexec, continuation),
};

static int kexec_row(struct sqlite_store *ss, sqlite3_stmt *st, struct store_kexec *k)
{
	char row[64];
	size_t runs;
	int err;

	err = col_id(ss, st, 0, "a kexec boot", &k->id);
	if (err)
		return err;
	snprintf(row, sizeof(row), "kexec boot %lld", (long long)k->id);
	err = ss_read_cols(ss, st, row, kexec_cols, ARRAY_LEN(kexec_cols), k);
	if (!err)
		err = col_count(ss, st, 11, row, &runs);
	if (!err && (runs < 1 || runs > 1000000))
		err = ss_damaged(ss, "%s makes %zu runs", row, runs);
	if (!err)
		k->runs = (unsigned)runs;
	if (!err && sqlite3_column_type(st, 15) != SQLITE_NULL)
		err = col_id(ss, st, 15, row, &k->run_id);
	return err;
}

/* One row; *ctx the id of the row before it (0 for none): ids rise. */
static int kexec_next_row(struct sqlite_store *ss, sqlite3_stmt *st, void *ctx, void *elem)
{
	struct store_kexec *k = elem;
	int64_t *prev = ctx;
	int err = kexec_row(ss, st, k);

	if (!err && k->id <= *prev)
		err = ss_damaged(ss, "kexec boot %lld is held twice", (long long)k->id);
	*prev = k->id;
	return err;
}

static void release_kexecs(void *v, size_t n)
{
	store_kexecs_release(v, n);
}

/* Every row st selects into *out, *nr, in the order selected (ids rising). */
static int read_kexecs(struct sqlite_store *ss, sqlite3_stmt *st, const char *what,
		       struct store_kexec **out, size_t *nr)
{
	int64_t prev = 0;

	return ss_read_rows(ss, st, sizeof(**out), kexec_next_row, &prev, release_kexecs, what,
			    (void **)out, nr);
}

/* The one row st selects into *out; -ENOENT (no message) when none. */
static int read_one(struct sqlite_store *ss, sqlite3_stmt *st, const char *what,
		    const char *twice, struct store_kexec *out)
{
	struct store_kexec *v;
	size_t n;
	int err = read_kexecs(ss, st, what, &v, &n);

	if (err)
		return err;
	if (!n) {
		free(v);
		return -ENOENT;
	}
	if (n > 1) {
		store_kexecs_release(v, n);
		return ss_damaged(ss, "%s", twice);
	}
	*out = v[0];
	free(v);
	return 0;
}

int sqlite_kexec_add(struct store *s, struct store_kexec *k)
{
	struct sqlite_store *ss = to_ss(s);
	struct store_kexec active = { 0 };
	sqlite3_stmt *st;
	char twice[300];
	double now;
	int64_t id;
	int err;

	err = ss_check_writer(ss);
	if (err)
		return err;
	st = stmt(ss, ST_KEXEC_ACTIVE);
	if (!st)
		return ss_prep_err(ss);
	err = ss_begin(ss, true);
	if (err)
		return err;
	/* one active boot per test box: looked for under the lock */
	ss_bind_text(st, 1, k->testbox);
	snprintf(twice, sizeof(twice), "test box %.200s has two active kexec boots", k->testbox);
	err = read_one(ss, st, "cannot look for the active kexec boot", twice, &active);
	if (!err) {
		ss_rollback(ss);
		k->id = active.id;
		err = store_fail(s, -EEXIST, "test box %s already has kexec boot %lld (%s)",
				 k->testbox, (long long)active.id, active.state);
		store_kexec_release(&active);
		return err;
	}
	if (err != -ENOENT)
		goto fail;
	st = stmt(ss, ST_KEXEC_ADD);
	if (!st) {
		err = ss_prep_err(ss);
		goto fail;
	}
	now = wall_now();
	ss_bind_text(st, 1, k->state);
	ss_bind_text(st, 2, k->reason);
	sqlite3_bind_double(st, 3, now);
	ss_bind_text(st, 4, k->testbox);
	ss_bind_text(st, 5, k->repo);
	ss_bind_text(st, 6, k->sha);
	ss_bind_text(st, 7, k->job_file);
	ss_bind_text(st, 8, k->sets);
	ss_bind_text(st, 9, k->job);
	sqlite3_bind_int64(st, 10, k->runs);
	ss_bind_text(st, 11, k->kernel);
	ss_bind_text(st, 12, k->release);
	ss_bind_text(st, 13, k->cmdline);
	if (k->run_id)
		sqlite3_bind_int64(st, 14, k->run_id);
	else
		sqlite3_bind_null(st, 14);
	ss_bind_text(st, 15, k->continuation);
	err = ss_insert(ss, st, "a kexec boot", &id);
	if (!err)
		err = ss_commit(ss, "cannot commit a kexec boot");
	if (err)
		goto fail;
	k->id = id;
	k->created = k->updated = now;
	return 0;
fail:
	ss_rollback(ss);
	return err;
}

int sqlite_kexec_update(struct store *s, const struct store_kexec *k, const char *from)
{
	struct sqlite_store *ss = to_ss(s);
	struct store_kexec now = { 0 };
	sqlite3_stmt *st;
	int rc, err;

	err = ss_check_writer(ss);
	if (err)
		return err;
	st = stmt(ss, ST_KEXEC_UPDATE);
	if (!st)
		return ss_prep_err(ss);
	sqlite3_bind_int64(st, 1, k->id);
	ss_bind_text(st, 2, k->state);
	ss_bind_text(st, 3, k->reason);
	ss_bind_text(st, 4, k->kernel);
	ss_bind_text(st, 5, k->cmdline);
	if (k->run_id)
		sqlite3_bind_int64(st, 6, k->run_id);
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_double(st, 7, wall_now());
	ss_bind_text(st, 8, from);
	rc = sqlite3_step(st);
	ss_done(st);
	if (rc != SQLITE_DONE)
		return ss_db_fail(ss, rc, "cannot update a kexec boot");
	if (sqlite3_changes(ss->db))
		return 0;
	/* nothing written: say why */
	err = sqlite_kexec_get(s, k->id, &now);
	if (err)
		return err;
	err = store_fail(s, -EAGAIN, "kexec boot %lld is %s, not %s", (long long)k->id,
			 now.state, from);
	store_kexec_release(&now);
	return err;
}

int sqlite_kexec_get(struct store *s, int64_t id, struct store_kexec *out)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	char twice[64];
	int err = kexec_query(ss, ST_KEXEC_GET, &st);

	if (err)
		return err;
	if (st)
		sqlite3_bind_int64(st, 1, id);
	snprintf(twice, sizeof(twice), "kexec boot %lld is held twice", (long long)id);
	err = read_one(ss, st, "cannot read a kexec boot", twice, out);
	return err == -ENOENT ? store_fail(s, err, "no kexec boot %lld in %s", (long long)id,
					   ss->path)
			      : err;
}

int sqlite_kexec_active(struct store *s, const char *testbox, struct store_kexec *out)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	char twice[300];
	int err = kexec_query(ss, ST_KEXEC_ACTIVE, &st);

	if (err)
		return err;
	if (st)
		ss_bind_text(st, 1, testbox);
	snprintf(twice, sizeof(twice), "test box %.200s has two active kexec boots", testbox);
	return read_one(ss, st, "cannot look for the active kexec boot", twice, out);
}

int sqlite_kexec_list(struct store *s, struct store_kexec **out, size_t *nr)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int err = kexec_query(ss, ST_KEXEC_LIST, &st);

	if (err)
		return err;
	return read_kexecs(ss, st, "cannot list the kexec boots", out, nr);
}
