/*
 * evidence.c - the "How sure" lines of a comparison's email (report.h,
 * struct report's evidence) from the bisection that found its commit:
 * P(first bad) with the runs it took, the confirmation against the
 * parent, the good and bad commits.  For the robot (perfbot watch), which
 * mails a comparison of parent, culprit and tip.  No state.
 */
#include "report/report.h"
#include "report/bisect_internal.h"
#include "util/strbuf.h"

#include <errno.h>
#include <math.h>

static void add_change(struct strbuf *sb, const struct bisect_change *c)
{
	char p[32];

	strbuf_addf(sb, "%+.1f%%", c->pct);
	if (isfinite(c->low) && isfinite(c->high))
		strbuf_addf(sb, " [%+.1f%%, %+.1f%%] (95%% interval)", c->low, c->high);
	if (isfinite(c->p)) {
		snprintf(p, sizeof(p), "%.2g", c->p);
		strbuf_addf(sb, ", p=%s", p);
	}
	if (c->verdict)
		strbuf_addf(sb, ": %s", c->verdict);
}

static void add_runs(struct strbuf *sb, const struct bisect_sample *a,
		     const struct bisect_sample *b)
{
	if (a->n > 0 && b->n > 0)
		strbuf_addf(sb, " (%ld + %ld runs)", a->n, b->n);
}

int report_bisect_evidence(struct strbuf *sb, const struct bisect_result *r)
{
	struct bisect_view v;
	const struct bisect_level *lv;
	const struct bisect_entry *next;
	char p[32];
	long measured = 0;

	if (rb_view(&v, r))
		return -EINVAL;
	lv = rb_blamed(v.top);
	if (lv->status != BISECT_STATUS_FOUND || !lv->have_culprit)
		return -EINVAL;
	for (size_t i = 0; i < lv->commits.n; i++)
		measured += !rb_skipped(&lv->commits.v[i]) && lv->commits.v[i].n != 0;
	if (isfinite(lv->culprit.probability)) {
		strbuf_addf(sb, "P(first bad) %s that %.12s is the first bad commit",
			    rb_prob(p, sizeof(p), lv->culprit.probability),
			    lv->culprit.commit.sha);
		if (r->id > 0)
			strbuf_addf(sb, " (bisection %lld", (long long)r->id);
		else
			strbuf_addstr(sb, " (");
		if (lv->runs_search >= 0 && measured)
			strbuf_addf(sb, "%s%ld runs on %ld", r->id > 0 ? ": " : "",
				    lv->runs_search, measured);
		if (lv->runs_search >= 0 && measured && lv->candidates >= 0)
			strbuf_addf(sb, " of the %ld candidate commits", lv->candidates);
		else if (lv->runs_search >= 0 && measured)
			strbuf_addstr(sb, " commits");
		strbuf_addstr(sb, ")\n");
		next = rb_best_other(lv, lv->culprit.commit.sha);
		if (next && isfinite(next->probability))
			strbuf_addf(sb, "next most likely: %.12s at P(first bad) %s\n",
				    next->commit.sha, rb_prob(p, sizeof(p), next->probability));
	}
	if (lv->confirmation.present && rb_change_known(&lv->confirmation.change)) {
		strbuf_addstr(sb, "confirmed against its parent");
		if (lv->confirmation.parent.sha)
			strbuf_addf(sb, " %.12s", lv->confirmation.parent.sha);
		strbuf_addstr(sb, ": ");
		add_change(sb, &lv->confirmation.change);
		add_runs(sb, &lv->confirmation.parent, &lv->confirmation.culprit);
		strbuf_addch(sb, '\n');
		if (!bisect_level_confirmed(lv))
			strbuf_addstr(sb, "the confirmation did NOT show the change: a suspect, "
					  "not the cause\n");
	} else {
		strbuf_addstr(sb, "not double-checked against its parent\n");
	}
	if (v.top->baseline.present && rb_change_known(&v.top->baseline.change) &&
	    v.top->good.commit.sha && v.top->bad.commit.sha) {
		strbuf_addf(sb, "good %.12s .. bad %.12s: ", v.top->good.commit.sha,
			    v.top->bad.commit.sha);
		add_change(sb, &v.top->baseline.change);
		add_runs(sb, &v.top->baseline.good, &v.top->baseline.bad);
		strbuf_addch(sb, '\n');
	}
	return strbuf_error(sb);
}
