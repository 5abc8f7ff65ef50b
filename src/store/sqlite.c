/*
 * sqlite.c - the SQLite backend of store.h (docs/store.md).
 *
 * One connection per struct store.  Statements are prepared once, on
 * first use, and kept for the connection's life; a run is written in one
 * BEGIN IMMEDIATE transaction; stat names are interned through an
 * in-memory name -> id table so a 10,000-stat run costs one insert per
 * value, not a lookup query per name.  Each write of a bisection is one
 * statement, hence its own transaction.
 */
#define _GNU_SOURCE
#include "store/internal.h"
#include "version.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum stmt_id {
	ST_BEGIN_WRITE,
	ST_BEGIN_READ,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_CLASSIFY,
	ST_META_GET,
	ST_META_SET,
	ST_NAME_GET,
	ST_NAME_ADD,
	ST_RUN_ADD,
	ST_PARAM_ADD,
	ST_ENV_ADD,
	ST_VALUE_ADD,
	ST_GROUPS,
	ST_GROUP_RUNS,
	ST_RUN_GET,
	ST_PARAMS_GET,
	ST_ENV_GET,
	ST_STATS_GET,
	ST_COMPLETE_RUNS,
	ST_RUN_VALUES,
	ST_NAME_RANGE,
	ST_NAME_BY_ID,
	ST_COMMIT_EXACT,
	ST_COMMIT_RANGE,
	ST_BISECT_ADD,
	ST_BISECT_GET,
	ST_BISECT_LATEST,
	ST_BISECT_LIST,
	ST_BISECT_UPDATE,
	ST_BISECT_LOG_ADD,
	ST_BISECT_LOG,
	ST_BISECT_MARK,
	ST_BISECT_MARKS,
	NR_STMTS
};

static const char *const stmt_sql[NR_STMTS] = {
	[ST_BEGIN_WRITE] = "BEGIN IMMEDIATE",
	[ST_BEGIN_READ] = "BEGIN",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_CLASSIFY] =
		"SELECT count(*), coalesce(sum(type = 'table' AND name = 'meta'), 0)"
		" FROM sqlite_master",
	[ST_META_GET] = "SELECT value FROM meta WHERE key = ?1",
	[ST_META_SET] = "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
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
	[ST_GROUPS] =
		"SELECT testbox, job, \"commit\", max(testcase),"
		" sum(status = 'complete'), sum(status = 'failed'),"
		" sum(status = 'incomplete'), max(id), max(started), count(*)"
		" FROM runs"
		" WHERE (?1 IS NULL OR testcase = ?1)"
		" AND (?2 IS NULL OR \"commit\" = ?2"
		"      OR (\"commit\" >= ?2 AND (?3 IS NULL OR \"commit\" < ?3)))"
		" AND (?4 IS NULL OR job = ?4)"
		" AND (?5 IS NULL OR testbox = ?5)"
		" GROUP BY testbox, job, \"commit\""
		" ORDER BY testbox, job, min(id)",
	[ST_GROUP_RUNS] =
		"SELECT id FROM runs WHERE testbox = ?1 AND job = ?2 AND \"commit\" = ?3"
		" ORDER BY started, id",
	[ST_RUN_GET] =
		"SELECT testbox, testcase, job, \"commit\", status, started,"
		" duration_s, job_text FROM runs WHERE id = ?1",
	[ST_PARAMS_GET] = "SELECT key, value FROM run_param WHERE run_id = ?1",
	[ST_ENV_GET] = "SELECT key, value FROM run_env WHERE run_id = ?1",
	[ST_STATS_GET] =
		"SELECT n.name, v.value, v.name_id FROM stat_value v"
		" LEFT JOIN stat_name n ON n.id = v.name_id WHERE v.run_id = ?1",
	/*
	 * Samples are read run by run along stat_value's primary key, which
	 * needs no sort (ordering 200,000 values by name in one query cost
	 * SQLite more than the whole comparison), then the names by id.
	 */
	[ST_COMPLETE_RUNS] =
		"SELECT id FROM runs WHERE testbox = ?1 AND job = ?2"
		" AND \"commit\" = ?3 AND status = 'complete' ORDER BY id",
	[ST_RUN_VALUES] =
		"SELECT name_id, value FROM stat_value"	/* NULL is NaN: no sample */
		" WHERE run_id = ?1 AND value IS NOT NULL",
	[ST_NAME_RANGE] =
		"SELECT id, name FROM stat_name WHERE id BETWEEN ?1 AND ?2",
	[ST_NAME_BY_ID] = "SELECT name FROM stat_name WHERE id = ?1",
	[ST_COMMIT_EXACT] = "SELECT 1 FROM runs WHERE \"commit\" = ?1 LIMIT 1",
	[ST_COMMIT_RANGE] =
		"SELECT DISTINCT \"commit\" FROM runs"
		" WHERE \"commit\" >= ?1 AND \"commit\" < ?2"
		" ORDER BY \"commit\" LIMIT 3",
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

/* name -> id of the stat names this connection has seen (open addressing) */
struct name_slot {
	char *name;
	uint64_t hash;
	int64_t id;
};

struct name_cache {
	struct name_slot *slots;
	size_t cap, n;		/* cap is a power of two */
};

struct sqlite_store {
	struct store base;
	sqlite3 *db;
	char *path;
	enum store_mode mode;
	int version;		/* the file's schema version, as last seen */
	int busy_ms;
	int last_err;		/* of the last failed SQLite call */
	bool classified;	/* known to be perfbot's: SQLite's complaints are damage */
	bool has_meta;		/* its schema was read and names a meta table */
	sqlite3_stmt *st[NR_STMTS];
	struct name_cache names;
};

static const struct store_ops sqlite_ops;

static struct sqlite_store *to_ss(struct store *s)
{
	return (struct sqlite_store *)s;
}

/* ---- names ---- */

static uint64_t hash_name(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static void names_clear(struct name_cache *c)
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

/* ---- errors and statements ---- */

static int errno_of(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
		return 0;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return -EBADMSG;
	case SQLITE_SCHEMA:
		return -EPROTO;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_TOOBIG:
	case SQLITE_RANGE:
		return -EINVAL;
	case SQLITE_CANTOPEN:
		return -EACCES;
	default:
		return -EIO;
	}
}

/*
 * The file is untrusted input (docs/store.md, "Untrusted store files"):
 * whatever in it is not what perfbot writes is reported, one way, as
 * -EBADMSG "PATH: the database is damaged: WHAT".
 */
