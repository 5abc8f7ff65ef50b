/*
 * sqlite_runs.c - runs in the SQLite backend: writing one (store_put_run),
 * an imported file's with their content hash (store_put_import), finding
 * an import by its hash, deleting runs, listing the groups, a group's
 * runs, one run in full, resolving a commit (docs/store.md).
 *
 * A run is written in one BEGIN IMMEDIATE transaction.  Stat names are
 * interned through an in-memory name -> id table so a 10,000-stat run
 * costs one insert per value, not a lookup query per name; the table is
 * dropped when a transaction that added names rolls back, since their
 * ids go with it.
 */
#define _GNU_SOURCE
#include "store/sqlite_internal.h"
#include "util/vec.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The groups of runs: BOX the testbox shown, OF which runs (?5: the
 * testbox or the class), BY what else groups them than (job, commit).
 */
#define GROUPS(BOX, OF, BY)                                                        \
	"SELECT " BOX ", job, \"commit\", max(testcase),"                              \
	" sum(status = 'complete'), sum(status = 'failed'),"                          \
	" sum(status = 'incomplete'), sum(status = 'unsupported'),"                   \
	" max(id), max(started), count(*)"                                            \
	" FROM runs"                                                                  \
	" WHERE (?1 IS NULL OR testcase = ?1)"                                        \
	" AND (?2 IS NULL OR \"commit\" = ?2"                                          \
	"      OR (\"commit\" >= ?2 AND (?3 IS NULL OR \"commit\" < ?3)))"              \
	" AND (?4 IS NULL OR job = ?4)"                                               \
	" AND " OF                                                                    \
	" GROUP BY " BY "job, \"commit\""                                              \
	" ORDER BY " BY "job, min(id)"
#define GROUP_RUNS(OF)                                                             \
	"SELECT id FROM runs WHERE " OF " AND job = ?2 AND \"commit\" = ?3"            \
	" ORDER BY started, id"

static const char *const runs_sql[NR_STMTS] = {
	[ST_NAME_GET] = "SELECT id FROM stat_name WHERE name = ?1",
	[ST_NAME_ADD] = "INSERT INTO stat_name (name) VALUES (?1)",
	[ST_RUN_ADD] =
		"INSERT INTO runs (testbox, testcase, job, \"commit\", status,"
		" started, duration_s, job_text)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[ST_PARAM_ADD] =
		"INSERT OR REPLACE INTO run_param (run_id, key, value) VALUES (?1, ?2, ?3)",
	[ST_ENV_ADD] =
		"INSERT OR REPLACE INTO run_env (run_id, key, value) VALUES (?1, ?2, ?3)",
	/* OR REPLACE: an unfinished statmap may hold a name twice, last wins */
	[ST_VALUE_ADD] =
		"INSERT OR REPLACE INTO stat_value (run_id, name_id, value) VALUES (?1, ?2, ?3)",
	/* OR REPLACE: a list built by hand may declare a stat twice, last wins */
	[ST_STAT_META_ADD] =
		"INSERT OR REPLACE INTO run_stat_meta (run_id, name_id, unit, better, kpi)"
		" VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_GROUPS] = GROUPS("testbox", "(?5 IS NULL OR testbox = ?5)", "testbox, "),
	/* a class's runs, of whichever box, as one group a (job, commit) */
	[ST_CLASS_GROUPS] = GROUPS("'" STORE_CLASS_PREFIX "' || ?5",
				   STORE_RUN_OF_CLASS("runs", "?5"), ""),
	[ST_GROUP_RUNS] = GROUP_RUNS("testbox = ?1"),
	[ST_CLASS_GROUP_RUNS] = GROUP_RUNS(STORE_RUN_OF_CLASS("runs", "?1")),
	[ST_RUN_GET] =
		"SELECT testbox, testcase, job, \"commit\", status, started,"
		" duration_s, job_text FROM runs WHERE id = ?1",
	[ST_PARAMS_GET] = "SELECT key, value FROM run_param WHERE run_id = ?1",
	[ST_ENV_GET] = "SELECT key, value FROM run_env WHERE run_id = ?1",
	[ST_STATS_GET] =
		"SELECT n.name, v.value, v.name_id FROM stat_value v"
		" LEFT JOIN stat_name n ON n.id = v.name_id WHERE v.run_id = ?1",
	[ST_STAT_META_GET] =
		"SELECT n.name, m.unit, m.better, m.kpi, m.name_id FROM run_stat_meta m"
		" LEFT JOIN stat_name n ON n.id = m.name_id WHERE m.run_id = ?1",
	[ST_COMMIT_EXACT] = "SELECT 1 FROM runs WHERE \"commit\" = ?1 LIMIT 1",
	[ST_IMPORT_SEEN] = "SELECT 1 FROM run_import WHERE sha256 = ?1 LIMIT 1",
	[ST_IMPORT_ADD] = "INSERT INTO run_import (run_id, sha256) VALUES (?1, ?2)",
	[ST_IMPORT_RUNS] = "SELECT run_id FROM run_import WHERE sha256 = ?1 ORDER BY run_id",
	[ST_RUN_EXISTS] = "SELECT 1 FROM runs WHERE id = ?1",
	[ST_DEL_PARAMS] = "DELETE FROM run_param WHERE run_id = ?1",
	[ST_DEL_ENV] = "DELETE FROM run_env WHERE run_id = ?1",
	[ST_DEL_VALUES] = "DELETE FROM stat_value WHERE run_id = ?1",
	[ST_DEL_STAT_META] = "DELETE FROM run_stat_meta WHERE run_id = ?1",
	[ST_DEL_IMPORT] = "DELETE FROM run_import WHERE run_id = ?1",
	[ST_DEL_RUN] = "DELETE FROM runs WHERE id = ?1",
	[ST_COMMIT_RANGE] =
		"SELECT DISTINCT \"commit\" FROM runs"
		" WHERE \"commit\" >= ?1 AND \"commit\" < ?2"
		" ORDER BY \"commit\" LIMIT 3",
};

