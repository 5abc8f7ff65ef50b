/*
 * store_backend.h - which backend a store test runs against, for the
 * tests that hold for every backend (test_store.c, test_store_watch.c).
 *
 * CTest runs such a test twice: as unit/NAME on SQLite, and as
 * unit/NAME_pg under tests/pg/with-cluster.sh with PERFBOT_TEST_STORE=pg
 * and PERFBOT_TEST_PG_URL naming a throw-away database.  A test gets a
 * fresh, empty location from test_store_fresh(); tests that are about
 * one backend only (SQLite's files, PostgreSQL's server) ask
 * test_store_is_pg() and skip() the other with the reason.
 *
 * Header only: the unit tests are one file each.
 */
#ifndef PERFBOT_TEST_STORE_BACKEND_H
#define PERFBOT_TEST_STORE_BACKEND_H

#define _GNU_SOURCE
#include "store/internal.h"
#include "store/pg_internal.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static inline bool test_store_is_pg(void)
{
	const char *v = getenv("PERFBOT_TEST_STORE");

	return v && !strcmp(v, "pg");
}

/* Skip the calling test when the PostgreSQL run has no cluster. */
static inline void test_store_need_pg_cluster(void)
{
	const char *why = getenv("PERFBOT_TEST_PG_SKIP");

	if (test_store_is_pg() && (!getenv("PERFBOT_TEST_PG_URL") || why)) {
		print_message("[  SKIP    ] no PostgreSQL cluster: %s\n",
			      why ? why : "PERFBOT_TEST_PG_URL is not set");
		skip();
	}
}

/* Run sql on the test database (libpq directly: not through the store). */
static inline void test_store_pg_sql(const char *sql)
{
	PGconn *c = PQconnectdb(getenv("PERFBOT_TEST_PG_URL"));
	PGresult *r;

	if (PQstatus(c) != CONNECTION_OK)
		fail_msg("cannot connect to the test database: %s", PQerrorMessage(c));
	r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		fail_msg("%s: %s", sql, PQresultErrorMessage(r));
	PQclear(r);
	PQfinish(c);
}

/*
 * A fresh, empty store location (malloc'd): SQLite's file dir/results.db,
 * or PostgreSQL's test database with its schema emptied.
 */
static inline char *test_store_fresh(const char *dir)
{
	char *loc;

	if (test_store_is_pg()) {
		test_store_need_pg_cluster();
		test_store_pg_sql("SET client_min_messages = warning;"
				  " DROP SCHEMA public CASCADE; CREATE SCHEMA public");
		loc = strdup(getenv("PERFBOT_TEST_PG_URL"));
	} else if (asprintf(&loc, "%s/results.db", dir) < 0) {
		loc = NULL;
	}
	if (!loc)
		fail_msg("out of memory");
	return loc;
}

/* Skip a test that is about the other backend, saying why. */
#define TEST_STORE_ONLY_SQLITE(why)                                                \
	do {                                                                       \
		if (test_store_is_pg()) {                                          \
			print_message("[  SKIP    ] SQLite only: %s\n", why);      \
			skip();                                                    \
		}                                                                  \
	} while (0)
#define TEST_STORE_ONLY_PG(why)                                                    \
	do {                                                                       \
		if (!test_store_is_pg()) {                                         \
			print_message("[  SKIP    ] PostgreSQL only: %s\n", why);  \
			skip();                                                    \
		} else {                                                           \
			test_store_need_pg_cluster();                              \
		}                                                                  \
	} while (0)


/*
 * The first column of the first row of query (malloc'd; "NULL" for a
 * NULL), on the test database (libpq, not through the store).
 */
static inline char *test_store_pg_query(const char *query)
{
	PGconn *c = PQconnectdb(getenv("PERFBOT_TEST_PG_URL"));
	PGresult *r;
	char *v;

	if (PQstatus(c) != CONNECTION_OK)
		fail_msg("cannot connect to the test database: %s", PQerrorMessage(c));
	r = PQexec(c, query);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) < 1)
		fail_msg("%s: %s", query, PQresultErrorMessage(r));
	v = strdup(PQgetisnull(r, 0, 0) ? "NULL" : PQgetvalue(r, 0, 0));
	PQclear(r);
	PQfinish(c);
	if (!v)
		fail_msg("out of memory");
	return v;
}

/*
 * Statements run behind the store's back on its location (test_store_fresh's),
 * whichever backend: to damage rows or build an older schema.
 */
