/*
 * schema.c - the SQLite schema as a list of migrations (docs/store.md).
 *
 * Never edit a migration once released: databases in the field were built
 * by it.  Change the schema by appending one, which sqlite.c applies in
 * its own transaction when it opens an older database.
 */
#include "store/internal.h"

const struct store_migration sqlite_migrations[] = {
	{
		.what = "initial schema",
		.sql =
		"CREATE TABLE meta (\n"
		"	key TEXT PRIMARY KEY NOT NULL,\n"
		"	value TEXT NOT NULL\n"
		") WITHOUT ROWID;\n"
		/*
		 * AUTOINCREMENT: run ids are shown to users and quoted in
		 * reports, so a deleted run's id must never name another.
		 */
		"CREATE TABLE runs (\n"
		"	id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
		"	testbox TEXT NOT NULL,\n"
		"	testcase TEXT NOT NULL,\n"
		"	job TEXT NOT NULL,\n"
		"	\"commit\" TEXT NOT NULL,\n"
		"	status TEXT NOT NULL\n"
		"		CHECK (status IN ('complete', 'failed', 'incomplete')),\n"
		"	started REAL NOT NULL,\n"
		"	duration_s REAL NOT NULL,\n"
		"	job_text TEXT\n"
		");\n"
		"CREATE INDEX runs_group ON runs (testbox, job, \"commit\");\n"
		"CREATE INDEX runs_commit ON runs (\"commit\");\n"
		"CREATE TABLE run_param (\n"
		"	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
		"	key TEXT NOT NULL,\n"
		"	value TEXT NOT NULL,\n"
		"	PRIMARY KEY (run_id, key)\n"
		") WITHOUT ROWID;\n"
		"CREATE TABLE run_env (\n"
		"	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
		"	key TEXT NOT NULL,\n"
		"	value TEXT NOT NULL,\n"
		"	PRIMARY KEY (run_id, key)\n"
		") WITHOUT ROWID;\n"
		/* a name is stored once, a run's values refer to it by id */
		"CREATE TABLE stat_name (\n"
		"	id INTEGER PRIMARY KEY,\n"
		"	name TEXT NOT NULL UNIQUE\n"
		");\n"
		/* value NULL is NaN: SQLite cannot store a NaN REAL */
		"CREATE TABLE stat_value (\n"
		"	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
		"	name_id INTEGER NOT NULL REFERENCES stat_name (id),\n"
		"	value REAL,\n"
		"	PRIMARY KEY (run_id, name_id)\n"
		") WITHOUT ROWID;\n",
	},
	{
		.what = "bisections",
		.sql =
		/*
		 * perfbot bisect's state; spec and result are its JSON, opaque
		 * here.  AUTOINCREMENT as for runs: a bisection's id is shown
		 * to users.
		 */
		"CREATE TABLE bisect (\n"
		"	id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
		"	status TEXT NOT NULL,\n"
		"	spec TEXT NOT NULL,\n"
		"	result TEXT,\n"
		"	created REAL NOT NULL,\n"
		"	updated REAL NOT NULL\n"
		");\n"
		/* seq counts 1, 2, ... per bisection: the key keeps its log in order */
		"CREATE TABLE bisect_log (\n"
		"	bisect_id INTEGER NOT NULL REFERENCES bisect (id) ON DELETE CASCADE,\n"
		"	seq INTEGER NOT NULL,\n"
		"	time REAL NOT NULL,\n"
		"	text TEXT NOT NULL,\n"
		"	PRIMARY KEY (bisect_id, seq)\n"
		") WITHOUT ROWID;\n"
		"CREATE TABLE bisect_mark (\n"
		"	bisect_id INTEGER NOT NULL REFERENCES bisect (id) ON DELETE CASCADE,\n"
		"	sha TEXT NOT NULL,\n"
		"	mark TEXT NOT NULL,\n"
		"	note TEXT,\n"
		"	PRIMARY KEY (bisect_id, sha)\n"
		") WITHOUT ROWID;\n",
	},
	{
		.what = "run status 'unsupported', declared stats",
		.sql =
		/*
		 * SQLite cannot alter a CHECK: runs is rebuilt by SQLite's
		 * procedure for other table changes (lang_altertable.html),
		 * with foreign keys off (migrate() does that), else dropping
		 * runs would delete every run's params, env and values through
		 * ON DELETE CASCADE.  Ids are copied, so every reference still
		 * holds; the sequence is carried over first, so that the ids
		 * of deleted runs are never handed out again.
		 */
		"CREATE TABLE new_runs (\n"
		"	id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
		"	testbox TEXT NOT NULL,\n"
		"	testcase TEXT NOT NULL,\n"
		"	job TEXT NOT NULL,\n"
		"	\"commit\" TEXT NOT NULL,\n"
		"	status TEXT NOT NULL\n"
		"		CHECK (status IN ('complete', 'failed', 'incomplete',\n"
		"				  'unsupported')),\n"
		"	started REAL NOT NULL,\n"
		"	duration_s REAL NOT NULL,\n"
		"	job_text TEXT\n"
		");\n"
		"INSERT INTO sqlite_sequence (name, seq)\n"
		"	SELECT 'new_runs', seq FROM sqlite_sequence WHERE name = 'runs';\n"
		"INSERT INTO new_runs (id, testbox, testcase, job, \"commit\", status,\n"
		"		      started, duration_s, job_text)\n"
		"	SELECT id, testbox, testcase, job, \"commit\", status,\n"
		"	       started, duration_s, job_text FROM runs;\n"
		"DROP TABLE runs;\n"
		"ALTER TABLE new_runs RENAME TO runs;\n"
		"CREATE INDEX runs_group ON runs (testbox, job, \"commit\");\n"
		"CREATE INDEX runs_commit ON runs (\"commit\");\n"
		/*
		 * What the benchmark declares of a stat, stored with each run
		 * (a benchmark's table may change between versions).  The key
		 * keeps a run's declarations together, as stat_value's do.
		 */
		"CREATE TABLE run_stat_meta (\n"
		"	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
		"	name_id INTEGER NOT NULL REFERENCES stat_name (id),\n"
		"	unit TEXT NOT NULL,\n"
		"	better INTEGER NOT NULL CHECK (better IN (-1, 0, 1)),\n"
		"	kpi INTEGER NOT NULL CHECK (kpi IN (0, 1)),\n"
		"	PRIMARY KEY (run_id, name_id)\n"
		") WITHOUT ROWID;\n",
	},
	{
		.what = "the content hash of imported runs",
		.sql =
		/*
		 * A run made by `perfbot import` keeps the SHA-256 of the file
		 * it came from, so that the same file is not imported twice
		 * unnoticed.  It goes with its run (ON DELETE CASCADE): once
		 * the runs of a file are deleted, the file may be imported
		 * again.
		 */
		"CREATE TABLE run_import (\n"
		"	run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,\n"
		"	sha256 TEXT NOT NULL\n"
		");\n"
		"CREATE INDEX run_import_sha256 ON run_import (sha256);\n",
	},
	{
		.what = "the robot's state",
		.sql =
		/*
		 * perfbot watch (docs/watch.md).  The heads tested on each
		 * branch of each tree, in order: seq counts 1, 2, ... per
		 * (tree, branch), so the key keeps a branch's history in
		 * order.  base: what the head was compared with (NULL for
		 * the first).
		 */
		"CREATE TABLE watch_point (\n"
		"	tree TEXT NOT NULL,\n"
		"	branch TEXT NOT NULL,\n"
		"	seq INTEGER NOT NULL,\n"
		"	sha TEXT NOT NULL,\n"
		"	base TEXT,\n"
		"	tested REAL NOT NULL,\n"
		"	PRIMARY KEY (tree, branch, seq)\n"
		") WITHOUT ROWID;\n"
		/*
		 * The changes found, each once (the UNIQUE key), and what
		 * became of them.  AUTOINCREMENT as for runs: an alert's id
		 * is shown to users (perfbot alerts show ID).  pct NULL is
		 * NaN (not known); bisect_id and report_id NULL: none.
		 */
		"CREATE TABLE watch_alert (\n"
		"	id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
		"	tree TEXT NOT NULL,\n"
		"	branch TEXT NOT NULL,\n"
		"	testbox TEXT NOT NULL,\n"
		"	job TEXT NOT NULL,\n"
		"	metric TEXT NOT NULL,\n"
		"	\"before\" TEXT NOT NULL,\n"
		"	\"after\" TEXT NOT NULL,\n"
		"	how TEXT NOT NULL,\n"
		"	state TEXT NOT NULL,\n"
		"	pct REAL,\n"
		"	bisect_id INTEGER REFERENCES bisect (id),\n"
		"	culprit TEXT,\n"
		"	report_id INTEGER REFERENCES watch_report (id),\n"
		"	note TEXT,\n"
		"	created REAL NOT NULL,\n"
		"	updated REAL NOT NULL,\n"
		"	UNIQUE (testbox, job, metric, \"before\", \"after\")\n"
		");\n"
		/* one report per culprit, ever: the UNIQUE key */
		"CREATE TABLE watch_report (\n"
		"	id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
		"	culprit TEXT NOT NULL UNIQUE,\n"
		"	state TEXT NOT NULL,\n"
		"	path TEXT,\n"
		"	created REAL NOT NULL,\n"
		"	updated REAL NOT NULL\n"
		");\n",
	},
	{
		.what = "kexec boots",
		.sql =
		/*
		 * boot: kexec (docs/kernel.md): one row per boot into a
		 * kernel under test on a bare-metal test box, and its state
		 * (built, booting, running, stored, back, failed), so that
		 * `perfbot kexec resume` goes on after each reboot.
		 * sets and continuation are JSON arrays of strings, opaque
		 * here.  run_id: the first run the boot stored (no foreign
		 * key: runs may be deleted, the boot's history stays).
		 * AUTOINCREMENT: an id names the kernel's directory.
		 */
		"CREATE TABLE kexec_boot (id INTEGER PRIMARY KEY AUTOINCREMENT,"
		" state TEXT NOT NULL, reason TEXT, created REAL NOT NULL,"
		" updated REAL NOT NULL, testbox TEXT NOT NULL, repo TEXT,"
		" sha TEXT NOT NULL, job_file TEXT NOT NULL, sets TEXT NOT NULL,"
		" job TEXT NOT NULL, runs INTEGER NOT NULL, kernel TEXT,"
		" release TEXT NOT NULL, cmdline TEXT, run_id INTEGER,"
		" continuation TEXT);\n"
		/* one active boot per test box, whoever writes */
		"CREATE UNIQUE INDEX kexec_boot_active ON kexec_boot (testbox)"
		" WHERE state IN ('built', 'booting', 'running', 'stored');\n",
	},
};

const int sqlite_schema_version =
	sizeof(sqlite_migrations) / sizeof(sqlite_migrations[0]);