static sqlite3_stmt *stmt(struct sqlite_store *ss, enum stmt_id id)
{
	return ss_stmt(ss, id, runs_sql[id]);
}

/* ---- stat names ---- */

static uint64_t hash_name(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

void sqlite_names_clear(struct name_cache *c)
{
	for (size_t i = 0; i < c->cap; i++)
		free(c->slots[i].name);
	free(c->slots);
	memset(c, 0, sizeof(*c));
}

static struct name_slot *names_find(struct name_cache *c, const char *name,
				    uint64_t h)
{
	size_t mask = c->cap - 1;

	if (!c->cap)
		return NULL;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct name_slot *slot = &c->slots[i];

		if (!slot->name || (slot->hash == h && !strcmp(slot->name, name)))
			return slot;
	}
}

static int names_add(struct name_cache *c, const char *name, uint64_t h,
		     int64_t id)
{
	struct name_slot *slot;
	char *copy;

	if ((c->n + 1) * 10 > c->cap * 7) {
		struct name_cache bigger = { .cap = c->cap ? c->cap * 2 : 1024 };

		bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
		if (!bigger.slots)
			return -ENOMEM;
		for (size_t i = 0; i < c->cap; i++) {
			if (!c->slots[i].name)
				continue;
			*names_find(&bigger, c->slots[i].name, c->slots[i].hash) =
				c->slots[i];
		}
		bigger.n = c->n;
		free(c->slots);
		*c = bigger;
	}
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	slot = names_find(c, name, h);
	slot->name = copy;
	slot->hash = h;
	slot->id = id;
	c->n++;
	return 0;
}

static int intern(struct sqlite_store *ss, const char *name, int64_t *id)
{
	uint64_t h = hash_name(name);
	struct name_slot *slot = names_find(&ss->names, name, h);
	sqlite3_stmt *st;
	int rc;

	if (slot && slot->name) {
		*id = slot->id;
		return 0;
	}
	st = stmt(ss, ST_NAME_GET);
	if (!st)
		return ss_prep_err(ss);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	ss_done(st);
	if (rc == SQLITE_DONE) {
		st = stmt(ss, ST_NAME_ADD);
		if (!st)
			return ss_prep_err(ss);
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if ((rc = ss_insert(ss, st, "a stat name", id)))
			return rc;
	} else if (rc != SQLITE_ROW) {
		return ss_db_fail(ss, rc, "cannot look up a stat name");
	}
	if (names_add(&ss->names, name, h, *id))
		return store_fail(&ss->base, -ENOMEM, "out of memory");
	return 0;
}

/* ---- writing ---- */

