/*
 * sqlite.c - the SQLite backend of store.h (docs/store.md): the
 * connection.  Opening (the checks before SQLite sees the file, SQLite's
 * hardening for untrusted files, read-only and immutable opening, the busy
 * timeout), classifying and migrating the file, closing; and what the
 * other sqlite_*.c files share (sqlite_internal.h): the statement cache,
 * transactions, the mapping of SQLite's errors, and the column readers
 * that check every value read from the file.
 *
 * One connection per struct store.  Statements are prepared once, on
 * first use, and kept for the connection's life.
 */
#define _GNU_SOURCE
#include "store/sqlite_internal.h"
#include "util/bug.h"
#include "util/strbuf.h"
#include "util/vec.h"
#include "version.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const conn_sql[NR_STMTS] = {
	[ST_BEGIN_WRITE] = "BEGIN IMMEDIATE",
	[ST_BEGIN_READ] = "BEGIN",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	/* parenthesised: among one-literal entries clang suspects a lost comma */
	[ST_CLASSIFY] =
		("SELECT count(*), coalesce(sum(type = 'table' AND name = 'meta'), 0)"
		 " FROM sqlite_master"),
	[ST_META_GET] = "SELECT value FROM meta WHERE key = ?1",
	[ST_META_SET] = "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
};

static const struct store_ops sqlite_ops;

/* ---- errors ---- */

int ss_errno(int rc)
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
int ss_damaged(struct sqlite_store *ss, const char *fmt, ...)
{
	struct strbuf what = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&what, fmt, ap);
	va_end(ap);
	ss->last_err = -EBADMSG;
	store_fail(&ss->base, -EBADMSG, "%s: the database is damaged: %s",
		   ss->path, strbuf_error(&what) ? "(out of memory)" : what.buf);
	strbuf_release(&what);
	return -EBADMSG;
}

/* The message for a failed SQLite call: busy is the one users meet. */
int ss_db_fail(struct sqlite_store *ss, int rc, const char *what)
{
	int err = ss_errno(rc) ?: -EIO;

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
		return ss_damaged(ss, "%s: %s", what,
				  ss->db ? sqlite3_errmsg(ss->db) : sqlite3_errstr(rc));
	return store_fail(&ss->base, err, "%s: %s: %s", ss->path, what,
			  ss->db ? sqlite3_errmsg(ss->db) : sqlite3_errstr(rc));
}

int ss_prep_err(struct sqlite_store *ss)
{
	return ss->last_err ?: -EIO;
}

int ss_check_writer(struct sqlite_store *ss)
{
	if (ss->mode != STORE_WRITE)
		return store_fail(&ss->base, -EBADF, "%s: opened for reading only",
				  ss->path);
	return 0;
}

/* ---- statements and transactions ---- */

sqlite3_stmt *ss_prepare(struct sqlite_store *ss, enum stmt_id id, const char *sql)
{
	int rc;

	/* each file passes the SQL of its own ids: another's is perfbot's bug */
	BUG_ON(!sql);
	rc = sqlite3_prepare_v3(ss->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
				&ss->st[id], NULL);
	if (rc != SQLITE_OK) {
		/* perfbot's schema lacks a table or column perfbot queries */
		if ((rc & 0xff) == SQLITE_ERROR && ss->classified)
			ss_damaged(ss, "its schema is not perfbot's: %s",
				   sqlite3_errmsg(ss->db));
		else
			ss_db_fail(ss, rc, "cannot prepare a query");
		ss->st[id] = NULL;
	}
	return ss->st[id];
}

static sqlite3_stmt *stmt(struct sqlite_store *ss, enum stmt_id id)
{
	return ss_stmt(ss, id, conn_sql[id]);
}

