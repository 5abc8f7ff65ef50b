/*
 * pg_kexec.c - the kexec boots in the PostgreSQL backend (boot: kexec,
 * store.h's last section): one row per boot in kexec_boot, the same
 * behaviour and messages as sqlite_kexec.c.
 *
 * One active boot per test box: the partial unique index
 * kexec_boot_active keeps the rule for every writer; an add is one
 * INSERT ... SELECT that writes nothing when the box has an active boot
 * (NOT EXISTS, for a boot added in any state) or when a concurrent add
 * of an active boot wins the index (ON CONFLICT DO NOTHING waits for it,
 * then skips).  When nothing was written a second read names the active
 * boot; if that one ended meanwhile, the add tries again.
 *
 * An update is one UPDATE ... WHERE state = from: a compare-and-set, so
 * a transition happens once however many processes try it (a concurrent
 * one waits for the row, then sees the new state and writes nothing);
 * when it wrote nothing, a read says why.
 *
 * A reader of a database from before the table (schema 6) finds no
 * boots.  Times are the server's (PG_NOW, as pg_watch.c's).
 */
#define _GNU_SOURCE
#include "store/pg_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first schema version with kexec_boot (pg_schema.c). */
#define PG_SCHEMA_KEXEC 6

/* How often an add tries again when the active boot it met ended meanwhile. */
#define PG_KEXEC_TRIES 100

#define KEXEC_COLS \
	"id, state, reason, created, updated, testbox, repo, sha, job_file, sets," \
	" job, runs, kernel, release, cmdline, run_id, continuation"
#define KEXEC_ACTIVE_STATES "('built', 'booting', 'running', 'stored')"

static const struct pg_col kexec_cols[] = {
	PG_COL(1, PG_TEXT, struct store_kexec, state),
	PG_COL(2, PG_TEXT_OR_NULL, struct store_kexec, reason),
	PG_COL(3, PG_REAL, struct store_kexec, created),
	PG_COL(4, PG_REAL, struct store_kexec, updated),
	PG_COL(5, PG_TEXT, struct store_kexec, testbox),
	PG_COL(6, PG_TEXT_OR_NULL, struct store_kexec, repo),
	PG_COL(7, PG_TEXT, struct store_kexec, sha),
	PG_COL(8, PG_TEXT, struct store_kexec, job_file),
	PG_COL(9, PG_TEXT, struct store_kexec, sets),
	PG_COL(10, PG_TEXT, struct store_kexec, job),
	PG_COL(12, PG_TEXT_OR_NULL, struct store_kexec, kernel),
	PG_COL(13, PG_TEXT, struct store_kexec, release),
	PG_COL(14, PG_TEXT_OR_NULL, struct store_kexec, cmdline),
	PG_COL(15, PG_REF, struct store_kexec, run_id),
	PG_COL(16, PG_TEXT_OR_NULL, struct store_kexec, continuation),
};

/* One row of KEXEC_COLS; ctx is the id of the row before (ids rise). */
static int kexec_row(struct pg_store *ps, const PGresult *res, int row, void *ctx,
		     void *elem)
{
	struct store_kexec *k = elem;
	char name[PG_ROW_NAME];
	int64_t runs;
	int err = pg_row_id(ps, res, row, "kexec boot", ctx, &k->id, name);

	if (err)
		return err;
	err = pg_read_cols(ps, res, row, name, kexec_cols, PG_ARRAY_LEN(kexec_cols), k);
	if (!err)
		err = pg_col_int64(ps, res, row, 11, 1, 1000000, "the runs of a kexec boot",
				   &runs);
	if (!err)
		k->runs = (unsigned)runs;
	return err;
}

static void release_kexecs(void *v, size_t n)
{
	store_kexecs_release(v, n);
}

/* Every row sql selects, in its order; none on a database without the table. */
static int read_kexecs(struct pg_store *ps, const char *what, const char *sql, int n,
		       const char *const *params, struct store_kexec **out, size_t *nr)
{
	PGresult *res = NULL;
	int64_t prev = 0;
	bool has;
	int err = pg_schema_has(ps, PG_SCHEMA_KEXEC, &has);

	*out = NULL;
	*nr = 0;
	if (err || !has)
		return err;
	err = pg_exec(ps, what, sql, n, params, &res);
	if (!err)
		err = pg_read_rows(ps, res, sizeof(**out), kexec_row, &prev, release_kexecs,
				   (void **)out, nr);
	PQclear(res);
	return err;
}

/* The one row sql selects into *out; -ENOENT (no message) when none. */
static int read_one(struct pg_store *ps, const char *what, const char *sql,
		    const char *param, const char *twice, struct store_kexec *out)
{
	const char *params[] = { param };
	struct store_kexec *v;
	size_t n;
	int err = read_kexecs(ps, what, sql, 1, params, &v, &n);

	if (err)
		return err;
	if (!n)
		return -ENOENT;
	if (n > 1) {
		store_kexecs_release(v, n);
		return pg_damaged(ps, "%s", twice);
	}
	*out = v[0];
	free(v);
	return 0;
}