static int put_strmap(struct sqlite_store *ss, enum stmt_id id, int64_t run_id,
		      const struct strmap *m)
{
	sqlite3_stmt *st = stmt(ss, id);

	if (!st)
		return ss_prep_err(ss);
	for (size_t i = 0; i < m->n; i++) {
		int rc;

		sqlite3_bind_int64(st, 1, run_id);
		ss_bind_text(st, 2, m->v[i].key);
		ss_bind_text(st, 3, m->v[i].value ? m->v[i].value : "");
		rc = sqlite3_step(st);
		ss_done(st);
		if (rc != SQLITE_DONE)
			return ss_db_fail(ss, rc, id == ST_ENV_ADD ? "cannot store the environment"
								   : "cannot store the parameters");
	}
	return 0;
}

static int bind_value(sqlite3_stmt *st, int i, double v)
{
	/* SQLite would store NaN as NULL anyway; say so explicitly */
	return isnan(v) ? sqlite3_bind_null(st, i) : sqlite3_bind_double(st, i, v);
}

static int put_stats(struct sqlite_store *ss, int64_t run_id,
		     const struct statmap *m)
{
	for (size_t i = 0; i < m->n; i++) {
		sqlite3_stmt *st;
		int64_t name_id = 0;
		int rc, err;

		err = intern(ss, m->v[i].name, &name_id);
		if (err)
			return err;
		st = stmt(ss, ST_VALUE_ADD);
		if (!st)
			return ss_prep_err(ss);
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, name_id);
		bind_value(st, 3, m->v[i].value);
		rc = sqlite3_step(st);
		ss_done(st);
		if (rc != SQLITE_DONE)
			return ss_db_fail(ss, rc, "cannot store a stat");
	}
	return 0;
}

static int put_meta(struct sqlite_store *ss, int64_t run_id,
		    const struct stat_meta_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct stat_meta *m = &l->v[i];
		sqlite3_stmt *st;
		int64_t name_id = 0;
		int rc, err;

		err = intern(ss, m->name, &name_id);
		if (err)
			return err;
		st = stmt(ss, ST_STAT_META_ADD);
		if (!st)
			return ss_prep_err(ss);
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, name_id);
		ss_bind_text(st, 3, m->unit ? m->unit : "");
		sqlite3_bind_int(st, 4, m->better);
		sqlite3_bind_int(st, 5, m->kpi);
		rc = sqlite3_step(st);
		ss_done(st);
		if (rc != SQLITE_DONE)
			return ss_db_fail(ss, rc, "cannot store a stat's declaration");
	}
	return 0;
}

/* One run's rows, inside the caller's write transaction. */
static int put_one(struct sqlite_store *ss, const struct run_record *r, int64_t *run_id)
{
	sqlite3_stmt *st;
	int64_t id;
	int err;

	if (!r->testbox || !r->testcase || !r->job || !r->commit)
		return store_fail(&ss->base, -EINVAL,
				  "a run needs a testbox, testcase, job and commit");
	st = stmt(ss, ST_RUN_ADD);
	if (!st)
		return ss_prep_err(ss);
	ss_bind_text(st, 1, r->testbox);
	ss_bind_text(st, 2, r->testcase);
	ss_bind_text(st, 3, r->job);
	ss_bind_text(st, 4, r->commit);
	ss_bind_text(st, 5, run_status_name(r->status));
	sqlite3_bind_double(st, 6, isfinite(r->started) ? r->started : 0);
	sqlite3_bind_double(st, 7, isfinite(r->duration_s) ? r->duration_s : 0);
	ss_bind_text(st, 8, r->job_text);
	err = ss_insert(ss, st, "the run", &id);
	if (err)
		return err;

	err = put_strmap(ss, ST_PARAM_ADD, id, &r->params);
	if (!err)
		err = put_strmap(ss, ST_ENV_ADD, id, &r->env);
	if (!err)
		err = put_stats(ss, id, &r->stats);
	if (!err)
		err = put_meta(ss, id, &r->meta);
	if (!err)
		*run_id = id;
	return err;
}

/* Roll back a failed write; names added in it no longer exist. */
static int put_failed(struct sqlite_store *ss, size_t names_before, int err)
{
	ss_rollback(ss);
	if (ss->names.n != names_before)
		sqlite_names_clear(&ss->names);
	return err;
}