/* A statement that returns no rows: prepare (cached), step, reset. */
static int exec_stmt(struct sqlite_store *ss, enum stmt_id id, const char *what)
{
	sqlite3_stmt *st = stmt(ss, id);
	int rc;

	if (!st)
		return ss_prep_err(ss);
	rc = sqlite3_step(st);
	ss_done(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return ss_db_fail(ss, rc, what);
	return 0;
}

int ss_insert(struct sqlite_store *ss, sqlite3_stmt *st, const char *what,
	      int64_t *id)
{
	int rc = sqlite3_step(st);
	char msg[96];

	ss_done(st);
	if (rc != SQLITE_DONE) {
		snprintf(msg, sizeof(msg), "cannot store %s", what);
		return ss_db_fail(ss, rc, msg);
	}
	if (id)
		*id = sqlite3_last_insert_rowid(ss->db);
	return 0;
}

int ss_begin(struct sqlite_store *ss, bool write)
{
	return exec_stmt(ss, write ? ST_BEGIN_WRITE : ST_BEGIN_READ,
			 "cannot begin a transaction");
}

int ss_commit(struct sqlite_store *ss, const char *what)
{
	return exec_stmt(ss, ST_COMMIT, what);
}

void ss_rollback(struct sqlite_store *ss)
{
	struct strbuf keep = ss->base.err;

	/* keep the error that made us roll back, not ROLLBACK's own */
	strbuf_init(&ss->base.err);
	if (!sqlite3_get_autocommit(ss->db))
		exec_stmt(ss, ST_ROLLBACK, "cannot roll back");
	strbuf_release(&ss->base.err);
	ss->base.err = keep;
}

/* ---- column readers ---- */

const char *ss_type_name(int type)
{
	switch (type) {
	case SQLITE_INTEGER: return "an integer";
	case SQLITE_FLOAT: return "a real";
	case SQLITE_TEXT: return "a text";
	case SQLITE_BLOB: return "a blob";
	default: return "NULL";
	}
}

int ss_bad_column(struct sqlite_store *ss, sqlite3_stmt *st, int i,
		  const char *what, const char *expected)
{
	return ss_damaged(ss, "%s holds %s in %s, not %s", what,
			  ss_type_name(sqlite3_column_type(st, i)),
			  sqlite3_column_name(st, i), expected);
}

int col_text(struct sqlite_store *ss, sqlite3_stmt *st, int i, bool nullable,
	     const char *what, char **out)
{
	int type = sqlite3_column_type(st, i);
	const unsigned char *t;

	*out = NULL;
	if (type == SQLITE_NULL && nullable)
		return 0;
	/* TEXT affinity turns what SQL writes into text: anything else is forged */
	if (type != SQLITE_TEXT)
		return ss_bad_column(ss, st, i, what, "a text");
	t = sqlite3_column_text(st, i);
	if (!t)
		return store_fail(&ss->base, -ENOMEM, "out of memory");
	if (strlen((const char *)t) != (size_t)sqlite3_column_bytes(st, i))
		return ss_damaged(ss, "%s holds a NUL byte in %s", what,
				  sqlite3_column_name(st, i));
	*out = strdup((const char *)t);
	return *out ? 0 : store_fail(&ss->base, -ENOMEM, "out of memory");
}

/* 0 marks an empty bucket in sqlite_samples.c's id index: never an id. */
int col_id(struct sqlite_store *ss, sqlite3_stmt *st, int i, const char *what,
	   int64_t *id)
{
	if (sqlite3_column_type(st, i) != SQLITE_INTEGER)
		return ss_bad_column(ss, st, i, what, "an id");
	*id = sqlite3_column_int64(st, i);
	if (*id < 1)
		return ss_damaged(ss, "%s holds the id %lld in %s", what,
				  (long long)*id, sqlite3_column_name(st, i));
	return 0;
}

int col_count(struct sqlite_store *ss, sqlite3_stmt *st, int i,
	      const char *what, size_t *n)
{
	int64_t v;

	if (sqlite3_column_type(st, i) != SQLITE_INTEGER)
		return ss_bad_column(ss, st, i, what, "a count");
	v = sqlite3_column_int64(st, i);
	if (v < 0)
		return ss_damaged(ss, "%s holds the count %lld in %s", what,
				  (long long)v, sqlite3_column_name(st, i));
	*n = (size_t)v;
	return 0;
}

/* REAL affinity keeps integral values as INTEGER: both are numbers. */
int col_real(struct sqlite_store *ss, sqlite3_stmt *st, int i, bool nullable,
	     const char *what, double *v)
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
	return ss_bad_column(ss, st, i, what, "a number");
}