static int damaged(struct sqlite_store *ss, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int damaged(struct sqlite_store *ss, const char *fmt, ...)
{
	char what[STORE_ERRLEN / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ss->last_err = -EBADMSG;
	return store_fail(&ss->base, -EBADMSG, "%s: the database is damaged: %s",
			  ss->path, what);
}

/* The message for a failed SQLite call: busy is the one users meet. */
static int db_fail(struct sqlite_store *ss, int rc, const char *what)
{
	int err = errno_of(rc) ?: -EIO;

	ss->last_err = err;
	if (err == -EBUSY)
		return store_fail(&ss->base, err,
				  "%s: database is locked by another writer (waited %d ms)",
				  ss->path, ss->busy_ms);
	/*
	 * Before the file is known to be ours, SQLite cannot read even its
	 * schema: it may be anyone's file, and is left alone as foreign ones.
	 */
	if ((rc & 0xff) == SQLITE_NOTADB && !ss->classified)
		return ss->last_err = store_fail(&ss->base, -EPROTO,
				  "%s is not a perfbot database (not an SQLite file)",
				  ss->path);
	if (err == -EBADMSG && !ss->has_meta)
		return ss->last_err = store_fail(&ss->base, -EPROTO,
				  "%s is not a perfbot database, or a damaged one (%s)",
				  ss->path, ss->db ? sqlite3_errmsg(ss->db) : sqlite3_errstr(rc));
	if (err == -EBADMSG)
		return damaged(ss, "%s: %s", what,
			       ss->db ? sqlite3_errmsg(ss->db) : sqlite3_errstr(rc));
	return store_fail(&ss->base, err, "%s: %s: %s", ss->path, what,
			  ss->db ? sqlite3_errmsg(ss->db) : sqlite3_errstr(rc));
}

/* The error stmt() recorded (its message is in store_error()). */
static int prep_err(struct sqlite_store *ss)
{
	return ss->last_err ?: -EIO;
}

static sqlite3_stmt *stmt(struct sqlite_store *ss, enum stmt_id id)
{
	int rc;

	if (ss->st[id])
		return ss->st[id];
	rc = sqlite3_prepare_v3(ss->db, stmt_sql[id], -1,
				SQLITE_PREPARE_PERSISTENT, &ss->st[id], NULL);
	if (rc != SQLITE_OK) {
		/* perfbot's schema lacks a table or column perfbot queries */
		if ((rc & 0xff) == SQLITE_ERROR && ss->classified)
			damaged(ss, "its schema is not perfbot's: %s",
				sqlite3_errmsg(ss->db));
		else
			db_fail(ss, rc, "cannot prepare a query");
		ss->st[id] = NULL;
	}
	return ss->st[id];
}

/*
 * Reset after every use: a statement left mid-result would hold a read
 * snapshot open, hiding other writers' runs and blocking checkpoints.
 */
static void done(sqlite3_stmt *st)
{
	if (st) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
}

static int bind_text(sqlite3_stmt *st, int i, const char *s)
{
	return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC)
		 : sqlite3_bind_null(st, i);
}

/* A statement that returns no rows: prepare (cached), step, reset. */
static int exec_stmt(struct sqlite_store *ss, enum stmt_id id, const char *what)
{
	sqlite3_stmt *st = stmt(ss, id);
	int rc;

	if (!st)
		return prep_err(ss);
	rc = sqlite3_step(st);
	done(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return db_fail(ss, rc, what);
	return 0;
}


static void rollback(struct sqlite_store *ss)
{
	char keep[STORE_ERRLEN];

	/* keep the error that made us roll back, not ROLLBACK's own */
	memcpy(keep, ss->base.err, sizeof(keep));
	if (!sqlite3_get_autocommit(ss->db))
		exec_stmt(ss, ST_ROLLBACK, "cannot roll back");
	memcpy(ss->base.err, keep, sizeof(keep));
}

/*
 * Column readers that check what the file holds.  `what` names the row
 * in the message ("run 12", "bisection 3"), the column its name in the
 * query.  Each returns 0, -EBADMSG (damaged(), message set) or -ENOMEM.
 */
static const char *type_name(int type)
{
	switch (type) {
	case SQLITE_INTEGER: return "an integer";
	case SQLITE_FLOAT: return "a real";
	case SQLITE_TEXT: return "a text";
	case SQLITE_BLOB: return "a blob";
	default: return "NULL";
	}
}

static int bad_column(struct sqlite_store *ss, sqlite3_stmt *st, int i,
		      const char *what, const char *expected)
{
	return damaged(ss, "%s holds %s in %s, not %s", what,
		       type_name(sqlite3_column_type(st, i)),
		       sqlite3_column_name(st, i), expected);
}

/* TEXT (or NULL when nullable, *out = NULL), without a NUL inside, malloc'd */
static int col_text(struct sqlite_store *ss, sqlite3_stmt *st, int i,
		    bool nullable, const char *what, char **out)
{
	int type = sqlite3_column_type(st, i);
	const unsigned char *t;

	*out = NULL;
	if (type == SQLITE_NULL && nullable)
		return 0;
	/* TEXT affinity turns what SQL writes into text: anything else is forged */
	if (type != SQLITE_TEXT)
		return bad_column(ss, st, i, what, "a text");
	t = sqlite3_column_text(st, i);
	if (!t)
		return store_fail(&ss->base, -ENOMEM, "out of memory");
	if (strlen((const char *)t) != (size_t)sqlite3_column_bytes(st, i))
		return damaged(ss, "%s holds a NUL byte in %s", what,
			       sqlite3_column_name(st, i));
	*out = strdup((const char *)t);
	return *out ? 0 : store_fail(&ss->base, -ENOMEM, "out of memory");
}

/* An id perfbot made: an INTEGER >= 1 (0 marks empty buckets below). */
static int col_id(struct sqlite_store *ss, sqlite3_stmt *st, int i,
		  const char *what, int64_t *id)
{
	if (sqlite3_column_type(st, i) != SQLITE_INTEGER)
		return bad_column(ss, st, i, what, "an id");
	*id = sqlite3_column_int64(st, i);
	if (*id < 1)
		return damaged(ss, "%s holds the id %lld in %s", what,
			       (long long)*id, sqlite3_column_name(st, i));
	return 0;
}

/* A count: an INTEGER >= 0 */
static int col_count(struct sqlite_store *ss, sqlite3_stmt *st, int i,
		     const char *what, size_t *n)
{
	int64_t v;

	if (sqlite3_column_type(st, i) != SQLITE_INTEGER)
		return bad_column(ss, st, i, what, "a count");
	v = sqlite3_column_int64(st, i);
	if (v < 0)
		return damaged(ss, "%s holds the count %lld in %s", what,
			       (long long)v, sqlite3_column_name(st, i));
	*n = (size_t)v;
	return 0;
}

/* A number (REAL affinity keeps integral values as INTEGER); NULL is NaN when nullable. */
static int col_real(struct sqlite_store *ss, sqlite3_stmt *st, int i,
		    bool nullable, const char *what, double *v)
{
	int type = sqlite3_column_type(st, i);

	if (type == SQLITE_FLOAT || type == SQLITE_INTEGER) {
		*v = sqlite3_column_double(st, i);
		/* SQLite writes no NaN (perfbot's is NULL): NaN bits are damage */
		if (!isnan(*v))
			return 0;
	}
	if (type == SQLITE_NULL && nullable) {
		*v = NAN;
		return 0;
	}
	return bad_column(ss, st, i, what, "a number");
}

static int bind_value(sqlite3_stmt *st, int i, double v)
{
	/* SQLite would store NaN as NULL anyway; say so explicitly */
	return isnan(v) ? sqlite3_bind_null(st, i) : sqlite3_bind_double(st, i, v);
}

/* ---- opening, classification, migrations ---- */

enum db_kind { DB_EMPTY, DB_PERFBOT, DB_FOREIGN };

static int meta_get(struct sqlite_store *ss, const char *key, char **value)
{
	sqlite3_stmt *st = stmt(ss, ST_META_GET);
	int rc;

	*value = NULL;
	if (!st) {
		/* a "meta" table of someone else's, with other columns */
		return store_fail(&ss->base, -EPROTO,
				  "%s is not a perfbot database (its meta table is not perfbot's)",
				  ss->path);
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);

		/* a value that is not text is none: classify() says what that means */
		rc = SQLITE_DONE;
		if (sqlite3_column_type(st, 0) == SQLITE_TEXT &&
		    (!t || !(*value = strdup((const char *)t))))
			rc = SQLITE_NOMEM;
	}
	done(st);
	if (rc != SQLITE_DONE)
		return db_fail(ss, rc, "cannot read the meta table");
	return 0;
}

/* What the file holds; a perfbot database's schema version in *version. */
static int classify(struct sqlite_store *ss, enum db_kind *kind, int *version)
{
	sqlite3_stmt *st = stmt(ss, ST_CLASSIFY);
	char *creator = NULL, *ver = NULL, *end;
	long ntables = 0, has_meta = 0, v;
	int rc, err = 0;

	*version = 0;
	if (!st)	/* SQLite cannot parse its schema: whose file is it? */
		return ss->last_err = store_fail(&ss->base, -EPROTO,
			"%s is not a perfbot database, or a damaged one (%s)",
			ss->path, sqlite3_errmsg(ss->db));
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		ntables = sqlite3_column_int64(st, 0);
		has_meta = sqlite3_column_int64(st, 1);
		rc = SQLITE_DONE;
	}
	done(st);
	if (rc != SQLITE_DONE)
		return db_fail(ss, rc, "cannot read the schema");
	if (!ntables) {
		*kind = DB_EMPTY;
		return 0;
	}
	*kind = DB_FOREIGN;
	/* from here a damaged page is damage: the schema reads as perfbot's */
	ss->has_meta = has_meta;
	if (!has_meta)
		return store_fail(&ss->base, -EPROTO,
				  "%s is not a perfbot database (it holds other tables)",
				  ss->path);
	err = meta_get(ss, "created_by", &creator);
	if (!err)
		err = meta_get(ss, "schema_version", &ver);
	if (err)
		goto out;
	if (!creator || strcmp(creator, "perfbot")) {
		err = store_fail(&ss->base, -EPROTO,
				 "%s is not a perfbot database (its meta table is not perfbot's)",
				 ss->path);
		goto out;
	}
	errno = 0;
	v = ver ? strtol(ver, &end, 10) : -1;
	if (!ver || errno || *end || v < 1 || v > 1000000) {
		err = store_fail(&ss->base, -EPROTO,
				 "%s: perfbot database with an invalid schema version '%s'",
				 ss->path, ver ? ver : "(none)");
		goto out;
	}
	if (v > sqlite_schema_version) {
		err = store_fail(&ss->base, -EPROTO,
				 "%s has schema version %ld, newer than this perfbot's (%d): use a newer perfbot",
				 ss->path, v, sqlite_schema_version);
		goto out;
	}
	*kind = DB_PERFBOT;
	*version = (int)v;
	ss->classified = true;
out:
	free(creator);
	free(ver);
	return err;
}

