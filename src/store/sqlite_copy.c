/*
 * sqlite_copy.c - what `perfbot db copy` reads of an SQLite store beyond
 * the runs themselves (docs/store.md "Copying a history"): every run's
 * origin and import hash in one query, and the meta table's entries
 * (the store's id).  The copy's writes are sqlite_runs.c's put_runs.
 */
#include "store/sqlite_internal.h"

#include <errno.h>
#include <stdlib.h>

static const char *const copy_sql[NR_STMTS] = {
	/* one pass over runs; the env and import rows are found by their keys */
	[ST_RUN_REFS] =
		"SELECT r.id, e.value, i.sha256 FROM runs r"
		" LEFT JOIN run_env e ON e.run_id = r.id AND e.key = ?1"
		" LEFT JOIN run_import i ON i.run_id = r.id ORDER BY r.id",
	/* a file from before the import hashes (schema 4) */
	[ST_RUN_REFS_NO_IMPORT] =
		"SELECT r.id, e.value, NULL FROM runs r"
		" LEFT JOIN run_env e ON e.run_id = r.id AND e.key = ?1 ORDER BY r.id",
	[ST_COPY_META_GET] = "SELECT value FROM meta WHERE key = ?1",
	/* OR IGNORE: of two writers adding one key, the first's stays */
	[ST_COPY_META_ADD] = "INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)",
};

static sqlite3_stmt *stmt(struct sqlite_store *ss, enum stmt_id id)
{
	return ss_stmt(ss, id, copy_sql[id]);
}


int sqlite_run_refs(struct store *s, struct store_run_ref **out, size_t *nr)
{
	struct sqlite_store *ss = to_ss(s);
	struct store_run_ref *v = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st;
	bool has_import = false;
	int rc, err = ss_schema_has(ss, SCHEMA_IMPORT, &has_import);

	if (err)
		return err;
	st = stmt(ss, has_import ? ST_RUN_REFS : ST_RUN_REFS_NO_IMPORT);
	if (!st)
		return ss_prep_err(ss);
	sqlite3_bind_text(st, 1, STORE_ORIGIN_KEY, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		static const struct col cols[] = {
			COL(0, COL_ID, struct store_run_ref, id),
			COL(1, COL_TEXT_OR_NULL, struct store_run_ref, origin),
			COL(2, COL_TEXT_OR_NULL, struct store_run_ref, sha256),
		};

		if (n == cap) {
			size_t c = cap ? 2 * cap : 256;
			struct store_run_ref *g = realloc(v, c * sizeof(*v));

			if (!g) {
				err = store_fail(s, -ENOMEM, "out of memory");
				break;
			}
			v = g;
			cap = c;
		}
		v[n] = (struct store_run_ref){ 0 };
		err = ss_read_cols(ss, st, "a run", cols, ARRAY_LEN(cols), &v[n]);
		n++;
		/* the key orders them: a run listed twice is a damaged index */
		if (!err && n > 1 && v[n - 1].id <= v[n - 2].id)
			err = ss_damaged(ss, "run %lld is listed twice", (long long)v[n - 1].id);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, "cannot list the runs");
	ss_done(st);
	if (err) {
		store_run_refs_release(v, n);
		return err;
	}
	*out = v;
	*nr = n;
	return 0;
}

int sqlite_meta_get(struct store *s, const char *key, char **value)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st = stmt(ss, ST_COPY_META_GET);
	int rc, err = 0;

	*value = NULL;
	if (!st)
		return ss_prep_err(ss);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		err = col_text(ss, st, 0, false, "the meta table", value);
	else if (rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, "cannot read the meta table");
	ss_done(st);
	return err;
}

int sqlite_meta_add(struct store *s, const char *key, const char *value)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int err = ss_check_writer(ss);

	if (err)
		return err;
	st = stmt(ss, ST_COPY_META_ADD);
	if (!st)
		return ss_prep_err(ss);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	return ss_insert(ss, st, "the meta table", NULL);
}