int col_int(struct sqlite_store *ss, sqlite3_stmt *st, int i, int min, int max,
	    const char *what, int *v)
{
	struct strbuf expected = STRBUF_INIT;
	int64_t x = sqlite3_column_int64(st, i);
	int err;

	if (sqlite3_column_type(st, i) == SQLITE_INTEGER && x >= min && x <= max) {
		*v = (int)x;
		return 0;
	}
	/* "-1, 0 or 1": the few values perfbot writes there */
	for (int k = min; k <= max; k++)
		strbuf_addf(&expected, "%s%d", k == min ? "" : k == max ? " or " : ", ", k);
	if (strbuf_error(&expected))
		err = store_fail(&ss->base, -ENOMEM, "out of memory");
	else if (sqlite3_column_type(st, i) != SQLITE_INTEGER)
		err = ss_bad_column(ss, st, i, what, expected.buf);
	else
		err = ss_damaged(ss, "%s holds %lld in %s, not %s", what, (long long)x,
				 sqlite3_column_name(st, i), expected.buf);
	strbuf_release(&expected);
	return err;
}

int ss_read_cols(struct sqlite_store *ss, sqlite3_stmt *st, const char *what,
		 const struct col *cols, size_t n, void *out)
{
	for (size_t k = 0; k < n; k++) {
		const struct col *c = &cols[k];
		const char *w = c->what ? c->what : what;
		void *field = (char *)out + c->offset;
		int err = 0, v;

		switch (c->type) {
		case COL_TEXT:
		case COL_TEXT_OR_NULL:
			err = col_text(ss, st, c->index, c->type == COL_TEXT_OR_NULL, w,
				       field);
			break;
		case COL_ID:
			err = col_id(ss, st, c->index, w, field);
			break;
		case COL_COUNT:
			err = col_count(ss, st, c->index, w, field);
			break;
		case COL_REAL:
		case COL_REAL_OR_NAN:
			err = col_real(ss, st, c->index, c->type == COL_REAL_OR_NAN, w,
				       field);
			break;
		case COL_INT:
			err = col_int(ss, st, c->index, c->min, c->max, w, field);
			break;
		case COL_BOOL:
			err = col_int(ss, st, c->index, 0, 1, w, &v);
			if (!err)
				*(bool *)field = v;
			break;
		}
		if (err)
			return err;
	}
	return 0;
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
	ss_done(st);
	if (rc != SQLITE_DONE)
		return ss_db_fail(ss, rc, "cannot read the meta table");
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
	ss_done(st);
	if (rc != SQLITE_DONE)
		return ss_db_fail(ss, rc, "cannot read the schema");
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
		return ss_prep_err(ss);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	ss_done(st);
	return rc == SQLITE_DONE ? 0 : ss_db_fail(ss, rc, "cannot write the meta table");
}

static int pragma(struct sqlite_store *ss, const char *sql)
{
	char *errmsg = NULL;
	int rc = sqlite3_exec(ss->db, sql, NULL, NULL, &errmsg);

	if (rc == SQLITE_OK)
		return 0;
	store_fail(&ss->base, ss_errno(rc), "%s: %s: %s", ss->path, sql,
		   errmsg ? errmsg : sqlite3_errstr(rc));
	sqlite3_free(errmsg);
	return ss_errno(rc);
}