int sqlite_put_run(struct store *s, const struct run_record *r, int64_t *run_id)
{
	struct sqlite_store *ss = to_ss(s);
	size_t names_before = ss->names.n;
	int64_t id = 0;
	int err;

	if (!r->testbox || !r->testcase || !r->job || !r->commit)
		return store_fail(s, -EINVAL, "a run needs a testbox, testcase, job and commit");
	err = ss_check_writer(ss);
	if (err)
		return err;
	err = ss_begin(ss, true);
	if (err)
		return err;
	err = put_one(ss, r, &id);
	if (!err)
		err = ss_commit(ss, "cannot commit the run");
	if (err)
		return put_failed(ss, names_before, err);
	if (run_id)
		*run_id = id;
	return 0;
}

/* ---- imports ---- */

/* Whether a stored run was imported from content with this hash. */
static int import_seen(struct sqlite_store *ss, const char *sha256, bool *seen)
{
	sqlite3_stmt *st = stmt(ss, ST_IMPORT_SEEN);
	int rc;

	if (!st)
		return ss_prep_err(ss);
	ss_bind_text(st, 1, sha256);
	rc = sqlite3_step(st);
	ss_done(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ss_db_fail(ss, rc, "cannot look up the imports");
	*seen = rc == SQLITE_ROW;
	return 0;
}

/*
 * Runs in the caller's write transaction, each with its import hash:
 * hashes[i], else one (both may be NULL: none).
 */
static int put_batch(struct sqlite_store *ss, const struct run_record *runs, size_t nr,
		     const char *one, const char *const *hashes, int64_t *ids)
{
	int err = 0;

	for (size_t i = 0; !err && i < nr; i++) {
		const char *sha256 = hashes ? hashes[i] : one;
		sqlite3_stmt *st;
		int64_t id = 0;
		int rc;

		err = put_one(ss, &runs[i], &id);
		if (err)
			break;
		if (ids)
			ids[i] = id;
		if (!sha256)
			continue;
		st = stmt(ss, ST_IMPORT_ADD);
		if (!st)
			return ss_prep_err(ss);
		sqlite3_bind_int64(st, 1, id);
		ss_bind_text(st, 2, sha256);
		rc = sqlite3_step(st);
		ss_done(st);
		if (rc != SQLITE_DONE)
			err = ss_db_fail(ss, rc, "cannot store the import's hash");
	}
	return err;
}

int sqlite_put_import(struct store *s, const struct run_record *runs, size_t nr,
		      const char *sha256, bool once, int64_t *ids)
{
	struct sqlite_store *ss = to_ss(s);
	size_t names_before = ss->names.n;
	bool seen = false;
	int err;

	err = ss_check_writer(ss);
	if (err)
		return err;
	err = ss_begin(ss, true);
	if (err)
		return err;
	/* under the write lock: another import of the file cannot slip in */
	if (once && !(err = import_seen(ss, sha256, &seen)) && seen)
		err = store_fail(s, -EEXIST, "content with SHA-256 %s was imported already",
				 sha256);
	if (!err)
		err = put_batch(ss, runs, nr, sha256, NULL, ids);
	if (!err)
		err = ss_commit(ss, "cannot commit the import");
	if (err)
		return put_failed(ss, names_before, err);
	return 0;
}

/* db copy's batch: one transaction, so a copy cut off resumes at a batch. */
int sqlite_put_runs(struct store *s, const struct run_record *runs, size_t nr,
		    const char *const *sha256, int64_t *ids)
{
	struct sqlite_store *ss = to_ss(s);
	size_t names_before = ss->names.n;
	int err = ss_check_writer(ss);

	if (!err)
		err = ss_begin(ss, true);
	if (err)
		return err;
	err = put_batch(ss, runs, nr, NULL, sha256, ids);
	if (!err)
		err = ss_commit(ss, "cannot commit the runs");
	if (err)
		return put_failed(ss, names_before, err);
	return 0;
}

int sqlite_import_runs(struct store *s, const char *sha256, int64_t **ids,
		       size_t *nr)
{
	struct sqlite_store *ss = to_ss(s);
	struct id_vec found = { 0 };
	sqlite3_stmt *st;
	bool has = false;
	int rc, err = ss_schema_has(ss, SCHEMA_IMPORT, &has);

	/* a file from before the hashes were kept remembers no import */
	if (err || !has)
		return err;
	st = stmt(ss, ST_IMPORT_RUNS);
	if (!st)
		return ss_prep_err(ss);
	ss_bind_text(st, 1, sha256);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id;

		err = col_id(ss, st, 0, "an import", &id);
		if (!err && found.n && id <= found.v[found.n - 1])
			err = ss_damaged(ss, "run %lld has two import hashes", (long long)id);
		if (!err && vec_push(&found, id))
			err = store_fail(s, -ENOMEM, "out of memory");
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, "cannot look up the imports");
	ss_done(st);
	if (err) {
		vec_free(&found);
		return err;
	}
	*ids = found.v;
	*nr = found.n;
	return 0;
}

