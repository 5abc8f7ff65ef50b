/*
 * pg_runs.c - runs in the PostgreSQL backend (sqlite_runs.c's twin):
 * writing one (put_run, and pg_insert_run inside a caller's transaction),
 * an imported file's with their content hash, finding an import by its
 * hash, deleting runs, listing the groups, a group's runs, one run in
 * full, resolving a commit (docs/store.md).
 *
 * Cost of a write: a run and all its rows are one statement (a chain of
 * INSERTs in WITH, each fed by unnest() of array parameters), so a run of
 * 10,000 stats is one round trip plus, when it brings names this
 * connection has not met, one more to intern them; never a query per
 * stat.
 *
 * Stat names: a per-connection cache name -> id (ps->runs_cache).  A new
 * name is inserted with ON CONFLICT DO NOTHING and looked up again, so two
 * writers adding one name at once both get its one id.  An id this
 * connection inserted is only good once its transaction commits, and the
 * transaction may be the caller's (pg_insert_run): such ids are kept as
 * pending with the transaction's id, asked about (txid_status) before the
 * next write, and kept or dropped by the answer.
 */
#define _GNU_SOURCE
#include "store/pg_internal.h"
#include "util/vec.h"

#include <alloca.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- array parameters ---- */

/*
 * Elements of an array literal ('{a,b}'), as unnest($n::type[]) reads
 * it: each call appends one, after a comma unless it is the first.
 */
static void array_sep(struct strbuf *sb)
{
	if (!sb->len)
		strbuf_addch(sb, '{');
	else
		strbuf_addch(sb, ',');
}

void pg_array_text(struct strbuf *sb, const char *s)
{
	array_sep(sb);
	if (!s) {
		strbuf_addstr(sb, "NULL");
		return;
	}
	strbuf_addch(sb, '"');
	for (const char *p = s; *p; p++) {
		size_t run = strcspn(p, "\"\\");

		strbuf_add(sb, p, run);
		p += run;
		if (!*p)
			break;
		strbuf_addch(sb, '\\');
		strbuf_addch(sb, *p);
	}
	strbuf_addch(sb, '"');
}

void pg_array_int(struct strbuf *sb, int64_t v)
{
	array_sep(sb);
	strbuf_addf(sb, "%" PRId64, v);
}

void pg_array_real(struct strbuf *sb, double v)
{
	char buf[PG_REAL_BUF];
	const char *t = pg_real_param(buf, v);

	array_sep(sb);
	strbuf_addstr(sb, t ? t : "NULL");
}

/* The literal, '{}' when empty; NULL when memory ran out. */
const char *pg_array_end(struct strbuf *sb)
{
	if (!sb->len)
		strbuf_addch(sb, '{');
	strbuf_addch(sb, '}');
	return strbuf_error(sb) ? NULL : sb->buf;
}

/* ---- stat names ---- */

struct name_entry {
	int64_t id;
	bool pending;		/* inserted by a transaction not known to have committed */
	size_t last;		/* its last index in the stats of the run being written */
	char name[];
};

struct name_cache {
	void *root;		/* tsearch() tree of struct name_entry, by name */
	struct {
		struct name_entry **v;
		size_t n, cap;
	} pending;
	int64_t pending_xid;	/* the transaction that inserted them */
};

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct name_entry *)a)->name,
		      ((const struct name_entry *)b)->name);
}

static void cache_free(void *p)
{
	struct name_cache *c = p;

	if (!c)
		return;
	tdestroy(c->root, free);
	vec_free(&c->pending);
	free(c);
}

static struct name_cache *cache_of(struct pg_store *ps)
{
	if (!ps->runs_cache) {
		ps->runs_cache = calloc(1, sizeof(struct name_cache));
		ps->runs_cache_free = cache_free;
	}
	return ps->runs_cache;
}

/* The cached entry of name, or NULL. */
static struct name_entry *cache_find(struct name_cache *c, const char *name)
{
	size_t len = strlen(name);
	/* a key on the stack: tfind() compares names only */
	struct name_entry *key = alloca(sizeof(*key) + len + 1);
	struct name_entry **found;

	memcpy(key->name, name, len + 1);
	found = tfind(key, &c->root, cmp_entry);
	return found ? *found : NULL;
}

