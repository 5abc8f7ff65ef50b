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
#include <libpq-fe.h>
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
		test_store_pg_sql("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
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

#endif