static int meta_set(struct sqlite_store *ss, const char *key, const char *value)
{
	sqlite3_stmt *st = stmt(ss, ST_META_SET);
	int rc;

	if (!st)
		return prep_err(ss);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	done(st);
	return rc == SQLITE_DONE ? 0 : db_fail(ss, rc, "cannot write the meta table");
}

/* One migration per transaction, re-checking under the write lock. */
static int migrate(struct sqlite_store *ss)
{
	for (;;) {
		enum db_kind kind;
		char *errmsg = NULL, ver[16];
		int version, rc, err;

		err = exec_stmt(ss, ST_BEGIN_WRITE, "cannot begin a transaction");
		if (err)
			return err;
		/* another process may have migrated it meanwhile */
		err = classify(ss, &kind, &version);
		if (err)
			goto fail;
		if (version >= sqlite_schema_version)
			return exec_stmt(ss, ST_COMMIT, "cannot commit");
		rc = sqlite3_exec(ss->db, sqlite_migrations[version].sql, NULL, NULL,
				  &errmsg);
		if (rc != SQLITE_OK) {
			err = store_fail(&ss->base, errno_of(rc),
					 "%s: cannot apply schema migration %d (%s): %s",
					 ss->path, version + 1,
					 sqlite_migrations[version].what,
					 errmsg ? errmsg : sqlite3_errstr(rc));
			sqlite3_free(errmsg);
			goto fail;
		}
		if (version == 0) {
			err = meta_set(ss, "created_by", "perfbot");
			if (!err)
				err = meta_set(ss, "created_with", PERFBOT_VERSION);
			if (err)
				goto fail;
		}
		snprintf(ver, sizeof(ver), "%d", version + 1);
		err = meta_set(ss, "schema_version", ver);
		if (!err)
			err = exec_stmt(ss, ST_COMMIT, "cannot commit");
		if (err)
			goto fail;
		continue;
fail:
		rollback(ss);
		return err;
	}
}

static int pragma(struct sqlite_store *ss, const char *sql)
{
	char *errmsg = NULL;
	int rc = sqlite3_exec(ss->db, sql, NULL, NULL, &errmsg);

	if (rc == SQLITE_OK)
		return 0;
	store_fail(&ss->base, errno_of(rc), "%s: %s: %s", ss->path, sql,
		   errmsg ? errmsg : sqlite3_errstr(rc));
	sqlite3_free(errmsg);
	return errno_of(rc);
}

/* Refuse what is not SQLite before the library sees it. */
static int check_magic(const char *path, char *err, size_t errlen)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return ret;
	}
	n = read(fd, head, sizeof(head));
	if (n < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
	} else if (n != sizeof(head) || memcmp(head, magic, sizeof(magic))) {
		ret = -EPROTO;
		snprintf(err, errlen, "%s is not a perfbot database (not an SQLite file)",
			 path);
	}
	close(fd);
	return ret;
}

static int check_writable(const char *path, bool exists, char *err, size_t errlen)
{
	char *dir = strdup(path), *slash;
	int ret = 0;

	if (!dir) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	/* WAL keeps its -wal and -shm files beside the database */
	if (access(dir, W_OK | X_OK)) {
		ret = -errno;
		snprintf(err, errlen, "cannot write in %s: %s", dir, strerror(errno));
	} else if (exists && access(path, R_OK | W_OK)) {
		ret = -errno;
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	}
	free(dir);
	return ret;
}

/* The directory that holds path, malloc'd ("." or "/" when it has no other). */
static char *dir_of(const char *path)
{
	char *dir = strdup(path), *slash;

	if (!dir)
		return NULL;
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return dir;
}

/* Can this process write the file and create its -wal and -shm beside it? */
static bool can_write(const char *path)
{
	char *dir = dir_of(path);
	bool ok = dir && !access(dir, W_OK | X_OK) && !access(path, R_OK | W_OK);

	free(dir);
	return ok;
}

/*
 * The files SQLite may create beside a database; what existed before an
 * open is remembered so a failed open removes only what it made.
 */
static const char *const side_suffix[] = { "-wal", "-shm", "-journal" };
#define NR_SIDE (sizeof(side_suffix) / sizeof(side_suffix[0]))

struct side_files {
	char *name[NR_SIDE];
	bool existed[NR_SIDE];
};

static void side_files_note(struct side_files *sf, const char *path)
{
	for (size_t i = 0; i < NR_SIDE; i++) {
		sf->name[i] = NULL;
		if (asprintf(&sf->name[i], "%s%s", path, side_suffix[i]) < 0)
			sf->name[i] = NULL;
		/* unknown (no memory): treat as existing, never remove it */
		sf->existed[i] = !sf->name[i] || !access(sf->name[i], F_OK);
	}
}

/*
 * After a failed open (the connection closed): remove the side files it
 * created.  A -wal that holds data is another process's, never ours: a
 * reader writes none, and a failed create commits nothing.
 */
static void side_files_clean(struct side_files *sf)
{
	for (size_t i = 0; i < NR_SIDE; i++) {
		struct stat st;

		if (sf->existed[i] || lstat(sf->name[i], &st) || !S_ISREG(st.st_mode))
			continue;
		if (!strcmp(side_suffix[i], "-wal") && st.st_size > 0)
			continue;
		unlink(sf->name[i]);
	}
}

/* No -wal, or an empty one: nobody has written anything through it. */
static bool side_files_wal_empty(const struct side_files *sf)
{
	struct stat st;

	return sf->name[0] && (lstat(sf->name[0], &st) || st.st_size == 0);
}

static void side_files_release(struct side_files *sf)
{
	for (size_t i = 0; i < NR_SIDE; i++)
		free(sf->name[i]);
}

/*
 * "file:PATH?immutable=1": SQLite reads such a file without -wal or -shm,
 * trusting that nobody changes it.  Only for a reader that cannot create
 * them, i.e. on read-only media, where nobody can.  Every byte a URI
 * could take for syntax is %-escaped; an absolute path gets the empty
 * authority ("file:///...") so "//x" is not read as a host.
 */
static char *immutable_uri(const char *path)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = strlen(path);
	char *uri = malloc(8 + 3 * len + sizeof("?immutable=1")), *p;

	if (!uri)
		return NULL;
	p = stpcpy(uri, path[0] == '/' ? "file://" : "file:");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if (isalnum(*c) || strchr("/._-~", *c)) {
			*p++ = (char)*c;
		} else {
			*p++ = '%';
			*p++ = hex[*c >> 4];
			*p++ = hex[*c & 15];
		}
	}
	strcpy(p, "?immutable=1");
	return uri;
}

