/*
 * store.h - where runs are kept (docs/design.md §10).  This is the interface;
 * sqlite.c implements it, and a PostgreSQL backend (pg.c, later) must fit
 * behind it unchanged: nothing SQLite-specific crosses this header.
 *
 * A location is a path (SQLite) or, later, a postgresql:// URL.
 * store_default_location() gives --db's default: $PERFBOT_DB, else
 * $XDG_DATA_HOME/perfbot/results.db, else ~/.local/share/perfbot/results.db.
 *
 * Guarantees: a run and all its stats are written in one transaction, so
 * a crash or ^C never leaves a half run that looks complete.  Another
 * writer holding the database waits up to a busy timeout, then fails with
 * -EBUSY.  A file that is not a perfbot database, or of a newer schema,
 * is refused (-EPROTO) without being modified.
 *
 * Ownership: struct store is opaque, one per thread; store_close() frees
 * it.  Records and lists returned are the caller's to release.
 * Errors: 0 or a negative errno, with a message in store_error(s) (or in
 * `err` for store_open()), whole whatever the paths and names it quotes;
 * store_error()'s string is valid until the next call on s.  -EBADMSG
 * always means the file is damaged or crafted ("PATH: the database is
 * damaged: WHAT"): every read treats the file as untrusted input, and
 * SQLite's own SQLITE_CORRUPT/NOTADB on a file known to be perfbot's map
 * to it too.  A location that is not a
 * regular file (device, fifo) is -EINVAL, a directory -EISDIR.
 *
 * Readers (STORE_READ) work on read-only media: without write access
 * they open the file read-only, and where SQLite cannot create the -shm
 * a WAL reader needs, as immutable.  A store that a writer fails to
 * create is removed with the -wal/-shm/-journal the attempt made.
 */
#ifndef PERFBOT_STORE_STORE_H
#define PERFBOT_STORE_STORE_H

#include "record/record.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;

enum store_mode { STORE_READ, STORE_WRITE };

/* The default location (malloc'd), or NULL when no home is known. */
char *store_default_location(void);
/* The location as messages show it: a password replaced by "***" (malloc'd). */
char *store_location_shown(const char *location);

/*
 * Open (STORE_WRITE creates it and its directory when missing).  On an
 * error the message replaces what err held (err may be NULL).
 */
int store_open(const char *location, enum store_mode mode, struct store **out,
	       struct strbuf *err);
void store_close(struct store *s);
const char *store_error(const struct store *s);

/*
 * Write one run (its record is finished: statmap_finish() done or not),
 * with what it declares of its stats (r->meta), in one transaction.
 * -EILSEQ, writing nothing, when a name breaks the rule of docs/store.md
 * (valid UTF-8, no control character, at most 4096 bytes; an environment
 * value 64 KiB; a declared stat's name and unit as names):
 * store_error() names the field and shows it quoted.  -EINVAL for a
 * declaration without a name or with `better` not -1, 0 or 1.
 */
int store_put_run(struct store *s, const struct run_record *r, int64_t *run_id);

/* What `perfbot results` lists: every field may be NULL to match all. */
struct store_filter {
	const char *testcase;
	const char *commit;	/* full sha, or a unique prefix of one */
	const char *job;
	const char *testbox;
};

/* One group of runs: same testbox, atomic job and commit. */
struct store_group {
	char *testbox, *testcase, *job, *commit;
	size_t runs_complete, runs_failed, runs_incomplete;
	size_t runs_unsupported;	/* RUN_UNSUPPORTED: not failed, not counted as such */
	int64_t last_run_id;
	double last_started;
};

int store_list_groups(struct store *s, const struct store_filter *f,
		      struct store_group **groups, size_t *nr);
void store_groups_release(struct store_group *groups, size_t nr);

/* Run ids of one group, oldest first (any status). */
int store_group_runs(struct store *s, const char *testbox, const char *job,
		     const char *commit, int64_t **ids, size_t *nr);

/*
 * One run in full: stats, environment, params, job text, and what it
 * declares of its stats (out->meta, sorted by name; empty for a run that
 * declares nothing, or read from a file older than declarations).
 */
