/*
 * bisect_session.c - a stored bisection driven to its end
 * (bisect_session.h): the phases of each level -- baseline, search,
 * confirmation, a merge bisected inside -- and the result they add up to.
 * The decisions are vcs/bisect.c's, the measuring bisect_measure.c's,
 * the result's parts bisect_assemble.c's.
 */
#define _GNU_SOURCE
#include "vcs/bisect_internal.h"
#include "vcs/git.h"
#include "run/env.h"
#include "stats/compare.h"
#include "store/store.h"
#include "util/bug.h"
#include "util/interrupt.h"
#include "util/vec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The baseline looks at its verdict when each side has BASELINE_LOOKS[k]
 * runs, at COMPARE_ALPHA times BASELINE_SHARE[k] (the shares add up to
 * 1, so noise is called a change at most 5% of the time in all; looking
 * after every pair at 0.05 called it one 11-15% of the time, these looks
 * 2.4-3%: bench/baseline_looks, RESULTS.md).  Half of it is spent at the
 * first look: a step worth bisecting is decided with 3 runs a side even
 * when one side is noisy (a kernel run is a boot), 20 runs a side see a
 * 5% step on a machine whose runs spread by 4%.
 */
static const size_t BASELINE_LOOKS[] = { 3, 5, 10, 20 };
static const double BASELINE_SHARE[] = { 1 / 2.0, 1 / 4.0, 1 / 8.0, 1 / 8.0 };
#define BASELINE_NLOOKS (sizeof(BASELINE_LOOKS) / sizeof(*BASELINE_LOOKS))
/* runs of the culprit and of the commit before it, for the evidence */
#define CONFIRM_RUNS 5
/*
 * The confirmation looks at its verdict with 5, 10 and 20 runs a side,
 * each look at COMPARE_ALPHA / 3: on a machine whose runs spread by 5%,
 * 5 a side can leave a 10% step undecided, and a true culprit refused
 * only for want of runs sends the robot bisecting again.
 */
static const size_t CONFIRM_LOOKS[] = { CONFIRM_RUNS, 10, 20 };
#define CONFIRM_NLOOKS (sizeof(CONFIRM_LOOKS) / sizeof(*CONFIRM_LOOKS))
/* the runs of --max-runs the search leaves to the confirmation */
#define CONFIRM_RESERVE (2 * CONFIRM_RUNS)
/* runs of the commit under test in bisect_session_classify(), at most */
#define CLASSIFY_MAX 10
/* merges bisected inside, one inside the other */
#define MERGE_DEPTH 1

/*
 * What is left of --max-runs (0: no limit), the budget of the whole
 * bisection: every run it made counts (measure_runs_made()); stored runs
 * it reused, made before it, do not.
 */
static size_t budget_left(struct session *ss)
{
	size_t made, max = ss->spec->max_runs;

	if (!max)
		return SIZE_MAX;
	made = measure_runs_made(ss);
	/*
	 * never fewer than this process made: a fleet's box whose clock is
	 * behind hides its runs from the store's count, and the budget must
	 * still end the bisection
	 */
	if (made < ss->made_here)
		made = ss->made_here;
	return made < max ? max - made : 0;
}

/* ---- baseline ---- */

/*
 * The baseline: runs of good and bad, alternating so that drift hits
 * both, judged at each of BASELINE_LOOKS until the verdict on the metric
 * is "changed" (*changed true) or "same", or the looks are spent, or only
 * the confirmation's share of the budget is left (after the first look).
 */
static int baseline(struct session *ss, struct side *g, struct side *b, bool *changed,
		    struct bisect_baseline *out)
{
	enum verdict v = VERDICT_UNKNOWN;
	int ret;

	*changed = false;
	for (size_t k = 0; k < BASELINE_NLOOKS; k++) {
		size_t want = BASELINE_LOOKS[k];

		if (k && budget_left(ss) <= CONFIRM_RESERVE)
			break;
		while (g->n < want || b->n < want) {
			if (g->n < want && (ret = side_grow(ss, g, "good")))
				return ret;
			if (b->n < want && (ret = side_grow(ss, b, "bad")))
				return ret;
			if (k && budget_left(ss) <= CONFIRM_RESERVE)
				break;
		}
		ret = assemble_judge(ss, g, b, COMPARE_ALPHA * BASELINE_SHARE[k], &out->change, &v);
		if (ret)
			return ret;
		if (v == VERDICT_CHANGED || v == VERDICT_SAME)
			break;
	}
	*changed = v == VERDICT_CHANGED;
	out->present = true;
	ret = assemble_sample(ss, g, &out->good);
	return ret ? ret : assemble_sample(ss, b, &out->bad);
}

