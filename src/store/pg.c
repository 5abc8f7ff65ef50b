/*
 * pg.c - the PostgreSQL backend's connection: open and close, the
 * location as shown, classification and migrations, errors, queries and
 * column checks (pg_internal.h).  The ops are in pg_*.c.
 */
#define _GNU_SOURCE
#include "store/pg_internal.h"
#include "util/strbuf.h"
#include "version.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * pg_advisory_xact_lock's key for migrations: two perfbots opening one
 * fresh database at once must not both create the schema.  ("perfbot" in
 * ASCII, as a number nobody else picks by chance.)
 */
#define PG_MIGRATE_LOCK "7073634819960307828"

/* The oldest server the SQL is written for (identity columns, ON CONFLICT). */
#define PG_MIN_SERVER 120000

static const struct store_ops pg_ops;

/* ---- the location as shown ---- */

/*
 * A password may stand in a URL's user info (user:secret@host) or as a
 * password= parameter (in a URL's query or a keyword=value string).
 */
char *pg_location_shown(const char *location)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = location, *scheme_end = strstr(location, "://");

	if (scheme_end) {
		const char *auth = scheme_end + 3;
		const char *end = auth + strcspn(auth, "/?");
		const char *at = memrchr(auth, '@', end - auth);
		const char *colon = at ? memchr(auth, ':', at - auth) : NULL;

		if (colon) {
			strbuf_add(&sb, location, colon + 1 - location);
			strbuf_addstr(&sb, "***");
			p = at;
		}
	}
	while (*p) {
		const char *hit = strstr(p, "password=");

		/* at the start of a parameter: after ?, & or a blank */
		while (hit && hit != location && !strchr("?& \t", hit[-1]))
			hit = strstr(hit + 1, "password=");
		if (!hit) {
			strbuf_addstr(&sb, p);
			break;
		}
		hit += strlen("password=");
		strbuf_add(&sb, p, hit - p);
		strbuf_addstr(&sb, "***");
		if (*hit == '\'') {	/* keyword='quoted value' */
			for (hit++; *hit && *hit != '\''; hit++)
				if (*hit == '\\' && hit[1])
					hit++;
			if (*hit)
				hit++;
		} else {
			hit += strcspn(hit, "& \t");
		}
		p = hit;
	}
	if (strbuf_error(&sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* ---- errors ---- */

static int errno_of_state(const char *state)
{
	if (!state || strlen(state) != 5)
		return -EIO;
	if (!strncmp(state, "08", 2) || !strcmp(state, "57P01") ||
	    !strcmp(state, "57P02") || !strcmp(state, "57P03"))
		return -ENOTCONN;	/* connection lost, server shut down */
	if (!strcmp(state, "23505"))
		return -EEXIST;
	if (!strncmp(state, "23", 2))
		return -EINVAL;		/* check, not null, foreign key */
	if (!strcmp(state, "40001") || !strcmp(state, "40P01") ||
	    !strcmp(state, "55P03"))
		return -EAGAIN;		/* serialization, deadlock, lock not available */
	if (!strcmp(state, "42501"))
		return -EACCES;
	if (!strcmp(state, "53100"))
		return -ENOSPC;
	if (!strcmp(state, "53200"))
		return -ENOMEM;
	if (!strcmp(state, "25006"))
		return -EROFS;
	if (!strcmp(state, "57014"))
		return -ETIMEDOUT;
	return -EIO;
}

int pg_errno_of(const PGresult *res, PGconn *conn)
{
	if (res) {
		const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);

		if (state)
			return errno_of_state(state);
		/*
		 * An error without a SQLSTATE is libpq's own, and libpq's own
		 * are about the connection ("server closed the connection
		 * unexpectedly" comes while PQstatus() still says OK): a worker
		 * must see it as the database gone, to spool and reconnect.
		 */
		if (PQresultStatus(res) == PGRES_FATAL_ERROR)
			return -ENOTCONN;
	}
	if (!conn || PQstatus(conn) != CONNECTION_OK)
		return -ENOTCONN;
	return res ? -EIO : -ENOMEM;
}

/* The server's message, one line, without libpq's trailing newline. */
static const char *server_message(struct pg_store *ps, const PGresult *res)
{
	const char *m = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	/* the result's own: the connection's may hold earlier errors too */
	if ((!m || !*m) && res)
		m = PQresultErrorMessage(res);
	if (!m || !*m)
		m = ps->conn ? PQerrorMessage(ps->conn) : "";
	if (!m || !*m)
		m = "(no message)";
	return m;
}

int pg_fail(struct pg_store *ps, const PGresult *res, const char *what)
{
	int err = pg_errno_of(res, ps->conn);
	const char *m = server_message(ps, res);
	int n = (int)strlen(m);

	/* libpq ends its messages with a newline */
	while (n && isspace((unsigned char)m[n - 1]))
		n--;
	if (err == -ENOTCONN)
		return store_fail(&ps->base, err,
				  "%s: %s: the connection to the database was lost: %.*s",
				  ps->shown, what, n, m);
	return store_fail(&ps->base, err, "%s: %s: %.*s", ps->shown, what, n, m);
}

int pg_damaged(struct pg_store *ps, const char *fmt, ...)
{
	struct strbuf what = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&what, fmt, ap);
	va_end(ap);
	store_fail(&ps->base, -EBADMSG, "%s: the database is damaged: %s",
		   ps->shown, strbuf_error(&what) ? "(out of memory)" : what.buf);
	strbuf_release(&what);
	return -EBADMSG;
}