/* ---- deleting ---- */

/* Every table that holds rows of a run, the run itself last. */
static const enum stmt_id run_tables[] = {
	ST_DEL_PARAMS, ST_DEL_ENV, ST_DEL_VALUES, ST_DEL_STAT_META, ST_DEL_IMPORT,
	ST_DEL_RUN,
};

static int delete_one(struct sqlite_store *ss, int64_t id)
{
	sqlite3_stmt *st = stmt(ss, ST_RUN_EXISTS);
	int rc;

	if (!st)
		return ss_prep_err(ss);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	ss_done(st);
	if (rc == SQLITE_DONE)
		return store_fail(&ss->base, -ENOENT, "no run %lld in %s", (long long)id,
				  ss->path);
	if (rc != SQLITE_ROW)
		return ss_db_fail(ss, rc, "cannot look up a run");
	/*
	 * Each table by name rather than through ON DELETE CASCADE: a file
	 * rebuilt without the foreign keys (docs/store.md) would keep rows of
	 * a run that no longer exists, and a new run never takes its id.
	 */
	for (size_t t = 0; t < ARRAY_LEN(run_tables); t++) {
		st = stmt(ss, run_tables[t]);
		if (!st)
			return ss_prep_err(ss);
		sqlite3_bind_int64(st, 1, id);
		rc = sqlite3_step(st);
		ss_done(st);
		if (rc != SQLITE_DONE)
			return ss_db_fail(ss, rc, "cannot delete a run");
	}
	return 0;
}

int sqlite_delete_runs(struct store *s, const int64_t *ids, size_t nr)
{
	struct sqlite_store *ss = to_ss(s);
	int err = ss_check_writer(ss);

	if (err)
		return err;
	err = ss_begin(ss, true);
	if (err)
		return err;
	for (size_t i = 0; !err && i < nr; i++) {
		bool again = false;

		/* an id given twice: its run is gone already, not unknown */
		for (size_t j = 0; j < i && !again; j++)
			again = ids[j] == ids[i];
		if (!again)
			err = delete_one(ss, ids[i]);
	}
	if (!err)
		err = ss_commit(ss, "cannot commit the deletion");
	if (err) {
		ss_rollback(ss);
		return err;
	}
	return 0;
}

/* ---- listing ---- */

/*
 * The exclusive upper bound of the strings that begin with prefix (its
 * last byte incremented), or NULL when there is none (all 0xff).
 */
static char *prefix_end(const char *prefix)
{
	char *end = strdup(prefix);
	size_t n;

	if (!end)
		return NULL;
	n = strlen(end);
	while (n && (unsigned char)end[n - 1] == 0xff)
		end[--n] = '\0';
	if (!n) {
		free(end);
		return NULL;
	}
	end[n - 1]++;
	return end;
}

/* ST_GROUPS's columns; the last, count(*), is checked against the sums. */
static const struct col group_cols[] = {
	COL(0, COL_TEXT, struct store_group, testbox),
	COL(1, COL_TEXT, struct store_group, job),
	COL(2, COL_TEXT, struct store_group, commit),
	COL(3, COL_TEXT, struct store_group, testcase),
	{ 4, COL_COUNT, offsetof(struct store_group, runs_complete), "a group", 0, 0 },
	{ 5, COL_COUNT, offsetof(struct store_group, runs_failed), "a group", 0, 0 },
	{ 6, COL_COUNT, offsetof(struct store_group, runs_incomplete), "a group", 0, 0 },
	{ 7, COL_COUNT, offsetof(struct store_group, runs_unsupported), "a group", 0, 0 },
	COL(8, COL_ID, struct store_group, last_run_id),
	COL(9, COL_REAL, struct store_group, last_started),
};

int sqlite_list_groups(struct store *s, const struct store_filter *f,
		       struct store_group **groups, size_t *nr)
{
	struct sqlite_store *ss = to_ss(s);
	const char *cls = store_selector_class(f->testbox);
	sqlite3_stmt *st = stmt(ss, cls ? ST_CLASS_GROUPS : ST_GROUPS);
	struct { struct store_group *v; size_t n, cap; } g = { 0 };
	char *commit_end = NULL;
	int rc, err = 0;