static inline void test_store_sql(const char *loc, const char *text)
{
	sqlite3 *db;
	char *msg = NULL;

	if (test_store_is_pg()) {
		test_store_pg_sql(text);
		return;
	}
	if (sqlite3_open(loc, &db) != SQLITE_OK)
		fail_msg("%s: cannot open", loc);
	if (sqlite3_exec(db, text, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", text, msg);
	if (sqlite3_close(db) != SQLITE_OK)
		fail_msg("%s: cannot close", loc);
}

/* The query's first value is want (SQL both backends read alike). */
static inline void test_store_assert_query(const char *loc, const char *query,
					   const char *want)
{
	sqlite3_stmt *st;
	sqlite3 *db;
	char *got;

	if (test_store_is_pg()) {
		got = test_store_pg_query(query);
	} else {
		if (sqlite3_open_v2(loc, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
			fail_msg("%s: cannot open", loc);
		if (sqlite3_prepare_v2(db, query, -1, &st, NULL) != SQLITE_OK)
			fail_msg("%s: %s", query, sqlite3_errmsg(db));
		if (sqlite3_step(st) != SQLITE_ROW)
			fail_msg("%s: no row", query);
		got = strdup(sqlite3_column_type(st, 0) == SQLITE_NULL
				     ? "NULL" : (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
	if (!got || strcmp(got, want))
		fail_msg("%s: '%s', not '%s'", query, got ? got : "(out of memory)", want);
	free(got);
}


/*
 * A database at schema version `version`, made behind the store's back
 * by the backend's first migrations (never edited once released), with
 * perfbot's meta rows and then `rows` (SQL both backends read alike).
 */
static inline void test_store_make_schema(const char *loc, int version, const char *rows)
{
	const struct store_migration *m = test_store_is_pg() ? pg_migrations : sqlite_migrations;
	char meta[160];

	if (version > (test_store_is_pg() ? pg_schema_version : sqlite_schema_version))
		fail_msg("no schema version %d", version);
	if (!test_store_is_pg())
		test_store_sql(loc, "PRAGMA journal_mode = WAL");
	for (int i = 0; i < version; i++)
		test_store_sql(loc, m[i].sql);
	snprintf(meta, sizeof(meta),
		 "INSERT INTO meta VALUES ('created_by', 'perfbot'),"
		 " ('created_with', '0.%d.0'), ('schema_version', '%d')", version, version);
	test_store_sql(loc, meta);
	if (rows)
		test_store_sql(loc, rows);
}


/*
 * Writers at once: n threads, each with its own store on loc (a store is
 * one thread's), call fn(s, who, round, ctx) for round 0 .. rounds - 1,
 * all starting each round together.  fn must not assert (cmocka is not
 * thread-safe): it records what it got in ctx, indexed by who and round,
 * for the test to check once every thread has ended.
 */
typedef void (*test_store_racer)(struct store *s, int who, int round, void *ctx);

struct test_store_race_arg {
	const char *loc;
	pthread_barrier_t *barrier;
	int who, rounds;
	test_store_racer fn;
	void *ctx;
	int open_err;
	char open_msg[256];
};

static inline void *test_store_race_thread(void *p)
{
	struct test_store_race_arg *a = p;
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;

	a->open_err = store_open(a->loc, STORE_WRITE, &s, &err);
	if (a->open_err)
		snprintf(a->open_msg, sizeof(a->open_msg), "%s", err.buf);
	strbuf_release(&err);
	for (int r = 0; r < a->rounds; r++) {
		pthread_barrier_wait(a->barrier);
		if (s)
			a->fn(s, a->who, r, a->ctx);
	}
	store_close(s);
	return NULL;
}

static inline void test_store_race(const char *loc, int n, int rounds, test_store_racer fn,
				   void *ctx)
{
	struct test_store_race_arg *args = calloc(n, sizeof(*args));
	pthread_t *threads = calloc(n, sizeof(*threads));
	pthread_barrier_t barrier;

	if (!args || !threads || pthread_barrier_init(&barrier, NULL, n))
		fail_msg("out of memory");
	for (int i = 0; i < n; i++) {
		args[i] = (struct test_store_race_arg){
			.loc = loc, .barrier = &barrier, .who = i, .rounds = rounds,
			.fn = fn, .ctx = ctx,
		};
		if (pthread_create(&threads[i], NULL, test_store_race_thread, &args[i]))
			fail_msg("cannot start a thread");
	}
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	pthread_barrier_destroy(&barrier);
	for (int i = 0; i < n; i++)
		if (args[i].open_err)
			fail_msg("writer %d: store_open: %d %s", i, args[i].open_err,
				 args[i].open_msg);
	free(args);
	free(threads);
}

/* A table of the backend's catalogue whose name is LIKE pattern, counted. */
#define TEST_STORE_COUNT_TABLES(pattern)                                           \
	(test_store_is_pg()                                                        \
		 ? "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"    \
		   " AND tablename LIKE '" pattern "'"                             \
		 : "SELECT count(*) FROM sqlite_master WHERE type = 'table'"       \
		   " AND name LIKE '" pattern "'")

#endif
