/*
 * bisect.c - the Bayesian bisection (bisect.h, docs/design.md §8).
 *
 * Each commit keeps only sufficient statistics of its samples: with
 * known sides the log-likelihood under either, so that log P(h) =
 * sum_{i<h} good(i) + sum_{i>=h} bad(i) + const; with estimated sides the
 * count, sum and sum of squares, so that each hypothesis' two groups and
 * their within-group sum of squares S_h are prefix sums too.  Either way
 * the posterior is recomputed lazily, O(n), after new samples.
 */
#include "vcs/bisect.h"
#include "util/vec.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

/*
 * With estimated sides, G and B get another sample whenever they hold
 * fewer than this many samples per sample of the candidates: a search
 * that needs many runs is one whose sides are not yet told apart well,
 * and a sample of G or B sharpens every hypothesis at once.  0.4 spent
 * the fewest runs in all (candidates and sides) at steps of 1 and 3 sigma
 * among 0.25 ... 1.5 (bench/bisect-sim); at 3 sigma it almost never fires.
 */
#define BASE_SHARE 0.4

/* winsorizing bound, in baseline deviations beyond the sides' means */
#define CLIP 3.0

/* samples of the commits either side of a verdict, with estimated sides */
#define REPLICATES 2

struct samples {
	double *v;
	size_t n, cap;
};

struct bisect {
	size_t n;
	bool estimated;
	/* known sides */
	struct bisect_model m;
	double good_norm, bad_norm;	/* log density constants */
	double *log_good, *log_bad;	/* [n] summed over the commit's samples */
	/* estimated sides: every sample kept, the model redone from G and B */
	struct samples base[2];		/* G's [0], B's [1] */
	struct samples *at;		/* [n] */
	size_t *count;
	bool *skipped;
	size_t total;
	/* the posterior, valid unless dirty */
	bool dirty;
	double *post;		/* P(first bad == h) */
	double *cdf;		/* P(first bad <= h) */
};

static bool valid_model(const struct bisect_model *m)
{
	return isfinite(m->good_mean) && isfinite(m->bad_mean) &&
	       m->good_scale > 0 && m->bad_scale > 0 && isfinite(m->good_scale) &&
	       isfinite(m->bad_scale) && m->df > 0;
}

static double log_norm(double scale, double df)
{
	if (isinf(df))
		return -0.5 * log(2 * M_PI) - log(scale);
	return lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI) -
	       log(scale);
}

static double log_density(double x, double mean, double scale, double df,
			  double norm)
{
	double z = (x - mean) / scale;

	if (isinf(df))
		return norm - z * z / 2;
	return norm - (df + 1) / 2 * log1p(z * z / df);
}

static struct bisect *alloc_bisect(size_t n)
{
	struct bisect *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->n = n;
	b->log_good = calloc(n, sizeof(*b->log_good));
	b->log_bad = calloc(n, sizeof(*b->log_bad));
	b->at = calloc(n, sizeof(*b->at));
	b->count = calloc(n, sizeof(*b->count));
	b->skipped = calloc(n, sizeof(*b->skipped));
	b->post = calloc(n, sizeof(*b->post));
	b->cdf = calloc(n, sizeof(*b->cdf));
	b->dirty = true;
	if (!b->log_good || !b->log_bad || !b->at || !b->count ||
	    !b->skipped || !b->post || !b->cdf) {
		bisect_free(b);
		return NULL;
	}
	return b;
}

struct bisect *bisect_new(size_t n, const struct bisect_model *m)
{
	struct bisect *b;

	if (!n || !m || !valid_model(m) || !(b = alloc_bisect(n)))
		return NULL;
	b->m = *m;
	b->good_norm = log_norm(m->good_scale, m->df);
	b->bad_norm = log_norm(m->bad_scale, m->df);
	return b;
}

static bool all_finite(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return false;
	return true;
}

struct bisect *bisect_new_estimated(size_t n, const double *good, size_t ngood,
				    const double *bad, size_t nbad)
{
	struct bisect *b;

	if (!n || !ngood || !nbad || ngood + nbad < 3 || !all_finite(good, ngood) ||
	    !all_finite(bad, nbad) || !(b = alloc_bisect(n)))
		return NULL;
	b->estimated = true;
	for (size_t i = 0; i < ngood; i++)
		if (vec_push(&b->base[0], good[i]))
			goto nomem;
	for (size_t i = 0; i < nbad; i++)
		if (vec_push(&b->base[1], bad[i]))
			goto nomem;
	return b;
nomem:
	bisect_free(b);
	return NULL;
}

void bisect_free(struct bisect *b)
{
	if (!b)
		return;
	free(b->log_good);
	free(b->log_bad);
	for (size_t i = 0; b->at && i < b->n; i++)
		free(b->at[i].v);
	free(b->at);
	free(b->base[0].v);
	free(b->base[1].v);
	free(b->count);
	free(b->skipped);
	free(b->post);
	free(b->cdf);
	free(b);
}

