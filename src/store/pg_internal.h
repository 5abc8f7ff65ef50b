/*
 * pg_internal.h - what the files of the PostgreSQL backend share: the
 * connection, queries with parameters, transactions, error mapping and
 * the column readers that check every value read back.
 *
 * The backend mirrors the SQLite one file for file (sqlite_internal.h):
 *   pg.c          the connection: open/close, the location as shown
 *                 (password masked), classification, migrations under an
 *                 advisory lock, errors, queries, column checks;
 *   pg_schema.c   the migrations (the same logical schema as schema.c);
 *   pg_runs.c     put_run, list_groups, group_runs, get_run,
 *                 resolve_commit, put_import, import_runs, delete_runs;
 *   pg_samples.c  load_samples;
 *   pg_bisect.c   the bisect_* ops;
 *   pg_watch.c    points, alerts, reports;
 *   pg_kexec.c    the kexec boots.
 *
 * The logical schema is SQLite's: the same tables, columns and keys, so
 * that `perfbot db copy` moves a history between them and the store's
 * tests run against both.  Differences are of type only: ids are bigint
 * identities (never reused, as SQLite's AUTOINCREMENT), times and values
 * double precision, and a NaN value is stored as NULL in both.
 *
 * Ownership: one struct pg_store per store_open(), freed by its close op.
 * Threading: a connection is used by one thread at a time (libpq's rule).
 * Errors: 0 or a negative errno with the message in ps->base.err.  A
 * message never holds the password: it names the location by ps->shown.
 * Only src/store/pg*.c include this header.
 */
#ifndef PERFBOT_STORE_PG_INTERNAL_H
#define PERFBOT_STORE_PG_INTERNAL_H

#include "store/internal.h"

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pg_store {
	struct store base;
	PGconn *conn;
	char *shown;		/* the location for messages, password masked */
	enum store_mode mode;
	int version;		/* the database's schema version */
	bool in_tx;		/* between pg_begin() and pg_commit()/rollback */
	void *runs_cache;	/* pg_runs.c's (stat name ids), freed by it */
	void (*runs_cache_free)(void *);
};

static inline struct pg_store *to_ps(struct store *s)
{
	return (struct pg_store *)s;
}

/*
 * Errors.  pg_fail() maps the result's SQLSTATE (or the connection's
 * state) to an errno and words the message "LOCATION: WHAT: server's
 * message":
 *   connection lost or refused  -ENOTCONN    unique_violation  -EEXIST
 *   serialization, deadlock     -EAGAIN      privilege         -EACCES
 *   disk full                   -ENOSPC      out of memory     -ENOMEM
 *   read-only transaction       -EROFS       check, not null,
 *   query canceled (timeout)    -ETIMEDOUT   foreign key       -EINVAL
 *   anything else               -EIO
 * res may be NULL (libpq returned none: out of memory or connection).
 */