int pg_check_writer(struct pg_store *ps)
{
	if (ps->mode != STORE_WRITE)
		return store_fail(&ps->base, -EBADF, "%s: opened for reading only",
				  ps->shown);
	return 0;
}

/* ---- queries ---- */

/* A connection known lost is not asked again: libpq would repeat its story. */
static int pg_lost(struct pg_store *ps, const char *what)
{
	return store_fail(&ps->base, -ENOTCONN,
			  "%s: %s: the connection to the database was lost", ps->shown, what);
}

int pg_exec(struct pg_store *ps, const char *what, const char *sql, int n,
	    const char *const *params, PGresult **out)
{
	PGresult *res;
	ExecStatusType st;
	int err;

	if (out)
		*out = NULL;
	if (PQstatus(ps->conn) != CONNECTION_OK)
		return pg_lost(ps, what);
	res = PQexecParams(ps->conn, sql, n, NULL, params, NULL, NULL, 0);
	st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
		if (out)
			*out = res;
		else
			PQclear(res);
		return 0;
	}
	err = pg_fail(ps, res, what);
	PQclear(res);
	return err;
}

int pg_run(struct pg_store *ps, const char *what, const char *sql)
{
	/* the simple protocol: sql may hold several statements */
	PGresult *res;
	ExecStatusType st;
	int err = 0;

	if (PQstatus(ps->conn) != CONNECTION_OK)
		return pg_lost(ps, what);
	res = PQexec(ps->conn, sql);
	st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		err = pg_fail(ps, res, what);
	PQclear(res);
	return err;
}

const char *pg_int_param(char buf[PG_INT_BUF], int64_t v)
{
	snprintf(buf, PG_INT_BUF, "%" PRId64, v);
	return buf;
}

const char *pg_real_param(char buf[PG_REAL_BUF], double v)
{
	if (isnan(v))
		return NULL;
	if (isinf(v))
		return v > 0 ? "Infinity" : "-Infinity";
	/* %.17g reads back to the same double */
	snprintf(buf, PG_REAL_BUF, "%.17g", v);
	return buf;
}

int pg_begin(struct pg_store *ps)
{
	int err = pg_run(ps, "cannot begin a transaction", "BEGIN");

	ps->in_tx = !err;
	return err;
}

int pg_commit(struct pg_store *ps, const char *what)
{
	int err = pg_run(ps, what, "COMMIT");

	/* a failed COMMIT has rolled back: the transaction is over either way */
	ps->in_tx = false;
	return err;
}

void pg_rollback(struct pg_store *ps)
{
	PGresult *res;

	if (!ps->in_tx)
		return;
	ps->in_tx = false;
	/* keep the message of what failed: a rollback's own failure adds nothing */
	res = PQexec(ps->conn, "ROLLBACK");
	PQclear(res);
}

/* ---- column readers ---- */

static int col_null(struct pg_store *ps, const PGresult *res, int row, int col,
		    bool nullable, const char *what, bool *is_null)
{
	if (row >= PQntuples(res) || col >= PQnfields(res))
		return pg_damaged(ps, "%s: missing from the result", what);
	*is_null = PQgetisnull(res, row, col);
	if (*is_null && !nullable)
		return pg_damaged(ps, "%s is NULL", what);
	return 0;
}