int store_get_run(struct store *s, int64_t run_id, struct run_record *out);

/*
 * Every stat of one atomic job on one testbox at one commit: for each stat
 * name the values of the complete runs (for compare).  *names and *values
 * are parallel arrays of nr entries; values[i] has counts[i] numbers.
 * meta: for each of those stats that a complete run declares, the
 * declaration of the newest such run (largest id), sorted by name; a stat
 * no run declares has none (stat_meta_find() gives NULL).
 */
struct store_samples {
	size_t nr;
	char **names;
	double **values;
	size_t *counts;
	size_t nr_runs;
	struct stat_meta_list meta;
	/* [nr_runs]: when each complete run started (Unix s), ascending */
	double *started;
};

int store_load_samples(struct store *s, const char *testbox, const char *job,
		       const char *commit, struct store_samples *out);
/*
 * The same, of the complete runs that started at `since` (Unix s) or
 * later: the runs of a window (compare --measure judges on interleaved
 * runs only).  STORE_ALL_TIME: every run.
 */
#define STORE_ALL_TIME (-1e300)
int store_load_samples_since(struct store *s, const char *testbox, const char *job,
			     const char *commit, double since, struct store_samples *out);
void store_samples_release(struct store_samples *samples);

/*
 * Resolve a commit given as a full sha, a unique prefix, or a label (the
 * kernel release of local runs) to what the store holds; -ENOENT or
 * -EEXIST (ambiguous prefix).  *full is malloc'd.
 */
int store_resolve_commit(struct store *s, const char *given, char **full);

/*
 * Imported runs (perfbot import): all the runs of one file, written in one
 * transaction, each with the SHA-256 of the file's content (64 lowercase
 * hex digits), checked at the door like store_put_run()'s.  With `once`,
 * a hash some stored run already has is -EEXIST and nothing is written
 * (checked inside the write transaction, so two imports of one file at
 * once cannot both succeed).  ids (may be NULL) receives the nr new ids.
 */
int store_put_import(struct store *s, const struct run_record *runs, size_t nr,
		     const char *sha256, bool once, int64_t *ids);
/*
 * The ids of the stored runs imported from content with this hash, in id
 * order; none is 0 with *nr 0 (also on a file from before the hashes were
 * kept: docs/store.md).  *ids is malloc'd.
 */
int store_import_runs(struct store *s, const char *sha256, int64_t **ids,
		      size_t *nr);

/*
 * Delete runs and every row they own (params, env, values, declarations,
 * import hash) in one transaction; other runs, stat names and bisections
 * are left as they are.  -ENOENT, deleting nothing, when an id names no
 * run (store_error() names it: "no run 42 in PATH").  An id given twice is
 * deleted once.
 */
int store_delete_runs(struct store *s, const int64_t *ids, size_t nr);

/*
 * Bisections (perfbot bisect): the store keeps each one's specification
 * and result as opaque text (JSON written by the bisect command), its
 * status word, a log of lines, and per-commit marks (e.g. "skip" with a
 * reason).  The samples of a bisection are ordinary runs.
 *
 * Each write is one transaction.  Strings passed in must not be NULL
 * unless said otherwise (-EINVAL); writing through a STORE_READ store is
 * -EBADF.  A reader does not migrate an older database (docs/store.md):
 * one from before bisections holds none, so the reads find none.
 */
struct store_bisect {
	int64_t id;
	char *status;		/* e.g. "running", "found", "no-change", "reset" */
	char *spec;		/* JSON text, never NULL */
	char *result;		/* JSON text, NULL until there is one */
	double created, updated;	/* Unix time, seconds */
};

struct store_bisect_mark {
	char *sha;
	char *mark;		/* e.g. "skip" */
	char *note;		/* e.g. the build log's path and exit status; may be NULL */
};

struct store_bisect_line {
	int64_t seq;		/* 1, 2, ... per bisection */
	double time;		/* Unix time */
	char *text;
};

