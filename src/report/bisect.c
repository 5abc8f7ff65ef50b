/*
 * bisect.c - what every format of a bisection's report says alike
 * (bisect_internal.h): the direction word, probabilities and numbers as
 * printed, the level a report blames and the change it leads with.
 */
#include "report/bisect_internal.h"
#include "stats/summary.h"
#include "report/report.h"
#include "util/bug.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Decimals that show a step of the size good -> bad with 3 digits. */
static int pick_decimals(const struct bisect_level *lv)
{
	const struct bisect_baseline *b = &lv->baseline;
	const struct bisect_confirmation *c = &lv->confirmation;
	double step = fabs(b->bad.mean - b->good.mean), m;

	if (!isfinite(step) || step == 0)
		step = fabs(c->culprit.mean - c->parent.mean);
	if (isfinite(step) && step > 0)
		return (int)fmin(9, fmax(0, 2 - floor(log10(step))));
	m = fabs(isfinite(b->good.mean) ? b->good.mean : b->bad.mean);
	if (isfinite(m) && m > 0)
		return (int)fmin(9, fmax(0, 4 - floor(log10(m))));
	return 2;
}

int rb_view(struct bisect_view *v, const struct bisect_result *r)
{
	char err[256];

	if (!r || bisect_result_check(r, err, sizeof(err)))
		return -EINVAL;
	*v = (struct bisect_view){
		.r = r, .top = &r->level,
		.metric = r->metric ? r->metric : "the job's KPI",
		/* a bisection that stopped before its job was loaded: the file */
		.job = r->job ? r->job : r->job_path,
		.decimals = pick_decimals(&r->level),
	};
	return 0;
}

/*
 * "improvement" or "regression": by higher_is_better when the bisection
 * says, else by the metric's name as every other report decides it.
 */
const char *rb_direction(const struct bisect_view *v, double pct)
{
	if (!isfinite(pct) || pct == 0)
		return NULL;
	if (v->r->higher_is_better >= 0)
		return (v->r->higher_is_better > 0) == (pct > 0) ? "improvement" : "regression";
	return report_direction_word(v->metric, pct);
}

const char *rb_change_word(const struct bisect_view *v, double pct)
{
	const char *w = rb_direction(v, pct);

	return w ? w : "change";
}

/*
 * Near 1 as many decimals as it takes not to read as 100%, below 1% one
 * significant digit.
 */
const char *rb_prob(char *buf, size_t len, double p)
{
	double v = 100 * p;

	if (!isfinite(p))
		snprintf(buf, len, "-");
	else if (p >= 1 || p <= 0)
		snprintf(buf, len, "%s", p >= 1 ? "100%" : "0%");
	else if (v < 1 && ceil(-log10(v)) > 4)
		snprintf(buf, len, "<0.0001%%");
	else if (v < 1)
		snprintf(buf, len, "%.*f%%", (int)fmax(1, ceil(-log10(v))), v);
	else {
		for (int dec = 1; dec <= 4; dec++) {
			snprintf(buf, len, "%.*f%%", dec, v);
			if (strncmp(buf, "100.", 4))
				return buf;
		}
		snprintf(buf, len, ">99.9999%%");
	}
	return buf;
}

const char *rb_num(char *buf, size_t len, const struct bisect_view *v, double x)
{
	if (!isfinite(x))
		snprintf(buf, len, "-");
	else if (fabs(x) >= 1e12)
		snprintf(buf, len, "%.4g", x);
	else
		snprintf(buf, len, "%.*f", v->decimals, x);
	return buf;
}

const char *rb_qty(char *buf, size_t len, const struct bisect_view *v, double x)
{
	const char *u = v->r->unit;
	size_t n;

	rb_num(buf, len, v, x);
	if (!isfinite(x) || !u || !*u)
		return buf;
	n = strlen(buf);
	/* "12.5%", "1.56 s", "830 ops/s" */
	snprintf(buf + n, len - n, "%s%s", strcmp(u, "%") ? " " : "", u);
	return buf;
}

/* e's probability when the list holds e's sha, else NaN. */
static double prob_in(const struct bisect_entries *a, const char *sha)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->v[i].commit.sha, sha))
			return a->v[i].probability;
	return NAN;
}

double rb_first_bad_p(const struct bisect_level *lv, const struct bisect_entry *e)
{
	double p = e->probability;

	if (isfinite(p))
		return p;
	if (lv->have_culprit && !strcmp(lv->culprit.commit.sha, e->commit.sha))
		return lv->culprit.probability;
	p = prob_in(&lv->best, e->commit.sha);
	return isfinite(p) ? p : prob_in(&lv->range, e->commit.sha);
}