/*
 * A search that ended undecided: does the baseline's change still hold on
 * every run of G and B, those the search added included (one more look, at
 * COMPARE_ALPHA)?  When it does not (*held false), the baseline is that
 * judgement and the level's message says what became of the first one:
 * noise that the first runs happened to separate is no change to bisect.
 */
static int rejudge(struct session *ss, const char *good, const char *bad, bool *held,
		   struct bisect_level *out)
{
	struct bisect_baseline *base = &out->baseline;
	struct bisect_change first = base->change, again = { 0 };
	struct side g = { 0 }, b = { 0 };
	struct strbuf msg = STRBUF_INIT;
	long first_g = base->good.n, first_b = base->bad.n;
	enum verdict v;
	int ret;

	*held = true;
	ret = side_load(ss, &g, good);
	if (!ret)
		ret = side_load(ss, &b, bad);
	if (!ret)
		ret = assemble_judge(ss, &g, &b, COMPARE_ALPHA, &again, &v);
	if (ret || v == VERDICT_CHANGED)
		goto out;
	*held = false;
	strbuf_addf(&msg, "the baseline's %+.2f%% (p = %.3g) after %ld + %ld runs did not hold:"
		    " %+.2f%% (p = %.3g, %s) on all %zu + %zu runs of the good and bad commits",
		    first.pct, first.p, first_g, first_b, again.pct, again.p, again.verdict,
		    g.n, b.n);
	if (strbuf_error(&msg)) {
		ret = session_fail(ss, -ENOMEM, "out of memory");
		goto out;
	}
	session_say(ss, true, "%s", msg.buf);
	free(out->message);
	out->message = strbuf_detach(&msg, NULL);
	free(base->change.verdict);
	base->change = again;
	again.verdict = NULL;
	assemble_sample_clear(&base->good);
	assemble_sample_clear(&base->bad);
	ret = assemble_sample(ss, &g, &base->good);
	if (!ret)
		ret = assemble_sample(ss, &b, &base->bad);
out:
	free(again.verdict);
	strbuf_release(&msg);
	side_release(&g);
	side_release(&b);
	return ret;
}

/* ---- one level: G..B along the first parents ---- */

