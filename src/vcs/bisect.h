/*
 * bisect.h - the decision of a bisection under noise (docs/design.md §8):
 * which commit is the first bad one given every sample so far, which
 * commit to measure next, and when to stop.
 *
 * Pure: no git, no store, no clock, no output.  Commits are indexes
 * 0 .. n-1 of the candidates, oldest first: the known good commit G is
 * just before index 0 and the known bad commit B is index n-1, so the
 * first bad commit is one of the n candidates (B itself included).
 *
 * The model: good commits share one mean, bad commits another, and all
 * samples one noise - Gaussian.  Every sample at every commit updates the
 * posterior over "first bad = h" (a uniform prior); the next commit to
 * measure is the one whose P(first bad <= c), the probability that c is
 * bad, is closest to 1/2 - so an ambiguous commit is measured again - and
 * the search stops when one commit holds the confidence asked for.
 *
 * Two ways to know the sides:
 *  - bisect_new_estimated() (what perfbot does): the means and the noise
 *    are unknown.  Under hypothesis h the samples of G and of the commits
 *    before h are one group, those of B and of h onwards the other, and
 *    the marginal likelihood integrates both means (flat priors) and the
 *    common variance (prior 1/sigma^2) out: proportional to
 *    S_h^(-(N-2)/2) / sqrt(n_good n_bad), S_h the within-group sum of
 *    squares, N all samples.  So every sample sharpens what good and bad
 *    look like, and a baseline that happened to look too far apart does
 *    not make the search overconfident: a plug-in estimate from 5 + 5
 *    baseline runs was right in 63% of searches at a 1-sigma step where
 *    it claimed 99% (bench/bisect-sim, RESULTS.md).
 *  - bisect_new() with a struct bisect_model: both distributions known
 *    exactly (a simulation's truth), Gaussian or Student t.
 *
 * A commit that cannot be measured (its build fails) is skipped: it is
 * never chosen, and a first bad commit among skipped ones cannot be told
 * apart from the measurable commit after them, so the stop then names
 * that block (BISECT_FOUND_RANGE), as git bisect does with skips.
 *
 * Ownership: struct bisect is opaque, from bisect_new() to bisect_free().
 * Threading: none inside; one thread per struct bisect.
 */
#ifndef PERFBOT_VCS_BISECT_H
#define PERFBOT_VCS_BISECT_H

#include <stdbool.h>
#include <stddef.h>

struct bisect_model {
	double good_mean, good_scale;
	double bad_mean, bad_scale;
	double df;		/* INFINITY: Gaussian */
};

struct bisect;

/* n >= 1 candidates, known sides; NULL when out of memory, n == 0 or a bad model. */
struct bisect *bisect_new(size_t n, const struct bisect_model *m);

/*
 * n >= 1 candidates, the sides known only by G's and B's samples (at
 * least 1 each and 3 together, finite); NULL otherwise or out of memory.
 */
struct bisect *bisect_new_estimated(size_t n, const double *good, size_t ngood,
				    const double *bad, size_t nbad);
void bisect_free(struct bisect *b);
size_t bisect_size(const struct bisect *b);

/*
 * With estimated sides the search may ask for another sample of G or of
 * B (measuring them sharpens both sides for every hypothesis at once):
 * these two indexes stand for them wherever a commit index goes.
 */
#define BISECT_GOOD ((size_t)-1)
#define BISECT_BAD ((size_t)-2)

/*
 * One sample of commit i (or of BISECT_GOOD / BISECT_BAD with estimated
 * sides); -EINVAL for i out of range or a non-finite value.
 */
int bisect_add_sample(struct bisect *b, size_t i, double value);
/* Commit i cannot be measured; its samples, if any, still count. */
void bisect_skip(struct bisect *b, size_t i);
bool bisect_is_skipped(const struct bisect *b, size_t i);
size_t bisect_samples(const struct bisect *b, size_t i);
/* Samples at all commits together. */
size_t bisect_total_samples(const struct bisect *b);

/* P(first bad == i) and P(first bad <= i) (= P(i is bad)). */
double bisect_posterior(struct bisect *b, size_t i);
double bisect_p_bad(struct bisect *b, size_t i);

enum bisect_state {
	BISECT_MEASURE,		/* measure step.commit next */
	BISECT_FOUND,		/* commit is first bad with p >= confidence */
	BISECT_FOUND_RANGE,	/* first bad in [first, last] (p >= confidence),
				   all but last skipped; commit = last */
};

struct bisect_step {
	enum bisect_state state;
	size_t commit;		/* MEASURE: the one to measure; else the culprit */
	size_t best;		/* the most probable first bad commit */
	double best_p;		/* its probability */
	size_t first, last;	/* the block holding the most probability */
	double p;		/* that block's probability */
};

/* Where the search stands at this confidence (0.5 < confidence < 1). */
void bisect_next(struct bisect *b, double confidence, struct bisect_step *out);

/*
 * The search with a measurement callback: measure(ctx, i, &value) returns
 * 0 with a sample of commit i, BISECT_SKIP when commit i cannot be
 * measured (skipped from then on; for BISECT_GOOD or BISECT_BAD the
 * search ends with -EINVAL), BISECT_STOP when the caller's budget is
 * spent (the search ends as at max_samples, below), or a negative errno
 * to abort (the error is returned; every sample so far stays in b).
 * progress, if not NULL, is called before each measurement and at the
 * end.
 * The search ends at FOUND or FOUND_RANGE, or when
 * bisect_total_samples() reaches max_samples (0: no limit): then
 * *out is the state reached with state BISECT_MEASURE.
 */
#define BISECT_SKIP 1
#define BISECT_STOP 2

struct bisect_search {
	double confidence;
	size_t max_samples;
	int (*measure)(void *ctx, size_t i, double *value);
	void (*progress)(void *ctx, struct bisect *b, const struct bisect_step *s);
	void *ctx;
};

int bisect_run(struct bisect *b, const struct bisect_search *s,
	       struct bisect_step *out);

#endif
