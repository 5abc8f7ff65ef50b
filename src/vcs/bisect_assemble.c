/*
 * bisect_assemble.c - a bisection's result made of what was measured and
 * decided (bisect_internal.h): commits as git describes them, the runs of
 * a side summarised, the verdict of one side against another, and the
 * lists a report shows (commits measured, the most probable, a range).
 * It builds the parts of a struct bisect_result; the JSON is
 * record/bisect_result.h's alone.
 */
#define _GNU_SOURCE
#include "vcs/bisect_internal.h"
#include "vcs/git.h"
#include "stats/compare.h"
#include "stats/summary.h"
#include "stats/ttest.h"
#include "store/store.h"
#include "util/bug.h"
#include "util/quote.h"
#include "util/vec.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the most probable candidates listed, and the least probability shown */
#define BEST_MAX 5
#define BEST_MIN_P 1e-3

static int nomem(struct session *ss)
{
	return session_fail(ss, -ENOMEM, "out of memory");
}

/* git keeps whatever bytes a commit was written with: made valid UTF-8 */
static int lossy_copy(char **dst, const char *src)
{
	*dst = src ? utf8_lossy(src) : NULL;
	return src && !*dst ? -ENOMEM : 0;
}

int assemble_commit(struct session *ss, const char *sha, struct bisect_commit *out)
{
	struct git_commit c;
	int ret = 0;

	*out = (struct bisect_commit){ .sha = strdup(sha) };
	if (!out->sha)
		return nomem(ss);
	/* a commit git cannot describe is still named */
	if (git_commit_info(ss->spec->repo, sha, &c))
		return 0;
	if (lossy_copy(&out->subject, c.subject) || lossy_copy(&out->author, c.author) ||
	    lossy_copy(&out->date, c.date))
		ret = nomem(ss);
	git_commit_release(&c);
	return ret;
}

static int copy_values(struct session *ss, const double *v, size_t n,
		       struct bisect_values *out)
{
	out->present = true;
	if (vec_reserve(out, n))
		return nomem(ss);
	if (n)
		memcpy(out->v, v, n * sizeof(*v));
	out->n = n;
	return 0;
}

/* The mean of a side's disturbance values when every run has one, else NaN. */
static double every_run_mean(const struct side *sd, const struct side_values *dv)
{
	double sum = 0;

	if (!sd->n || dv->n != sd->n)
		return NAN;
	for (size_t i = 0; i < dv->n; i++)
		sum += dv->v[i];
	return sum / (double)dv->n;
}

int assemble_sample(struct session *ss, const struct side *sd, struct bisect_sample *out)
{
	struct summary s;

	summarize(sd->v, sd->n, &s);
	out->present = true;
	out->sha = strdup(sd->sha);
	out->n = (long)sd->n;
	out->mean = s.mean;
	out->stddev = s.stddev;
	out->others_cpu = every_run_mean(sd, &sd->cpu);
	out->steal = every_run_mean(sd, &sd->steal);
	if (!out->sha)
		return nomem(ss);
	return copy_values(ss, sd->v, sd->n, &out->values);
}

void assemble_sample_clear(struct bisect_sample *out)
{
	free(out->sha);
	free(out->values.v);
	*out = (struct bisect_sample){ .n = BISECT_UNKNOWN, .mean = NAN, .stddev = NAN,
				       .others_cpu = NAN, .steal = NAN };
}

int assemble_judge(struct session *ss, const struct side *a, const struct side *b,
		   double alpha, struct bisect_change *out, enum verdict *v)
{
	struct summary sa, sb;
	struct pct_change c;
	struct welch w;

	summarize(a->v, a->n, &sa);
	summarize(b->v, b->n, &sb);
	/*
	 * The baseline's and the confirmation's test: a KPI's in compare,
	 * Yuen's trimmed-mean test with decide(), so that one slow run does
	 * not hide the change and the verdict agrees with its interval.
	 */
	w = yuen_test(&sa, &sb);
	*v = decide(&(struct verdict_input){
			.a = &sa, .b = &sb, .p = w.p, .min_size_pct = COMPARE_KPI_MIN_PCT,
			.alpha = alpha,
			.level = alpha == COMPARE_ALPHA ? COMPARE_LEVEL : 1 - alpha,
		}, &c);
	if (alpha != COMPARE_ALPHA)
		c = pct_change_interval(&sa, &sb, COMPARE_LEVEL);
	free(out->verdict);
	/* what cannot be computed reads as no change, p = 1 */
	*out = (struct bisect_change){
		.present = true, .pct = isfinite(c.pct) ? c.pct : 0,
		.low = isfinite(c.low) ? c.low : 0, .high = isfinite(c.high) ? c.high : 0,
		.p = isfinite(w.p) ? w.p : 1, .verdict = strdup(verdict_name(*v)),
	};
	return out->verdict ? 0 : nomem(ss);
}