static int list_candidates(struct session *ss, struct level *lv)
{
	struct strbuf range = STRBUF_INIT;
	struct sha_list cands = { 0 };
	char *out = NULL, *save = NULL;
	int ret;

	strbuf_addf(&range, "%s..%s", lv->good, lv->bad);
	if (strbuf_error(&range))
		return session_fail(ss, -ENOMEM, "out of memory");
	ret = git_cmd(ss->spec->repo, &out, ss->err, "rev-list", "--first-parent",
		      "--reverse", range.buf, NULL);
	strbuf_release(&range);
	if (ret)
		return ret;
	for (char *t = strtok_r(out, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		char *sha = strdup(t);

		if (!sha || vec_push(&cands, sha)) {
			free(sha);
			ret = session_fail(ss, -ENOMEM, "out of memory");
			break;
		}
	}
	free(out);
	/* the level owns them from here, also on error (level_release()) */
	lv->cands = cands.v;
	lv->n = cands.n;
	if (!ret && (!lv->n || strcmp(lv->cands[lv->n - 1], lv->bad)))
		ret = session_fail(ss, -EINVAL, "%s is not on the first-parent line of %s",
				   short_sha(lv->good), short_sha(lv->bad));
	return ret;
}

static void level_release(struct level *lv)
{
	for (size_t i = 0; i < lv->n; i++)
		free(lv->cands[i]);
	free(lv->cands);
	bisect_free(lv->engine);
}

/* Every stored sample and skip mark of the candidates, into the engine. */
static int preload(struct session *ss, struct level *lv)
{
	struct store_bisect_mark *marks = NULL;
	size_t nmarks = 0;
	int ret = 0;

	/* B's samples are bad under every hypothesis: they would cancel */
	for (size_t i = 0; i + 1 < lv->n && !ret; i++) {
		double *v;
		size_t n;

		ret = measure_load(ss, lv->cands[i], &v, &n);
		for (size_t k = 0; !ret && k < n; k++)
			bisect_add_sample(lv->engine, i, v[k]);
		free(v);
	}
	if (!ret && ss->id && store_bisect_marks(ss->s, ss->id, &marks, &nmarks))
		ret = session_fail(ss, -EIO, "%s", store_error(ss->s));
	for (size_t m = 0; !ret && m < nmarks; m++) {
		if (strcmp(marks[m].mark, "skip"))
			continue;
		for (size_t i = 0; i + 1 < lv->n; i++)
			if (!strcmp(lv->cands[i], marks[m].sha))
				bisect_skip(lv->engine, i);
	}
	store_bisect_marks_release(marks, nmarks);
	return ret;
}

static const char *level_sha(const struct level *lv, size_t i)
{
	if (i == BISECT_GOOD)
		return lv->good;
	if (i == BISECT_BAD)
		return lv->bad;
	/* the engine names its candidates 0 .. n-1, or the sides */
	BUG_ON(i >= lv->n);
	return lv->cands[i];
}

/* What the search's callbacks share: the level, and the progress line's count. */
struct search_ctx {
	struct level *lv;
	size_t left;		/* the last "N of M candidates left" shown */
};

/* The fewest candidates whose P(first bad) adds up to mass (0 < mass <= 1). */
static size_t candidates_holding(struct bisect *b, double mass)
{
	size_t n = bisect_size(b), k = 0;
	double *p = malloc(n * sizeof(*p)), sum = 0;

	if (!p)
		return n;
	for (size_t i = 0; i < n; i++)
		p[i] = bisect_posterior(b, i);
	/* n is small (the candidates of one level): a partial selection */
	while (k < n && sum < mass) {
		size_t best = k;

		for (size_t i = k + 1; i < n; i++)
			if (p[i] > p[best])
				best = i;
		double t = p[k];

		p[k] = p[best];
		p[best] = t;
		sum += p[k++];
	}
	free(p);
	return k ? k : 1;
}

size_t bisect_candidates_left(struct bisect *b, size_t prev)
{
	size_t k = candidates_holding(b, BISECT_LEFT_MASS);

	return k < prev ? k : prev;
}

/* G or B cannot be skipped: they were measured for the baseline. */
static int level_measure(void *ctx, size_t i, double *value)
{
	struct level *lv = ((struct search_ctx *)ctx)->lv;
	int ret;

	if (budget_left(lv->ss) <= CONFIRM_RESERVE)
		return BISECT_STOP;
	ret = measure_run(lv->ss, level_sha(lv, i), value, NULL);

	if (ret == BISECT_SKIP && (i == BISECT_GOOD || i == BISECT_BAD))
		return session_fail(lv->ss, -ENOEXEC,
				    "the %s commit %s cannot be measured any more: %s",
				    i == BISECT_GOOD ? "good" : "bad",
				    short_sha(level_sha(lv, i)), lv->ss->err->buf);
	return ret;
}

static void level_progress(void *ctx, struct bisect *b, const struct bisect_step *s)
{
	struct search_ctx *sc = ctx;
	struct level *lv = sc->lv;
	struct session *ss = lv->ss;
	char which[64];
	size_t left;

	if (s->state != BISECT_MEASURE)
		return;
	/* never above the figure shown before: bisect_candidates_left() */
	left = sc->left = bisect_candidates_left(b, sc->left);
	if (s->commit == BISECT_GOOD || s->commit == BISECT_BAD)
		snprintf(which, sizeof(which), "the %s side", s->commit == BISECT_GOOD ?
			 "good" : "bad");
	else
		snprintf(which, sizeof(which), "%zu/%zu", s->commit + 1, lv->n);
	session_say(ss, false, "bisect %" PRId64 ": %zu of %zu candidates left, best %s at %.1f%%,"
		    " %zu runs, %zu builds; measuring %s (%s)", ss->id, left, lv->n,
		    short_sha(lv->cands[s->best]), 100 * s->best_p, bisect_total_samples(b),
		    ss->builds.builds, short_sha(level_sha(lv, s->commit)), which);
}

/* ---- confirmation ---- */

/*
 * A side's disturbance as compare's sample sets hold it, so that
 * compare_disturbance() judges it with its own limits: names sorted.
 */
static void disturbance_set(const struct side *sd, struct sample_set *set, char **names,
			    double **values, size_t *counts)
{
	names[0] = STAT_DISTURBANCE_CPU;
	names[1] = STAT_DISTURBANCE_STEAL;
	values[0] = sd->cpu.v;
	values[1] = sd->steal.v;
	counts[0] = sd->cpu.n;
	counts[1] = sd->steal.n;
	*set = (struct sample_set){ .commit = sd->sha, .nr = 2, .names = names,
				    .values = values, .counts = counts, .nr_runs = sd->n };
}

/*
 * The window of the confirmation: the runs at the end of parent's and
 * culprit's that alternate (compare_window_start()), loaded into the two
 * sides; *parent_next when the parent's last run is not the later one
 * (the next run keeps the alternation).  From the store alone, so a
 * session resumed after ^C or a kexec boot finds the runs it made before
 * and goes on from them.
 */
static int confirm_window(struct session *ss, struct side *parent, struct side *bad,
			  bool *parent_next)
{
	double *pt = NULL, *bt = NULL, since;
	size_t np = 0, nb = 0;
	int ret = measure_starts(ss, parent->sha, &pt, &np);

	if (!ret)
		ret = measure_starts(ss, bad->sha, &bt, &nb);
	if (!ret) {
		*parent_next = !np || (nb && bt[nb - 1] >= pt[np - 1]);
		since = compare_window_start(pt, np, bt, nb);
		ret = side_load_since(ss, parent, parent->sha, since);
	}
	if (!ret)
		ret = side_load_since(ss, bad, bad->sha, since);
	free(pt);
	free(bt);
	return ret;
}

/*
 * The evidence: the culprit and the commit before it (G when the culprit
 * is the first candidate), runs of each taken alternately, so
 * that the two are measured side by side in time - the runs the search
 * made of them can be hours apart on a long bisection, and drift between
 * them would read as the change.  Only the runs at the end of theirs that
 * alternate count (confirm_window()), and the next run goes to the side
 * that did not run last.  Judged as compare judges a KPI (assemble_judge(): Yuen and
 * decide()) and, as compare does, no more than "unknown" when the two
 * sides' runs were disturbed differently.
 */
static int confirm(struct session *ss, struct level *lv, size_t culprit,
		   size_t before, const struct side *g, struct bisect_confirmation *out)
{
	struct side parent = { .sha = before == lv->n ? g->sha : lv->cands[before] };
	struct side bad = { .sha = lv->cands[culprit] };
	char *pn[2], *bn[2];
	double *pv[2], *bv[2];
	size_t pc[2], bc[2];
	struct sample_set ps, bs;
	struct compare_disturbance d;
	bool parent_next;
	enum verdict v;
	int ret;

	for (size_t k = 0; k < CONFIRM_NLOOKS; k++) {
		size_t want = CONFIRM_LOOKS[k];

		for (;;) {
			ret = confirm_window(ss, &parent, &bad, &parent_next);
			if (ret || (parent.n >= want && bad.n >= want) || !budget_left(ss))
				break;
			if (parent_next)
				ret = side_grow(ss, &parent, "parent");
			else
				ret = side_grow(ss, &bad, "culprit");
			if (ret)
				break;
		}
		if (!ret)
			ret = assemble_judge(ss, &parent, &bad, COMPARE_ALPHA / CONFIRM_NLOOKS,
					     &out->change, &v);
		if (ret)
			goto out;
		if (v == VERDICT_CHANGED || v == VERDICT_SAME || v == VERDICT_SMALL ||
		    !budget_left(ss))
			break;
	}
	disturbance_set(&parent, &ps, pn, pv, pc);
	disturbance_set(&bad, &bs, bn, bv, bc);
	compare_disturbance(&ps, &bs, &d);
	if (d.differs && (v == VERDICT_CHANGED || v == VERDICT_SMALL)) {
		struct strbuf why = STRBUF_INIT;

		strbuf_addf(&why, "%s %.2f against %.2f CPUs, more than %.2f apart", d.what,
			    d.base, d.other, d.limit);
		free(out->change.verdict);
		out->change.verdict = strdup(verdict_name(VERDICT_UNKNOWN));
		if (strbuf_error(&why) || !out->change.verdict) {
			strbuf_release(&why);
			ret = session_fail(ss, -ENOMEM, "out of memory");
			goto out;
		}
		free(out->disturbed);
		out->disturbed = strbuf_detach(&why, NULL);
		v = VERDICT_UNKNOWN;
	}
	session_say(ss, true, "confirm %s against %s: %s, %s%+.2f%% on %zu + %zu alternating runs%s%s",
		    short_sha(bad.sha), short_sha(parent.sha), verdict_name(v), ss->metric,
		    out->change.pct, parent.n, bad.n,
		    out->disturbed ? "; disturbed differently: " : "",
		    out->disturbed ? out->disturbed : "");
	out->present = true;
	ret = assemble_sample(ss, &parent, &out->parent);
	if (!ret)
		ret = assemble_sample(ss, &bad, &out->culprit);
out:
	side_release(&parent);
	side_release(&bad);
	return ret;
}

/* ---- a merge ---- */

/* The parents of sha, or 0 on error; *second: the second parent's sha. */
static int parents_of(struct session *ss, const char *sha, char **second)
{
	char *out = NULL, *save = NULL, *t;
	int n = 0;

	*second = NULL;
	if (git_cmd(ss->spec->repo, &out, NULL, "rev-list", "--parents", "-n", "1", sha,
		    NULL))
		return 0;
	for (t = strtok_r(out, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
		if (++n == 3)
			*second = strdup(t);
	}
	free(out);
	return n - 1;
}

static int run_level(struct session *ss, const char *good, const char *bad,
		     unsigned depth, struct bisect_level *out);

/*
 * A merge culprit: is the change inside the branch it merged?  Then that
 * branch, from the merge base to the second parent, is bisected too.
 */
static int bisect_merge(struct session *ss, const char *merge, unsigned depth,
			struct bisect_level *out)
{
	struct strbuf first_parent = STRBUF_INIT;
	struct bisect_level *inner = NULL;
	char *second = NULL, *base = NULL;
	int ret = 0;

	if (parents_of(ss, merge, &second) < 2 || !second)
		return 0;
	strbuf_addf(&first_parent, "%s^1", merge);
	if (strbuf_error(&first_parent)) {
		ret = session_fail(ss, -ENOMEM, "out of memory");
		goto out;
	}
	if (git_cmd(ss->spec->repo, &base, ss->err, "merge-base", first_parent.buf, second,
		    NULL)) {
		ret = -EIO;
		goto out;
	}
	base[strcspn(base, "\n")] = '\0';
	out->merge = calloc(1, sizeof(*out->merge));
	if (!out->merge || (ret = assemble_commit(ss, merge, &out->merge->commit))) {
		ret = session_fail(ss, -ENOMEM, "out of memory");
		goto out;
	}
	if (!strcmp(base, second)) {
		session_say(ss, true, "merge %s: its branch holds no commit of its own",
			    short_sha(merge));
		goto out;
	}
	session_say(ss, true, "merge %s: bisecting its branch %s..%s", short_sha(merge),
		    short_sha(base), short_sha(second));
	inner = malloc(sizeof(*inner));
	if (!inner) {
		ret = session_fail(ss, -ENOMEM, "out of memory");
		goto out;
	}
	bisect_level_init(inner);
	ret = run_level(ss, base, second, depth + 1, inner);
	if (!ret) {
		out->merge->inner = inner;
		inner = NULL;
	}
out:
	if (inner) {
		bisect_level_release(inner);
		free(inner);
	}
	strbuf_release(&first_parent);
	free(second);
	free(base);
	return ret;
}

/* ---- a level ---- */

/* The search through the engine, from what the store holds. */
static int search(struct session *ss, struct level *lv, const struct side *g,
		  const struct side *b, struct bisect_step *step)
{
	struct search_ctx sc = { .lv = lv, .left = lv->n };
	struct bisect_search s = {
		.confidence = ss->spec->confidence, .max_samples = ss->spec->max_runs,
		.measure = level_measure, .progress = level_progress, .ctx = &sc,
	};
	int ret;

	lv->engine = bisect_new_estimated(lv->n, g->v, g->n, b->v, b->n);
	if (!lv->engine)
		return session_fail(ss, -ENOMEM, "cannot set up the search");
	ret = preload(ss, lv);
	return ret ? ret : bisect_run(lv->engine, &s, step);
}

/* What the search ended with: the culprit or its block, and the evidence. */
static int found(struct session *ss, struct level *lv, const struct bisect_step *step,
		 const struct side *g, unsigned depth, struct bisect_level *out)
{
	const char *status = step->state == BISECT_FOUND ? "found" : "found-range";
	size_t before;
	int ret;

	out->status = step->state == BISECT_FOUND ? BISECT_STATUS_FOUND : BISECT_STATUS_RANGE;
	out->have_culprit = true;
	ret = assemble_culprit(ss, lv, step->commit, step->p, &out->culprit);
	if (ret)
		return ret;
	session_say(ss, true, "%s %s %s at %.2f%%", status, short_sha(lv->cands[step->commit]),
		    out->culprit.commit.subject ? out->culprit.commit.subject : "",
		    100 * step->p);
	if (step->state == BISECT_FOUND_RANGE &&
	    (ret = assemble_range(ss, lv, step->first, step->last, &out->range)))
		return ret;
	/* the commit before the culprit's block: G when it is the first */
	before = step->first ? step->first - 1 : lv->n;
	ret = confirm(ss, lv, step->commit, before, g, &out->confirmation);
	if (!ret && step->state == BISECT_FOUND && depth < MERGE_DEPTH)
		ret = bisect_merge(ss, lv->cands[step->commit], depth, out);
	return ret;
}

/* One level, G..B: baseline, search, confirmation, and a merge inside. */
static int run_level(struct session *ss, const char *good, const char *bad,
		     unsigned depth, struct bisect_level *out)
{
	struct level lv = { .ss = ss, .good = good, .bad = bad };
	struct side g = { 0 }, b = { 0 };
	const struct bisect_change *c = &out->baseline.change;
	struct bisect_step step;
	bool changed;
	int ret;

	out->good.present = out->bad.present = true;
	ret = assemble_commit(ss, good, &out->good.commit);
	if (!ret)
		ret = assemble_commit(ss, bad, &out->bad.commit);
	if (!ret)
		ret = list_candidates(ss, &lv);
	if (ret)
		goto out;
	out->candidates = (long)lv.n;
	session_say(ss, true, "level %u: %zu candidates in %s..%s", depth, lv.n,
		    short_sha(good), short_sha(bad));
	ret = side_load(ss, &g, good);
	if (!ret)
		ret = side_load(ss, &b, bad);
	if (!ret)
		ret = baseline(ss, &g, &b, &changed, &out->baseline);
	if (ret)
		goto out;
	if (!changed) {
		session_say(ss, true, "baseline: no reproducible change of %s (%+.2f%%, p = %.3g, %s)"
			    " after %zu + %zu runs", ss->metric, c->pct, c->p, c->verdict, g.n, b.n);
		out->status = BISECT_STATUS_NO_CHANGE;
		goto out;
	}
	session_say(ss, true, "baseline: %s changed %+.2f%% (%zu + %zu runs)", ss->metric,
		    c->pct, g.n, b.n);
	ret = search(ss, &lv, &g, &b, &step);
	if (ret)
		goto out;
	out->runs_search = (long)bisect_total_samples(lv.engine);
	ret = assemble_best(ss, &lv, &out->best);
	if (!ret)
		ret = assemble_commits(ss, &lv, &out->commits);
	if (ret)
		goto out;
	if (step.state == BISECT_MEASURE) {
		bool held;

		ret = rejudge(ss, good, bad, &held, out);
		if (ret)
			goto out;
		if (!held) {
			out->status = BISECT_STATUS_NO_CHANGE;
			goto out;
		}
		session_say(ss, true, "undecided after %zu runs: best %s at %.1f%%",
			    bisect_total_samples(lv.engine), short_sha(lv.cands[step.best]),
			    100 * step.best_p);
		out->status = BISECT_STATUS_UNDECIDED;
		goto out;
	}
	ret = found(ss, &lv, &step, &g, depth, out);
out:
	side_release(&g);
	side_release(&b);
	level_release(&lv);
	return ret;
}

/* ---- the whole ---- */

/*
 * Without --metric or the job's kpi: the KPI of a stored complete run at
 * G or B, so that a resumed bisection reads its stored runs before it
 * measures anything (the first measured run settles it otherwise).  With
 * direction, the first such run's declared direction of the metric.
 */
static int from_stored_run(struct session *ss, bool direction)
{
	const char *shas[2] = { ss->spec->good, ss->spec->bad };
	bool done = false;
	int ret = 0;

	for (int k = 0; k < 2 && !done && !ret; k++) {
		int64_t *ids = NULL;
		size_t n = 0;

		if (store_group_runs(ss->s, ss->spec->testbox, ss->job->name, shas[k],
				     &ids, &n))
			return session_fail(ss, -EIO, "%s", store_error(ss->s));
		for (size_t i = 0; i < n && !done && !ret; i++) {
			struct run_record r;

			if (store_get_run(ss->s, ids[i], &r)) {
				ret = session_fail(ss, -EIO, "%s", store_error(ss->s));
				break;
			}
			if (r.status == RUN_COMPLETE) {
				ret = measure_settle_metric(ss, &r);
				measure_note_direction(ss, &r);
				/* the runs of one job declare alike: one is enough */
				done = direction || ss->metric;
			}
			run_record_release(&r);
		}
		free(ids);
	}
	return ret;
}

static int session_init(struct session *ss, struct store *s, int64_t id,
			const struct bisect_spec *spec, const struct atomic_job *job,
			const struct bisect_hooks *hooks, struct strbuf *err)
{
	int ret;

	*ss = (struct session){
		.s = s, .id = id, .spec = spec, .job = job, .hooks = hooks,
		.metric = spec->metric ? spec->metric : job->kpi, .err = err,
	};
	if (id) {
		struct store_bisect b = { 0 };

		if (store_bisect_get(s, id, &b))
			return session_fail(ss, -EIO, "%s", store_error(s));
		ss->created = b.created;
		store_bisect_release(&b);
	}
	ret = measure_init(ss);
	return ret || ss->metric ? ret : from_stored_run(ss, false);
}

/*
 * Which way is better for the metric (enum stat_better): as a run of the
 * job declares it (record.h's stat_better()), else by the one rule for
 * undeclared stats.
 */
static int metric_better(struct session *ss, int *better)
{
	int ret;

	/* a level that ended was measured: the first run settled the metric */
	BUG_ON(!ss->metric);
	ret = ss->declared_better ? 0 : from_stored_run(ss, true);

	*better = ss->declared_better ? ss->better : stat_rule_better(ss->metric);
	return ret;
}

/* *field = a copy of value (NULL: none); -ENOMEM. */
static int set_str(char **field, const char *value)
{
	*field = value ? strdup(value) : NULL;
	return value && !*field ? -ENOMEM : 0;
}

/*
 * The metric's declared unit (struct stat_meta) as the first stored
 * complete run at G or B declares it, into *out (NULL: none declared, or
 * no such run); the report prints it beside every number.
 */
static int metric_unit(struct session *ss, char **out)
{
	const char *shas[2] = { ss->spec->good, ss->spec->bad };
	int ret = 0;

	*out = NULL;
	for (int k = 0; k < 2 && !*out && !ret; k++) {
		int64_t *ids = NULL;
		size_t n = 0;

		if (store_group_runs(ss->s, ss->spec->testbox, ss->job->name, shas[k],
				     &ids, &n))
			return session_fail(ss, -EIO, "%s", store_error(ss->s));
		for (size_t i = 0; i < n && !*out && !ret; i++) {
			struct run_record r;
			const struct stat_meta *m;

			if (store_get_run(ss->s, ids[i], &r)) {
				ret = session_fail(ss, -EIO, "%s", store_error(ss->s));
				break;
			}
			m = r.status == RUN_COMPLETE ? stat_meta_find(&r.meta, ss->metric) : NULL;
			if (m && m->unit && set_str(out, m->unit))
				ret = session_fail(ss, -ENOMEM, "out of memory");
			run_record_release(&r);
		}
		free(ids);
	}
	return ret;
}

/*
 * The newest run of the job at the bad commit, into *out: how the runs
 * were made (a kernel's: booted in QEMU, not on this machine as it is).
 * 0, or -ENOENT when there is none.
 */
static int last_run(struct session *ss, struct run_record *out)
{
	const struct bisect_spec *sp = ss->spec;
	struct store_filter f = { .commit = sp->bad, .job = ss->job->name, .testbox = sp->testbox };
	struct store_group *g = NULL;
	size_t n = 0;
	int ret = -ENOENT;

	if (!store_list_groups(ss->s, &f, &g, &n) && n && g[0].last_run_id)
		ret = store_get_run(ss->s, g[0].last_run_id, out) ? -EIO : 0;
	store_groups_release(g, n);
	return ret;
}

/*
 * What the runs recorded of how the job ran that its parameters do not
 * say: the kernel's configuration and boot (env job.kconfig, job.boot),
 * as the reports' parameter blocks show them.
 */
static int params_recorded(const struct run_record *run, struct bisect_params *out)
{
	static const char *const keys[] = { "kconfig", "boot" };

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		char name[32];
		const char *v;
		bool have = false;
		struct bisect_param *p;

		snprintf(name, sizeof(name), "job.%s", keys[k]);
		v = strmap_get(&run->env, name);
		for (size_t i = 0; i < out->n && !have; i++)
			have = !strcmp(out->v[i].key, keys[k]);
		if (!v || have)
			continue;
		p = vec_push_zero(out);
		if (!p || !(p->key = strdup(keys[k])) || !(p->string = strdup(v)))
			return -ENOMEM;
		p->kind = BISECT_PARAM_STRING;
	}
	return 0;
}

/* What the whole bisection is, beside what its levels found. */
static int describe(struct session *ss, struct bisect_result *r)
{
	const struct bisect_spec *sp = ss->spec;
	struct strmap env = { 0 };
	struct run_record run = { 0 };
	const struct strmap *how = &env;
	int better, ret = metric_better(ss, &better);

	if (!ret)
		ret = metric_unit(ss, &r->unit);
	if (ret)
		return ret;
	/* out of memory: the machine is unknown, the allocations below say so */
	if (!last_run(ss, &run) && strmap_get(&run.env, "machine")) {
		how = &run.env;
		if (params_recorded(&run, &r->params)) {
			run_record_release(&run);
			return session_fail(ss, -ENOMEM, "out of memory");
		}
	} else {
		env_capture(&env, NULL);
	}
	r->id = ss->id;
	r->level.confidence = sp->confidence;
	r->level.max_runs = (long)sp->max_runs;
	r->level.runs = (long)measure_runs_made(ss);
	r->level.builds = (long)ss->builds.builds;
	r->level.build_failures = (long)ss->builds.failures;
	r->higher_is_better = better ? better > 0 : -1;
	if (set_str(&r->repo, sp->repo) || set_str(&r->job, ss->job->name) ||
	    set_str(&r->testcase, ss->job->testcase) || set_str(&r->testbox, sp->testbox) ||
	    set_str(&r->machine, strmap_get(how, "machine")) ||
	    set_str(&r->job_text, sp->job_text) || set_str(&r->metric, ss->metric) ||
	    set_str(&r->level.good.given, sp->good_given ? sp->good_given : sp->good) ||
	    set_str(&r->level.bad.given, sp->bad_given ? sp->bad_given : sp->bad))
		ret = session_fail(ss, -ENOMEM, "out of memory");
	strmap_release(&env);
	run_record_release(&run);
	return ret;
}

/* The atomic job's parameters, as written. */
static int params_of(struct session *ss, struct bisect_params *out)
{
	out->present = true;
	for (size_t i = 0; i < ss->job->nr_params; i++) {
		struct bisect_param *p = vec_push_zero(out);

		if (!p || !(p->key = strdup(ss->job->params[i].key)) ||
		    !(p->string = strdup(ss->job->params[i].value)))
			return session_fail(ss, -ENOMEM, "out of memory");
		p->kind = BISECT_PARAM_STRING;
	}
	return 0;
}

int bisect_session_run(struct store *s, int64_t id, const struct bisect_spec *spec,
		       const struct atomic_job *job, const struct bisect_hooks *hooks,
		       struct bisect_result *result, struct strbuf *err)
{
	struct session ss;
	char *text = NULL, why[256];
	int ret;

	bisect_result_init(result);
	ret = session_init(&ss, s, id, spec, job, hooks, err);
	if (!ret)
		ret = params_of(&ss, &result->params);
	if (!ret)
		ret = run_level(&ss, spec->good, spec->bad, 0, &result->level);
	if (!ret)
		ret = describe(&ss, result);
	if (ret)
		goto out;
	ret = bisect_result_to_json(result, BISECT_JSON_COMPACT, &text, why, sizeof(why));
	if (ret)
		ret = session_fail(&ss, ret, "cannot store the result: %s", why);
	else if (store_bisect_update(s, id, bisect_status_name(result->level.status), text))
		ret = session_fail(&ss, -EIO, "cannot store the result: %s", store_error(s));
out:
	if (ret == -EINTR || (interrupted && ret)) {
		ret = -EINTR;
		session_say(&ss, true, "interrupted; perfbot bisect resume %" PRId64 " goes on", id);
	}
	if (ret)
		bisect_result_release(result);
	free(text);
	measure_release(&ss);
	return ret;
}

/* ---- one step of git bisect run ---- */

/* P(sha is the first bad) under the model of G and B, runs added as needed. */
static int classify(struct session *ss, struct bisect *two, const char *sha,
		    double *p_bad, bool *skip)
{
	const struct bisect_spec *spec = ss->spec;
	double *v = NULL;
	size_t n = 0;
	int ret = measure_load(ss, sha, &v, &n);

	for (size_t k = 0; !ret && k < n; k++)
		bisect_add_sample(two, 0, v[k]);
	free(v);
	while (!ret) {
		double value;

		*p_bad = bisect_posterior(two, 0);
		if (*p_bad >= spec->confidence || 1 - *p_bad >= spec->confidence ||
		    bisect_samples(two, 0) >= CLASSIFY_MAX)
			break;
		ret = measure_run(ss, sha, &value, NULL);
		if (ret == BISECT_SKIP) {
			*skip = true;
			return 0;
		}
		if (!ret)
			bisect_add_sample(two, 0, value);
	}
	return ret;
}

int bisect_session_classify(struct store *s, const struct bisect_spec *spec,
			    const struct atomic_job *job, const char *sha,
			    const struct bisect_hooks *hooks, int *verdict,
			    struct strbuf *err)
{
	struct session ss;
	struct side g = { 0 }, b = { 0 };
	struct bisect_level scratch;
	struct bisect *two = NULL;
	double p_bad = 0.5;
	bool changed, skip = false;
	int ret;

	*verdict = 125;
	/* the baseline's parts live in a level, whose release frees them */
	bisect_level_init(&scratch);
	ret = session_init(&ss, s, 0, spec, job, hooks, err);
	if (!ret)
		ret = side_load(&ss, &g, spec->good);
	if (!ret)
		ret = side_load(&ss, &b, spec->bad);
	if (!ret)
		ret = baseline(&ss, &g, &b, &changed, &scratch.baseline);
	if (ret)
		goto out;
	if (!changed) {
		ret = session_fail(&ss, -ENODATA, "no reproducible change of %s between %s and %s",
				   ss.metric, short_sha(spec->good), short_sha(spec->bad));
		goto out;
	}
	/* two hypotheses: sha is the first bad (index 0), or B is (sha good) */
	two = bisect_new_estimated(2, g.v, g.n, b.v, b.n);
	if (!two) {
		ret = session_fail(&ss, -ENOMEM, "cannot set up the model");
		goto out;
	}
	ret = classify(&ss, two, sha, &p_bad, &skip);
	if (ret)
		goto out;
	if (skip) {
		session_say(&ss, true, "%s cannot be measured: skip", short_sha(sha));
		goto out;
	}
	if (p_bad >= spec->confidence)
		*verdict = 1;
	else if (1 - p_bad >= spec->confidence)
		*verdict = 0;
	session_say(&ss, true, "%s: P(bad) = %.4f after %zu runs: %s", short_sha(sha), p_bad,
		    bisect_samples(two, 0),
		    *verdict == 0 ? "good" : *verdict == 1 ? "bad" : "cannot tell");
out:
	if (interrupted && ret)
		ret = -EINTR;
	bisect_level_release(&scratch);
	bisect_free(two);
	side_release(&g);
	side_release(&b);
	measure_release(&ss);
	return ret;
}