int pg_col_text(struct pg_store *ps, const PGresult *res, int row, int col,
		bool nullable, const char *what, char **out)
{
	bool is_null;
	int err = col_null(ps, res, row, col, nullable, what, &is_null);

	*out = NULL;
	if (err || is_null)
		return err;
	*out = strdup(PQgetvalue(res, row, col));
	return *out ? 0 : store_fail(&ps->base, -ENOMEM, "out of memory");
}

int pg_col_int64(struct pg_store *ps, const PGresult *res, int row, int col,
		 int64_t min, int64_t max, const char *what, int64_t *out)
{
	const char *t;
	char *end;
	long long v;
	bool is_null;
	int err = col_null(ps, res, row, col, false, what, &is_null);

	*out = 0;
	if (err)
		return err;
	t = PQgetvalue(res, row, col);
	errno = 0;
	v = strtoll(t, &end, 10);
	if (errno || end == t || *end || v < min || v > max)
		return pg_damaged(ps, "%s is '%.40s', not an integer in [%" PRId64
				  ", %" PRId64 "]", what, t, min, max);
	*out = v;
	return 0;
}

int pg_col_int(struct pg_store *ps, const PGresult *res, int row, int col,
	       int min, int max, const char *what, int *out)
{
	int64_t v;
	int err = pg_col_int64(ps, res, row, col, min, max, what, &v);

	*out = (int)v;
	return err;
}

int pg_col_real(struct pg_store *ps, const PGresult *res, int row, int col,
		bool nullable, const char *what, double *out)
{
	const char *t;
	char *end;
	bool is_null;
	int err = col_null(ps, res, row, col, nullable, what, &is_null);

	*out = NAN;
	if (err || is_null)
		return err;
	t = PQgetvalue(res, row, col);
	errno = 0;
	*out = strtod(t, &end);	/* reads NaN and Infinity as PostgreSQL spells them */
	if (end == t || *end || (errno && errno != ERANGE))
		return pg_damaged(ps, "%s is '%.40s', not a number", what, t);
	return 0;
}

/* ---- classification and migrations ---- */

enum db_kind { DB_EMPTY, DB_PERFBOT, DB_FOREIGN };

/*
 * What the connection's schema (search_path's first, current_schema())
 * holds; a perfbot database's version in *version.
 */
static int classify(struct pg_store *ps, enum db_kind *kind, int *version)
{
	PGresult *res = NULL;
	char *creator = NULL, *ver = NULL, *end;
	int64_t ntables, has_meta;
	long v;
	int err;

	*version = 0;
	err = pg_exec(ps, "cannot read the schema",
		      "SELECT count(*), count(*) FILTER (WHERE tablename = 'meta')"
		      " FROM pg_catalog.pg_tables WHERE schemaname = current_schema()",
		      0, NULL, &res);
	if (!err)
		err = pg_col_int64(ps, res, 0, 0, 0, INT64_MAX, "the table count", &ntables);
	if (!err)
		err = pg_col_int64(ps, res, 0, 1, 0, 1, "the meta table count", &has_meta);
	PQclear(res);
	if (err)
		return err;
	if (!ntables) {
		*kind = DB_EMPTY;
		return 0;
	}
	*kind = DB_FOREIGN;
	if (!has_meta)
		return store_fail(&ps->base, -EPROTO,
				  "%s is not a perfbot database (it holds other tables)",
				  ps->shown);
	/* a meta table of someone else's, with other columns, fails here */
	res = PQexecParams(ps->conn,
			   "SELECT (SELECT value::text FROM meta WHERE key::text = 'created_by'),"
			   " (SELECT value::text FROM meta WHERE key::text = 'schema_version')",
			   0, NULL, NULL, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		err = pg_errno_of(res, ps->conn);
		if (err == -ENOTCONN)
			err = pg_fail(ps, res, "cannot read the meta table");
		else
			err = store_fail(&ps->base, -EPROTO,
					 "%s is not a perfbot database (its meta table is not perfbot's)",
					 ps->shown);
		PQclear(res);
		return err;
	}
	err = pg_col_text(ps, res, 0, 0, true, "created_by", &creator);
	if (!err)
		err = pg_col_text(ps, res, 0, 1, true, "schema_version", &ver);
	PQclear(res);
	if (err)
		goto out;
	if (!creator || strcmp(creator, "perfbot")) {
		err = store_fail(&ps->base, -EPROTO,
				 "%s is not a perfbot database (its meta table is not perfbot's)",
				 ps->shown);
		goto out;
	}
	errno = 0;
	v = ver ? strtol(ver, &end, 10) : -1;
	if (!ver || errno || *end || v < 1 || v > 1000000) {
		err = store_fail(&ps->base, -EPROTO,
				 "%s: perfbot database with an invalid schema version '%s'",
				 ps->shown, ver ? ver : "(none)");
		goto out;
	}
	if (v > pg_schema_version) {
		err = store_fail(&ps->base, -EPROTO,
				 "%s has schema version %ld, newer than this perfbot's (%d): use a newer perfbot",
				 ps->shown, v, pg_schema_version);
		goto out;
	}
	*kind = DB_PERFBOT;
	*version = (int)v;
out:
	free(creator);
	free(ver);
	return err;
}

