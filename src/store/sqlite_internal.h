/*
 * sqlite_internal.h - what the files of the SQLite backend share: the
 * connection, its cache of prepared statements, transactions, the
 * message of a damaged file, and the column readers that check every
 * value read from it (docs/store.md, "Untrusted store files").
 *
 * The backend is split by job, so that another backend (store/pg*.c)
 * can mirror it file for file:
 *   sqlite.c          the connection: open/close, pragmas and hardening,
 *                     read-only and immutable opening, busy timeout,
 *                     migrations and schema version, errors, statements,
 *                     column checks;
 *   sqlite_runs.c     put_run, list_groups, group_runs, get_run,
 *                     resolve_commit (and the stat name cache);
 *   sqlite_samples.c  load_samples, the compare fast path;
 *   sqlite_bisect.c   the bisect_* ops;
 *   sqlite_watch.c    the robot's ops: points, alerts, reports;
 *   sqlite_kexec.c    the kexec boots (boot: kexec);
 *   sqlite_copy.c     what perfbot db copy reads: every run's origin and
 *                     import hash, the meta table's store id;
 *   schema.c          the migrations.
 * Each file owns the SQL of its statements (ids below); the connection
 * prepares each one once, on first use.
 *
 * Ownership: one struct sqlite_store per store_open(), freed by its close
 * op.  Threading: a connection is used by one thread at a time
 * (SQLITE_OPEN_NOMUTEX).  Errors: 0 or a negative errno with the message
 * in ss->base.err, as everywhere behind store.h.  Only src/store/sqlite*.c
 * include this header.
 */
#ifndef PERFBOT_STORE_SQLITE_INTERNAL_H
#define PERFBOT_STORE_SQLITE_INTERNAL_H

#include "store/internal.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The schema versions that added what older files lack (schema.c). */
#define SCHEMA_BISECT 2		/* bisect, bisect_log, bisect_mark */
#define SCHEMA_STAT_META 3	/* run_stat_meta; status 'unsupported' */
#define SCHEMA_IMPORT 4		/* run_import */
#define SCHEMA_WATCH 5		/* watch_point, watch_alert, watch_report */
#define SCHEMA_KEXEC 6		/* kexec_boot */

/* Statement ids, by the file that holds their SQL. */
enum stmt_id {
	/* sqlite.c */
	ST_BEGIN_WRITE,
	ST_BEGIN_READ,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_CLASSIFY,
	ST_META_GET,
	ST_META_SET,
	/* sqlite_runs.c */
	ST_NAME_GET,
	ST_NAME_ADD,
	ST_RUN_ADD,
	ST_PARAM_ADD,
	ST_ENV_ADD,
	ST_VALUE_ADD,
	ST_STAT_META_ADD,
	ST_GROUPS,
	ST_CLASS_GROUPS,
	ST_GROUP_RUNS,
	ST_CLASS_GROUP_RUNS,
	ST_RUN_GET,
	ST_PARAMS_GET,
	ST_ENV_GET,
	ST_STATS_GET,
	ST_STAT_META_GET,
	ST_COMMIT_EXACT,
	ST_COMMIT_RANGE,
	ST_IMPORT_SEEN,
	ST_IMPORT_ADD,
	ST_IMPORT_RUNS,
	ST_RUN_EXISTS,
	ST_DEL_PARAMS,
	ST_DEL_ENV,
	ST_DEL_VALUES,
	ST_DEL_STAT_META,
	ST_DEL_IMPORT,
	ST_DEL_RUN,
	/* sqlite_samples.c */
	ST_COMPLETE_RUNS,
	ST_CLASS_COMPLETE_RUNS,
	ST_RUN_VALUES,
	ST_NAME_RANGE,
	ST_NAME_BY_ID,
	ST_GROUP_STAT_META,
	ST_CLASS_STAT_META,
	ST_GROUP_STARTED,
	ST_CLASS_STARTED,
	/* sqlite_bisect.c */
	ST_BISECT_ADD,
	ST_BISECT_GET,
	ST_BISECT_LATEST,
	ST_BISECT_LIST,
	ST_BISECT_UPDATE,
	ST_BISECT_LOG_ADD,
	ST_BISECT_LOG,
	ST_BISECT_MARK,
	ST_BISECT_MARKS,
	/* sqlite_watch.c */
	ST_POINT_LAST,
	ST_POINT_ADD,
	ST_POINTS,
	ST_BRANCHES,
	ST_ALERT_FIND,
	ST_ALERT_ADD,
	ST_ALERT_UPDATE,
	ST_ALERT_GET,
	ST_ALERTS,
	ST_REPORT_FIND,
	ST_REPORT_ADD,
	ST_REPORT_GET,
	ST_REPORTS,
	ST_REPORT_UPDATE,
	/* sqlite_kexec.c */
	ST_KEXEC_ACTIVE,
	ST_KEXEC_ADD,
	ST_KEXEC_UPDATE,
	ST_KEXEC_GET,
	ST_KEXEC_LIST,
	/* sqlite_copy.c */
	ST_RUN_REFS,
	ST_RUN_REFS_NO_IMPORT,
	ST_COPY_META_GET,
	ST_COPY_META_ADD,
	NR_STMTS
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
	struct name_cache names;	/* sqlite_runs.c's */
};