/* A new entry of a, its commit described: NULL when out of memory. */
static struct bisect_entry *add_entry(struct session *ss, struct bisect_entries *a,
				      const char *sha)
{
	struct bisect_entry *e;

	a->present = true;
	if (vec_reserve(a, a->n + 1))
		return NULL;
	e = &a->v[a->n++];
	bisect_entry_init(e);
	return assemble_commit(ss, sha, &e->commit) ? NULL : e;
}

/* The note of a skip mark of sha, if any. */
static const char *skip_note(const struct store_bisect_mark *marks, size_t n,
			     const char *sha)
{
	const char *note = NULL;

	for (size_t m = 0; m < n; m++)
		if (!strcmp(marks[m].sha, sha) && marks[m].note)
			note = marks[m].note;
	return note;
}

/* Candidate i, measured (its stored runs) or skipped (why): an entry. */
static int commit_entry(struct session *ss, struct level *lv, size_t i, bool skipped,
			const double *v, size_t n, const char *note,
			struct bisect_entries *out)
{
	struct bisect_entry *e = add_entry(ss, out, lv->cands[i]);
	struct summary s;

	if (!e)
		return nomem(ss);
	e->index = (long)i;
	e->state = skipped ? BISECT_STATE_SKIPPED : BISECT_STATE_MEASURED;
	e->n = (long)n;
	e->p_bad = bisect_p_bad(lv->engine, i);
	if (n) {
		summarize(v, n, &s);
		e->mean = s.mean;
		if (copy_values(ss, v, n, &e->values))
			return -ENOMEM;
	}
	if (skipped && note && lossy_copy(&e->note, note))
		return nomem(ss);
	return 0;
}

int assemble_commits(struct session *ss, struct level *lv, struct bisect_entries *out)
{
	struct store_bisect_mark *marks = NULL;
	size_t nmarks = 0;
	int ret = 0;

	out->present = true;
	if (ss->id)
		store_bisect_marks(ss->s, ss->id, &marks, &nmarks);
	for (size_t i = 0; !ret && i < lv->n; i++) {
		bool skipped = bisect_is_skipped(lv->engine, i);
		double *v = NULL;
		size_t n = 0;

		/* the engine knows which were measured: read only those back */
		if (!skipped && (i + 1 == lv->n || !bisect_samples(lv->engine, i) ||
				 measure_load(ss, lv->cands[i], &v, &n) || !n)) {
			free(v);
			continue;
		}
		ret = commit_entry(ss, lv, i, skipped, v, n,
				   skip_note(marks, nmarks, lv->cands[i]), out);
		free(v);
	}
	store_bisect_marks_release(marks, nmarks);
	return ret;
}

int assemble_best(struct session *ss, struct level *lv, struct bisect_entries *out)
{
	bool *taken = calloc(lv->n ? lv->n : 1, sizeof(*taken));

	out->present = true;
	if (!taken)
		return nomem(ss);
	for (int k = 0; k < BEST_MAX; k++) {
		size_t best = lv->n;
		struct bisect_entry *e;

		for (size_t i = 0; i < lv->n; i++)
			if (!taken[i] && (best == lv->n ||
					  bisect_posterior(lv->engine, i) >
					  bisect_posterior(lv->engine, best)))
				best = i;
		if (best == lv->n || (k && bisect_posterior(lv->engine, best) < BEST_MIN_P))
			break;
		taken[best] = true;
		e = add_entry(ss, out, lv->cands[best]);
		if (!e) {
			free(taken);
			return nomem(ss);
		}
		e->index = (long)best;
		e->probability = bisect_posterior(lv->engine, best);
	}
	free(taken);
	return 0;
}

int assemble_culprit(struct session *ss, struct level *lv, size_t i, double p,
		     struct bisect_entry *out)
{
	bisect_entry_init(out);
	if (assemble_commit(ss, lv->cands[i], &out->commit))
		return -ENOMEM;
	out->index = (long)i;
	out->probability = p;
	return 0;
}

int assemble_range(struct session *ss, struct level *lv, size_t first, size_t last,
		   struct bisect_entries *out)
{
	/* the engine's block is a run of its candidates */
	BUG_ON(first > last || last >= lv->n);
	out->present = true;
	for (size_t i = first; i <= last; i++) {
		struct bisect_entry *e = add_entry(ss, out, lv->cands[i]);

		if (!e)
			return nomem(ss);
		e->skipped = i != last;
		e->probability = bisect_posterior(lv->engine, i);
	}
	return 0;
}