/* SQLite could not make or map the -shm/-wal a WAL reader needs. */
static bool needs_side_files(int rc)
{
	return (rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_READONLY;
}

/*
 * One connection, then classify() through it.  *rc is SQLite's code when
 * that failed, for the caller to try another way.
 */
static int connect(struct sqlite_store *ss, const char *name, int flags,
		   enum db_kind *kind, int *version, int *rc, char *err,
		   size_t errlen)
{
	int ret;

	*rc = sqlite3_open_v2(name, &ss->db, flags, NULL);
	if (*rc != SQLITE_OK) {
		ret = errno_of(*rc);
		snprintf(err, errlen, "cannot open %s: %s", ss->path,
			 ss->db ? sqlite3_errmsg(ss->db) : sqlite3_errstr(*rc));
		return ret;
	}
	sqlite3_extended_result_codes(ss->db, 1);
	sqlite3_busy_timeout(ss->db, ss->busy_ms);
	/*
	 * SQLite's advice for files from elsewhere: no SQL functions with
	 * side effects from the schema, no writes to it, cells checked as
	 * they are read (sqlite.org/security.html).
	 */
	sqlite3_db_config(ss->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(ss->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	/* look before touching anything: a foreign file stays as it is */
	ret = classify(ss, kind, version);
	if (ret) {
		*rc = sqlite3_extended_errcode(ss->db);
		snprintf(err, errlen, "%s", ss->base.err);
	}
	return ret;
}

static void disconnect(struct sqlite_store *ss)
{
	for (int i = 0; i < NR_STMTS; i++) {
		sqlite3_finalize(ss->st[i]);
		ss->st[i] = NULL;
	}
	sqlite3_close(ss->db);
	ss->db = NULL;
	ss->classified = ss->has_meta = false;
}

int sqlite_store_open(const char *path, enum store_mode mode,
		      struct store **out, char *err, size_t errlen)
{
	struct sqlite_store *ss = NULL;
	struct side_files sf = { 0 };
	char dummy[STORE_ERRLEN];
	enum db_kind kind;
	struct stat st;
	bool exists = true, noted = false;
	int version, flags = 0, rc, ret;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (stat(path, &st)) {
		if (errno != ENOENT) {
			ret = -errno;
			snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
			return ret;
		}
		if (mode == STORE_READ) {
			snprintf(err, errlen, "no results yet at %s", path);
			return -ENOENT;
		}
		exists = false;
		ret = store_mkdir_parent(path, err, errlen);
		if (ret)
			return ret;
	} else if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is a directory, not a database", path);
		return -EISDIR;
	} else if (!S_ISREG(st.st_mode)) {
		/* /dev/null would take a -journal beside it, a fifo would hang */
		snprintf(err, errlen, "%s is not a regular file, not a database", path);
		return -EINVAL;
	} else if (st.st_size > 0) {
		ret = check_magic(path, err, errlen);
		if (ret)
			return ret;
	}
	if (mode == STORE_WRITE) {
		ret = check_writable(path, exists, err, errlen);
		if (ret)
			return ret;
	}

	ss = calloc(1, sizeof(*ss));
	if (!ss || !(ss->path = strdup(path))) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	ss->base.ops = &sqlite_ops;
	ss->mode = mode;
	ss->busy_ms = store_busy_ms();
	side_files_note(&sf, path);
	noted = true;
	/*
	 * A reader that may write opens read-write all the same: the last
	 * connection to close removes -wal and -shm, which a read-only one
	 * cannot (it would leave them behind).  One that may not opens
	 * read-only, and on media where even -shm cannot be made, immutable.
	 */
	if (mode == STORE_WRITE)
		flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	else if (can_write(path))
		flags = SQLITE_OPEN_READWRITE;
	else
		flags = SQLITE_OPEN_READONLY;
	flags |= SQLITE_OPEN_NOMUTEX;
	ret = connect(ss, path, flags, &kind, &version, &rc, err, errlen);
	if (ret && (flags & SQLITE_OPEN_READONLY) && needs_side_files(rc)) {
		char *uri = immutable_uri(path);

		if (!uri) {
			snprintf(err, errlen, "out of memory");
			ret = -ENOMEM;
			goto out;
		}
		disconnect(ss);
		ret = connect(ss, uri, flags | SQLITE_OPEN_URI, &kind, &version, &rc,
			      err, errlen);
		free(uri);
		if (ret && needs_side_files(rc))
			snprintf(err, errlen,
				 "cannot read %s: SQLite can neither create its -shm beside it nor read it as immutable: %s",
				 path, sqlite3_errmsg(ss->db));
	}
	if (ret)
		goto out;
	if (kind == DB_EMPTY && mode == STORE_READ) {
		snprintf(err, errlen, "no results yet at %s", path);
		ret = -ENOENT;
		goto out;
	}
	/*
	 * No mmap_size: it saved ~5% of a compare's read, and a file another
	 * process truncates under a mapping raises SIGBUS instead of an error.
	 */
	ret = pragma(ss, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL");
	if (ret)
		goto fail;
	if (mode == STORE_WRITE) {
		ret = pragma(ss, "PRAGMA journal_mode = WAL");
		if (ret)
			goto fail;
	}
	/*
	 * Only a writer migrates: a reader never writes, nor waits for a
	 * writer's lock, and reads an older schema as it is.
	 */
	if (mode == STORE_WRITE &&
	    (kind == DB_EMPTY || version < sqlite_schema_version)) {
		ret = migrate(ss);
		if (ret)
			goto fail;
		version = sqlite_schema_version;
	}
	ss->version = version;
	side_files_release(&sf);
	*out = &ss->base;
	return 0;
fail:
	snprintf(err, errlen, "%s", ss->base.err);
out:
	if (ss)
		sqlite_ops.close(&ss->base);
	if (noted) {
		/*
		 * A store this open created and could not finish is removed
		 * whole, unless another writer is making it too (-EBUSY, or
		 * data in its -wal).  A read-only connection cannot remove
		 * the -wal and -shm it made, as the last read-write one does.
		 */
		if (!exists && ret != -EBUSY && side_files_wal_empty(&sf)) {
			unlink(path);
			side_files_clean(&sf);
		} else if (mode == STORE_READ && (flags & SQLITE_OPEN_READONLY)) {
			side_files_clean(&sf);
		}
		side_files_release(&sf);
	}
	return ret;
}

static void sqlite_close(struct store *s)
{
	struct sqlite_store *ss = to_ss(s);

	for (int i = 0; i < NR_STMTS; i++)
		sqlite3_finalize(ss->st[i]);
	if (ss->db)
		sqlite3_close(ss->db);
	names_clear(&ss->names);
	free(ss->path);
	free(ss);
}

/* ---- writing ---- */

static int check_writer(struct sqlite_store *ss)
{
	if (ss->mode != STORE_WRITE)
		return store_fail(&ss->base, -EBADF, "%s: opened for reading only",
				  ss->path);
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
		return prep_err(ss);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	done(st);
	if (rc == SQLITE_DONE) {
		st = stmt(ss, ST_NAME_ADD);
		if (!st)
			return prep_err(ss);
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		done(st);
		if (rc != SQLITE_DONE)
			return db_fail(ss, rc, "cannot add a stat name");
		*id = sqlite3_last_insert_rowid(ss->db);
	} else if (rc != SQLITE_ROW) {
		return db_fail(ss, rc, "cannot look up a stat name");
	}
	if (names_add(&ss->names, name, h, *id))
		return store_fail(&ss->base, -ENOMEM, "out of memory");
	return 0;
}

static int put_strmap(struct sqlite_store *ss, enum stmt_id id, int64_t run_id,
		      const struct strmap *m)
{
	sqlite3_stmt *st = stmt(ss, id);

	if (!st)
		return prep_err(ss);
	for (size_t i = 0; i < m->n; i++) {
		int rc;

		sqlite3_bind_int64(st, 1, run_id);
		bind_text(st, 2, m->v[i].key);
		bind_text(st, 3, m->v[i].value ? m->v[i].value : "");
		rc = sqlite3_step(st);
		done(st);
		if (rc != SQLITE_DONE)
			return db_fail(ss, rc, id == ST_ENV_ADD ? "cannot store the environment"
								: "cannot store the parameters");
	}
	return 0;
}

static int sqlite_put_run(struct store *s, const struct run_record *r,
			  int64_t *run_id)
{
	struct sqlite_store *ss = to_ss(s);
	size_t names_before = ss->names.n;
	sqlite3_stmt *st;
	int64_t id;
	int rc, err;

	if (!r->testbox || !r->testcase || !r->job || !r->commit)
		return store_fail(s, -EINVAL, "a run needs a testbox, testcase, job and commit");
	err = check_writer(ss);
	if (err)
		return err;
	err = exec_stmt(ss, ST_BEGIN_WRITE, "cannot begin a transaction");
	if (err)
		return err;

	st = stmt(ss, ST_RUN_ADD);
	if (!st) {
		err = prep_err(ss);
		goto fail;
	}
	bind_text(st, 1, r->testbox);
	bind_text(st, 2, r->testcase);
	bind_text(st, 3, r->job);
	bind_text(st, 4, r->commit);
	bind_text(st, 5, run_status_name(r->status));
	sqlite3_bind_double(st, 6, isfinite(r->started) ? r->started : 0);
	sqlite3_bind_double(st, 7, isfinite(r->duration_s) ? r->duration_s : 0);
	bind_text(st, 8, r->job_text);
	rc = sqlite3_step(st);
	done(st);
	if (rc != SQLITE_DONE) {
		err = db_fail(ss, rc, "cannot store the run");
		goto fail;
	}
	id = sqlite3_last_insert_rowid(ss->db);

	err = put_strmap(ss, ST_PARAM_ADD, id, &r->params);
	if (!err)
		err = put_strmap(ss, ST_ENV_ADD, id, &r->env);
	if (err)
		goto fail;

	for (size_t i = 0; i < r->stats.n; i++) {
		int64_t name_id = 0;

		err = intern(ss, r->stats.v[i].name, &name_id);
		if (err)
			goto fail;
		st = stmt(ss, ST_VALUE_ADD);
		if (!st) {
			err = prep_err(ss);
			goto fail;
		}
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, name_id);
		bind_value(st, 3, r->stats.v[i].value);
		rc = sqlite3_step(st);
		done(st);
		if (rc != SQLITE_DONE) {
			err = db_fail(ss, rc, "cannot store a stat");
			goto fail;
		}
	}
	err = exec_stmt(ss, ST_COMMIT, "cannot commit the run");
	if (err)
		goto fail;
	if (run_id)
		*run_id = id;
	return 0;
fail:
	rollback(ss);
	/* names added in the rolled-back transaction no longer exist */
	if (ss->names.n != names_before)
		names_clear(&ss->names);
	return err;
}

/* ---- reading ---- */

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

static int sqlite_list_groups(struct store *s, const struct store_filter *f,
			      struct store_group **groups, size_t *nr)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st = stmt(ss, ST_GROUPS);
	struct store_group *v = NULL;
	size_t n = 0, cap = 0;
	char *commit_end = NULL;
	int rc, err = 0;

	if (!st)
		return prep_err(ss);
	if (f->commit && *f->commit && !(commit_end = prefix_end(f->commit)) &&
	    strspn(f->commit, "\xff") != strlen(f->commit))
		return store_fail(s, -ENOMEM, "out of memory");
	bind_text(st, 1, f->testcase);
	bind_text(st, 2, f->commit);
	bind_text(st, 3, commit_end);
	bind_text(st, 4, f->job);
	bind_text(st, 5, f->testbox);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_group *g;

		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct store_group *nv = realloc(v, ncap * sizeof(*v));

			if (!nv) {
				err = store_fail(s, -ENOMEM, "out of memory");
				goto out;
			}
			v = nv;
			cap = ncap;
		}
		g = &v[n++];
		memset(g, 0, sizeof(*g));
		err = col_text(ss, st, 0, false, "a run", &g->testbox);
		if (!err)
			err = col_text(ss, st, 1, false, "a run", &g->job);
		if (!err)
			err = col_text(ss, st, 2, false, "a run", &g->commit);
		if (!err)
			err = col_text(ss, st, 3, false, "a run", &g->testcase);
		if (!err)
			err = col_count(ss, st, 4, "a group", &g->runs_complete);
		if (!err)
			err = col_count(ss, st, 5, "a group", &g->runs_failed);
		if (!err)
			err = col_count(ss, st, 6, "a group", &g->runs_incomplete);
		if (!err)
			err = col_id(ss, st, 7, "a run", &g->last_run_id);
		if (!err)
			err = col_real(ss, st, 8, false, "a run", &g->last_started);
		if (!err && g->runs_complete + g->runs_failed + g->runs_incomplete !=
			    (size_t)sqlite3_column_int64(st, 9))
			err = damaged(ss, "a run of %s on %s has an unknown status",
				      g->job, g->testbox);
		if (err)
			goto out;
	}
	if (rc != SQLITE_DONE)
		err = db_fail(ss, rc, "cannot list the runs");