static inline struct sqlite_store *to_ss(struct store *s)
{
	return (struct sqlite_store *)s;
}

/* ---- the ops, by file ---- */

int sqlite_put_run(struct store *s, const struct run_record *r, int64_t *run_id);
int sqlite_list_groups(struct store *s, const struct store_filter *f,
		       struct store_group **groups, size_t *nr);
int sqlite_group_runs(struct store *s, const char *testbox, const char *job,
		      const char *commit, int64_t **ids, size_t *nr);
int sqlite_get_run(struct store *s, int64_t run_id, struct run_record *r);
int sqlite_resolve_commit(struct store *s, const char *given, char **full);
int sqlite_put_import(struct store *s, const struct run_record *runs, size_t nr,
		      const char *sha256, bool once, int64_t *ids);
int sqlite_import_runs(struct store *s, const char *sha256, int64_t **ids,
		       size_t *nr);
int sqlite_delete_runs(struct store *s, const int64_t *ids, size_t nr);

struct id_vec {
	int64_t *v;
	size_t n, cap;
};

/*
 * The run ids st selects for a group (?1 testbox, ?2 job, ?3 commit),
 * appended to ids.  by_id: st orders them by id, so a run listed twice
 * (a damaged index) is seen and refused.
 */
/* (testbox: a selector, store_selector_class(); st chosen for it) */
int sqlite_group_ids(struct sqlite_store *ss, sqlite3_stmt *st,
		     const char *testbox, const char *job, const char *commit,
		     bool by_id, struct id_vec *ids);
/* Declarations come back sorted by name (byte order), as stats do. */
void sqlite_sort_meta(struct stat_meta_list *l);
/* Frees the name cache (sqlite_runs.c's): on close, and after a rollback. */
void sqlite_names_clear(struct name_cache *c);

int sqlite_load_samples(struct store *s, const char *testbox, const char *job,
			const char *commit, double since, struct store_samples *out);

int sqlite_bisect_add(struct store *s, const char *status, const char *spec,
		      int64_t *id);
int sqlite_bisect_get(struct store *s, int64_t id, struct store_bisect *out);
int sqlite_bisect_latest(struct store *s, struct store_bisect *out);
int sqlite_bisect_list(struct store *s, struct store_bisect **out, size_t *nr);
int sqlite_bisect_update(struct store *s, int64_t id, const char *status,
			 const char *result);
int sqlite_bisect_log_add(struct store *s, int64_t id, const char *text);
int sqlite_bisect_log(struct store *s, int64_t id,
		      struct store_bisect_line **lines, size_t *nr);
int sqlite_bisect_mark(struct store *s, int64_t id, const char *sha,
		       const char *mark, const char *note);