/* A new bisection, created = updated = now; its id in *id (if id). */
int store_bisect_add(struct store *s, const char *status, const char *spec,
		     int64_t *id);
/* -ENOENT when there is no such bisection. */
int store_bisect_get(struct store *s, int64_t id, struct store_bisect *out);
/* The newest bisection (largest id), -ENOENT when there is none. */
int store_bisect_latest(struct store *s, struct store_bisect *out);
/* All, oldest first. */
int store_bisect_list(struct store *s, struct store_bisect **out, size_t *nr);
/*
 * Set status and result (result NULL keeps the stored one); updated = now.
 * -ENOENT if no such id.
 */
int store_bisect_update(struct store *s, int64_t id, const char *status,
			const char *result);
/* Append one line to the log (time = now); -ENOENT if no such id. */
int store_bisect_log_add(struct store *s, int64_t id, const char *text);
/* The log in order of seq; -ENOENT if no such id. */
int store_bisect_log(struct store *s, int64_t id,
		     struct store_bisect_line **lines, size_t *nr);
/*
 * Set (insert or replace) the mark of one commit; note may be NULL.
 * -ENOENT if no such id.
 */
int store_bisect_mark(struct store *s, int64_t id, const char *sha,
		      const char *mark, const char *note);
/* The marks sorted by sha (byte order); -ENOENT if no such id. */
int store_bisect_marks(struct store *s, int64_t id,
		       struct store_bisect_mark **marks, size_t *nr);
void store_bisect_release(struct store_bisect *b);	/* frees the strings, not b */
void store_bisects_release(struct store_bisect *b, size_t nr);	/* and the array */
void store_bisect_lines_release(struct store_bisect_line *l, size_t nr);
void store_bisect_marks_release(struct store_bisect_mark *m, size_t nr);

/*
 * The robot (perfbot watch, docs/watch.md): the heads it tested on each
 * branch of each tree, in order -- the points of a branch's history --,
 * the changes it found (alerts) and what became of them, and the reports
 * it wrote, one per culprit.  Every state the robot has is here, so a
 * watch that is restarted (^C, a crash, a reboot) goes on without
 * measuring a run or writing a report twice.  The runs of a point are
 * ordinary runs (testbox, job, commit).
 *
 * Each write is one transaction.  Strings passed in must not be NULL
 * unless said otherwise (-EINVAL); writing through a STORE_READ store is
 * -EBADF.  A reader of a database from before the robot's tables
 * (docs/store.md) finds none of them.
 */
struct store_point {
	int64_t seq;		/* 1, 2, ... per (tree, branch), in the order tested */
	char *sha;		/* the head tested */
	char *base;		/* what it was compared with; NULL for the first */
	double tested;		/* Unix time it was added */
};

/*
 * Append sha as the branch's next point (seq = the last + 1, tested =
 * now); when the last point already is sha nothing is added.  *seq (may
 * be NULL): the point's seq either way.  base may be NULL.
 */
int store_point_add(struct store *s, const char *tree, const char *branch,
		    const char *sha, const char *base, int64_t *seq);
/* The branch's points in the order tested (none: 0 and *nr 0). */
int store_points(struct store *s, const char *tree, const char *branch,
		 struct store_point **out, size_t *nr);
void store_points_release(struct store_point *p, size_t nr);

/* Every (tree, branch) with points, by tree then branch: watch status. */
struct store_branch {
	char *tree, *branch;
	size_t points;
	struct store_point last;
};
int store_branches(struct store *s, struct store_branch **out, size_t *nr);
void store_branches_release(struct store_branch *b, size_t nr);

/*
 * A change the robot found in the history of (testbox, job) on a branch,
 * between the points `before` and `after`, and its state: "tentative"
 * (seen, not yet confirmed on interleaved runs), "confirmed",
 * "bisecting", "reported" (in a report: report_id), "explained" (the
 * culprit of an earlier report explains it: in that report's record),
 * "no-culprit" (the bisection ended without one), "invalid" or "ignored"
 * (a user's word: never reported).  The words are the robot's; the store
 * keeps any.
 */