out:
	done(st);
	free(commit_end);
	if (err) {
		store_groups_release(v, n);
		return err;
	}
	*groups = v;
	*nr = n;
	return 0;
}

static int sqlite_group_runs(struct store *s, const char *testbox,
			     const char *job, const char *commit, int64_t **ids,
			     size_t *nr)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st = stmt(ss, ST_GROUP_RUNS);
	int64_t *v = NULL;
	size_t n = 0, cap = 0;
	int rc, err = 0;

	if (!st)
		return prep_err(ss);
	bind_text(st, 1, testbox);
	bind_text(st, 2, job);
	bind_text(st, 3, commit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			int64_t *nv = realloc(v, ncap * sizeof(*v));

			if (!nv) {
				err = store_fail(s, -ENOMEM, "out of memory");
				goto out;
			}
			v = nv;
			cap = ncap;
		}
		err = col_id(ss, st, 0, "a run", &v[n]);
		if (err)
			goto out;
		n++;
	}
	if (rc != SQLITE_DONE)
		err = db_fail(ss, rc, "cannot list the runs");
out:
	done(st);
	if (err) {
		free(v);
		return err;
	}
	*ids = v;
	*nr = n;
	return 0;
}

static int get_strmap(struct sqlite_store *ss, enum stmt_id id, int64_t run_id,
		      struct strmap *m, const char *what)
{
	sqlite3_stmt *st = stmt(ss, id);
	char row[64];
	int rc, err = 0;

	if (!st)
		return prep_err(ss);
	snprintf(row, sizeof(row), "run %lld", (long long)run_id);
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *k = NULL, *v = NULL;
		size_t before = m->n;

		err = col_text(ss, st, 0, false, row, &k);
		if (!err)
			err = col_text(ss, st, 1, false, row, &v);
		if (!err && strmap_set(m, k, v))
			err = store_fail(&ss->base, -ENOMEM, "out of memory");
		/* (run_id, key) is the key: a key met twice is a forged table */
		if (!err && m->n == before)
			err = damaged(ss, "%s holds the %s '%s' twice", row, what, k);
		free(k);
		free(v);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = db_fail(ss, rc, "cannot read a run");
	done(st);
	return err;
}

static int parse_status(const char *s, enum run_status *status)
{
	static const enum run_status all[] = { RUN_COMPLETE, RUN_FAILED,
					       RUN_INCOMPLETE };

	for (size_t i = 0; s && i < sizeof(all) / sizeof(all[0]); i++) {
		if (!strcmp(s, run_status_name(all[i]))) {
			*status = all[i];
			return 0;
		}
	}
	return -EBADMSG;
}

static int sqlite_get_run(struct store *s, int64_t run_id, struct run_record *r)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	char row[64];
	size_t nstats;
	int rc, err = 0;

	snprintf(row, sizeof(row), "run %lld", (long long)run_id);
	/* one snapshot: the run and its stats as one writer committed them */
	err = exec_stmt(ss, ST_BEGIN_READ, "cannot begin a transaction");
	if (err)
		return err;
	st = stmt(ss, ST_RUN_GET);
	if (!st) {
		err = prep_err(ss);
		goto out;
	}
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		char *status = NULL;

		err = col_text(ss, st, 0, false, row, &r->testbox);
		if (!err)
			err = col_text(ss, st, 1, false, row, &r->testcase);
		if (!err)
			err = col_text(ss, st, 2, false, row, &r->job);
		if (!err)
			err = col_text(ss, st, 3, false, row, &r->commit);
		if (!err)
			err = col_text(ss, st, 4, false, row, &status);
		if (!err && parse_status(status, &r->status))
			err = damaged(ss, "%s has an unknown status '%s'", row, status);
		free(status);
		if (!err)
			err = col_real(ss, st, 5, false, row, &r->started);
		if (!err)
			err = col_real(ss, st, 6, false, row, &r->duration_s);
		if (!err)
			err = col_text(ss, st, 7, true, row, &r->job_text);
	} else if (rc == SQLITE_DONE) {
		err = store_fail(s, -ENOENT, "no run %lld in %s", (long long)run_id,
				 ss->path);
	} else {
		err = db_fail(ss, rc, "cannot read a run");
	}
	done(st);
	if (err)
		goto out;
	err = get_strmap(ss, ST_PARAMS_GET, run_id, &r->params, "parameter");
	if (!err)
		err = get_strmap(ss, ST_ENV_GET, run_id, &r->env, "environment key");
	if (err)
		goto out;

	st = stmt(ss, ST_STATS_GET);
	if (!st) {
		err = prep_err(ss);
		goto out;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *name = NULL;
		int64_t name_id;
		double v;

		err = col_id(ss, st, 2, row, &name_id);
		if (!err && sqlite3_column_type(st, 0) == SQLITE_NULL)
			err = damaged(ss, "%s holds a value of stat %lld, which has no name",
				      row, (long long)name_id);
		if (!err)
			err = col_text(ss, st, 0, false, row, &name);
		if (!err)
			err = col_real(ss, st, 1, true, row, &v);
		if (!err && statmap_add(&r->stats, name, v))
			err = store_fail(s, -ENOMEM, "out of memory");
		free(name);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = db_fail(ss, rc, "cannot read a run's stats");
	done(st);
	nstats = r->stats.n;
	if (!err)
		statmap_finish(&r->stats);
	/* statmap_finish() keeps one of a name met twice: the file had it twice */
	if (!err && r->stats.n != nstats)
		err = damaged(ss, "%s holds a stat twice", row);
out:
	rollback(ss);	/* ends the read transaction */
	if (err)
		run_record_release(r);
	return err;
}