int sqlite_bisect_marks(struct store *s, int64_t id,
			struct store_bisect_mark **marks, size_t *nr);

int sqlite_point_add(struct store *s, const char *tree, const char *branch,
		     const char *sha, const char *base, int64_t *seq);
int sqlite_points(struct store *s, const char *tree, const char *branch,
		  struct store_point **out, size_t *nr);
int sqlite_branches(struct store *s, struct store_branch **out, size_t *nr);
int sqlite_alert_add(struct store *s, struct store_alert *a);
int sqlite_alert_update(struct store *s, const struct store_alert *a);
int sqlite_alert_get(struct store *s, int64_t id, struct store_alert *out);
int sqlite_alerts(struct store *s, const char *state, struct store_alert **out,
		  size_t *nr);
int sqlite_report_add(struct store *s, const char *culprit, const char *state,
		      struct store_report *out);
int sqlite_report_find(struct store *s, const char *culprit,
		       struct store_report *out);
int sqlite_report_get(struct store *s, int64_t id, struct store_report *out);
int sqlite_reports(struct store *s, struct store_report **out, size_t *nr);
int sqlite_report_update(struct store *s, int64_t id, const char *state,
			 const char *path);

int sqlite_kexec_add(struct store *s, struct store_kexec *k);
int sqlite_kexec_update(struct store *s, const struct store_kexec *k, const char *from);
int sqlite_kexec_get(struct store *s, int64_t id, struct store_kexec *out);
int sqlite_kexec_active(struct store *s, const char *testbox, struct store_kexec *out);
int sqlite_kexec_list(struct store *s, struct store_kexec **out, size_t *nr);

int sqlite_put_runs(struct store *s, const struct run_record *runs, size_t nr,
		    const char *const *sha256, int64_t *ids);
int sqlite_run_refs(struct store *s, struct store_run_ref **out, size_t *nr);
int sqlite_meta_get(struct store *s, const char *key, char **value);
int sqlite_meta_add(struct store *s, const char *key, const char *value);

/* ---- errors (sqlite.c) ---- */

/* SQLite's result code as a negative errno. */
int ss_errno(int rc);
/*
 * -EBADMSG "PATH: the database is damaged: WHAT": whatever in the file is
 * not what perfbot writes is reported this one way.
 */
int ss_damaged(struct sqlite_store *ss, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The error of a failed SQLite call rc while doing `what`. */
int ss_db_fail(struct sqlite_store *ss, int rc, const char *what);
/* The error ss_stmt() recorded when it returned NULL. */
int ss_prep_err(struct sqlite_store *ss);
/* -EBADF unless the store was opened for writing. */
int ss_check_writer(struct sqlite_store *ss);

/* ---- statements and transactions (sqlite.c) ---- */

/*
 * Statement id, whose SQL is `sql`, prepared on first use and kept for
 * the connection's life; NULL (message set, ss_prep_err()) when SQLite
 * cannot prepare it.  Each file passes its own SQL through a wrapper.
 * Inline: a run's write looks its insert up once per value.
 */
sqlite3_stmt *ss_prepare(struct sqlite_store *ss, enum stmt_id id, const char *sql);

static inline sqlite3_stmt *ss_stmt(struct sqlite_store *ss, enum stmt_id id,
				    const char *sql)
{
	return ss->st[id] ? ss->st[id] : ss_prepare(ss, id, sql);
}
/*
 * Reset after every use: a statement left mid-result would hold a read
 * snapshot open, hiding other writers' runs and blocking checkpoints.
 */
static inline void ss_done(sqlite3_stmt *st)
{
	if (st) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
}

/*
 * Step a bound INSERT once and reset it: 0 with the new row's id in *id
 * (id may be NULL), or ss_db_fail()'s error worded "cannot store WHAT".
 */
int ss_insert(struct sqlite_store *ss, sqlite3_stmt *st, const char *what,
	      int64_t *id);

static inline int ss_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC)
		 : sqlite3_bind_null(st, i);
}