const char *rb_status_line(enum bisect_status s)
{
	switch (s) {
	case BISECT_STATUS_FOUND:
		return "found the first bad commit";
	case BISECT_STATUS_RANGE:
		return "found a range: the first bad commit is one of these";
	case BISECT_STATUS_NO_CHANGE:
		return "no reproducible change between good and bad";
	case BISECT_STATUS_UNDECIDED:
		return "undecided";
	case BISECT_STATUS_FAILED:
		return "failed";
	case BISECT_STATUS_RUNNING:
		return "running";
	case BISECT_STATUS_RESET:
		return "reset";
	}
	/* statuses are parsed by name (record/) or set by vcs/: never another */
	BUG("bisection status %d", (int)s);
}

bool rb_change_known(const struct bisect_change *c)
{
	return isfinite(c->pct);
}

const struct bisect_level *rb_inner(const struct bisect_level *lv)
{
	return lv->merge ? lv->merge->inner : NULL;
}

const struct bisect_level *rb_blamed(const struct bisect_level *lv)
{
	const struct bisect_level *in;

	while ((in = rb_inner(lv)) && in->status == BISECT_STATUS_FOUND && in->have_culprit)
		lv = in;
	return lv;
}

static bool confirmation_known(const struct bisect_level *lv)
{
	return lv->status == BISECT_STATUS_FOUND && lv->confirmation.present &&
	       rb_change_known(&lv->confirmation.change);
}

const struct bisect_change *rb_headline(const struct bisect_view *v,
					const struct bisect_level *lv)
{
	if (confirmation_known(lv))
		return &lv->confirmation.change;
	if (confirmation_known(v->top))
		return &v->top->confirmation.change;
	return rb_change_known(&v->top->baseline.change) ? &v->top->baseline.change : NULL;
}

const struct bisect_entry *rb_best_other(const struct bisect_level *lv, const char *sha)
{
	for (size_t i = 0; i < lv->best.n; i++)
		if (!sha || strcmp(lv->best.v[i].commit.sha, sha))
			return &lv->best.v[i];
	return NULL;
}

/* The nearest level from lv up to the top that says; top down it is the last. */
double rb_confidence(const struct bisect_view *v, const struct bisect_level *lv)
{
	double c = NAN;

	for (const struct bisect_level *l = v->top; l; l = rb_inner(l)) {
		if (!isnan(l->confidence))
			c = l->confidence;
		if (l == lv)
			break;
	}
	return c;
}

long rb_max_runs(const struct bisect_view *v, const struct bisect_level *lv)
{
	long n = BISECT_UNKNOWN;

	for (const struct bisect_level *l = v->top; l; l = rb_inner(l)) {
		if (l->max_runs != BISECT_UNKNOWN)
			n = l->max_runs;
		if (l == lv)
			break;
	}
	return n;
}

bool rb_skipped(const struct bisect_entry *e)
{
	return e->skipped > 0 || e->state == BISECT_STATE_SKIPPED;
}

const char *rb_state(const struct bisect_entry *e)
{
	return e->state == BISECT_STATE_MEASURED ? "measured" :
	       e->state == BISECT_STATE_SKIPPED ? "skipped" : NULL;
}

const char *rb_culprit_sha(const struct bisect_level *lv)
{
	return lv->have_culprit && lv->status == BISECT_STATUS_FOUND ? lv->culprit.commit.sha
								      : NULL;
}

bool rb_has_baseline(const struct bisect_level *lv)
{
	return lv->baseline.good.n >= 0 || isfinite(lv->baseline.good.mean) ||
	       rb_change_known(&lv->baseline.change);
}

bool rb_robust(const struct bisect_sample *s, double *median, double *mad)
{
	struct summary sm;
	double sigma;

	if (!s->values.present || s->values.n < 3)
		return false;
	summarize(s->values.v, s->values.n, &sm);
	sigma = 1.4826 * sm.mad;
	*median = sm.median;
	*mad = sm.mad;
	if (sigma == 0)
		return sm.mean != sm.median;
	return sm.stddev > 2 * sigma || fabs(sm.mean - sm.median) > sigma;
}

double rb_median_change(const struct bisect_sample *a, const struct bisect_sample *b)
{
	double ma, mb, da, db;
	bool ra = rb_robust(a, &ma, &da), rbb = rb_robust(b, &mb, &db);
	struct summary sm;

	if (!ra && !rbb)
		return NAN;
	if (!a->values.present || a->values.n < 1 || !b->values.present || b->values.n < 1)
		return NAN;
	summarize(a->values.v, a->values.n, &sm);
	ma = sm.median;
	summarize(b->values.v, b->values.n, &sm);
	mb = sm.median;
	if (ma == 0 || !isfinite(ma) || !isfinite(mb))
		return NAN;
	return 100 * (mb - ma) / fabs(ma);
}

bool rb_interval_shown(const struct bisect_change *c)
{
	if (!isfinite(c->low) || !isfinite(c->high))
		return false;
	return !(c->verdict && !strcmp(c->verdict, "changed") && c->low <= 0 && c->high >= 0);
}