static int meta_set(struct pg_store *ps, const char *key, const char *value)
{
	const char *params[] = { key, value };

	return pg_exec(ps, "cannot write the meta table",
		       "INSERT INTO meta (key, value) VALUES ($1, $2)"
		       " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
		       2, params, NULL);
}

/*
 * All pending migrations in one transaction, under an advisory lock that
 * serialises perfbots opening one database at once; the lock holder
 * classifies again, so the second sees the first's schema.
 */
static int migrate(struct pg_store *ps, enum db_kind *kind, int *version)
{
	char ver[16];
	int err = pg_begin(ps);

	if (!err)
		err = pg_run(ps, "cannot take the migration lock",
			     "SELECT pg_advisory_xact_lock(" PG_MIGRATE_LOCK ")");
	if (!err)
		err = classify(ps, kind, version);
	if (err)
		goto fail;
	if (*version >= pg_schema_version)
		return pg_commit(ps, "cannot commit");
	for (int v = *version; v < pg_schema_version; v++) {
		PGresult *res = PQexec(ps->conn, pg_migrations[v].sql);

		if (PQresultStatus(res) != PGRES_COMMAND_OK &&
		    PQresultStatus(res) != PGRES_TUPLES_OK) {
			char what[160];

			snprintf(what, sizeof(what), "cannot apply schema migration %d (%s)",
				 v + 1, pg_migrations[v].what);
			err = pg_fail(ps, res, what);
			PQclear(res);
			goto fail;
		}
		PQclear(res);
	}
	if (*version == 0) {
		err = meta_set(ps, "created_by", "perfbot");
		if (!err)
			err = meta_set(ps, "created_with", PERFBOT_VERSION);
		if (err)
			goto fail;
	}
	snprintf(ver, sizeof(ver), "%d", pg_schema_version);
	err = meta_set(ps, "schema_version", ver);
	if (!err)
		err = pg_commit(ps, "cannot commit the schema");
	if (err)
		goto fail;
	*kind = DB_PERFBOT;
	*version = pg_schema_version;
	return 0;
fail:
	pg_rollback(ps);
	return err;
}

/* ---- open and close ---- */

static int session_setup(struct pg_store *ps)
{
	int server = PQserverVersion(ps->conn);

	if (server < PG_MIN_SERVER)
		return store_fail(&ps->base, -EPROTO,
				  "%s: PostgreSQL %d.%d is too old: perfbot needs 12 or newer",
				  ps->shown, server / 10000, server % 10000);
	/*
	 * UTC, so that nothing depends on the server's zone; every digit
	 * of a double back (the default since 12, set for poolers that
	 * change it); notices (IF NOT EXISTS, ...) not on stderr.
	 */
	return pg_run(ps, "cannot set up the session",
		      "SET TIME ZONE 'UTC'; SET extra_float_digits = 3;"
		      " SET client_min_messages = warning");
}

/* Notices go nowhere: libpq prints them on stderr by default. */
static void quiet_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

int pg_store_open(const char *location, enum store_mode mode,
		  struct store **out, struct strbuf *err)
{
	/*
	 * The location is expanded (a URL or key=value string; PGSERVICE,
	 * ~/.pgpass and the PG* variables apply as libpq documents); what
	 * it names overrides the defaults before it, nothing after it.
	 */
	static const char *const keys[] = {
		"connect_timeout", "fallback_application_name", "dbname", NULL
	};
	const char *values[] = { "10", "perfbot", location, NULL };
	struct pg_store *ps = calloc(1, sizeof(*ps));
	enum db_kind kind;
	int version, ret;