int pg_fail(struct pg_store *ps, const PGresult *res, const char *what);
int pg_errno_of(const PGresult *res, PGconn *conn);
/* What perfbot wrote is not what it reads: -EBADMSG, "damaged". */
int pg_damaged(struct pg_store *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* -EBADF unless opened for writing. */
int pg_check_writer(struct pg_store *ps);

/*
 * Run sql with n text parameters (a NULL entry is SQL NULL).  On success
 * returns 0 and, when out is not NULL, the result (the caller PQclear()s
 * it); on failure a negative errno with the message, and *out NULL.
 * Statements are sent unnamed (PQexecParams): the server plans each, which
 * costs little next to a round trip; a hot path may prepare its own.
 */
int pg_exec(struct pg_store *ps, const char *what, const char *sql, int n,
	    const char *const *params, PGresult **out);
/* sql without parameters, one or more statements, results dropped. */
int pg_run(struct pg_store *ps, const char *what, const char *sql);

/* Parameters as text: into a caller's buffer, returned for chaining. */
#define PG_INT_BUF 24
#define PG_REAL_BUF 32
const char *pg_int_param(char buf[PG_INT_BUF], int64_t v);
/* NaN is NULL (the logical schema's rule); infinities as PostgreSQL spells them. */
const char *pg_real_param(char buf[PG_REAL_BUF], double v);

/*
 * Transactions.  pg_begin() starts one (READ COMMITTED, as PostgreSQL's
 * default; a writer that must see a consistent snapshot locks what it
 * reads).  pg_rollback() is safe to call when none is open.
 */
int pg_begin(struct pg_store *ps);
int pg_commit(struct pg_store *ps, const char *what);
void pg_rollback(struct pg_store *ps);

/*
 * Column readers: every value read is checked (its NULLness, its syntax
 * and range); a bad one is pg_damaged() naming what it is.  Text results
 * only (PQexecParams with resultFormat 0).
 */
int pg_col_text(struct pg_store *ps, const PGresult *res, int row, int col,
		bool nullable, const char *what, char **out);
int pg_col_int64(struct pg_store *ps, const PGresult *res, int row, int col,
		 int64_t min, int64_t max, const char *what, int64_t *out);
int pg_col_int(struct pg_store *ps, const PGresult *res, int row, int col,
	       int min, int max, const char *what, int *out);
/* NULL reads as NaN where nullable. */
int pg_col_real(struct pg_store *ps, const PGresult *res, int row, int col,
		bool nullable, const char *what, double *out);

/* The schema (pg_schema.c), as a list of migrations like schema.c's. */
extern const struct store_migration pg_migrations[];
extern const int pg_schema_version;

/*
 * pg_runs.c: insert one run (its params, env, stats, declarations) inside
 * the caller's open transaction; put_run and put_import wrap it, and the
 * fleet's queue finishes an item with it in the transaction that marks
 * the item done.  The record is checked already (store.c).
 */
int pg_insert_run(struct pg_store *ps, const struct run_record *r,
		  int64_t *run_id);

/* ---- the ops, by file (added as each file lands) ---- */

/* The schema versions that added what older databases lack (pg_schema.c). */
#define PG_SCHEMA_BISECT 2	/* bisect, bisect_log, bisect_mark */
#define PG_SCHEMA_STAT_META 3	/* run_stat_meta; status 'unsupported' */
#define PG_SCHEMA_IMPORT 4	/* run_import */

/* pg_runs.c */
int pg_put_run(struct store *s, const struct run_record *r, int64_t *run_id);
int pg_list_groups(struct store *s, const struct store_filter *f,
		   struct store_group **groups, size_t *nr);
int pg_group_runs(struct store *s, const char *testbox, const char *job,
		  const char *commit, int64_t **ids, size_t *nr);
int pg_get_run(struct store *s, int64_t run_id, struct run_record *r);
int pg_resolve_commit(struct store *s, const char *given, char **full);
int pg_put_import(struct store *s, const struct run_record *runs, size_t nr,
		  const char *sha256, bool once, int64_t *ids);
int pg_import_runs(struct store *s, const char *sha256, int64_t **ids, size_t *nr);
int pg_delete_runs(struct store *s, const int64_t *ids, size_t nr);
/*
 * Array parameters ('{...}' literals for $n::type[]): append elements to
 * an empty strbuf, then pg_array_end() gives the literal ('{}' for none;
 * NULL when memory ran out).  Text elements are quoted (NULL is SQL
 * NULL); a NaN real is NULL.
 */
void pg_array_text(struct strbuf *sb, const char *s);
void pg_array_int(struct strbuf *sb, int64_t v);
void pg_array_real(struct strbuf *sb, double v);
const char *pg_array_end(struct strbuf *sb);
/*
 * A read-only snapshot for reads that must agree (REPEATABLE READ);
 * inside a caller's open transaction nothing is begun.  pg_end_read()
 * ends what pg_begin_read() began.
 */
int pg_begin_read(struct pg_store *ps, bool *began);
void pg_end_read(struct pg_store *ps, bool began);
/*
 * One declaration from res's row: columns name, unit, better, kpi,
 * name_id (a NULL name, a name id naming no stat, is damage); `row`
 * names its run.  What was read stays in *m for its owner to free.
 */
int pg_read_meta(struct pg_store *ps, const PGresult *res, int i, const char *row,
		 struct stat_meta *m);

/* pg_samples.c */
int pg_load_samples(struct store *s, const char *testbox, const char *job,
		    const char *commit, double since, struct store_samples *out);

/* pg_bisect.c */
int pg_bisect_add(struct store *s, const char *status, const char *spec, int64_t *id);
int pg_bisect_get(struct store *s, int64_t id, struct store_bisect *out);
int pg_bisect_latest(struct store *s, struct store_bisect *out);
int pg_bisect_list(struct store *s, struct store_bisect **out, size_t *nr);
int pg_bisect_update(struct store *s, int64_t id, const char *status,
		     const char *result);
int pg_bisect_log_add(struct store *s, int64_t id, const char *text);
int pg_bisect_log(struct store *s, int64_t id, struct store_bisect_line **lines,
		  size_t *nr);
int pg_bisect_mark(struct store *s, int64_t id, const char *sha, const char *mark,
		   const char *note);
int pg_bisect_marks(struct store *s, int64_t id, struct store_bisect_mark **marks,
		    size_t *nr);

/*
 * pg_watch.c: the robot's state (points, alerts, reports), and what
 * pg_kexec.c reads with it.
 */
/* The server's clock, Unix seconds: one clock for every writer of a fleet. */
#define PG_NOW "extract(epoch FROM clock_timestamp())::double precision"
#define PG_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Whether the database has schema `version` (a reader opened before a
 * writer migrated it asks the server again while it knows an older one).
 */