size_t bisect_size(const struct bisect *b)
{
	return b->n;
}

int bisect_add_sample(struct bisect *b, size_t i, double value)
{
	const struct bisect_model *m = &b->m;

	if (!isfinite(value))
		return -EINVAL;
	if (b->estimated && (i == BISECT_GOOD || i == BISECT_BAD)) {
		if (vec_push(&b->base[i == BISECT_BAD], value))
			return -ENOMEM;
		b->dirty = true;
		return 0;
	}
	if (i >= b->n)
		return -EINVAL;
	if (b->estimated) {
		if (vec_push(&b->at[i], value))
			return -ENOMEM;
	} else {
		b->log_good[i] += log_density(value, m->good_mean, m->good_scale,
					      m->df, b->good_norm);
		b->log_bad[i] += log_density(value, m->bad_mean, m->bad_scale,
					     m->df, b->bad_norm);
	}
	b->count[i]++;
	b->total++;
	b->dirty = true;
	return 0;
}

void bisect_skip(struct bisect *b, size_t i)
{
	if (i < b->n)
		b->skipped[i] = true;
}

bool bisect_is_skipped(const struct bisect *b, size_t i)
{
	return i < b->n && b->skipped[i];
}

size_t bisect_samples(const struct bisect *b, size_t i)
{
	return i < b->n ? b->count[i] : 0;
}

size_t bisect_total_samples(const struct bisect *b)
{
	return b->total;
}

/* post[h] = log P(h) + const: good before h, bad from h on. */
static void log_posterior_known(struct bisect *b)
{
	double good = 0, bad = 0;

	for (size_t i = 0; i < b->n; i++)
		bad += b->log_bad[i];
	for (size_t h = 0; h < b->n; h++) {
		b->post[h] = good + bad;
		good += b->log_good[h];
		bad -= b->log_bad[h];
	}
}

static double mean_of(const struct samples *s)
{
	double sum = 0;

	for (size_t i = 0; i < s->n; i++)
		sum += s->v[i];
	return sum / (double)s->n;
}

/* Within-group sum of squares of a group of n with that sum and squares. */
static double within(double n, double sum, double sq)
{
	return sq - sum * sum / n;
}

struct moments {
	double n, sum, sq;
};

/* Add s's samples, clipped to [lo, hi] and less ref, to m. */
static void add_clipped(struct moments *m, const struct samples *s, double lo,
			double hi, double ref)
{
	for (size_t i = 0; i < s->n; i++) {
		double x = fmin(fmax(s->v[i], lo), hi) - ref;

		m->n++;
		m->sum += x;
		m->sq += x * x;
	}
}

/*
 * Estimated sides: the marginal likelihood of each hypothesis, both means
 * and the variance integrated out (bisect.h), over the samples winsorized
 * to CLIP baseline deviations beyond the two sides' means: a slow outlier
 * of a good commit then weighs like one bad-looking sample, not like
 * proof, and the commits either side of a verdict are measured twice
 * (unreplicated()), so that one outlier never names a commit.  A floor
 * on S_h keeps identical samples from dividing by zero.
 */
static void log_posterior_estimated(struct bisect *b)
{
	const struct samples *g = &b->base[0], *k = &b->base[1];
	double mg = mean_of(g), mb = mean_of(k), ss = 0, sd, lo, hi, floor;
	struct moments good = { 0 }, bad = { 0 }, all;

	for (size_t i = 0; i < g->n; i++)
		ss += (g->v[i] - mg) * (g->v[i] - mg);
	for (size_t i = 0; i < k->n; i++)
		ss += (k->v[i] - mb) * (k->v[i] - mb);
	sd = sqrt(ss / (double)(g->n + k->n - 2));
	lo = fmin(mg, mb) - CLIP * sd;
	hi = fmax(mg, mb) + CLIP * sd;
	add_clipped(&good, g, lo, hi, mg);
	add_clipped(&bad, k, lo, hi, mg);
	for (size_t i = 0; i < b->n; i++)
		add_clipped(&bad, &b->at[i], lo, hi, mg);
	all = (struct moments){ good.n + bad.n, good.sum + bad.sum, good.sq + bad.sq };
	floor = fmax(within(all.n, all.sum, all.sq) * 1e-12, DBL_MIN);
	for (size_t h = 0; h < b->n; h++) {
		double s = fmax(within(good.n, good.sum, good.sq) +
				within(bad.n, bad.sum, bad.sq), floor);
		struct moments c = { 0 };

		b->post[h] = -(all.n - 2) / 2 * log(s) - 0.5 * log(good.n) -
			     0.5 * log(bad.n);
		/* commit h moves from the bad group to the good one */
		add_clipped(&c, &b->at[h], lo, hi, mg);
		good.n += c.n;
		good.sum += c.sum;
		good.sq += c.sq;
		bad.n -= c.n;
		bad.sum -= c.sum;
		bad.sq -= c.sq;
	}
}