	*out = NULL;
	if (ps)
		strbuf_init(&ps->base.err);
	if (!ps || !(ps->shown = pg_location_shown(location))) {
		free(ps);
		return store_failf(err, -ENOMEM, "out of memory");
	}
	ps->base.ops = &pg_ops;
	ps->mode = mode;
	ps->conn = PQconnectdbParams(keys, values, 1);
	if (!ps->conn) {
		ret = store_failf(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (PQstatus(ps->conn) != CONNECTION_OK) {
		const char *m = PQerrorMessage(ps->conn);
		size_t n = strlen(m);

		while (n && isspace((unsigned char)m[n - 1]))
			n--;
		ret = store_failf(err, -ENOTCONN, "cannot connect to %s: %.*s",
				  ps->shown, (int)n, m);
		goto out;
	}
	PQsetNoticeProcessor(ps->conn, quiet_notice, NULL);
	ret = session_setup(ps);
	if (!ret)
		ret = classify(ps, &kind, &version);
	if (ret)
		goto fail;
	if (kind == DB_EMPTY && mode == STORE_READ) {
		ret = store_failf(err, -ENOENT, "no results yet at %s", ps->shown);
		goto out;
	}
	/* only a writer migrates, as with SQLite: a reader reads an older schema */
	if (mode == STORE_WRITE && version < pg_schema_version) {
		ret = migrate(ps, &kind, &version);
		if (ret)
			goto fail;
	}
	ps->version = version;
	*out = &ps->base;
	return 0;
fail:
	store_failf(err, ret, "%s", store_error(&ps->base));
out:
	pg_ops.close(&ps->base);
	return ret;
}

static void pg_close(struct store *s)
{
	struct pg_store *ps = to_ps(s);

	if (!ps)
		return;
	if (ps->runs_cache_free)
		ps->runs_cache_free(ps->runs_cache);
	if (ps->conn)
		PQfinish(ps->conn);
	free(ps->shown);
	strbuf_release(&ps->base.err);
	free(ps);
}

static const struct store_ops pg_ops = {
	.close = pg_close,
	/* pg_runs.c */
	.put_run = pg_put_run,
	.list_groups = pg_list_groups,
	.group_runs = pg_group_runs,
	.get_run = pg_get_run,
	.resolve_commit = pg_resolve_commit,
	.put_import = pg_put_import,
	.import_runs = pg_import_runs,
	.delete_runs = pg_delete_runs,
	/* pg_samples.c */
	.load_samples = pg_load_samples,
	/* pg_bisect.c */
	.bisect_add = pg_bisect_add,
	.bisect_get = pg_bisect_get,
	.bisect_latest = pg_bisect_latest,
	.bisect_list = pg_bisect_list,
	.bisect_update = pg_bisect_update,
	.bisect_log_add = pg_bisect_log_add,
	.bisect_log = pg_bisect_log,
	.bisect_mark = pg_bisect_mark,
	.bisect_marks = pg_bisect_marks,
	/* pg_watch.c */
	.point_add = pg_point_add,
	.points = pg_points,
	.branches = pg_branches,
	.alert_add = pg_alert_add,
	.alert_update = pg_alert_update,
	.alert_get = pg_alert_get,
	.alerts = pg_alerts,
	.report_add = pg_report_add,
	.report_find = pg_report_find,
	.report_get = pg_report_get,
	.reports = pg_reports,
	.report_update = pg_report_update,
	/* pg_kexec.c */
	.kexec_add = pg_kexec_add,
	.kexec_update = pg_kexec_update,
	.kexec_get = pg_kexec_get,
	.kexec_active = pg_kexec_active,
	.kexec_list = pg_kexec_list,
	/* pg_runs.c, pg_copy.c: perfbot db copy */
	.put_runs = pg_put_runs,
	.run_refs = pg_run_refs,
	.meta_get = pg_meta_get,
	.meta_add = pg_meta_add,
	/* pg_queue.c */
	.queue_submit = pg_queue_submit,
	.box_register = pg_box_register,
	.queue_claim = pg_queue_claim,
	.queue_heartbeat = pg_queue_heartbeat,
	.queue_finish = pg_queue_finish,
	.queue_fail = pg_queue_fail,
	.queue_hand_back = pg_queue_hand_back,
	.queue_reap = pg_queue_reap,
	.queue_list = pg_queue_list,
	.queue_get = pg_queue_get,
	.queue_cancel = pg_queue_cancel,
	.queue_retry = pg_queue_retry,
	.queue_boxes = pg_queue_boxes,
	.queue_release = pg_queue_release,
	.queue_wait = pg_queue_wait,
	.queue_class_set = pg_queue_class_set,
	.queue_class_remove = pg_queue_class_remove,
	.queue_classes = pg_queue_classes,
};