int pg_schema_has(struct pg_store *ps, int version, bool *has);

/*
 * A row read by a table of its columns (as sqlite_internal.h's struct
 * col): each entry reads one column into the field at `offset` of *out,
 * stopping at the first error; what was read stays for its owner to
 * free.  Messages name the value "WHAT's COLUMN" (the result's name).
 */
enum pg_col_type {
	PG_TEXT,		/* char * */
	PG_TEXT_OR_NULL,	/* char *, NULL kept */
	PG_ID,			/* int64_t >= 1 */
	PG_REF,			/* int64_t, another row's id >= 1; NULL is 0 (none) */
	PG_COUNT,		/* size_t */
	PG_REAL,		/* double */
	PG_REAL_OR_NAN,		/* double, NULL read as NaN */
};

struct pg_col {
	int index;		/* in the result */
	enum pg_col_type type;
	size_t offset;
};

#define PG_COL(i, type, st, field) { (i), (type), offsetof(st, field) }

int pg_read_cols(struct pg_store *ps, const PGresult *res, int row, const char *what,
		 const struct pg_col *cols, size_t n, void *out);

/*
 * Every row of res (may be NULL: none), each read by row() into an array
 * of `size` bytes per element (zeroed), into *out and *nr; on failure
 * what was read is released by release(v, n) and nothing is returned.
 */
typedef int (*pg_row_fn)(struct pg_store *ps, const PGresult *res, int row, void *ctx,
			 void *elem);
int pg_read_rows(struct pg_store *ps, const PGresult *res, size_t size, pg_row_fn row,
		 void *ctx, void (*release)(void *v, size_t n), void **out, size_t *nr);
/*
 * A row's id (column 0, >= 1) into *id and its name for messages ("KIND
 * ID") into name.  prev (may be NULL) is the id of the row before in a
 * result ordered by id: an id not above it is a row held twice.
 */