struct store_alert {
	int64_t id;
	char *tree, *branch, *testbox, *job, *metric;
	char *before, *after;	/* full shas of the points either side */
	char *how;		/* "head" (a new head against its base) or "changepoint" */
	char *state;
	double pct;		/* the change of the metric, %; NaN when not known */
	int64_t bisect_id;	/* 0: not bisected */
	char *culprit;		/* NULL until a bisection names one */
	int64_t report_id;	/* 0: in no report */
	char *note;		/* why it is in its state; may be NULL */
	double created, updated;	/* Unix time */
};

/*
 * A new alert from a (id, created and updated are set in it).  -EEXIST
 * when an alert of the same (testbox, job, metric, before, after)
 * exists: a->id is set to that one's, nothing is written -- a change is
 * found once, however many passes see it.
 */
int store_alert_add(struct store *s, struct store_alert *a);
/*
 * a's state, pct, bisect_id, culprit (may be NULL), report_id and note
 * (may be NULL) written to alert a->id; updated = now.  -ENOENT if none.
 */
int store_alert_update(struct store *s, const struct store_alert *a);
/* -ENOENT when there is no such alert. */
int store_alert_get(struct store *s, int64_t id, struct store_alert *out);
/* Oldest first; state NULL: every alert, else those in that state. */
int store_alerts(struct store *s, const char *state, struct store_alert **out,
		 size_t *nr);
void store_alert_release(struct store_alert *a);	/* the strings, not a */
void store_alerts_release(struct store_alert *a, size_t nr);	/* and the array */

/*
 * A report: one per culprit, ever.  state: "writing" (decided, its
 * message not yet complete in the outbox), "written", "sent" (also
 * handed to sendmail); path: the message's file once known.
 */
struct store_report {
	int64_t id;
	char *culprit;		/* full sha */
	char *state;
	char *path;		/* NULL until known */
	double created, updated;
};

/*
 * A new report of culprit in *out (may be NULL).  -EEXIST when culprit
 * has one: *out is that one, nothing is written.
 */
int store_report_add(struct store *s, const char *culprit, const char *state,
		     struct store_report *out);
/* culprit's report; -ENOENT when it has none. */
int store_report_find(struct store *s, const char *culprit, struct store_report *out);
int store_report_get(struct store *s, int64_t id, struct store_report *out);
/* All, oldest first. */
int store_reports(struct store *s, struct store_report **out, size_t *nr);
/* state and path (NULL keeps the stored one); updated = now.  -ENOENT. */
int store_report_update(struct store *s, int64_t id, const char *state,
			const char *path);
void store_report_release(struct store_report *r);	/* the strings, not r */
void store_reports_release(struct store_report *r, size_t nr);

/*
 * kexec boots (boot: kexec, docs/kernel.md "boot: kexec"): a kernel under
 * test booted on this bare-metal machine with kexec, the job run in it,
 * and the return to the default kernel, across reboots.  Each row is one
 * boot and its state:
 *
 *   built -> booting -> running -> stored -> back
 *     \---------\----------\---------\-----> failed (reason)
 *
 * built: the kernel is at hand and the row made; booting: installed,
 * loaded, kexec executed; running: the job runs in the new kernel;
 * stored: its runs are stored (run_id the first), the reboot into the
 * default kernel arranged; back: on the default kernel again, nothing
 * installed.  failed: never got there (reason), nothing installed.
 * `back` and `failed` are final; a test box has at most one boot in
 * another state (its active boot).  The words are boot/kexec.h's; the
 * store keeps any name.
 *
 * Each write is one transaction.  Strings passed in must not be NULL
 * unless said otherwise (-EINVAL); writing through a STORE_READ store is
 * -EBADF.  A reader of a database from before the kexec table (schema 6)
 * finds no boots.
 */