	if (!st)
		return ss_prep_err(ss);
	if (f->commit && *f->commit && !(commit_end = prefix_end(f->commit)) &&
	    strspn(f->commit, "\xff") != strlen(f->commit))
		return store_fail(s, -ENOMEM, "out of memory");
	ss_bind_text(st, 1, f->testcase);
	ss_bind_text(st, 2, f->commit);
	ss_bind_text(st, 3, commit_end);
	ss_bind_text(st, 4, f->job);
	ss_bind_text(st, 5, cls ? cls : f->testbox);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_group *one = vec_push_zero(&g);

		if (!one) {
			err = store_fail(s, -ENOMEM, "out of memory");
			goto out;
		}
		err = ss_read_cols(ss, st, "a run", group_cols, ARRAY_LEN(group_cols),
				   one);
		if (!err && one->runs_complete + one->runs_failed + one->runs_incomplete +
				    one->runs_unsupported !=
			    (size_t)sqlite3_column_int64(st, 10))
			err = ss_damaged(ss, "a run of %s on %s has an unknown status",
					 one->job, one->testbox);
		if (err)
			goto out;
	}
	if (rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, "cannot list the runs");
out:
	ss_done(st);
	free(commit_end);
	if (err) {
		store_groups_release(g.v, g.n);
		return err;
	}
	*groups = g.v;
	*nr = g.n;
	return 0;
}

int sqlite_group_ids(struct sqlite_store *ss, sqlite3_stmt *st,
		     const char *testbox, const char *job, const char *commit,
		     bool by_id, struct id_vec *ids)
{
	const char *cls = store_selector_class(testbox);
	int rc, err = 0;

	ss_bind_text(st, 1, cls ? cls : testbox);
	ss_bind_text(st, 2, job);
	ss_bind_text(st, 3, commit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id;

		err = col_id(ss, st, 0, "a run", &id);
		/* ORDER BY id: a run met twice would give its values twice */
		if (!err && by_id && ids->n && id <= ids->v[ids->n - 1])
			err = ss_damaged(ss, "run %lld is listed twice", (long long)id);
		if (!err && vec_push(ids, id))
			err = store_fail(&ss->base, -ENOMEM, "out of memory");
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, "cannot list the runs");
	ss_done(st);
	return err;
}

int sqlite_group_runs(struct store *s, const char *testbox, const char *job,
		      const char *commit, int64_t **ids, size_t *nr)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st = stmt(ss, store_selector_class(testbox) ? ST_CLASS_GROUP_RUNS
								  : ST_GROUP_RUNS);
	struct id_vec runs = { 0 };
	int err;

	if (!st)
		return ss_prep_err(ss);
	err = sqlite_group_ids(ss, st, testbox, job, commit, false, &runs);
	if (err) {
		vec_free(&runs);
		return err;
	}
	*ids = runs.v;
	*nr = runs.n;
	return 0;
}

/* ---- one run ---- */

/* A key and its value, as run_param and run_env hold them. */
struct kv {
	char *key, *value;
};

static const struct col kv_cols[] = {
	COL(0, COL_TEXT, struct kv, key),
	COL(1, COL_TEXT, struct kv, value),
};

static int get_strmap(struct sqlite_store *ss, enum stmt_id id, const char *row,
		      int64_t run_id, struct strmap *m, const char *what)
{
	sqlite3_stmt *st = stmt(ss, id);
	int rc, err = 0;

	if (!st)
		return ss_prep_err(ss);
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kv kv = { 0 };
		size_t before = m->n;

		err = ss_read_cols(ss, st, row, kv_cols, ARRAY_LEN(kv_cols), &kv);
		if (!err && strmap_set(m, kv.key, kv.value))
			err = store_fail(&ss->base, -ENOMEM, "out of memory");
		/* (run_id, key) is the key: a key met twice is a forged table */
		if (!err && m->n == before)
			err = ss_damaged(ss, "%s holds the %s '%s' twice", row, what,
					 kv.key);
		free(kv.key);
		free(kv.value);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, "cannot read a run");
	ss_done(st);
	return err;
}