#define PG_ROW_NAME 96
int pg_row_id(struct pg_store *ps, const PGresult *res, int row, const char *kind,
	      int64_t *prev, int64_t *id, char name[PG_ROW_NAME]);
/*
 * A write of one statement (UPDATE or DELETE) through a writer; whether
 * it changed a row in *changed.
 */
int pg_update(struct pg_store *ps, const char *what, const char *sql, int n,
	      const char *const *params, bool *changed);

int pg_point_add(struct store *s, const char *tree, const char *branch,
		 const char *sha, const char *base, int64_t *seq);
int pg_points(struct store *s, const char *tree, const char *branch,
	      struct store_point **out, size_t *nr);
int pg_branches(struct store *s, struct store_branch **out, size_t *nr);
int pg_alert_add(struct store *s, struct store_alert *a);
int pg_alert_update(struct store *s, const struct store_alert *a);
int pg_alert_get(struct store *s, int64_t id, struct store_alert *out);
int pg_alerts(struct store *s, const char *state, struct store_alert **out, size_t *nr);
int pg_report_add(struct store *s, const char *culprit, const char *state,
		  struct store_report *out);
int pg_report_find(struct store *s, const char *culprit, struct store_report *out);
int pg_report_get(struct store *s, int64_t id, struct store_report *out);
int pg_reports(struct store *s, struct store_report **out, size_t *nr);
int pg_report_update(struct store *s, int64_t id, const char *state, const char *path);

/* pg_kexec.c: the kexec boots. */
int pg_kexec_add(struct store *s, struct store_kexec *k);
int pg_kexec_update(struct store *s, const struct store_kexec *k, const char *from);
int pg_kexec_get(struct store *s, int64_t id, struct store_kexec *out);
int pg_kexec_active(struct store *s, const char *testbox, struct store_kexec *out);
int pg_kexec_list(struct store *s, struct store_kexec **out, size_t *nr);
/* pg_queue.c: the fleet's queue (store.h) */
int pg_queue_submit(struct store *s, const struct store_queue_item *items, size_t nr,
		    int64_t *batch, int64_t *ids);
int pg_box_register(struct store *s, const struct store_box *b);
int pg_queue_claim(struct store *s, const char *testbox, char *const *testcases,
		   double lease_s, struct store_queue_item *out);
int pg_queue_heartbeat(struct store *s, int64_t id, int attempt, double lease_s);
int pg_queue_finish(struct store *s, int64_t id, int attempt, const struct run_record *r,
		    int64_t *run_id);
int pg_queue_fail(struct store *s, int64_t id, int attempt, const char *why,
		  bool *requeued);
int pg_queue_hand_back(struct store *s, int64_t id, int attempt);
int pg_queue_reap(struct store *s, size_t *nr);
int pg_queue_list(struct store *s, const char *state, struct store_queue_item **out,
		  size_t *nr);
int pg_queue_get(struct store *s, int64_t id, struct store_queue_item *out);
int pg_queue_cancel(struct store *s, int64_t id);
int pg_queue_retry(struct store *s, int64_t id);
int pg_queue_boxes(struct store *s, struct store_box **out, size_t *nr);
int pg_queue_release(struct store *s, const char *testbox);
int pg_queue_wait(struct store *s, double timeout_s, bool *woken);
int pg_queue_class_set(struct store *s, const char *name, char *const *boxes);
int pg_queue_class_remove(struct store *s, const char *name);
int pg_queue_classes(struct store *s, struct store_class **out, size_t *nr);

/* pg_runs.c, pg_copy.c: what perfbot db copy writes and reads */
int pg_put_runs(struct store *s, const struct run_record *runs, size_t nr,
		const char *const *sha256, int64_t *ids);
int pg_run_refs(struct store *s, struct store_run_ref **out, size_t *nr);
int pg_meta_get(struct store *s, const char *key, char **value);
int pg_meta_add(struct store *s, const char *key, const char *value);

#endif