/* Sort the parallel arrays by name through a permutation. */
struct by_name {
	char *name;
	double *values;
	size_t count;
};

static int cmp_by_name(const void *a, const void *b)
{
	return strcmp(((const struct by_name *)a)->name,
		      ((const struct by_name *)b)->name);
}

static int sort_samples(struct store_samples *out)
{
	struct by_name *t;

	if (out->nr < 2)
		return 0;
	t = malloc(out->nr * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < out->nr; i++)
		t[i] = (struct by_name){ out->names[i], out->values[i], out->counts[i] };
	qsort(t, out->nr, sizeof(*t), cmp_by_name);
	for (size_t i = 0; i < out->nr; i++) {
		out->names[i] = t[i].name;
		out->values[i] = t[i].values;
		out->counts[i] = t[i].count;
	}
	free(t);
	return 0;
}

/*
 * name id -> index into the samples' arrays, open addressing: a group's
 * stats are looked up once per run, tens of thousands of times.
 */
struct id_index {
	int64_t *ids;		/* 0 = empty: SQLite never hands out rowid 0 here */
	size_t *slots;
	size_t mask;
	int64_t *slot_ids;	/* slot -> id, the other way */
	size_t *slot_run;	/* slot -> 1 + index of the last run that gave it a value */
	size_t slot_cap;
};

static int id_index_init(struct id_index *x, size_t expected)
{
	size_t size = 1024;

	while (size < 2 * expected)
		size *= 2;
	x->ids = calloc(size, sizeof(*x->ids));
	x->slots = malloc(size * sizeof(*x->slots));
	x->mask = size - 1;
	return x->ids && x->slots ? 0 : -ENOMEM;
}

static void id_index_release(struct id_index *x)
{
	free(x->ids);
	free(x->slots);
	free(x->slot_ids);
	free(x->slot_run);
}

/* The bucket holding id, or the empty one where it belongs. */
static size_t id_index_find(const struct id_index *x, int64_t id)
{
	size_t h = (size_t)((uint64_t)id * 0x9E3779B97F4A7C15u >> 32) & x->mask;

	while (x->ids[h] && x->ids[h] != id)
		h = (h + 1) & x->mask;
	return h;
}

static int id_index_grow(struct id_index *x)
{
	struct id_index bigger;
	size_t size = x->mask + 1;

	bigger.ids = calloc(2 * size, sizeof(*bigger.ids));
	bigger.slots = malloc(2 * size * sizeof(*bigger.slots));
	bigger.mask = 2 * size - 1;
	if (!bigger.ids || !bigger.slots) {
		free(bigger.ids);
		free(bigger.slots);
		return -ENOMEM;
	}
	for (size_t i = 0; i < size; i++) {
		if (x->ids[i]) {
			size_t h = id_index_find(&bigger, x->ids[i]);

			bigger.ids[h] = x->ids[i];
			bigger.slots[h] = x->slots[i];
		}
	}
	free(x->ids);
	free(x->slots);
	x->ids = bigger.ids;
	x->slots = bigger.slots;
	x->mask = bigger.mask;
	return 0;
}

/* A new stat in the samples: its arrays, and its id in the index. */
static int add_sample_slot(struct store_samples *out, size_t *cap,
			   struct id_index *index, size_t bucket, int64_t id)
{
	size_t i = out->nr;

	if (out->nr == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		char **nn = realloc(out->names, ncap * sizeof(*nn));
		double **nv;
		size_t *nc;

		if (nn)
			out->names = nn;
		nv = nn ? realloc(out->values, ncap * sizeof(*nv)) : NULL;
		if (nv)
			out->values = nv;
		nc = nv ? realloc(out->counts, ncap * sizeof(*nc)) : NULL;
		if (!nc)
			return -ENOMEM;
		out->counts = nc;
		*cap = ncap;
	}
	if (i == index->slot_cap) {
		size_t ncap = index->slot_cap ? 2 * index->slot_cap : 256;
		int64_t *n = realloc(index->slot_ids, ncap * sizeof(*n));
		size_t *r;

		if (!n)
			return -ENOMEM;
		index->slot_ids = n;
		r = realloc(index->slot_run, ncap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		index->slot_run = r;
		index->slot_cap = ncap;
	}
	index->slot_ids[i] = id;
	index->slot_run[i] = 0;
	out->names[i] = NULL;
	out->counts[i] = 0;
	out->values[i] = malloc((out->nr_runs ? out->nr_runs : 1) * sizeof(double));
	out->nr++;
	if (!out->values[i])
		return -ENOMEM;
	index->ids[bucket] = id;
	index->slots[bucket] = i;
	/* keep the table at most half full */
	return 2 * out->nr > index->mask ? id_index_grow(index) : 0;
}

/* The ids of the group's complete runs, oldest first. */
static int complete_runs(struct sqlite_store *ss, const char *testbox,
			 const char *job, const char *commit,
			 int64_t **ids, size_t *nr)
{
	sqlite3_stmt *st = stmt(ss, ST_COMPLETE_RUNS);
	size_t cap = 0;
	int rc, err = 0;

	*ids = NULL;
	*nr = 0;
	if (!st)
		return prep_err(ss);
	bind_text(st, 1, testbox);
	bind_text(st, 2, job);
	bind_text(st, 3, commit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*nr == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			int64_t *n = realloc(*ids, ncap * sizeof(*n));

			if (!n) {
				err = store_fail(&ss->base, -ENOMEM, "out of memory");
				break;
			}
			*ids = n;
			cap = ncap;
		}
		err = col_id(ss, st, 0, "a run", &(*ids)[*nr]);
		/* ORDER BY id: a run met twice would give its values twice */
		if (!err && *nr && (*ids)[*nr] <= (*ids)[*nr - 1])
			err = damaged(ss, "run %lld is listed twice",
				      (long long)(*ids)[*nr]);
		if (err)
			break;
		(*nr)++;
	}
	if (!err && rc != SQLITE_DONE)
		err = db_fail(ss, rc, "cannot list the runs");
	done(st);
	return err;
}

/*
 * Run number r's values into the samples, new stats added as they appear.
 * The file is untrusted: each stat takes at most one value per run, so
 * counts[i] <= nr_runs, the size of values[i].
 */
static int load_run_values(struct sqlite_store *ss, size_t r, int64_t run_id,
			   struct store_samples *out, size_t *cap,
			   struct id_index *index, int64_t *min_id, int64_t *max_id)
{
	sqlite3_stmt *st = stmt(ss, ST_RUN_VALUES);
	int rc, err = 0;