static void update(struct bisect *b)
{
	double top = -INFINITY, sum = 0, acc = 0;

	if (!b->dirty)
		return;
	if (b->estimated)
		log_posterior_estimated(b);
	else
		log_posterior_known(b);
	for (size_t h = 0; h < b->n; h++)
		top = fmax(top, b->post[h]);
	for (size_t h = 0; h < b->n; h++) {
		b->post[h] = exp(b->post[h] - top);
		sum += b->post[h];
	}
	for (size_t h = 0; h < b->n; h++) {
		b->post[h] /= sum;
		acc += b->post[h];
		b->cdf[h] = acc;
	}
	/* rounding must not make the known bad commit less than certain bad */
	b->cdf[b->n - 1] = 1;
	b->dirty = false;
}

double bisect_posterior(struct bisect *b, size_t i)
{
	update(b);
	return i < b->n ? b->post[i] : 0;
}

double bisect_p_bad(struct bisect *b, size_t i)
{
	update(b);
	return i < b->n ? b->cdf[i] : 0;
}

/* The last commit is B, measured as the bad baseline: never skipped here. */
static bool measurable(const struct bisect *b, size_t i)
{
	return i == b->n - 1 || !b->skipped[i];
}

/*
 * With estimated sides a verdict rests on the commits either side of the
 * culprit's block: each needs REPLICATES samples (G and B have theirs), so
 * that one outlier never names a commit.  n when they have them.
 */
static size_t unreplicated(const struct bisect *b, const struct bisect_step *s)
{
	if (!b->estimated)
		return b->n;
	if (s->last + 1 < b->n && b->count[s->last] < REPLICATES)
		return s->last;
	if (s->first > 0 && b->count[s->first - 1] < REPLICATES)
		return s->first - 1;
	return b->n;
}

void bisect_next(struct bisect *b, double confidence, struct bisect_step *out)
{
	size_t first = 0, pick = b->n, best = 0;
	double block = 0, dist = INFINITY;
	bool have = false;

	update(b);
	*out = (struct bisect_step){ .state = BISECT_MEASURE };
	/*
	 * Blocks: each measurable commit with the skipped ones just before
	 * it, whose hypotheses no measurement can tell apart.
	 */
	for (size_t i = 0; i < b->n; i++) {
		block += b->post[i];
		if (b->post[i] > b->post[best])
			best = i;
		if (!measurable(b, i))
			continue;
		if (!have || block > out->p) {
			have = true;
			out->p = block;
			out->first = first;
			out->last = i;
		}
		block = 0;
		first = i + 1;
	}
	out->best = best;
	out->best_p = b->post[best];
	/*
	 * The next commit is the one whose P(bad) is closest to 1/2 - not
	 * the first to cross it, which can be a commit every remaining
	 * hypothesis agrees on.  B (n - 1) is known bad: never measured.
	 */
	for (size_t i = 0; i + 1 < b->n; i++) {
		double d = fabs(b->cdf[i] - 0.5);

		if (!b->skipped[i] && d < dist) {
			dist = d;
			pick = i;
		}
	}
	/*
	 * pick stays n only when every commit before B is skipped: then one
	 * block holds everything, p = 1, and the search is over.
	 */
	if ((out->p >= confidence || pick == b->n) &&
	    (pick = unreplicated(b, out)) != b->n) {
		out->commit = pick;
	} else if (out->p >= confidence || pick == b->n) {
		out->state = out->first == out->last ? BISECT_FOUND : BISECT_FOUND_RANGE;
		out->commit = out->last;
	} else if (b->estimated && BASE_SHARE * (double)b->total >
		   (double)(b->base[0].n + b->base[1].n)) {
		out->commit = b->base[0].n <= b->base[1].n ? BISECT_GOOD : BISECT_BAD;
	} else {
		out->commit = pick;
	}
}

int bisect_run(struct bisect *b, const struct bisect_search *s,
	       struct bisect_step *out)
{
	for (;;) {
		double value;
		int ret;

		bisect_next(b, s->confidence, out);
		if (out->state != BISECT_MEASURE ||
		    (s->max_samples && b->total >= s->max_samples)) {
			if (s->progress)
				s->progress(s->ctx, b, out);
			return 0;
		}
		if (s->progress)
			s->progress(s->ctx, b, out);
		ret = s->measure(s->ctx, out->commit, &value);
		if (ret == BISECT_STOP)
			return 0;
		if (ret == BISECT_SKIP) {
			/* the sides were measured before: they cannot be skipped */
			if (out->commit >= b->n)
				return -EINVAL;
			bisect_skip(b, out->commit);
		} else if (ret < 0) {
			return ret;
		} else if (ret == 0) {
			ret = bisect_add_sample(b, out->commit, value);
			if (ret)
				return ret;
		} else {
			return -EINVAL;
		}
	}
}
