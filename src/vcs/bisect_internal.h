/*
 * bisect_internal.h - what the three parts of a bisection session share
 * (bisect_session.h is the API):
 *
 *  - bisect_measure.c: one commit measured -- its stored runs read, or a
 *    worktree checked out and built, the job run, the run stored;
 *  - bisect_assemble.c: the result's parts (record/bisect_result.h) made
 *    from what was measured and what the engine (vcs/bisect.h) decided;
 *  - bisect_session.c: the phases (baseline, search, confirmation, a
 *    merge inside) that call both.
 *
 * Ownership: a struct session owns its built checkouts and kernels (vcs/commitrun.h), build
 * argv (when from --build), the metric it settled and the shas it
 * touched, until session_release(); the spec, job, store and hooks are
 * the caller's.  Errors: functions returning int give 0 or a negative
 * errno with the message in ss->err (session_fail()).
 * Threading: main thread only (children, signals, `interrupted`).
 */
#ifndef PERFBOT_VCS_BISECT_INTERNAL_H
#define PERFBOT_VCS_BISECT_INTERNAL_H

#include "record/bisect_result.h"
#include "record/record.h"
#include "stats/verdict.h"
#include "vcs/bisect.h"
#include "vcs/commitrun.h"
#include "vcs/bisect_session.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sha_list {
	char **v;
	size_t n, cap;
};

struct session {
	struct store *s;
	int64_t id;			/* 0: nothing is logged or marked */
	const struct bisect_spec *spec;
	const struct atomic_job *job;
	const struct bisect_hooks *hooks;
	char **build;			/* argv, NULL-terminated, or NULL */
	struct commit_runner builds;	/* built checkouts or kernels, builds counted */
	const char *metric;		/* NULL until the first run settles it */
	char *metric_owned;
	int better;			/* enum stat_better, once declared_better */
	bool declared_better;		/* a run declared the metric's direction */
	struct sha_list touched;	/* shas whose samples this bisection used */
	double created;			/* when the bisection was created (Unix s); 0: no id */
	/*
	 * measure_runs_made()'s count, kept while no sha is touched anew
	 * (each counted again then): the budget is asked before every run.
	 */
	size_t made, made_touched;
	bool made_known;
	/* complete runs this process made: a floor of the count above */
	size_t made_here;
	struct strbuf *err;		/* the caller's */
};

/* err, with the message set; the arguments may include ss->err->buf itself. */
int session_fail(struct session *ss, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A progress line, and when logged a line of the bisection's log too. */
void session_say(struct session *ss, bool logged, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* 12 characters of sha, in one of 4 static buffers: for messages. */
const char *short_sha(const char *sha);

/* ---- bisect_measure.c ---- */

/* How disturbed the machine was during one run (NaN: not recorded). */
struct run_disturbance {
	double others_cpu, steal;
};

/* Values, one a run: the disturbance of a side's runs measured here. */
struct side_values {
	double *v;
	size_t n, cap;
};

/*
 * The runs of one commit: a baseline or confirmation side.  cpu and steal
 * hold what the runs side_grow() made recorded (record.h's
 * STAT_DISTURBANCE_CPU and _STEAL); stored runs side_load() read add none.
 */
struct side {
	const char *sha;
	double *v;
	size_t n, cap;
	struct side_values cpu, steal;
};

/* The build command and a directory for worktrees; session_fail() style. */
int measure_init(struct session *ss);
/* Worktrees removed, the directory too. */
void measure_release(struct session *ss);
/*
 * The metric's values in the bisection's own stored complete runs of sha
 * (those that started once it was created; any number, *v the caller's
 * to free).
 */
int measure_load(struct session *ss, const char *sha, double **v, size_t *n);
/*
 * One run of sha into the store: 0 with its value, BISECT_SKIP when the
 * commit cannot be measured (build or benchmark failed; marked in the
 * store with the reason, in ss->err), -EINTR, or another error.  dist,
 * if not NULL, gets how disturbed the machine was during the run.
 */
int measure_run(struct session *ss, const char *sha, double *value,
		struct run_disturbance *dist);
/* The metric, once known: the spec's, the job's, else this run's KPI. */
int measure_settle_metric(struct session *ss, const struct run_record *r);
/* A run that declares the metric's direction (its meta) settles it. */
void measure_note_direction(struct session *ss, const struct run_record *r);
/*
 * The runs it made, each stored complete run once: every run it uses is
 * its own (own_since()), so this is also what its status calls its runs,
 * and the count its budget is spent against.
 */
size_t measure_runs_made(struct session *ss);

/* sd: sha's stored runs (sd->sha borrows sha). */
int side_load(struct session *ss, struct side *sd, const char *sha);
/*
 * sd: sha's stored complete runs that started at `since` or later, with
 * their disturbance where they recorded it (sd->sha borrows sha).
 */
int side_load_since(struct session *ss, struct side *sd, const char *sha, double since);
/* The starts of sha's stored complete runs, ascending (*t the caller's to free). */
int measure_starts(struct session *ss, const char *sha, double **t, size_t *n);
/* One more run of a side; one that cannot be measured is an error. */
int side_grow(struct session *ss, struct side *sd, const char *what);
void side_release(struct side *sd);

/* ---- bisect_assemble.c ---- */

/* One level of the search: the first-parent line good..bad. */
struct level {
	struct session *ss;
	const char *good, *bad;
	char **cands;			/* oldest first; the last is bad */
	size_t n;
	struct bisect *engine;
};

/* sha with its subject, author and date when git knows them. */
int assemble_commit(struct session *ss, const char *sha, struct bisect_commit *out);
/* n, mean, stddev and values of a side. */
int assemble_sample(struct session *ss, const struct side *sd, struct bisect_sample *out);
/*
 * Yuen's trimmed-mean test and the KPI family's verdict (decide()) of b
 * against a, in *out.  alpha is the look's: COMPARE_ALPHA for one look,
 * less for a test repeated as runs come in (the verdict's interval is at
 * 1 - alpha; the one recorded in *out is always COMPARE_LEVEL's).
 */
int assemble_judge(struct session *ss, const struct side *a, const struct side *b,
		   double alpha, struct bisect_change *out, enum verdict *v);
/* An assembled sample emptied, to be assembled again. */
void assemble_sample_clear(struct bisect_sample *out);
/* The candidates measured or skipped, in commit order, for the plot. */
int assemble_commits(struct session *ss, struct level *lv, struct bisect_entries *out);
/* The most probable candidates, best first, at most 5 above 0.1%. */
int assemble_best(struct session *ss, struct level *lv, struct bisect_entries *out);
/* Candidate i with its probability: the culprit. */
int assemble_culprit(struct session *ss, struct level *lv, size_t i, double p,
		     struct bisect_entry *out);
/* The block first..last, all but last skipped: the range. */
int assemble_range(struct session *ss, struct level *lv, size_t first, size_t last,
		   struct bisect_entries *out);

#endif
