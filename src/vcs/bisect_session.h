/*
 * bisect_session.h - a stored bisection driven to its end: git worktrees
 * and builds, runs through the runner into the store, and the decisions
 * of vcs/bisect.h (docs/design.md §8).
 *
 * A session is stateless beyond the store: every run it makes is an
 * ordinary stored run (testbox, atomic job, commit), every build failure
 * a mark of the bisection, every step a line of its log.  Running a
 * session again - after ^C, a crash or a reboot - reloads all of it and
 * replays the same decisions from the same samples, measuring only what
 * is still missing: nothing is lost or measured twice.
 *
 * The phases, per level (the first-parent line G..B, then inside a
 * merged branch when the culprit is a merge):
 *  1. baseline: G and B get runs (3, then one more each, up to 10) until
 *     the compare verdict on the metric is "changed"; "same" or still
 *     undecided is a "no-change" result, with the numbers;
 *  2. search: the candidates `git rev-list --first-parent G..B` through
 *     bisect_run(), build failures and failed runs skipped;
 *  3. confirmation: the culprit and the commit before it get runs up to
 *     5 each, and the compare verdict is the evidence;
 *  4. a merge culprit is bisected again from the merge base to its second
 *     parent (once; deeper merges are reported as they are).
 *
 * Ownership: the spec is the caller's; *result (a JSON document, the
 * schema of docs/bisect.md) is the caller's to json_decref().
 * Threading: main thread only (children, signals).  Messages: the hooks
 * get progress and log lines; the library prints nothing itself.
 */
#ifndef PERFBOT_VCS_BISECT_SESSION_H
#define PERFBOT_VCS_BISECT_SESSION_H

#include "job/job.h"
#include "store/store.h"

#include <jansson.h>
#include <stdint.h>

/* What a bisection was started with: its stored spec (JSON). */
struct bisect_spec {
	char *repo;			/* absolute path */
	char *good, *bad;		/* full shas */
	char *good_given, *bad_given;	/* as the user wrote them */
	char *metric;			/* NULL: the job's KPI */
	char *job_path;			/* the job file, for messages */
	char *job_text;			/* the atomic job (YAML), loads back alone */
	char *build;			/* --build, or NULL: the job's build: */
	char *testbox;
	double confidence;
	unsigned max_runs;		/* runs on the candidates of one level */
};

int bisect_spec_to_json(const struct bisect_spec *spec, char **text);
/* -EINVAL for text that is not a spec. */
int bisect_spec_from_json(const char *text, struct bisect_spec *out);
void bisect_spec_release(struct bisect_spec *spec);

/*
 * The document of a stored bisection in whatever state it is (running,
 * interrupted, failed, reset or finished), for `bisect status` and
 * `report --bisect`: its result, or {id} when it has none, completed from
 * its spec where the result does not say -- good and bad {sha, given},
 * repo, job_path, job_text, metric (when the spec names one), testbox,
 * confidence, max_runs -- and the spec itself as "spec"; "status" is the
 * store's (a reset keeps the result it had).  A failed bisection's
 * "message" is the reason it stored.  -EINVAL when the stored result or
 * spec is not JSON (a damaged store), -ENOMEM.  *out is the caller's.
 */
int bisect_document(const struct store_bisect *b, json_t **out);

struct bisect_hooks {
	/* a transient progress line (a terminal rewrites it); may be NULL */
	void (*progress)(void *ctx, const char *line);
	/* a line also written to the bisection's log; may be NULL */
	void (*note)(void *ctx, const char *line);
	void *ctx;
};

/*
 * Drive bisection `id` of store s (writable) to its end.  job is the
 * spec's atomic job, loaded.  0 when it ended - the result's "status"
 * says how (found, found-range, no-change, undecided) and it is stored
 * with store_bisect_update(); -EINTR when interrupted (status stays
 * "running", the result NULL); another negative errno with err set.
 */
int bisect_session_run(struct store *s, int64_t id, const struct bisect_spec *spec,
		       const struct atomic_job *job, const struct bisect_hooks *hooks,
		       json_t **result, char *err, size_t errlen);

/*
 * One measurement for `git bisect run`: the model of spec's good and bad
 * (runs made as needed, as the baseline phase does) against runs of
 * `sha`, added one by one up to 10 until P(bad) or P(good) under the
 * model reaches spec->confidence.  *verdict: 0 good, 1 bad, 125 cannot
 * tell or cannot build.  id may be 0: then nothing is logged.
 */
int bisect_session_classify(struct store *s, const struct bisect_spec *spec,
			    const struct atomic_job *job, const char *sha,
			    const struct bisect_hooks *hooks, int *verdict,
			    char *err, size_t errlen);

#endif