struct store_kexec {
	int64_t id;
	char *state;
	char *reason;		/* why it failed; may be NULL */
	double created, updated;	/* Unix time */
	char *testbox;
	char *repo;		/* the kernel tree; NULL for a given image */
	char *sha;		/* the commit (or the label) its runs are stored under */
	char *job_file;		/* absolute path of the job file */
	char *sets;		/* its -s KEY=VALUE, a JSON array of strings */
	char *job;		/* the atomic job's name */
	unsigned runs;		/* runs to make in the boot, >= 1 */
	char *kernel;		/* the installed kernel; NULL until installed */
	char *release;		/* the release it must boot (its image's) */
	char *cmdline;		/* the kernel command line; NULL until loaded */
	int64_t run_id;		/* the first run stored; 0 until then */
	char *continuation;	/* argv to run once back, a JSON array; NULL: none */
};

/*
 * A new boot from k (id, created and updated set in it; its state is
 * k->state).  -EEXIST when k->testbox has an active boot: k->id is that
 * one's, nothing is written.
 */
int store_kexec_add(struct store *s, struct store_kexec *k);
/*
 * k's state, reason (may be NULL), kernel, cmdline (may be NULL) and
 * run_id written to boot k->id, only if its state is `from` (a
 * transition happens once, whoever else tries it); updated = now.
 * -ENOENT if no such boot, -EAGAIN (nothing written) if it is in another
 * state, which store_error() names.
 */
int store_kexec_update(struct store *s, const struct store_kexec *k, const char *from);
/* -ENOENT when there is no such boot. */
int store_kexec_get(struct store *s, int64_t id, struct store_kexec *out);
/* testbox's active boot; -ENOENT (no message) when it has none. */
int store_kexec_active(struct store *s, const char *testbox, struct store_kexec *out);
/* All, oldest first. */
int store_kexec_list(struct store *s, struct store_kexec **out, size_t *nr);
void store_kexec_release(struct store_kexec *k);	/* the strings, not k */
void store_kexecs_release(struct store_kexec *k, size_t nr);	/* and the array */

/*
 * Copying a history (perfbot db copy, docs/store.md "Copying a history").
 *
 * A store has an id, 32 lowercase hex digits, kept in its meta table
 * (key store_id).  A run copied into another store gets that store's
 * next id and carries where it came from in its environment:
 * STORE_ORIGIN_KEY = "<store id>:<run id>" of the store it was made in
 * (a run copied from a copy keeps its first origin), so that a copy
 * knows what the other store holds already.
 */
#define STORE_ORIGIN_KEY "store.origin"
#define STORE_ID_LEN 32

/*
 * The store's id.  A store without one (written before ids were kept)
 * has one derived from its first run (docs/store.md), or a random one
 * when it has no run; with persist (a writer) that one is kept in its
 * meta table, under a lock, so that two writers agree.  id receives
 * STORE_ID_LEN digits and a NUL.
 */
int store_id(struct store *s, bool persist, char id[STORE_ID_LEN + 1]);

/* What a copy needs of each run, read for every run in one query. */
struct store_run_ref {
	int64_t id;
	char *origin;		/* its STORE_ORIGIN_KEY value; NULL: made here */
	char *sha256;		/* its import hash; NULL: not imported */
};

/* Every run's, ascending ids (none: 0 and *nr 0). */
int store_run_refs(struct store *s, struct store_run_ref **out, size_t *nr);
void store_run_refs_release(struct store_run_ref *r, size_t nr);

/*
 * nr runs in one transaction, checked at the door as store_put_run()'s;
 * sha256 (may be NULL): for each run its import hash, or NULL.  ids (may
 * be NULL) receives the nr new ids.  Nothing is written on an error.
 */
int store_put_runs(struct store *s, const struct run_record *runs, size_t nr,
		   const char *const *sha256, int64_t *ids);