static int parse_status(const char *s, enum run_status *status)
{
	static const enum run_status all[] = { RUN_COMPLETE, RUN_FAILED,
					       RUN_INCOMPLETE, RUN_UNSUPPORTED };

	for (size_t i = 0; s && i < ARRAY_LEN(all); i++) {
		if (!strcmp(s, run_status_name(all[i]))) {
			*status = all[i];
			return 0;
		}
	}
	return -EBADMSG;
}

/* ST_RUN_GET's columns, around the status (4), which is parsed */
static const struct col run_cols[] = {
	COL(0, COL_TEXT, struct run_record, testbox),
	COL(1, COL_TEXT, struct run_record, testcase),
	COL(2, COL_TEXT, struct run_record, job),
	COL(3, COL_TEXT, struct run_record, commit),
};

static const struct col run_cols_after_status[] = {
	COL(5, COL_REAL, struct run_record, started),
	COL(6, COL_REAL, struct run_record, duration_s),
	COL(7, COL_TEXT_OR_NULL, struct run_record, job_text),
};

static int get_run_row(struct sqlite_store *ss, const char *row, int64_t run_id,
		       struct run_record *r)
{
	sqlite3_stmt *st = stmt(ss, ST_RUN_GET);
	char *status = NULL;
	int rc, err;

	if (!st)
		return ss_prep_err(ss);
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		err = ss_read_cols(ss, st, row, run_cols, ARRAY_LEN(run_cols), r);
		if (!err)
			err = col_text(ss, st, 4, false, row, &status);
		if (!err && parse_status(status, &r->status))
			err = ss_damaged(ss, "%s has an unknown status '%s'", row, status);
		if (!err)
			err = ss_read_cols(ss, st, row, run_cols_after_status,
					   ARRAY_LEN(run_cols_after_status), r);
		free(status);
	} else if (rc == SQLITE_DONE) {
		err = store_fail(&ss->base, -ENOENT, "no run %lld in %s",
				 (long long)run_id, ss->path);
	} else {
		err = ss_db_fail(ss, rc, "cannot read a run");
	}
	ss_done(st);
	return err;
}

static int get_stats(struct sqlite_store *ss, const char *row, int64_t run_id,
		     struct statmap *stats)
{
	sqlite3_stmt *st = stmt(ss, ST_STATS_GET);
	size_t nstats;
	int rc, err = 0;

	if (!st)
		return ss_prep_err(ss);
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *name = NULL;
		int64_t name_id;
		double v;

		err = col_id(ss, st, 2, row, &name_id);
		if (!err && sqlite3_column_type(st, 0) == SQLITE_NULL)
			err = ss_damaged(ss, "%s holds a value of stat %lld, which has no name",
					 row, (long long)name_id);
		if (!err)
			err = col_text(ss, st, 0, false, row, &name);
		if (!err)
			err = col_real(ss, st, 1, true, row, &v);
		if (!err && statmap_add(stats, name, v))
			err = store_fail(&ss->base, -ENOMEM, "out of memory");
		free(name);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, "cannot read a run's stats");
	ss_done(st);
	if (err)
		return err;
	nstats = stats->n;
	statmap_finish(stats);
	/* statmap_finish() keeps one of a name met twice: the file had it twice */
	if (stats->n != nstats)
		return ss_damaged(ss, "%s holds a stat twice", row);
	return 0;
}

static int cmp_meta_name(const void *a, const void *b)
{
	return strcmp(((const struct stat_meta *)a)->name,
		      ((const struct stat_meta *)b)->name);
}

void sqlite_sort_meta(struct stat_meta_list *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_meta_name);
}

/* ST_STAT_META_GET's columns after the name id (4), read first */
static const struct col meta_cols[] = {
	COL(0, COL_TEXT, struct stat_meta, name),
	COL(1, COL_TEXT, struct stat_meta, unit),
	{ 2, COL_INT, offsetof(struct stat_meta, better), NULL, -1, 1 },
	COL(3, COL_BOOL, struct stat_meta, kpi),
};

/* The run's declarations, sorted by name; none in a file older than them. */
static int get_meta(struct sqlite_store *ss, const char *row, int64_t run_id,
		    struct stat_meta_list *meta)
{
	sqlite3_stmt *st;
	bool has;
	int rc, err = ss_schema_has(ss, SCHEMA_STAT_META, &has);

	if (err || !has)
		return err;
	st = stmt(ss, ST_STAT_META_GET);
	if (!st)
		return ss_prep_err(ss);
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct stat_meta *m = vec_push_zero(meta);
		int64_t name_id;