static int cache_add(struct name_cache *c, const char *name, int64_t id,
		     bool pending)
{
	size_t len = strlen(name);
	struct name_entry *e = malloc(sizeof(*e) + len + 1), **slot;

	if (!e)
		return -ENOMEM;
	e->id = id;
	e->pending = pending;
	memcpy(e->name, name, len + 1);
	slot = tsearch(e, &c->root, cmp_entry);
	if (!slot) {
		free(e);
		return -ENOMEM;
	}
	if (*slot != e) {	/* there already: its id is the one */
		free(e);
		return 0;
	}
	if (pending && vec_push(&c->pending, e)) {
		tdelete(e, &c->root, cmp_entry);
		free(e);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Settle the pending names: their transaction committed (they are good
 * for ever), is still this connection's open one (good within it), or
 * ended otherwise (gone: dropped).  One round trip, only after a write
 * that added names.
 */
static int cache_settle(struct pg_store *ps, struct name_cache *c)
{
	char xid[PG_INT_BUF];
	const char *params[] = { pg_int_param(xid, c->pending_xid) };
	PGresult *res = NULL;
	char *status = NULL;
	int err;

	if (!c->pending.n)
		return 0;
	err = pg_exec(ps, "cannot look up a transaction",
		      "SELECT txid_status($1::bigint)", 1, params, &res);
	if (!err)
		err = pg_col_text(ps, res, 0, 0, true, "a transaction's status", &status);
	PQclear(res);
	if (err)
		return err;
	if (status && !strcmp(status, "in progress")) {
		free(status);
		return 0;
	}
	for (size_t i = 0; i < c->pending.n; i++) {
		struct name_entry *e = c->pending.v[i];

		if (status && !strcmp(status, "committed")) {
			e->pending = false;
		} else {
			tdelete(e, &c->root, cmp_entry);
			free(e);
		}
	}
	c->pending.n = 0;
	free(status);
	return 0;
}

/* This connection committed the transaction of the pending names. */
static void cache_committed(struct pg_store *ps)
{
	struct name_cache *c = ps->runs_cache;

	for (size_t i = 0; c && i < c->pending.n; i++)
		c->pending.v[i]->pending = false;
	if (c)
		c->pending.n = 0;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Rows of (id, name[, inserted]) into the cache. */
static int cache_rows(struct pg_store *ps, struct name_cache *c, PGresult *res,
		      bool has_inserted)
{
	for (int row = 0; row < PQntuples(res); row++) {
		int64_t id;
		bool inserted = has_inserted && !strcmp(PQgetvalue(res, row, 2), "t");
		int err = pg_col_int64(ps, res, row, 0, 1, INT64_MAX, "a stat name's id", &id);

		if (!err && PQgetisnull(res, row, 1))
			err = pg_damaged(ps, "stat %" PRId64 " has no name", id);
		if (err)
			return err;
		if (inserted && !c->pending.n) {
			err = pg_col_int64(ps, res, row, 3, 1, INT64_MAX,
					   "a transaction id", &c->pending_xid);
			if (err)
				return err;
		}
		if (cache_add(c, PQgetvalue(res, row, 1), id, inserted))
			return store_fail(&ps->base, -ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * Intern the names (sorted, unique) the cache lacks.  Inserted in
 * byte order, so two writers adding overlapping sets lock them in one
 * order and cannot deadlock.  The SELECT beside the INSERT sees the
 * names committed before the statement began; one committed by a writer
 * this INSERT waited for is looked up again after it.
 */
static int intern_names(struct pg_store *ps, struct name_cache *c,
			const char **names, size_t n)
{
	struct strbuf arr = STRBUF_INIT;
	const char *params[1];
	PGresult *res = NULL;
	size_t missing = 0;
	int err;

	for (size_t i = 0; i < n; i++)
		pg_array_text(&arr, names[i]);
	params[0] = pg_array_end(&arr);
	if (!params[0]) {
		strbuf_release(&arr);
		return store_fail(&ps->base, -ENOMEM, "out of memory");
	}
	err = pg_exec(ps, "cannot add the stat names",
		      "WITH ins AS (INSERT INTO stat_name (name)"
		      "  SELECT n FROM unnest($1::text[]) WITH ORDINALITY AS u(n, o) ORDER BY o"
		      "  ON CONFLICT (name) DO NOTHING RETURNING id, name)"
		      " SELECT id, name, true, txid_current() FROM ins"
		      " UNION ALL SELECT id, name, false, NULL FROM stat_name"
		      " WHERE name = ANY($1::text[])",
		      1, params, &res);
	if (!err)
		err = cache_rows(ps, c, res, true);
	PQclear(res);
	for (size_t i = 0; !err && i < n; i++)
		missing += !cache_find(c, names[i]);
	if (!err && missing) {
		err = pg_exec(ps, "cannot look up the stat names",
			      "SELECT id, name FROM stat_name WHERE name = ANY($1::text[])",
			      1, params, &res);
		if (!err)
			err = cache_rows(ps, c, res, false);
		PQclear(res);
	}
	for (size_t i = 0; !err && i < n; i++)
		if (!cache_find(c, names[i]))
			err = store_fail(&ps->base, -EIO, "%s: the stat name '%s' vanished while stored",
					 ps->shown, names[i]);
	strbuf_release(&arr);
	return err;
}

/*
 * Make sure every stat name of the nr runs is in the cache: those of all
 * the runs of an import at once, so that they too are locked in one
 * order (an import's second run adding a name after its first added
 * others could wait for another import waiting for it: a deadlock).
 */
static int intern_run_names(struct pg_store *ps, struct name_cache *c,
			    const struct run_record *runs, size_t nr)
{
	struct { const char **v; size_t n, cap; } missing = { 0 };
	size_t kept = 0;
	int err = cache_settle(ps, c);

	for (size_t k = 0; !err && k < nr; k++) {
		const struct run_record *r = &runs[k];

		for (size_t i = 0; !err && i < r->stats.n + r->meta.n; i++) {
			const char *name = i < r->stats.n ? r->stats.v[i].name
							  : r->meta.v[i - r->stats.n].name;

			if (!cache_find(c, name) && vec_push(&missing, name))
				err = store_fail(&ps->base, -ENOMEM, "out of memory");
		}
	}
	if (!err && missing.n) {
		qsort(missing.v, missing.n, sizeof(*missing.v), cmp_str_ptr);
		for (size_t i = 0; i < missing.n; i++)
			if (!kept || strcmp(missing.v[kept - 1], missing.v[i]))
				missing.v[kept++] = missing.v[i];
		err = intern_names(ps, c, missing.v, kept);
	}
	vec_free(&missing);
	return err;
}

/* ---- writing ---- */

/*
 * One run in one statement.  DISTINCT ON keeps the last of a key given
 * twice (a list built by hand), as SQLite's INSERT OR REPLACE does; the
 * stats, thousands, are made unique before (run_arrays()).  The server's
 * cost is mostly the foreign keys' checks, a trigger call per value
 * (bench/RESULTS.md, issue 16).
 */
static const char insert_sql[] =
	"WITH run AS (INSERT INTO runs (testbox, testcase, job, \"commit\", status,"
	"   started, duration_s, job_text)"
	"  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id),"
	" param AS (INSERT INTO run_param (run_id, key, value)"
	"  SELECT DISTINCT ON (k) run.id, k, v FROM run,"
	"   unnest($9::text[], $10::text[]) WITH ORDINALITY AS u(k, v, o) ORDER BY k, o DESC),"
	" env AS (INSERT INTO run_env (run_id, key, value)"
	"  SELECT DISTINCT ON (k) run.id, k, v FROM run,"
	"   unnest($11::text[], $12::text[]) WITH ORDINALITY AS u(k, v, o) ORDER BY k, o DESC),"
	" val AS (INSERT INTO stat_value (run_id, name_id, value)"
	"  SELECT run.id, n, v FROM run, unnest($13::bigint[], $14::float8[]) AS u(n, v)),"
	" decl AS (INSERT INTO run_stat_meta (run_id, name_id, unit, better, kpi)"
	"  SELECT DISTINCT ON (n) run.id, n, un, b, k FROM run,"
	"   unnest($15::bigint[], $16::text[], $17::int[], $18::int[])"
	"    WITH ORDINALITY AS u(n, un, b, k, o) ORDER BY n, o DESC),"
	" imp AS (INSERT INTO run_import (run_id, sha256)"
	"  SELECT id, $19::text FROM run WHERE $19::text IS NOT NULL)"
	" SELECT id FROM run";

enum { ARR_PKEY, ARR_PVAL, ARR_EKEY, ARR_EVAL, ARR_SID, ARR_SVAL, ARR_MID,
       ARR_MUNIT, ARR_MBETTER, ARR_MKPI, NR_ARRAYS };

static void strmap_arrays(const struct strmap *m, struct strbuf *keys,
			  struct strbuf *values)
{
	for (size_t i = 0; i < m->n; i++) {
		pg_array_text(keys, m->v[i].key);
		pg_array_text(values, m->v[i].value ? m->v[i].value : "");
	}
}

/*
 * The run's array parameters; the names are in the cache.  A name an
 * unfinished statmap holds twice keeps its last value, as SQLite's
 * INSERT OR REPLACE does: found here, so that the server inserts the
 * values as they come, without a sort to find them.
 */
static int run_arrays(struct pg_store *ps, struct name_cache *c,
		      const struct run_record *r, struct strbuf *a)
{
	struct name_entry **e = malloc((r->stats.n ? r->stats.n : 1) * sizeof(*e));

	if (!e)
		return store_fail(&ps->base, -ENOMEM, "out of memory");
	strmap_arrays(&r->params, &a[ARR_PKEY], &a[ARR_PVAL]);
	strmap_arrays(&r->env, &a[ARR_EKEY], &a[ARR_EVAL]);
	for (size_t i = 0; i < r->stats.n; i++) {
		e[i] = cache_find(c, r->stats.v[i].name);
		if (!e[i]) {
			free(e);
			return store_fail(&ps->base, -EIO, "stat name '%s' not interned",
					  r->stats.v[i].name);
		}
		e[i]->last = i;
	}
	for (size_t i = 0; i < r->stats.n; i++) {
		if (e[i]->last != i)
			continue;	/* given again later */
		pg_array_int(&a[ARR_SID], e[i]->id);
		pg_array_real(&a[ARR_SVAL], r->stats.v[i].value);	/* NaN: NULL */
	}
	free(e);
	for (size_t i = 0; i < r->meta.n; i++) {
		const struct stat_meta *m = &r->meta.v[i];
		struct name_entry *e = cache_find(c, m->name);

		if (!e)
			return store_fail(&ps->base, -EIO, "stat name '%s' not interned",
					  m->name);
		pg_array_int(&a[ARR_MID], e->id);
		pg_array_text(&a[ARR_MUNIT], m->unit ? m->unit : "");
		pg_array_int(&a[ARR_MBETTER], m->better);
		pg_array_int(&a[ARR_MKPI], m->kpi);
	}
	return 0;
}

/*
 * pg_insert_run() with the import's hash (NULL: not imported); interned:
 * the caller interned its names in this transaction.
 */
static int insert_run(struct pg_store *ps, const struct run_record *r,
		      const char *sha256, bool interned, int64_t *run_id)
{
	struct name_cache *c = cache_of(ps);
	struct strbuf a[NR_ARRAYS];
	char started[PG_REAL_BUF], duration[PG_REAL_BUF];
	const char *params[19];
	PGresult *res = NULL;
	int err;

	if (!r->testbox || !r->testcase || !r->job || !r->commit)
		return store_fail(&ps->base, -EINVAL,
				  "a run needs a testbox, testcase, job and commit");
	if (!c)
		return store_fail(&ps->base, -ENOMEM, "out of memory");
	err = interned ? 0 : intern_run_names(ps, c, r, 1);
	if (err)
		return err;
	for (int i = 0; i < NR_ARRAYS; i++)
		strbuf_init(&a[i]);
	err = run_arrays(ps, c, r, a);
	params[0] = r->testbox;
	params[1] = r->testcase;
	params[2] = r->job;
	params[3] = r->commit;
	params[4] = run_status_name(r->status);
	params[5] = pg_real_param(started, isfinite(r->started) ? r->started : 0);
	params[6] = pg_real_param(duration, isfinite(r->duration_s) ? r->duration_s : 0);
	params[7] = r->job_text;
	for (int i = 0; i < NR_ARRAYS; i++)
		if (!(params[8 + i] = pg_array_end(&a[i])) && !err)
			err = store_fail(&ps->base, -ENOMEM, "out of memory");
	params[18] = sha256;
	if (!err)
		err = pg_exec(ps, "cannot store the run", insert_sql, 19, params, &res);
	if (!err)
		err = pg_col_int64(ps, res, 0, 0, 1, INT64_MAX, "the new run's id", run_id);
	PQclear(res);
	for (int i = 0; i < NR_ARRAYS; i++)
		strbuf_release(&a[i]);
	return err;
}

int pg_insert_run(struct pg_store *ps, const struct run_record *r, int64_t *run_id)
{
	return insert_run(ps, r, NULL, false, run_id);
}

int pg_put_run(struct store *s, const struct run_record *r, int64_t *run_id)
{
	struct pg_store *ps = to_ps(s);
	int64_t id = 0;
	int err;

	if (!r->testbox || !r->testcase || !r->job || !r->commit)
		return store_fail(s, -EINVAL, "a run needs a testbox, testcase, job and commit");
	err = pg_check_writer(ps);
	if (!err)
		err = pg_begin(ps);
	if (err)
		return err;
	err = insert_run(ps, r, NULL, false, &id);
	if (!err)
		err = pg_commit(ps, "cannot commit the run");
	if (err) {
		pg_rollback(ps);
		return err;
	}
	cache_committed(ps);	/* saves asking the server before the next write */
	if (run_id)
		*run_id = id;
	return 0;
}

/* ---- imports ---- */

/*
 * Whether content with this hash was imported, asked under a lock of the
 * hash held to the end of the transaction: the second of two imports of
 * one file waits for the first to commit, then sees its runs.
 */
static int import_seen(struct pg_store *ps, const char *sha256, bool *seen)
{
	const char *params[] = { sha256 };
	PGresult *res = NULL;
	int err = pg_exec(ps, "cannot lock the import",
			  "SELECT pg_advisory_xact_lock(hashtextextended('perfbot import ' || $1, 0))",
			  1, params, NULL);

	if (!err)
		err = pg_exec(ps, "cannot look up the imports",
			      "SELECT 1 FROM run_import WHERE sha256 = $1 LIMIT 1", 1, params,
			      &res);
	if (!err)
		*seen = PQntuples(res) > 0;
	PQclear(res);
	return err;
}

/*
 * Runs in one transaction, each with its import hash: hashes[i], else
 * one (both may be NULL: none); with once, none if one was imported.
 * Their names are interned at once (one lock order: two writers cannot
 * deadlock on names), then one statement per run.
 */
static int put_batch(struct pg_store *ps, const struct run_record *runs, size_t nr,
		     const char *one, const char *const *hashes, bool once, int64_t *ids,
		     const char *what)
{
	bool seen = false;
	int err = pg_check_writer(ps);

	if (!err)
		err = pg_begin(ps);
	if (err)
		return err;
	if (once && !(err = import_seen(ps, one, &seen)) && seen)
		err = store_fail(&ps->base, -EEXIST,
				 "content with SHA-256 %s was imported already", one);
	if (!err && !cache_of(ps))
		err = store_fail(&ps->base, -ENOMEM, "out of memory");
	if (!err)
		err = intern_run_names(ps, cache_of(ps), runs, nr);
	for (size_t i = 0; !err && i < nr; i++) {
		int64_t id = 0;

		err = insert_run(ps, &runs[i], hashes ? hashes[i] : one, true, &id);
		if (!err && ids)
			ids[i] = id;
	}
	if (!err)
		err = pg_commit(ps, what);
	if (err) {
		pg_rollback(ps);
		return err;
	}
	cache_committed(ps);
	return 0;
}

int pg_put_import(struct store *s, const struct run_record *runs, size_t nr,
		  const char *sha256, bool once, int64_t *ids)
{
	return put_batch(to_ps(s), runs, nr, sha256, NULL, once, ids,
			 "cannot commit the import");
}

/* db copy's batch: one transaction, so a copy cut off resumes at a batch. */
int pg_put_runs(struct store *s, const struct run_record *runs, size_t nr,
		const char *const *sha256, int64_t *ids)
{
	return put_batch(to_ps(s), runs, nr, NULL, sha256, false, ids,
			 "cannot commit the runs");
}

/*
 * The ids of res's first column, each >= 1 (and larger than the last
 * when ascending); none is NULL, as store.h's "none: 0 and *nr 0".
 */
static int read_ids(struct pg_store *ps, PGresult *res, const char *what,
		    bool ascending, int64_t **ids, size_t *nr)
{
	size_t n = PQntuples(res);
	int64_t *v = n ? malloc(n * sizeof(*v)) : NULL;
	int err = 0;

	*ids = NULL;
	*nr = 0;
	if (n && !v)
		return store_fail(&ps->base, -ENOMEM, "out of memory");
	for (size_t i = 0; !err && i < n; i++) {
		err = pg_col_int64(ps, res, i, 0, 1, INT64_MAX, what, &v[i]);
		if (!err && ascending && i && v[i] <= v[i - 1])
			err = pg_damaged(ps, "run %" PRId64 " is listed twice", v[i]);
	}
	if (err) {
		free(v);
		return err;
	}
	*ids = v;
	*nr = n;
	return 0;
}

int pg_import_runs(struct store *s, const char *sha256, int64_t **ids, size_t *nr)
{
	struct pg_store *ps = to_ps(s);
	const char *params[] = { sha256 };
	PGresult *res = NULL;
	int err;

	/* a database from before the hashes were kept remembers no import */
	if (ps->version < PG_SCHEMA_IMPORT)
		return 0;
	err = pg_exec(ps, "cannot look up the imports",
		      "SELECT run_id FROM run_import WHERE sha256 = $1 ORDER BY run_id",
		      1, params, &res);
	if (!err)
		err = read_ids(ps, res, "an import", true, ids, nr);
	PQclear(res);
	return err;
}

/* ---- deleting ---- */

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * One statement: the rows a run owns go with it (ON DELETE CASCADE, a
 * schema perfbot made); what it returns says which ids named no run.
 */
int pg_delete_runs(struct store *s, const int64_t *ids, size_t nr)
{
	struct pg_store *ps = to_ps(s);
	struct strbuf arr = STRBUF_INIT;
	const char *params[1];
	PGresult *res = NULL;
	int64_t *gone = NULL;
	size_t ngone = 0;
	int err = pg_check_writer(ps);

	if (err || !nr)
		return err;
	for (size_t i = 0; i < nr; i++)
		pg_array_int(&arr, ids[i]);
	params[0] = pg_array_end(&arr);
	err = params[0] ? pg_begin(ps) : store_fail(s, -ENOMEM, "out of memory");
	if (!err)
		err = pg_exec(ps, "cannot delete runs",
			      "DELETE FROM runs WHERE id = ANY($1::bigint[]) RETURNING id",
			      1, params, &res);
	if (!err)
		err = read_ids(ps, res, "a deleted run", false, &gone, &ngone);
	if (!err && ngone > 1)
		qsort(gone, ngone, sizeof(*gone), cmp_id);
	for (size_t i = 0; !err && i < nr; i++)
		if (!bsearch(&ids[i], gone, ngone, sizeof(*gone), cmp_id))
			err = store_fail(s, -ENOENT, "no run %" PRId64 " in %s", ids[i],
					 ps->shown);
	if (!err)
		err = pg_commit(ps, "cannot commit the deletion");
	if (err)
		pg_rollback(ps);
	PQclear(res);
	free(gone);
	strbuf_release(&arr);
	return err;
}

/* ---- listing ---- */

/*
 * Orders and comparisons are byte order (COLLATE "C"), as SQLite's: what
 * the server's locale would sort otherwise.  A commit prefix is
 * starts_with(), which no index serves: `perfbot results` lists, it does
 * not run per value.
 */
/*
 * BOX the testbox shown, OF which runs ($4: the testbox, or a class's
 * name: its runs of whichever box, one group a (job, commit)), BY what
 * else groups them, ORDER what else orders them.
 */
#define GROUPS_SQL(BOX, OF, BY, ORDER)                                                    \
	"SELECT " BOX ", job, \"commit\", max(testcase COLLATE \"C\"),"                \
	" count(*) FILTER (WHERE status = 'complete'),"                               \
	" count(*) FILTER (WHERE status = 'failed'),"                                 \
	" count(*) FILTER (WHERE status = 'incomplete'),"                             \
	" count(*) FILTER (WHERE status = 'unsupported'),"                            \
	" max(id), max(started), count(*)"                                            \
	" FROM runs"                                                                  \
	" WHERE ($1::text IS NULL OR testcase = $1)"                                  \
	" AND ($2::text IS NULL OR starts_with(\"commit\", $2))"                      \
	" AND ($3::text IS NULL OR job = $3)"                                         \
	" AND " OF                                                                    \
	" GROUP BY " BY "job, \"commit\""                                              \
	" ORDER BY " ORDER "job COLLATE \"C\", min(id)"

int pg_list_groups(struct store *s, const struct store_filter *f,
		   struct store_group **groups, size_t *nr)
{
	struct pg_store *ps = to_ps(s);
	const char *cls = store_selector_class(f->testbox);
	const char *params[] = { f->testcase, f->commit, f->job, cls ? cls : f->testbox };
	struct { struct store_group *v; size_t n, cap; } g = { 0 };
	PGresult *res = NULL;
	int err;

	err = pg_exec(ps, "cannot list the runs",
		      cls ? GROUPS_SQL("'" STORE_CLASS_PREFIX "' || $4::text",
				       STORE_RUN_OF_CLASS("runs", "$4"), "", "")
			  : GROUPS_SQL("testbox", "($4::text IS NULL OR testbox = $4)",
				       "testbox, ", "testbox COLLATE \"C\", "),
		      4, params, &res);
	for (int row = 0; !err && row < PQntuples(res); row++) {
		struct store_group *one = vec_push_zero(&g);
		int64_t n[5];

		if (!one) {
			err = store_fail(s, -ENOMEM, "out of memory");
			break;
		}
		err = pg_col_text(ps, res, row, 0, false, "a run's testbox", &one->testbox);
		if (!err)
			err = pg_col_text(ps, res, row, 1, false, "a run's job", &one->job);
		if (!err)
			err = pg_col_text(ps, res, row, 2, false, "a run's commit", &one->commit);
		if (!err)
			err = pg_col_text(ps, res, row, 3, false, "a run's testcase", &one->testcase);
		for (int i = 0; !err && i < 4; i++)
			err = pg_col_int64(ps, res, row, 4 + i, 0, INT64_MAX, "a group's count",
					   &n[i]);
		if (!err)
			err = pg_col_int64(ps, res, row, 8, 1, INT64_MAX, "a run's id",
					   &one->last_run_id);
		if (!err)
			err = pg_col_real(ps, res, row, 9, false, "a run's start",
					  &one->last_started);
		if (!err)
			err = pg_col_int64(ps, res, row, 10, 0, INT64_MAX, "a group's count", &n[4]);
		if (err)
			break;
		one->runs_complete = n[0];
		one->runs_failed = n[1];
		one->runs_incomplete = n[2];
		one->runs_unsupported = n[3];
		if (n[0] + n[1] + n[2] + n[3] != n[4])
			err = pg_damaged(ps, "a run of %s on %s has an unknown status",
					 one->job, one->testbox);
	}
	PQclear(res);
	if (err) {
		store_groups_release(g.v, g.n);
		return err;
	}
	*groups = g.v;
	*nr = g.n;
	return 0;
}

#define GROUP_RUNS_SQL(OF)                                                         \
	"SELECT id FROM runs WHERE " OF " AND job = $2"                              \
	" AND \"commit\" = $3 ORDER BY started, id"

int pg_group_runs(struct store *s, const char *testbox, const char *job,
		  const char *commit, int64_t **ids, size_t *nr)
{
	struct pg_store *ps = to_ps(s);
	const char *cls = store_selector_class(testbox);
	const char *params[] = { cls ? cls : testbox, job, commit };
	PGresult *res = NULL;
	int err = pg_exec(ps, "cannot list the runs",
			  cls ? GROUP_RUNS_SQL(STORE_RUN_OF_CLASS("runs", "$1"))
			      : GROUP_RUNS_SQL("testbox = $1"),
			  3, params, &res);

	if (!err)
		err = read_ids(ps, res, "a run", false, ids, nr);
	PQclear(res);
	return err;
}

/* ---- one run ---- */

int pg_begin_read(struct pg_store *ps, bool *began)
{
	int err;

	*began = false;
	if (ps->in_tx)	/* the caller's transaction: its snapshot rules */
		return 0;
	/*
	 * No JIT: a read of a group's 200,000 values is estimated dear
	 * enough to compile, which costs more than the read itself.
	 */
	err = pg_run(ps, "cannot begin a transaction",
		     "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; SET LOCAL jit = off");
	ps->in_tx = *began = !err;
	return err;
}

void pg_end_read(struct pg_store *ps, bool began)
{
	if (began)
		pg_rollback(ps);
}

/* The status a word names (run_status_name()'s), or false. */
static bool status_of(const char *word, enum run_status *status)
{
	for (enum run_status st = RUN_COMPLETE; st <= RUN_UNSUPPORTED; st++)
		if (!strcmp(word, run_status_name(st)))
			return *status = st, true;
	return false;
}

static int get_run_row(struct pg_store *ps, const char *row, const char *id,
		       struct run_record *r)
{
	const char *params[] = { id };
	PGresult *res = NULL;
	char *status = NULL;
	int err = pg_exec(ps, "cannot read a run",
			  "SELECT testbox, testcase, job, \"commit\", status, started,"
			  " duration_s, job_text FROM runs WHERE id = $1",
			  1, params, &res);

	if (!err && !PQntuples(res))
		err = store_fail(&ps->base, -ENOENT, "no run %s in %s", id, ps->shown);
	if (!err)
		err = pg_col_text(ps, res, 0, 0, false, row, &r->testbox);
	if (!err)
		err = pg_col_text(ps, res, 0, 1, false, row, &r->testcase);
	if (!err)
		err = pg_col_text(ps, res, 0, 2, false, row, &r->job);
	if (!err)
		err = pg_col_text(ps, res, 0, 3, false, row, &r->commit);
	if (!err)
		err = pg_col_text(ps, res, 0, 4, false, row, &status);
	if (!err && !status_of(status, &r->status))
		err = pg_damaged(ps, "%s has an unknown status '%s'", row, status);
	if (!err)
		err = pg_col_real(ps, res, 0, 5, false, row, &r->started);
	if (!err)
		err = pg_col_real(ps, res, 0, 6, false, row, &r->duration_s);
	if (!err)
		err = pg_col_text(ps, res, 0, 7, true, row, &r->job_text);
	free(status);
	PQclear(res);
	return err;
}

static int get_strmap(struct pg_store *ps, const char *sql, const char *row,
		      const char *id, struct strmap *m, const char *what)
{
	const char *params[] = { id };
	PGresult *res = NULL;
	int err = pg_exec(ps, "cannot read a run", sql, 1, params, &res);

	for (int i = 0; !err && i < PQntuples(res); i++) {
		size_t before = m->n;

		if (PQgetisnull(res, i, 0) || PQgetisnull(res, i, 1))
			err = pg_damaged(ps, "%s holds a NULL %s", row, what);
		else if (strmap_set(m, PQgetvalue(res, i, 0), PQgetvalue(res, i, 1)))
			err = store_fail(&ps->base, -ENOMEM, "out of memory");
		else if (m->n == before)
			err = pg_damaged(ps, "%s holds the %s '%s' twice", row, what,
					 PQgetvalue(res, i, 0));
	}
	PQclear(res);
	return err;
}

static int get_stats(struct pg_store *ps, const char *row, const char *id,
		     struct statmap *stats)
{
	const char *params[] = { id };
	PGresult *res = NULL;
	size_t nstats;
	int err = pg_exec(ps, "cannot read a run's stats",
			  "SELECT n.name, v.value, v.name_id FROM stat_value v"
			  " LEFT JOIN stat_name n ON n.id = v.name_id WHERE v.run_id = $1",
			  1, params, &res);

	for (int i = 0; !err && i < PQntuples(res); i++) {
		int64_t name_id;
		double v;

		err = pg_col_int64(ps, res, i, 2, 1, INT64_MAX, row, &name_id);
		if (!err && PQgetisnull(res, i, 0))
			err = pg_damaged(ps, "%s holds a value of stat %" PRId64
					 ", which has no name", row, name_id);
		if (!err)
			err = pg_col_real(ps, res, i, 1, true, row, &v);	/* NULL: NaN */
		if (!err && statmap_add(stats, PQgetvalue(res, i, 0), v))
			err = store_fail(&ps->base, -ENOMEM, "out of memory");
	}
	PQclear(res);
	if (err)
		return err;
	nstats = stats->n;
	statmap_finish(stats);
	if (stats->n != nstats)
		return pg_damaged(ps, "%s holds a stat twice", row);
	return 0;
}

/*
 * Columns (name, unit, better, kpi, name_id, ...) of one declaration at
 * res's row into *m; `row` names its run in messages.
 */
int pg_read_meta(struct pg_store *ps, const PGresult *res, int i, const char *row,
		 struct stat_meta *m)
{
	int64_t name_id;
	int better = 0, kpi = 0;
	int err = pg_col_int64(ps, res, i, 4, 1, INT64_MAX, row, &name_id);

	if (!err && PQgetisnull(res, i, 0))
		err = pg_damaged(ps, "%s declares stat %" PRId64 ", which has no name", row,
				 name_id);
	if (!err)
		err = pg_col_text(ps, res, i, 0, false, row, &m->name);
	if (!err)
		err = pg_col_text(ps, res, i, 1, false, row, &m->unit);
	if (!err)
		err = pg_col_int(ps, res, i, 2, -1, 1, row, &better);
	if (!err)
		err = pg_col_int(ps, res, i, 3, 0, 1, row, &kpi);
	m->better = better;
	m->kpi = kpi;
	return err;
}

static int get_meta(struct pg_store *ps, const char *row, const char *id,
		    struct stat_meta_list *meta)
{
	const char *params[] = { id };
	PGresult *res = NULL;
	int err;

	if (ps->version < PG_SCHEMA_STAT_META)
		return 0;
	/* sorted by name (byte order) as stats are, by the server */
	err = pg_exec(ps, "cannot read a run's declared stats",
		      "SELECT n.name, m.unit, m.better, m.kpi, m.name_id FROM run_stat_meta m"
		      " LEFT JOIN stat_name n ON n.id = m.name_id WHERE m.run_id = $1"
		      " ORDER BY n.name COLLATE \"C\"",
		      1, params, &res);
	for (int i = 0; !err && i < PQntuples(res); i++) {
		struct stat_meta *m = vec_push_zero(meta);

		err = m ? pg_read_meta(ps, res, i, row, m)
			: store_fail(&ps->base, -ENOMEM, "out of memory");
	}
	PQclear(res);
	for (size_t i = 1; !err && i < meta->n; i++)
		if (!strcmp(meta->v[i - 1].name, meta->v[i].name))
			return pg_damaged(ps, "%s declares the stat '%s' twice", row,
					  meta->v[i].name);
	return 0;
}

int pg_get_run(struct store *s, int64_t run_id, struct run_record *r)
{
	struct pg_store *ps = to_ps(s);
	char id[PG_INT_BUF], row[64];
	bool began;
	int err;

	pg_int_param(id, run_id);
	snprintf(row, sizeof(row), "run %s", id);
	/* one snapshot: the run and its rows as one writer committed them */
	err = pg_begin_read(ps, &began);
	if (err)
		return err;
	err = get_run_row(ps, row, id, r);
	if (!err)
		err = get_strmap(ps, "SELECT key, value FROM run_param WHERE run_id = $1",
				 row, id, &r->params, "parameter");
	if (!err)
		err = get_strmap(ps, "SELECT key, value FROM run_env WHERE run_id = $1",
				 row, id, &r->env, "environment key");
	if (!err)
		err = get_stats(ps, row, id, &r->stats);
	if (!err)
		err = get_meta(ps, row, id, &r->meta);
	pg_end_read(ps, began);
	if (err)
		run_record_release(r);
	return err;
}

/* ---- commits ---- */

int pg_resolve_commit(struct store *s, const char *given, char **full)
{
	struct pg_store *ps = to_ps(s);
	char *lower = NULL;
	const char *params[1] = { given };
	PGresult *res = NULL;
	int n, err;

	if (!*given)
		return store_fail(s, -ENOENT, "empty commit");
	/* a label (kernel release) or full sha: as given */
	err = pg_exec(ps, "cannot look up a commit",
		      "SELECT 1 FROM runs WHERE \"commit\" = $1 LIMIT 1", 1, params, &res);
	n = err ? 0 : PQntuples(res);
	PQclear(res);
	if (err)
		return err;
	if (n) {
		*full = strdup(given);
		return *full ? 0 : store_fail(s, -ENOMEM, "out of memory");
	}
	/* as git: an abbreviated sha has at least 4 hex digits */
	if (strlen(given) < 4 || strspn(given, "0123456789abcdefABCDEF") != strlen(given))
		return store_fail(s, -ENOENT, "no commit '%s' in %s", given, ps->shown);
	lower = strdup(given);
	if (!lower)
		return store_fail(s, -ENOMEM, "out of memory");
	for (char *p = lower; *p; p++)
		*p = tolower((unsigned char)*p);
	params[0] = lower;
	err = pg_exec(ps, "cannot look up a commit",
		      "SELECT DISTINCT \"commit\" COLLATE \"C\" AS c FROM runs"
		      " WHERE starts_with(\"commit\", $1) ORDER BY c LIMIT 3",
		      1, params, &res);
	n = err ? 0 : PQntuples(res);
	if (!err && n == 0)
		err = store_fail(s, -ENOENT, "no commit '%s' in %s", given, ps->shown);
	else if (!err && n > 1)
		err = store_fail(s, -EEXIST, "commit '%s' is ambiguous in %s: %s, %s%s",
				 given, ps->shown, PQgetvalue(res, 0, 0),
				 PQgetvalue(res, 1, 0), n > 2 ? ", ..." : "");
	else if (!err)
		err = pg_col_text(ps, res, 0, 0, false, "a run's commit", full);
	PQclear(res);
	free(lower);
	return err;
}