/*
 * BEGIN IMMEDIATE (write: waits for other writers up to the busy
 * timeout) or BEGIN (read: one snapshot for the reads that follow).
 */
int ss_begin(struct sqlite_store *ss, bool write);
int ss_commit(struct sqlite_store *ss, const char *what);
/* Ends a transaction, if any, keeping the message of the error that ended it. */
void ss_rollback(struct sqlite_store *ss);

/*
 * Whether the file has reached schema `version`.  A reader does not
 * migrate (docs/store.md), so an older file lacks the later tables: it
 * holds none of their rows.  Such a reader looks again each time, since
 * a writer may have migrated the file meanwhile.
 */
int ss_schema_has(struct sqlite_store *ss, int version, bool *has);

/* ---- column readers (sqlite.c) ---- */

/*
 * Each reads column i of the current row of st, checks that it holds
 * what perfbot writes there, and returns 0, -EBADMSG (ss_damaged(): "WHAT
 * holds a blob in testbox, not a text") or -ENOMEM.  `what` names the row
 * in the message ("run 12", "bisection 3", "a run").
 */
const char *ss_type_name(int type);
int ss_bad_column(struct sqlite_store *ss, sqlite3_stmt *st, int i,
		  const char *what, const char *expected);
/* TEXT (or NULL when nullable, *out = NULL), without a NUL inside, malloc'd */
int col_text(struct sqlite_store *ss, sqlite3_stmt *st, int i, bool nullable,
	     const char *what, char **out);
/* An id perfbot made: an INTEGER >= 1. */
int col_id(struct sqlite_store *ss, sqlite3_stmt *st, int i, const char *what,
	   int64_t *id);
/* A count: an INTEGER >= 0. */
int col_count(struct sqlite_store *ss, sqlite3_stmt *st, int i,
	      const char *what, size_t *n);
/* A number, never NaN; NULL is NaN when nullable. */
int col_real(struct sqlite_store *ss, sqlite3_stmt *st, int i, bool nullable,
	     const char *what, double *v);
/* An INTEGER from min to max (a small enumeration: -1, 0 or 1). */
int col_int(struct sqlite_store *ss, sqlite3_stmt *st, int i, int min, int max,
	    const char *what, int *v);

/*
 * A row read by a table of its columns, instead of a chain of the
 * readers above: each entry reads one column into the field at `offset`
 * of the struct `out` points at, in order, stopping at the first error.
 * What was read before an error stays in *out for its owner to free.
 */
enum col_type {
	COL_TEXT,		/* char * */
	COL_TEXT_OR_NULL,	/* char *, NULL kept */
	COL_ID,			/* int64_t */
	COL_COUNT,		/* size_t */
	COL_REAL,		/* double */
	COL_REAL_OR_NAN,	/* double, NULL read as NaN */
	COL_INT,		/* int, from min to max */
	COL_BOOL,		/* bool, from 0 or 1 */
};

struct col {
	int index;		/* in the statement's result */
	enum col_type type;
	size_t offset;
	const char *what;	/* names the row when not the caller's `what` */
	int min, max;		/* COL_INT */
};

#define COL(i, type, st, field) { (i), (type), offsetof(st, field), NULL, 0, 0 }

int ss_read_cols(struct sqlite_store *ss, sqlite3_stmt *st, const char *what,
		 const struct col *cols, size_t n, void *out);

/*
 * Every row st selects, each read by row() into an array of `size`
 * bytes per element (zeroed before), into *out and *nr; on failure what
 * was read is released by release(v, n) and nothing is returned.  st may
 * be NULL (a file without the tables): no rows.  st is reset (ss_done).
 * ctx is row()'s own, e.g. the id of the row before, to check an order.
 */
typedef int (*ss_row_fn)(struct sqlite_store *ss, sqlite3_stmt *st, void *ctx,
			 void *elem);
int ss_read_rows(struct sqlite_store *ss, sqlite3_stmt *st, size_t size,
		 ss_row_fn row, void *ctx, void (*release)(void *v, size_t n),
		 const char *what, void **out, size_t *nr);

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