		err = m ? col_id(ss, st, 4, row, &name_id)
			: store_fail(&ss->base, -ENOMEM, "out of memory");
		if (!err && sqlite3_column_type(st, 0) == SQLITE_NULL)
			err = ss_damaged(ss, "%s declares stat %lld, which has no name",
					 row, (long long)name_id);
		if (!err)
			err = ss_read_cols(ss, st, row, meta_cols, ARRAY_LEN(meta_cols), m);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, "cannot read a run's declared stats");
	ss_done(st);
	if (err)
		return err;
	/* by name, as its stats; (run_id, name_id) and names are keys */
	sqlite_sort_meta(meta);
	for (size_t i = 1; i < meta->n; i++)
		if (!strcmp(meta->v[i - 1].name, meta->v[i].name))
			return ss_damaged(ss, "%s declares the stat '%s' twice", row,
					  meta->v[i].name);
	return 0;
}

int sqlite_get_run(struct store *s, int64_t run_id, struct run_record *r)
{
	struct sqlite_store *ss = to_ss(s);
	char row[64];
	int err;

	snprintf(row, sizeof(row), "run %lld", (long long)run_id);
	/* one snapshot: the run and its stats as one writer committed them */
	err = ss_begin(ss, false);
	if (err)
		return err;
	err = get_run_row(ss, row, run_id, r);
	if (!err)
		err = get_strmap(ss, ST_PARAMS_GET, row, run_id, &r->params, "parameter");
	if (!err)
		err = get_strmap(ss, ST_ENV_GET, row, run_id, &r->env, "environment key");
	if (!err)
		err = get_stats(ss, row, run_id, &r->stats);
	if (!err)
		err = get_meta(ss, row, run_id, &r->meta);
	ss_rollback(ss);	/* ends the read transaction */
	if (err)
		run_record_release(r);
	return err;
}

/* ---- commits ---- */

static bool is_hex(const char *s)
{
	for (; *s; s++)
		if (!isxdigit((unsigned char)*s))
			return false;
	return true;
}

int sqlite_resolve_commit(struct store *s, const char *given, char **full)
{
	struct sqlite_store *ss = to_ss(s);
	char *lower = NULL, *end = NULL, *found[3] = { NULL };
	size_t nfound = 0, len = strlen(given);
	sqlite3_stmt *st;
	int rc, err = 0;

	if (!len)
		return store_fail(s, -ENOENT, "empty commit");
	/* a label (kernel release) or full sha: as given */
	st = stmt(ss, ST_COMMIT_EXACT);
	if (!st)
		return ss_prep_err(ss);
	ss_bind_text(st, 1, given);
	rc = sqlite3_step(st);
	ss_done(st);
	if (rc == SQLITE_ROW) {
		*full = strdup(given);
		return *full ? 0 : store_fail(s, -ENOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return ss_db_fail(ss, rc, "cannot look up a commit");
	/* as git: an abbreviated sha has at least 4 hex digits */
	if (len < 4 || !is_hex(given))
		return store_fail(s, -ENOENT, "no commit '%s' in %s", given, ss->path);

	lower = strdup(given);
	if (!lower)
		return store_fail(s, -ENOMEM, "out of memory");
	for (char *p = lower; *p; p++)
		*p = tolower((unsigned char)*p);
	end = prefix_end(lower);
	st = stmt(ss, ST_COMMIT_RANGE);
	if (!end || !st) {
		err = st ? store_fail(s, -ENOMEM, "out of memory") : ss_prep_err(ss);
		goto out;
	}
	ss_bind_text(st, 1, lower);
	ss_bind_text(st, 2, end);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && nfound < 3) {
		err = col_text(ss, st, 0, false, "a run", &found[nfound++]);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE && rc != SQLITE_ROW)
		err = ss_db_fail(ss, rc, "cannot look up a commit");
	ss_done(st);
	if (err)
		goto out;
	if (nfound == 0) {
		err = store_fail(s, -ENOENT, "no commit '%s' in %s", given, ss->path);
	} else if (nfound > 1) {
		err = store_fail(s, -EEXIST, "commit '%s' is ambiguous in %s: %s, %s%s",
				 given, ss->path, found[0], found[1],
				 nfound > 2 ? ", ..." : "");
	} else {
		*full = found[0];
		found[0] = NULL;
	}
out:
	for (size_t i = 0; i < nfound; i++)
		free(found[i]);
	free(lower);
	free(end);
	return err;
}
