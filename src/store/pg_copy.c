/*
 * pg_copy.c - what `perfbot db copy` reads of a PostgreSQL store beyond
 * the runs themselves (docs/store.md "Copying a history"): every run's
 * origin and import hash in one query, and the meta table's entries
 * (the store's id).  The copy's writes are pg_runs.c's put_runs.
 * Mirrors sqlite_copy.c.
 */
#include "store/pg_internal.h"

#include <inttypes.h>
#include <stdlib.h>

static int ref_row(struct pg_store *ps, const PGresult *res, int row, void *ctx,
		   void *elem)
{
	static const struct pg_col cols[] = {
		PG_COL(0, PG_ID, struct store_run_ref, id),
		PG_COL(1, PG_TEXT_OR_NULL, struct store_run_ref, origin),
		PG_COL(2, PG_TEXT_OR_NULL, struct store_run_ref, sha256),
	};
	struct store_run_ref *r = elem;
	int64_t *prev = ctx;
	int err = pg_read_cols(ps, res, row, "a run", cols, PG_ARRAY_LEN(cols), r);

	/* the key orders them: a run listed twice is damage */
	if (!err && r->id <= *prev)
		err = pg_damaged(ps, "run %" PRId64 " is listed twice", r->id);
	*prev = r->id;
	return err;
}

static void refs_release(void *v, size_t n)
{
	store_run_refs_release(v, n);
}

int pg_run_refs(struct store *s, struct store_run_ref **out, size_t *nr)
{
	struct pg_store *ps = to_ps(s);
	const char *params[] = { STORE_ORIGIN_KEY };
	PGresult *res = NULL;
	int64_t prev = 0;
	/* one statement, one snapshot; the env and import rows found by their keys */
	int err = pg_exec(ps, "cannot list the runs",
			  ps->version < PG_SCHEMA_IMPORT ?
			  "SELECT r.id, e.value, NULL::text FROM runs r"
			  " LEFT JOIN run_env e ON e.run_id = r.id AND e.key = $1 ORDER BY r.id" :
			  "SELECT r.id, e.value, i.sha256 FROM runs r"
			  " LEFT JOIN run_env e ON e.run_id = r.id AND e.key = $1"
			  " LEFT JOIN run_import i ON i.run_id = r.id ORDER BY r.id",
			  1, params, &res);

	if (!err)
		err = pg_read_rows(ps, res, sizeof(**out), ref_row, &prev, refs_release,
				   (void **)out, nr);
	PQclear(res);
	return err;
}

int pg_meta_get(struct store *s, const char *key, char **value)
{
	struct pg_store *ps = to_ps(s);
	const char *params[] = { key };
	PGresult *res = NULL;
	int err = pg_exec(ps, "cannot read the meta table",
			  "SELECT value FROM meta WHERE key = $1", 1, params, &res);

	*value = NULL;
	if (!err && PQntuples(res))
		err = pg_col_text(ps, res, 0, 0, false, "the meta table's value", value);
	PQclear(res);
	return err;
}

int pg_meta_add(struct store *s, const char *key, const char *value)
{
	struct pg_store *ps = to_ps(s);
	const char *params[] = { key, value };
	int err = pg_check_writer(ps);

	/* of two writers adding one key, the first's stays */
	return err ? err : pg_exec(ps, "cannot write the meta table",
				   "INSERT INTO meta (key, value) VALUES ($1, $2)"
				   " ON CONFLICT (key) DO NOTHING", 2, params, NULL);
}