	if (!st)
		return prep_err(ss);
	sqlite3_bind_int64(st, 1, run_id);
	for (size_t pos = 0; (rc = sqlite3_step(st)) == SQLITE_ROW; pos++) {
		/*
		 * The checks of the fast path: through sqlite3_value, since
		 * each sqlite3_column_*() call costs as much as all of them.
		 */
		sqlite3_value *cid = sqlite3_column_value(st, 0);
		sqlite3_value *cv = sqlite3_column_value(st, 1);
		int64_t id = sqlite3_value_int64(cid);
		int vtype = sqlite3_value_type(cv);
		double value = sqlite3_value_double(cv);
		size_t h, i;

		if (sqlite3_value_type(cid) != SQLITE_INTEGER || id < 1) {
			err = col_id(ss, st, 0, "a stat value", &id);
			break;
		}
		/* perfbot stores NaN as NULL: NaN bits are a damaged value */
		if ((vtype != SQLITE_FLOAT && vtype != SQLITE_INTEGER) || isnan(value)) {
			err = damaged(ss, "run %lld holds %s as the value of stat %lld",
				      (long long)run_id,
				      vtype == SQLITE_FLOAT ? "NaN" : type_name(vtype),
				      (long long)id);
			break;
		}

		/* runs of one job share their names: mostly the same order */
		if (pos < out->nr && index->slot_ids[pos] == id) {
			i = pos;
			goto add;
		}
		h = id_index_find(index, id);
		if (!index->ids[h]) {
			if (add_sample_slot(out, cap, index, h, id)) {
				err = store_fail(&ss->base, -ENOMEM, "out of memory");
				break;
			}
			*min_id = out->nr == 1 || id < *min_id ? id : *min_id;
			*max_id = out->nr == 1 || id > *max_id ? id : *max_id;
			i = out->nr - 1;
		} else {
			i = index->slots[h];
		}
add:
		/* (run_id, name_id) is the key: a second row is a forged table */
		if (index->slot_run[i] == r + 1 || out->counts[i] >= out->nr_runs) {
			err = damaged(ss, "run %lld holds stat %lld twice",
				      (long long)run_id, (long long)id);
			break;
		}
		index->slot_run[i] = r + 1;
		out->values[i][out->counts[i]++] = value;
	}
	if (!err && rc != SQLITE_DONE)
		err = db_fail(ss, rc, "cannot read a run's stats");
	done(st);
	return err;
}

static int set_sample_name(struct sqlite_store *ss, sqlite3_stmt *st, int col,
			   struct store_samples *out, size_t i, int64_t id)
{
	char row[64];

	/* a rowid met twice: a damaged b-tree */
	if (out->names[i])
		return damaged(ss, "stat %lld has two names", (long long)id);
	/* the message's row only when needed: snprintf costs more than the rest */
	if (sqlite3_column_type(st, col) == SQLITE_TEXT) {
		const char *t = (const char *)sqlite3_column_text(st, col);

		if (t && strlen(t) == (size_t)sqlite3_column_bytes(st, col)) {
			out->names[i] = strdup(t);
			return out->names[i] ? 0
					     : store_fail(&ss->base, -ENOMEM, "out of memory");
		}
	}
	snprintf(row, sizeof(row), "stat %lld", (long long)id);
	return col_text(ss, st, col, false, row, &out->names[i]);
}

/*
 * The names of the loaded ids: one scan of their id range when the range
 * is dense in them (a job's stats are interned together), else one
 * lookup each.
 */
static int load_sample_names(struct sqlite_store *ss, struct store_samples *out,
			     const struct id_index *index, int64_t min_id,
			     int64_t max_id)
{
	bool scan = (uint64_t)(max_id - min_id) < 4 * (uint64_t)out->nr + 1024;
	sqlite3_stmt *st = stmt(ss, scan ? ST_NAME_RANGE : ST_NAME_BY_ID);
	int rc = SQLITE_DONE, err = 0;

	if (!st)
		return prep_err(ss);
	if (scan) {
		sqlite3_bind_int64(st, 1, min_id);
		sqlite3_bind_int64(st, 2, max_id);
		while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			sqlite3_value *cid = sqlite3_column_value(st, 0);
			int64_t id = sqlite3_value_int64(cid);
			size_t h;

			if (sqlite3_value_type(cid) != SQLITE_INTEGER || id < 1) {
				err = col_id(ss, st, 0, "a stat name", &id);
				break;
			}
			h = id_index_find(index, id);
			if (index->ids[h])
				err = set_sample_name(ss, st, 1, out, index->slots[h], id);
		}
	} else {
		for (size_t h = 0; !err && h <= index->mask; h++) {
			if (!index->ids[h])
				continue;
			sqlite3_bind_int64(st, 1, index->ids[h]);
			rc = sqlite3_step(st);
			if (rc == SQLITE_ROW)
				err = set_sample_name(ss, st, 0, out, index->slots[h],
						      index->ids[h]);
			sqlite3_reset(st);
			rc = rc == SQLITE_ROW ? SQLITE_DONE : rc;
			if (rc != SQLITE_DONE)
				break;
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = db_fail(ss, rc, "cannot read the stat names");
	done(st);
	/* a value's name_id references stat_name: a gap is a damaged file */
	for (size_t i = 0; !err && i < out->nr; i++)
		if (!out->names[i])
			err = damaged(ss, "stat %lld has values but no name",
				      (long long)index->slot_ids[i]);
	return err;
}

static int sqlite_load_samples(struct store *s, const char *testbox,
			       const char *job, const char *commit,
			       struct store_samples *out)
{
	struct sqlite_store *ss = to_ss(s);
	struct id_index index = { 0 };
	int64_t *runs = NULL, min_id = 0, max_id = 0;
	size_t cap = 0;
	int err;

	err = exec_stmt(ss, ST_BEGIN_READ, "cannot begin a transaction");
	if (err)
		return err;
	err = complete_runs(ss, testbox, job, commit, &runs, &out->nr_runs);
	if (err || !out->nr_runs)
		goto out;
	if (id_index_init(&index, 1024)) {
		err = store_fail(s, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t r = 0; !err && r < out->nr_runs; r++)
		err = load_run_values(ss, r, runs[r], out, &cap, &index, &min_id,
				      &max_id);
	if (!err && out->nr)
		err = load_sample_names(ss, out, &index, min_id, max_id);
	if (!err && sort_samples(out))
		err = store_fail(s, -ENOMEM, "out of memory");
	/* names are UNIQUE: two ids of one name would be two stats of one name */
	for (size_t i = 1; !err && i < out->nr; i++)
		if (!strcmp(out->names[i - 1], out->names[i]))
			err = damaged(ss, "the stat name '%s' is stored twice",
				      out->names[i]);
out:
	rollback(ss);	/* ends the read transaction */
	id_index_release(&index);
	free(runs);
	if (err)
		store_samples_release(out);
	return err;
}

static bool is_hex(const char *s)
{
	for (; *s; s++)
		if (!isxdigit((unsigned char)*s))
			return false;
	return true;
}

static int sqlite_resolve_commit(struct store *s, const char *given, char **full)
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
		return prep_err(ss);
	bind_text(st, 1, given);
	rc = sqlite3_step(st);
	done(st);
	if (rc == SQLITE_ROW) {
		*full = strdup(given);
		return *full ? 0 : store_fail(s, -ENOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return db_fail(ss, rc, "cannot look up a commit");
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
		err = st ? store_fail(s, -ENOMEM, "out of memory") : prep_err(ss);
		goto out;
	}
	bind_text(st, 1, lower);
	bind_text(st, 2, end);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && nfound < 3) {
		err = col_text(ss, st, 0, false, "a run", &found[nfound++]);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE && rc != SQLITE_ROW)
		err = db_fail(ss, rc, "cannot look up a commit");
	done(st);
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

/* ---- bisections ---- */

/* The schema version that added the bisect tables (schema.c). */
#define SCHEMA_BISECT 2

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

/* Room for element n of a growing array: the array, or NULL (v kept). */
static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return v;
	ncap = *cap ? 2 * *cap : 16;
	nv = realloc(v, ncap * size);
	if (nv)
		*cap = ncap;
	return nv;
}

/*
 * The statement of a bisect query, or NULL (and 0) when the file has no
 * bisect tables: a reader of an older database, which holds no
 * bisections.  Such a reader looks again each time, since a writer may
 * have migrated the file meanwhile.
 */
static int bisect_query(struct sqlite_store *ss, enum stmt_id id,
			sqlite3_stmt **st)
{
	*st = NULL;
	if (ss->version < SCHEMA_BISECT) {
		enum db_kind kind;
		int err = classify(ss, &kind, &ss->version);

		if (err)
			return err;
		if (ss->version < SCHEMA_BISECT)
			return 0;
	}
	*st = stmt(ss, id);
	return *st ? 0 : prep_err(ss);
}

/* One statement that writes a bisection's row or one of its rows. */
static int bisect_write(struct sqlite_store *ss, sqlite3_stmt *st, int64_t id,
			const char *what)
{
	int rc = sqlite3_step(st);

	done(st);
	if (rc != SQLITE_DONE)
		return db_fail(ss, rc, what);
	return sqlite3_changes(ss->db) ? 0 : no_bisection(ss, id);
}

static int sqlite_bisect_add(struct store *s, const char *status,
			     const char *spec, int64_t *id)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int rc, err;

	if (!status || !spec)
		return store_fail(s, -EINVAL, "a bisection needs a status and a spec");
	err = check_writer(ss);
	if (err)
		return err;
	st = stmt(ss, ST_BISECT_ADD);
	if (!st)
		return prep_err(ss);
	bind_text(st, 1, status);
	bind_text(st, 2, spec);
	sqlite3_bind_double(st, 3, wall_now());
	rc = sqlite3_step(st);
	done(st);
	if (rc != SQLITE_DONE)
		return db_fail(ss, rc, "cannot store a bisection");
	if (id)
		*id = sqlite3_last_insert_rowid(ss->db);
	return 0;
}