/* One migration per transaction, re-checking under the write lock. */
static int migrate_steps(struct sqlite_store *ss)
{
	for (;;) {
		enum db_kind kind;
		char *errmsg = NULL, ver[16];
		int version, rc, err;

		err = ss_begin(ss, true);
		if (err)
			return err;
		/* another process may have migrated it meanwhile */
		err = classify(ss, &kind, &version);
		if (err)
			goto fail;
		if (version >= sqlite_schema_version)
			return ss_commit(ss, "cannot commit");
		rc = sqlite3_exec(ss->db, sqlite_migrations[version].sql, NULL, NULL,
				  &errmsg);
		if (rc != SQLITE_OK) {
			err = store_fail(&ss->base, ss_errno(rc),
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
			err = ss_commit(ss, "cannot commit");
		if (err)
			goto fail;
		continue;
fail:
		ss_rollback(ss);
		return err;
	}
}

/*
 * Migrations run with foreign keys off, as SQLite's procedure for
 * rebuilding a table asks (migration 3 rebuilds runs: with them on,
 * dropping the old table would delete every run's rows through ON DELETE
 * CASCADE).  The pragma is a no-op inside a transaction, hence here.
 * They keep every id, so no reference breaks.
 */
static int migrate(struct sqlite_store *ss)
{
	int err = pragma(ss, "PRAGMA foreign_keys = OFF");

	if (!err)
		err = migrate_steps(ss);
	return err ?: pragma(ss, "PRAGMA foreign_keys = ON");
}

/* Refuse what is not SQLite before the library sees it. */
static int check_magic(const char *path, struct strbuf *err)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		store_failf(err, 0, "cannot open %s: %s", path, strerror(errno));
		return ret;
	}
	n = read(fd, head, sizeof(head));
	if (n < 0) {
		ret = -errno;
		store_failf(err, 0, "cannot read %s: %s", path, strerror(errno));
	} else if (n != sizeof(head) || memcmp(head, magic, sizeof(magic))) {
		ret = -EPROTO;
		store_failf(err, 0, "%s is not a perfbot database (not an SQLite file)",
			   path);
	}
	close(fd);
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

static int check_writable(const char *path, bool exists, struct strbuf *err)
{
	char *dir = dir_of(path);
	int ret = 0;

	if (!dir) {
		store_failf(err, 0, "out of memory");
		return -ENOMEM;
	}
	/* WAL keeps its -wal and -shm files beside the database */
	if (access(dir, W_OK | X_OK)) {
		ret = -errno;
		store_failf(err, 0, "cannot write in %s: %s", dir, strerror(errno));
	} else if (exists && access(path, R_OK | W_OK)) {
		ret = -errno;
		store_failf(err, 0, "cannot write %s: %s", path, strerror(errno));
	}
	free(dir);
	return ret;
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
		   enum db_kind *kind, int *version, int *rc, struct strbuf *err)
{
	int ret;

	*rc = sqlite3_open_v2(name, &ss->db, flags, NULL);
	if (*rc != SQLITE_OK) {
		ret = ss_errno(*rc);
		store_failf(err, 0, "cannot open %s: %s", ss->path,
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
		store_failf(err, ret, "%s", store_error(&ss->base));
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
		      struct store **out, struct strbuf *err)
{
	struct sqlite_store *ss = NULL;
	struct side_files sf = { 0 };
	enum db_kind kind;
	struct stat st;
	bool exists = true, noted = false;
	int version, flags = 0, rc, ret;

	if (stat(path, &st)) {
		if (errno != ENOENT) {
			ret = -errno;
			store_failf(err, 0, "cannot open %s: %s", path, strerror(errno));
			return ret;
		}
		if (mode == STORE_READ) {
			store_failf(err, 0, "no results yet at %s", path);
			return -ENOENT;
		}
		exists = false;
		ret = store_mkdir_parent(path, err);
		if (ret)
			return ret;
	} else if (S_ISDIR(st.st_mode)) {
		store_failf(err, 0, "%s is a directory, not a database", path);
		return -EISDIR;
	} else if (!S_ISREG(st.st_mode)) {
		/* /dev/null would take a -journal beside it, a fifo would hang */
		store_failf(err, 0, "%s is not a regular file, not a database", path);
		return -EINVAL;
	} else if (st.st_size > 0) {
		ret = check_magic(path, err);
		if (ret)
			return ret;
	}
	if (mode == STORE_WRITE) {
		ret = check_writable(path, exists, err);
		if (ret)
			return ret;
	}

	ss = calloc(1, sizeof(*ss));
	if (ss)
		strbuf_init(&ss->base.err);
	if (!ss || !(ss->path = strdup(path))) {
		store_failf(err, 0, "out of memory");
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
	ret = connect(ss, path, flags, &kind, &version, &rc, err);
	if (ret && (flags & SQLITE_OPEN_READONLY) && needs_side_files(rc)) {
		char *uri = immutable_uri(path);

		if (!uri) {
			store_failf(err, 0, "out of memory");
			ret = -ENOMEM;
			goto out;
		}
		disconnect(ss);
		ret = connect(ss, uri, flags | SQLITE_OPEN_URI, &kind, &version, &rc,
			      err);
		free(uri);
		if (ret && needs_side_files(rc))
			store_failf(err, 0,
				   "cannot read %s: SQLite can neither create its -shm beside it nor read it as immutable: %s",
				   path, sqlite3_errmsg(ss->db));
	}
	if (ret)
		goto out;
	if (kind == DB_EMPTY && mode == STORE_READ) {
		store_failf(err, 0, "no results yet at %s", path);
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
	store_failf(err, ret, "%s", store_error(&ss->base));
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
	sqlite_names_clear(&ss->names);
	strbuf_release(&ss->base.err);
	free(ss->path);
	free(ss);
}

int ss_schema_has(struct sqlite_store *ss, int version, bool *has)
{
	if (ss->version < version) {
		enum db_kind kind;
		int err = classify(ss, &kind, &ss->version);

		if (err)
			return err;
	}
	*has = ss->version >= version;
	return 0;
}

static const struct store_ops sqlite_ops = {
	.close = sqlite_close,
	.put_run = sqlite_put_run,
	.list_groups = sqlite_list_groups,
	.group_runs = sqlite_group_runs,
	.get_run = sqlite_get_run,
	.load_samples = sqlite_load_samples,
	.resolve_commit = sqlite_resolve_commit,
	.put_import = sqlite_put_import,
	.import_runs = sqlite_import_runs,
	.delete_runs = sqlite_delete_runs,
	.bisect_add = sqlite_bisect_add,
	.bisect_get = sqlite_bisect_get,
	.bisect_latest = sqlite_bisect_latest,
	.bisect_list = sqlite_bisect_list,
	.bisect_update = sqlite_bisect_update,
	.bisect_log_add = sqlite_bisect_log_add,
	.bisect_log = sqlite_bisect_log,
	.bisect_mark = sqlite_bisect_mark,
	.bisect_marks = sqlite_bisect_marks,
	.point_add = sqlite_point_add,
	.points = sqlite_points,
	.branches = sqlite_branches,
	.alert_add = sqlite_alert_add,
	.alert_update = sqlite_alert_update,
	.alert_get = sqlite_alert_get,
	.alerts = sqlite_alerts,
	.report_add = sqlite_report_add,
	.report_find = sqlite_report_find,
	.report_get = sqlite_report_get,
	.reports = sqlite_reports,
	.report_update = sqlite_report_update,
	.kexec_add = sqlite_kexec_add,
	.kexec_update = sqlite_kexec_update,
	.kexec_get = sqlite_kexec_get,
	.kexec_active = sqlite_kexec_active,
	.kexec_list = sqlite_kexec_list,
	/* sqlite_runs.c, sqlite_copy.c: perfbot db copy */
	.put_runs = sqlite_put_runs,
	.run_refs = sqlite_run_refs,
	.meta_get = sqlite_meta_get,
	.meta_add = sqlite_meta_add,
	/* the fleet's queue: none (NULL), store/queue.c answers -ENOTSUP */
};

int ss_read_rows(struct sqlite_store *ss, sqlite3_stmt *st, size_t size,
		 ss_row_fn row, void *ctx, void (*release)(void *v, size_t n),
		 const char *what, void **out, size_t *nr)
{
	char *v = NULL;
	size_t n = 0, cap = 0;
	int rc = SQLITE_DONE, err = 0;

	*out = NULL;
	*nr = 0;
	if (!st)
		return 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (vec_reserve_((void **)&v, &cap, n + 1, size)) {
			err = store_fail(&ss->base, -ENOMEM, "out of memory");
			break;
		}
		memset(v + n * size, 0, size);
		err = row(ss, st, ctx, v + n++ * size);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, what);
	ss_done(st);
	if (err) {
		release(v, n);
		return err;
	}
	*out = v;
	*nr = n;
	return 0;
}