/*
 * The fleet's queue (PostgreSQL only; docs/fleet.md).  Items are atomic
 * jobs to run once each (at a commit of a repository, or as the worker's
 * runner runs them), with the needs a test box must meet; workers
 * register their box, claim items (priority, then age; FOR UPDATE SKIP
 * LOCKED), hold a lease renewed by heartbeat, and finish an item with
 * its run in one transaction fenced by the attempt number.  Item states:
 *
 *   queued -> running -> done
 *      ^         |-----> failed     (attempts used up, or cancelled)
 *      \---------/                  (failed attempt, expired lease,
 *                                    hand-back: queued again)
 *
 * An attempt is (id, attempt); attempt only grows, so an attempt once
 * fenced out (its lease reaped, the item cancelled or claimed again)
 * stays out: its heartbeat, finish or fail is -ESTALE.  Times are the
 * server's clock.  A SQLite store answers every call -ENOTSUP ("the
 * queue needs a PostgreSQL store (--db postgresql://...)").
 *
 * Strings in the structs are malloc'd; the release functions free them.
 */
#define STORE_QUEUE_MAX_ATTEMPTS 3

/* What an item needs of a box; 0 or NULL: anything. */
struct store_needs {
	int min_cpus;
	int64_t min_mem_mb;
	char *arch;
	char *testbox;
	char *class;		/* a box of that class (store_queue_class_set()) */
	char **tags;		/* NULL-terminated; NULL: none */
};

struct store_queue_item {
	int64_t id, batch;
	char *state;		/* queued, running, done, failed, cancelled */
	int priority;		/* higher first */
	char *job;		/* the atomic job's name */
	char *testcase;
	char *job_text;		/* the atomic job as YAML: what the worker loads */
	char *repo, *commit;	/* NULL: the worker's runner, labelled as perfbot run does */
	char *needs;		/* as given ("" : none) */
	struct store_needs parsed;
	int attempt;		/* 0 until claimed; the claimed attempt's number */
	int max_attempts;	/* 0 on submit: STORE_QUEUE_MAX_ATTEMPTS */
	char *box;		/* the box of the last attempt; NULL: none yet */
	double lease_until;	/* NaN: no lease */
	int64_t run_id;		/* 0 until done */
	char *reasons;		/* "attempt N on BOX: why" lines; "" : none */
	double created, updated;
};

/* A test box as its worker registered it. */
struct store_box {
	char *testbox;		/* the name the runs are stored under */
	char *machine;		/* the test machine line */
	int cpus;
	int64_t mem_mb;
	char *arch, *kernel;
	char **tags;		/* NULL-terminated; NULL: none */
	char *state;		/* active, quarantined */
	char *why;		/* why quarantined; NULL */
	double seen;		/* the last register, claim or heartbeat */
	int64_t done, failed;	/* items finished here, attempts failed here */
	int64_t lost;		/* items failed here that another box completed */
	char *class;		/* the class it is declared in; NULL: none (read only) */
};

/*
 * A class of identical boxes: items that need it run on any of them, and
 * their runs are compared as one population (docs/fleet.md).  A box is
 * in one class at most; a class's name is no box's.
 */
struct store_class {
	char *name;
	char **boxes;		/* NULL-terminated, by name; registered or not */
};

/*
 * The runs of a class are stored under their box's testbox and carry
 * the class in their environment (STORE_CLASS_ENV); a testbox selector
 * STORE_CLASS_PREFIX "NAME" (store_list_groups(), store_group_runs(),
 * store_load_samples()) selects the runs of class NAME, of whichever
 * box: one population, never another class's runs nor a box's own.
 */
#define STORE_CLASS_ENV "fleet.class"
#define STORE_CLASS_PREFIX "class:"
/* The class a testbox selector names (a pointer into it), NULL: a box's (or NULL). */
const char *store_selector_class(const char *testbox);

/* Items failed on a box and completed elsewhere before it is quarantined. */
#define STORE_QUARANTINE_LOST 3

/*
 * Queue nr items in one transaction (one batch: *batch, may be NULL),
 * their ids in ids (may be NULL); the fields read are priority, job,
 * testcase, job_text, repo, commit, needs, parsed and max_attempts.
 * Idle workers are woken (NOTIFY perfbot_queue).
 */
int store_queue_submit(struct store *s, const struct store_queue_item *items,
		       size_t nr, int64_t *batch, int64_t *ids);