/*
 * The row at st (id, status, spec, result, created, updated) into *b,
 * which is overwritten: on an error what was read stays in it for
 * store_bisect_release(), and the rest is NULL.
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
	err = col_text(ss, st, 1, false, row, &b->status);
	if (!err)
		err = col_text(ss, st, 2, false, row, &b->spec);
	if (!err)
		err = col_text(ss, st, 3, true, row, &b->result);
	if (!err)
		err = col_real(ss, st, 4, false, row, &b->created);
	if (!err)
		err = col_real(ss, st, 5, false, row, &b->updated);
	return err;
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
		err = db_fail(ss, rc, "cannot read a bisection");
	done(st);
	if (err)
		store_bisect_release(out);
	return err;
}

static int sqlite_bisect_get(struct store *s, int64_t id,
			     struct store_bisect *out)
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

static int sqlite_bisect_latest(struct store *s, struct store_bisect *out)
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

static int sqlite_bisect_list(struct store *s, struct store_bisect **out,
			      size_t *nr)
{
	struct sqlite_store *ss = to_ss(s);
	struct store_bisect *v = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st;
	int rc, err;

	err = bisect_query(ss, ST_BISECT_LIST, &st);
	if (err || !st)
		return err;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_bisect *nv = grow(v, &cap, n, sizeof(*v));

		if (!nv) {
			err = store_fail(s, -ENOMEM, "out of memory");
			break;
		}
		v = nv;
		err = bisect_row(ss, st, &v[n++]);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = db_fail(ss, rc, "cannot list the bisections");
	done(st);
	if (err) {
		store_bisects_release(v, n);
		return err;
	}
	*out = v;
	*nr = n;
	return 0;
}

static int sqlite_bisect_update(struct store *s, int64_t id, const char *status,
				const char *result)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int err;

	if (!status)
		return store_fail(s, -EINVAL, "a bisection needs a status");
	err = check_writer(ss);
	if (err)
		return err;
	st = stmt(ss, ST_BISECT_UPDATE);
	if (!st)
		return prep_err(ss);
	sqlite3_bind_int64(st, 1, id);
	bind_text(st, 2, status);
	bind_text(st, 3, result);
	sqlite3_bind_double(st, 4, wall_now());
	return bisect_write(ss, st, id, "cannot update a bisection");
}

static int sqlite_bisect_log_add(struct store *s, int64_t id, const char *text)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int err;

	if (!text)
		return store_fail(s, -EINVAL, "a bisection's log line needs a text");
	err = check_writer(ss);
	if (err)
		return err;
	st = stmt(ss, ST_BISECT_LOG_ADD);
	if (!st)
		return prep_err(ss);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_double(st, 2, wall_now());
	bind_text(st, 3, text);
	return bisect_write(ss, st, id, "cannot add to a bisection's log");
}

/* One row of a bisection's log or marks into *elem: 0, -EBADMSG or -ENOMEM. */
typedef int (*bisect_row_fn)(struct sqlite_store *ss, sqlite3_stmt *st,
			     const char *what, void *elem);

/*
 * The rows of one bisection (ST_BISECT_LOG or ST_BISECT_MARKS: the
 * bisection LEFT JOINed, so no row means no bisection and a row of NULLs
 * one without any), each filled by fill into an array of `size` bytes per
 * element.  On failure the elements filled so far are released by
 * release(v, n).
 */
static int bisect_rows(struct sqlite_store *ss, enum stmt_id which, int64_t id,
		       size_t size, bisect_row_fn fill,
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
		char *nv;

		found = true;
		/* the bisection, without rows (a row's key is never NULL) */
		if (sqlite3_column_type(st, 0) == SQLITE_NULL &&
		    sqlite3_column_type(st, 1) == SQLITE_NULL)
			continue;
		nv = grow(v, &cap, n, size);
		if (!nv) {
			err = store_fail(&ss->base, -ENOMEM, "out of memory");
			break;
		}
		v = nv;
		memset(v + n * size, 0, size);
		err = fill(ss, st, row, v + n++ * size);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = db_fail(ss, rc, what);
	done(st);
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

static int fill_line(struct sqlite_store *ss, sqlite3_stmt *st,
		     const char *what, void *elem)
{
	struct store_bisect_line *l = elem;
	int err = col_id(ss, st, 0, what, &l->seq);

	if (!err)
		err = col_real(ss, st, 1, false, what, &l->time);
	if (!err)
		err = col_text(ss, st, 2, false, what, &l->text);
	return err;
}

static void release_lines(void *v, size_t n)
{
	store_bisect_lines_release(v, n);
}

static int sqlite_bisect_log(struct store *s, int64_t id,
			     struct store_bisect_line **lines, size_t *nr)
{
	return bisect_rows(to_ss(s), ST_BISECT_LOG, id, sizeof(**lines), fill_line,
			   release_lines, "cannot read a bisection's log",
			   (void **)lines, nr);
}

static int sqlite_bisect_mark(struct store *s, int64_t id, const char *sha,
			      const char *mark, const char *note)
{
	struct sqlite_store *ss = to_ss(s);
	sqlite3_stmt *st;
	int err;

	if (!sha || !mark)
		return store_fail(s, -EINVAL, "a bisection's mark needs a commit and a mark");
	err = check_writer(ss);
	if (err)
		return err;
	st = stmt(ss, ST_BISECT_MARK);
	if (!st)
		return prep_err(ss);
	sqlite3_bind_int64(st, 1, id);
	bind_text(st, 2, sha);
	bind_text(st, 3, mark);
	bind_text(st, 4, note);
	return bisect_write(ss, st, id, "cannot mark a commit");
}

static int fill_mark(struct sqlite_store *ss, sqlite3_stmt *st,
		     const char *what, void *elem)
{
	struct store_bisect_mark *m = elem;
	int err = col_text(ss, st, 0, false, what, &m->sha);

	if (!err)
		err = col_text(ss, st, 1, false, what, &m->mark);
	if (!err)
		err = col_text(ss, st, 2, true, what, &m->note);
	return err;
}

static void release_marks(void *v, size_t n)
{
	store_bisect_marks_release(v, n);
}

static int sqlite_bisect_marks(struct store *s, int64_t id,
			       struct store_bisect_mark **marks, size_t *nr)
{
	return bisect_rows(to_ss(s), ST_BISECT_MARKS, id, sizeof(**marks), fill_mark,
			   release_marks, "cannot read a bisection's marks",
			   (void **)marks, nr);
}

static const struct store_ops sqlite_ops = {
	.close = sqlite_close,
	.put_run = sqlite_put_run,
	.list_groups = sqlite_list_groups,
	.group_runs = sqlite_group_runs,
	.get_run = sqlite_get_run,
	.load_samples = sqlite_load_samples,
	.resolve_commit = sqlite_resolve_commit,
	.bisect_add = sqlite_bisect_add,
	.bisect_get = sqlite_bisect_get,
	.bisect_latest = sqlite_bisect_latest,
	.bisect_list = sqlite_bisect_list,
	.bisect_update = sqlite_bisect_update,
	.bisect_log_add = sqlite_bisect_log_add,
	.bisect_log = sqlite_bisect_log,
	.bisect_mark = sqlite_bisect_mark,
	.bisect_marks = sqlite_bisect_marks,
};