int pg_kexec_add(struct store *s, struct store_kexec *k)
{
	struct pg_store *ps = to_ps(s);
	char runs[PG_INT_BUF], run_id[PG_INT_BUF];
	const char *params[] = {
		k->state, k->reason, k->testbox, k->repo, k->sha, k->job_file, k->sets,
		k->job, pg_int_param(runs, k->runs), k->kernel, k->release, k->cmdline,
		k->run_id ? pg_int_param(run_id, k->run_id) : NULL, k->continuation,
	};
	int err = pg_check_writer(ps);

	if (err)
		return err;
	for (int tries = 0; tries < PG_KEXEC_TRIES; tries++) {
		struct store_kexec active = { 0 };
		PGresult *res;

		err = pg_exec(ps, "cannot store a kexec boot",
			      "INSERT INTO kexec_boot (state, reason, created, updated, testbox,"
			      " repo, sha, job_file, sets, job, runs, kernel, release, cmdline,"
			      " run_id, continuation)"
			      " SELECT $1, $2, t, t, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,"
			      "  $13, $14 FROM (SELECT " PG_NOW " AS t) now"
			      " WHERE NOT EXISTS (SELECT 1 FROM kexec_boot WHERE testbox = $3"
			      "  AND state IN " KEXEC_ACTIVE_STATES ")"
			      " ON CONFLICT (testbox) WHERE state IN " KEXEC_ACTIVE_STATES
			      " DO NOTHING RETURNING id, created",
			      14, params, &res);
		if (err)
			return err;
		if (PQntuples(res) == 1) {
			int64_t id;

			err = pg_col_int64(ps, res, 0, 0, 1, INT64_MAX, "a new kexec boot's id",
					   &id);
			if (!err)
				err = pg_col_real(ps, res, 0, 1, false, "a new kexec boot's time",
						  &k->created);
			PQclear(res);
			if (err)
				return err;
			k->id = id;
			k->updated = k->created;
			return 0;
		}
		PQclear(res);
		/* the test box has an active boot: which one */
		err = pg_kexec_active(s, k->testbox, &active);
		if (!err) {
			k->id = active.id;
			err = store_fail(s, -EEXIST,
					 "test box %s already has kexec boot %" PRId64 " (%s)",
					 k->testbox, active.id, active.state);
			store_kexec_release(&active);
			return err;
		}
		if (err != -ENOENT)
			return err;
		/* it ended meanwhile: try again */
	}
	return store_fail(s, -EAGAIN, "%s: cannot store a kexec boot of test box %s:"
			  " its active boot came and went %d times", ps->shown, k->testbox,
			  PG_KEXEC_TRIES);
}

int pg_kexec_update(struct store *s, const struct store_kexec *k, const char *from)
{
	struct pg_store *ps = to_ps(s);
	char id[PG_INT_BUF], run_id[PG_INT_BUF];
	const char *params[] = {
		pg_int_param(id, k->id), k->state, k->reason, k->kernel, k->cmdline,
		k->run_id ? pg_int_param(run_id, k->run_id) : NULL, from,
	};
	struct store_kexec now = { 0 };
	bool changed;
	int err = pg_update(ps, "cannot update a kexec boot",
			    "UPDATE kexec_boot SET state = $2, reason = $3, kernel = $4,"
			    " cmdline = $5, run_id = $6, updated = " PG_NOW
			    " WHERE id = $1 AND state = $7",
			    7, params, &changed);

	if (err || changed)
		return err;
	/* nothing written: say why */
	err = pg_kexec_get(s, k->id, &now);
	if (err)
		return err;
	err = store_fail(s, -EAGAIN, "kexec boot %" PRId64 " is %s, not %s", k->id,
			 now.state, from);
	store_kexec_release(&now);
	return err;
}

int pg_kexec_get(struct store *s, int64_t id, struct store_kexec *out)
{
	struct pg_store *ps = to_ps(s);
	char idbuf[PG_INT_BUF], twice[64];
	int err;

	snprintf(twice, sizeof(twice), "kexec boot %" PRId64 " is held twice", id);
	err = read_one(ps, "cannot read a kexec boot",
		       "SELECT " KEXEC_COLS " FROM kexec_boot WHERE id = $1",
		       pg_int_param(idbuf, id), twice, out);
	return err == -ENOENT ? store_fail(s, err, "no kexec boot %" PRId64 " in %s", id,
					   ps->shown)
			      : err;
}

int pg_kexec_active(struct store *s, const char *testbox, struct store_kexec *out)
{
	struct pg_store *ps = to_ps(s);
	char twice[300];

	snprintf(twice, sizeof(twice), "test box %.200s has two active kexec boots", testbox);
	return read_one(ps, "cannot look for the active kexec boot",
			"SELECT " KEXEC_COLS " FROM kexec_boot WHERE testbox = $1"
			" AND state IN " KEXEC_ACTIVE_STATES " ORDER BY id",
			testbox, twice, out);
}

int pg_kexec_list(struct store *s, struct store_kexec **out, size_t *nr)
{
	return read_kexecs(to_ps(s), "cannot list the kexec boots",
			   "SELECT " KEXEC_COLS " FROM kexec_boot ORDER BY id", 0, NULL,
			   out, nr);
}