/* Insert or update b's box (state and counts are kept); seen = now. */
int store_box_register(struct store *s, const struct store_box *b);
/*
 * The next item the registered box `testbox` meets (and, testcases not
 * NULL, whose testcase is one of them: NULL-terminated), in *out:
 * running, attempt + 1, leased for lease_s.  -ENOENT (no message) when
 * there is none; -EPERM when the box is quarantined (the message says
 * why); -ESRCH when it is not registered.
 */
int store_queue_claim(struct store *s, const char *testbox,
		      char *const *testcases, double lease_s,
		      struct store_queue_item *out);
/* Renew the lease of attempt (id, attempt) for lease_s; -ESTALE when fenced out. */
int store_queue_heartbeat(struct store *s, int64_t id, int attempt,
			  double lease_s);
/*
 * Store r and mark the item done with it, in one transaction, only while
 * attempt (id, attempt) holds it (-ESTALE, nothing stored, otherwise).
 * When this very attempt already finished it (a COMMIT whose answer was
 * lost), *run_id is that run's id and nothing is stored again.  Failed
 * attempts of other boxes on the item count as lost to them; a box with
 * STORE_QUARANTINE_LOST of those is quarantined.
 */
int store_queue_finish(struct store *s, int64_t id, int attempt,
		       const struct run_record *r, int64_t *run_id);
/*
 * Attempt (id, attempt) failed (why: one line): queued again while
 * attempts are left, else failed; "attempt N on BOX: why" is appended
 * to its reasons.  *requeued (may be NULL) says which.  -ESTALE when
 * fenced out.
 */
int store_queue_fail(struct store *s, int64_t id, int attempt, const char *why,
		     bool *requeued);
/* The worker gives attempt (id, attempt) back unrun (SIGTERM): queued, not counted. */
int store_queue_hand_back(struct store *s, int64_t id, int attempt);
/*
 * Expired leases: each item queued again or failed ("lease expired on
 * BOX"), as store_queue_fail() does; *nr (may be NULL) how many.
 */
int store_queue_reap(struct store *s, size_t *nr);
/* Items by id; state NULL: all. */
int store_queue_list(struct store *s, const char *state,
		     struct store_queue_item **out, size_t *nr);
/* -ENOENT when there is no such item. */
int store_queue_get(struct store *s, int64_t id, struct store_queue_item *out);
/* A queued or running item cancelled; -ENOENT, or -EINVAL when it has ended. */
int store_queue_cancel(struct store *s, int64_t id);
/* A failed or cancelled item queued again with STORE_QUEUE_MAX_ATTEMPTS more attempts. */
int store_queue_retry(struct store *s, int64_t id);
/* Every registered box, by name. */
int store_queue_boxes(struct store *s, struct store_box **out, size_t *nr);
/* A quarantined box active again, its lost count reset; -ENOENT. */
int store_queue_release(struct store *s, const char *testbox);
/*
 * Declare class name as exactly boxes (NULL-terminated, at least one), in
 * one transaction.  -EEXIST, nothing changed, when name is a registered
 * box's or a class member's, a box is a class's name, or a box is in
 * another class (the message names both).
 */
int store_queue_class_set(struct store *s, const char *name, char *const *boxes);
/* Class name no more; -ENOENT when there is none. */
int store_queue_class_remove(struct store *s, const char *name);
/* Every class, by name. */
int store_queue_classes(struct store *s, struct store_class **out, size_t *nr);
/*
 * Wait up to timeout_s for news of the queue (a submit, a hand-back, a
 * failed attempt: NOTIFY perfbot_queue, which this connection LISTENs
 * to from its first wait on); 0 either way, *woken (may be NULL) says
 * which.  A lost notification costs at most timeout_s: callers poll.
 */
int store_queue_wait(struct store *s, double timeout_s, bool *woken);

void store_queue_item_release(struct store_queue_item *it);	/* the strings, not it */
void store_queue_items_release(struct store_queue_item *it, size_t nr);	/* and the array */
void store_needs_release(struct store_needs *n);
void store_box_release(struct store_box *b);
void store_boxes_release(struct store_box *b, size_t nr);
void store_classes_release(struct store_class *c, size_t nr);

#endif
