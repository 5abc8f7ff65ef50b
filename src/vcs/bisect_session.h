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
 * is still missing: nothing is lost or measured twice.  Its samples are
 * its own runs: those that started once the bisection was created
 * (bisect_measure.c, own_since()); older stored runs are not used.
 *
 * The phases, per level (the first-parent line G..B, then inside a
 * merged branch when the culprit is a merge):
 *  1. baseline: G and B get runs, alternating, and the compare verdict
 *     on the metric is looked at with 3, 5, 10 and 20 runs a side (at
 *     alpha/2, /4, /8, /8) until it is "changed"; "same" or still undecided
 *     is a "no-change" result, with the numbers;
 *  2. search: the candidates `git rev-list --first-parent G..B` through
 *     bisect_run(), build failures and failed runs skipped, until the
 *     budget (the runs the bisection made) leaves only the confirmation's;
 *     undecided, G and B are judged again on all their runs;
 *  3. confirmation: the culprit and the commit before it, on their last
 *     runs that alternate, one of each added in turn up to 5 each; the
 *     compare verdict (gated by disturbance) is the evidence;
 *  4. a merge culprit is bisected again from the merge base to its second
 *     parent (once; deeper merges are reported as they are).
 *
 * The session builds the result as a struct bisect_result
 * (record/bisect_result.h), whose one writer makes the stored document.
 * Its parts are made in bisect_measure.c (a commit measured),
 * bisect_assemble.c (the result's parts) and bisect_session.c (the
 * phases): bisect_internal.h.
 *
 * Ownership: the spec, job, store and hooks are the caller's; *result is
 * the caller's to bisect_result_release().
 * Threading: main thread only (children, signals).  Messages: the hooks
 * get progress and log lines; the library prints nothing itself.
 */
#ifndef PERFBOT_VCS_BISECT_SESSION_H
#define PERFBOT_VCS_BISECT_SESSION_H

#include "vcs/commitrun.h"

#include "job/job.h"
#include "record/bisect_result.h"
#include "store/store.h"
#include "util/strbuf.h"
#include "vcs/bisect.h"

#include <stdint.h>

struct bisect_hooks {
	/* a transient progress line (a terminal rewrites it); may be NULL */
	void (*progress)(void *ctx, const char *line);
	/* a line also written to the bisection's log; may be NULL */
	void (*note)(void *ctx, const char *line);
	void *ctx;
	/*
	 * boot: kexec jobs: how a boot is arranged (vcs/commitrun.h); NULL:
	 * refused.  A run arranged ends the session with -EINPROGRESS (err
	 * "rebooting into ..."): the bisection goes on after the boot, from
	 * the store, as after ^C.
	 */
	const struct commit_runner_kexec *kexec;
	/*
	 * The fleet's box that makes every run (vcs/commitrun.h, fleet mode;
	 * its testbox is the spec's); NULL: runs made here.
	 */
	const struct commit_runner_fleet *fleet;
};

/*
 * Drive bisection `id` of store s (writable) to its end.  job is the
 * spec's atomic job, loaded.  0 when it ended - the result's status says
 * how (found, found-range, no-change, undecided) and it is stored with
 * store_bisect_update(); -EINTR when interrupted (status stays
 * "running", *result released); -EINPROGRESS when a kexec boot was
 * arranged (the same, err says which); another negative errno with err set.
 */
int bisect_session_run(struct store *s, int64_t id, const struct bisect_spec *spec,
		       const struct atomic_job *job, const struct bisect_hooks *hooks,
		       struct bisect_result *result, struct strbuf *err);

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
			    struct strbuf *err);

/*
 * The "N of M candidates left" of the progress line: the fewest
 * candidates that together hold BISECT_LEFT_MASS of the posterior
 * P(first bad), but never more than prev (the figure shown before; the
 * candidates' count for the first).  The set itself is not monotone: a
 * sample that contradicts the model spreads the posterior and the set
 * grows again (so did the old count of candidates above 0.1%, which is
 * why a progress line could go 3, 5, 2).  The figure is that set's
 * running minimum over the level's search: the fewest candidates the
 * search has narrowed the first bad commit to, with 99%, so far.  It
 * never goes back up; the best candidate and its P(first bad), printed
 * beside it, say where the search stands now.
 */
#define BISECT_LEFT_MASS 0.99
size_t bisect_candidates_left(struct bisect *b, size_t prev);

#endif
