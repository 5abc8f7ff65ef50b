/*
 * bisect_text.c - a bisection's report as text for a terminal and as an
 * email in the seeds' layout (bisect_report.h; docs/report.md, "text" and
 * "email").  Both render a copy of the result with every string quoted
 * (bisect_result_quoted()): a commit subject or stat name holding ESC or
 * CR must not drive the terminal or forge lines.
 */
#define _GNU_SOURCE
#include "report/bisect_report.h"
#include "report/bisect_internal.h"
#include "report/internal.h"
#include "util/strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- pieces of both ---- */

/* "+5.0% [+4.3%, +5.6%], p=3.4e-11: changed" as far as known. */
static void put_change(FILE *out, const struct bisect_change *c, bool interval_words)
{
	fprintf(out, "%+.1f%%", c->pct);
	if (rb_interval_shown(c))
		fprintf(out, " [%+.1f%%, %+.1f%%]%s", c->low, c->high,
			interval_words ? " (95% interval)" : "");
	else if (isfinite(c->low) && isfinite(c->high))
		fputs(" (the means' interval holds 0, against the verdict: outlier runs)", out);
	if (isfinite(c->p))
		fprintf(out, ", p=%.2g", c->p);
	if (c->verdict)
		fprintf(out, ": %s", c->verdict);
}

/* "1.0010 s ± 0.0028 s (6 runs)" */
static void put_sample(FILE *out, const struct bisect_view *v, const struct bisect_sample *s)
{
	char a[64], b[64];

	double med, mad;

	fputs(rb_qty(a, sizeof(a), v, s->mean), out);
	if (isfinite(s->stddev))
		fprintf(out, " ± %s", rb_qty(b, sizeof(b), v, s->stddev));
	if (s->n >= 0)
		fprintf(out, " (%ld run%s)", s->n, s->n == 1 ? "" : "s");
	/* outliers: the median and MAD, which they do not move, beside */
	if (rb_robust(s, &med, &mad))
		fprintf(out, "; median %s, MAD %s", rb_qty(a, sizeof(a), v, med),
			rb_qty(b, sizeof(b), v, mad));
}

/* "median change +23.4%" when outliers make the medians tell it better */
static void put_median_change(FILE *out, const struct bisect_sample *a,
			      const struct bisect_sample *b, const char *indent)
{
	double m = rb_median_change(a, b);

	if (isfinite(m))
		fprintf(out, "%smedians  %+.1f%%\n", indent, m);
}

static const char *subject_of(const struct bisect_entry *e)
{
	return e->commit.subject ? e->commit.subject : "";
}

/* sha ("subject") */
static void put_commit(FILE *out, const struct bisect_commit *c)
{
	fputs(c->sha, out);
	if (c->subject)
		fprintf(out, " (\"%s\")", c->subject);
}

static void put_runs_spent(FILE *out, const struct bisect_level *lv, const char *what)
{
	bool paren = false;

	if (lv->runs < 0 && lv->builds < 0)
		return;
	fprintf(out, "%s: ", what);
	if (lv->runs >= 0) {
		fprintf(out, "%ld runs", lv->runs);
		if (lv->runs_search >= 0) {
			fprintf(out, " (%ld searching", lv->runs_search);
			paren = true;
		}
		if (lv->runs_baseline >= 0) {
			fprintf(out, "%s%ld on good and bad", paren ? ", " : " (",
				lv->runs_baseline);
			paren = true;
		}
		if (lv->runs_confirm >= 0) {
			fprintf(out, "%s%ld confirming", paren ? ", " : " (", lv->runs_confirm);
			paren = true;
		}
		if (paren)
			fputc(')', out);
	}
	if (lv->builds >= 0) {
		fprintf(out, "%s%ld build%s", lv->runs >= 0 ? ", " : "", lv->builds,
			lv->builds == 1 ? "" : "s");
		if (lv->build_failures > 0)
			fprintf(out, " (%ld failed)", lv->build_failures);
	}
	fputc('\n', out);
}

/* " (stop at 99%, at most 100 runs)" as far as known */
static void put_stop(FILE *out, const struct bisect_view *v, const struct bisect_level *lv)
{
	double conf = rb_confidence(v, lv);
	long max = rb_max_runs(v, lv);

	if (!isfinite(conf) && max < 0)
		return;
	fputs(" (", out);
	if (isfinite(conf))
		fprintf(out, "stop at %.10g%%", 100 * conf);
	if (max >= 0)
		fprintf(out, "%sat most %ld runs", isfinite(conf) ? ", " : "", max);
	fputc(')', out);
}

/* The candidates with their probabilities, one a line. */
static void put_entries(FILE *out, const char *indent, const struct bisect_entries *a)
{
	char p[32];

	for (size_t i = 0; i < a->n; i++) {
		const struct bisect_entry *e = &a->v[i];

		fprintf(out, "%sP(first bad) %-9s %.12s %s", indent,
			rb_prob(p, sizeof(p), e->probability), e->commit.sha, subject_of(e));
		if (rb_skipped(e))
			fputs(" [skipped: could not be built]", out);
		fputc('\n', out);
	}
}

static const char *prob_or_dash(char *buf, size_t len, double p)
{
	if (isfinite(p))
		return rb_prob(buf, len, p);
	snprintf(buf, len, "-");
	return buf;
}

/*
 * No commit between good and bad was measured while searching (one
 * candidate, the bad commit itself, needs no search): say so, and where
 * the runs that were made are, not "0 runs".
 */
static void put_no_commit_measured(FILE *out, const struct bisect_level *lv)
{
	const struct bisect_sample *g = &lv->baseline.good, *b = &lv->baseline.bad;
	const struct bisect_confirmation *c = &lv->confirmation;
	bool base = g->n > 0 && b->n > 0, conf = c->present && c->parent.n > 0 && c->culprit.n > 0;

	fputs("no commit measured while searching", out);
	if (lv->candidates == 1)
		fputs(" (one candidate, the bad commit: nothing to search)", out);
	/* each section's own counts: a confirmation reuses the runs a commit has */
	if (base)
		fprintf(out, "; runs: baseline %ld + %ld", g->n, b->n);
	if (conf)
		fprintf(out, "%sconfirmation %ld + %ld", base ? ", " : "; runs: ", c->parent.n,
			c->culprit.n);
	fputc('\n', out);
}

/* index, commit, state, runs, mean, P(first bad), P(bad): every commit measured or skipped. */
static void put_commit_table(FILE *out, const struct bisect_view *v,
			     const struct bisect_level *lv)
{
	const char *culprit = rb_culprit_sha(lv);
	char m[64], p[32], f[32], n[32], idx[32];

	if (!lv->commits.n) {
		put_no_commit_measured(out, lv);
		return;
	}
	fputs("index  commit        state       runs           mean  P(first bad)    P(bad)  subject\n",
	      out);
	for (size_t i = 0; i < lv->commits.n; i++) {
		const struct bisect_entry *e = &lv->commits.v[i];
		const char *state = rb_state(e);

		if (e->index >= 0)
			snprintf(idx, sizeof(idx), "%ld", e->index);
		else
			snprintf(idx, sizeof(idx), "-");
		if (e->n >= 0)
			snprintf(n, sizeof(n), "%ld", e->n);
		else
			snprintf(n, sizeof(n), "-");
		fprintf(out, "%5s  %-12.12s  %-10s %5s %14s  %12s %9s  %s", idx, e->commit.sha,
			state ? state : rb_skipped(e) ? "skipped" : "-", n,
			rb_qty(m, sizeof(m), v, e->mean),
			prob_or_dash(f, sizeof(f), rb_first_bad_p(lv, e)),
			rb_prob(p, sizeof(p), e->p_bad), subject_of(e));
		if (e->note)
			fprintf(out, "%s[%s]", e->commit.subject ? " " : "", e->note);
		if (culprit && !strcmp(culprit, e->commit.sha))
			fputs("  <= first bad commit", out);
		fputc('\n', out);
	}
	fputs("P(first bad): the probability that the commit is the first bad one;\n"
	      "P(bad): that it is bad, i.e. that the first bad commit is it or an earlier one\n",
	      out);
}

/* Confirmation and baseline, indented, for text and email alike. */
static void put_confirmation(FILE *out, const struct bisect_view *v,
			     const struct bisect_level *lv, const char *indent)
{
	const struct bisect_confirmation *c = &lv->confirmation;
	const char *culprit = c->culprit.sha ? c->culprit.sha :
			      lv->have_culprit ? lv->culprit.commit.sha : "";

	fprintf(out, "%sparent   %-12.12s  ", indent, c->parent.sha ? c->parent.sha : "");
	put_sample(out, v, &c->parent);
	fprintf(out, "\n%sculprit  %-12.12s  ", indent, culprit);
	put_sample(out, v, &c->culprit);
	fprintf(out, "\n%schange   ", indent);
	if (rb_change_known(&c->change)) {
		const char *w = rb_direction(v, c->change.pct);

		put_change(out, &c->change, true);
		if (w && bisect_level_confirmed(lv))
			fprintf(out, " (%s)", w);
	} else {
		fputs("not computed", out);
	}
	fputc('\n', out);
	put_median_change(out, &c->parent, &c->culprit, indent);
	/* how disturbed the machine was: the verdict stands only when alike */
	if (isfinite(c->parent.others_cpu) && isfinite(c->culprit.others_cpu)) {
		fprintf(out, "%smachine  other processes' CPU %.2f and %.2f", indent,
			c->parent.others_cpu, c->culprit.others_cpu);
		if (isfinite(c->parent.steal) && isfinite(c->culprit.steal))
			fprintf(out, ", steal %.2f and %.2f", c->parent.steal, c->culprit.steal);
		fputs(" (CPUs, mean a run)\n", out);
	}
	if (c->disturbed)
		fprintf(out, "%sthe two were disturbed differently (%s): no verdict\n", indent,
			c->disturbed);
}

static void put_end(FILE *out, const struct bisect_view *v, const char *what,
		    const struct bisect_end *e, const struct bisect_sample *s,
		    const char *indent)
{
	fprintf(out, "%s%-8s %-12.12s  ", indent, what, e->commit.sha);
	put_sample(out, v, s);
	if (e->given)
		fprintf(out, "  [%s]", e->given);
	fputc('\n', out);
}

static void put_baseline(FILE *out, const struct bisect_view *v,
			 const struct bisect_level *lv, const char *indent)
{
	put_end(out, v, "good", &lv->good, &lv->baseline.good, indent);
	put_end(out, v, "bad", &lv->bad, &lv->baseline.bad, indent);
	if (rb_change_known(&lv->baseline.change)) {
		fprintf(out, "%schange   ", indent);
		put_change(out, &lv->baseline.change, true);
		fputc('\n', out);
	}
	put_median_change(out, &lv->baseline.good, &lv->baseline.bad, indent);
}

/* "metric: NAME (lower is better)" */
static void put_metric(FILE *out, const struct bisect_view *v)
{
	const char *u = v->r->unit;

	fprintf(out, "metric: %s", v->metric);
	if (u && *u)
		fprintf(out, " in %s", u);
	if (v->r->higher_is_better >= 0)
		fprintf(out, " (%s is better)", v->r->higher_is_better ? "higher" : "lower");
	fputc('\n', out);
}

/* ---- text ---- */

static void text_merge(FILE *out, const struct bisect_level *lv)
{
	const struct bisect_level *in = rb_inner(lv);
	char p[32];

	fprintf(out, "it is a merge: %s %s\n", lv->merge->commit.sha,
		lv->merge->commit.subject ? lv->merge->commit.subject : "");
	if (in && in->status == BISECT_STATUS_FOUND && in->have_culprit) {
		fprintf(out, "inside the merged branch, the first bad commit is %s %s",
			in->culprit.commit.sha, subject_of(&in->culprit));
		if (isfinite(in->culprit.probability))
			fprintf(out, " (P(first bad) %s)",
				rb_prob(p, sizeof(p), in->culprit.probability));
		fputc('\n', out);
	} else if (in) {
		fprintf(out, "inside the merged branch: %s\n", rb_status_line(in->status));
	} else {
		fputs("not bisected inside the merged branch\n", out);
	}
}

static void text_found(FILE *out, const struct bisect_view *v, const struct bisect_level *lv)
{
	const struct bisect_entry *c = &lv->culprit, *next = rb_best_other(lv, c->commit.sha);
	char p[32];

	fprintf(out, "first bad commit: %s %s\n", c->commit.sha, subject_of(c));
	if (c->commit.author)
		fprintf(out, "author: %s\n", c->commit.author);
	if (c->commit.date)
		fprintf(out, "date:   %s\n", c->commit.date);
	if (isfinite(c->probability)) {
		fprintf(out, "P(first bad) %s, the probability that it is the first bad commit",
			rb_prob(p, sizeof(p), c->probability));
		put_stop(out, v, lv);
		if (next && isfinite(next->probability))
			fprintf(out, "; next most likely %.12s at P(first bad) %s",
				next->commit.sha, rb_prob(p, sizeof(p), next->probability));
		fputc('\n', out);
	}
	if (lv->merge)
		text_merge(out, lv);
	if (lv->confirmation.present) {
		fputs("confirmation, the culprit against its parent:\n", out);
		put_confirmation(out, v, lv, "  ");
		if (!bisect_level_confirmed(lv))
			fputs("  the confirmation did not show the change: treat this commit as a suspect\n",
			      out);
	} else {
		fputs("not confirmed against its parent\n", out);
	}
}

static void text_level(FILE *out, const struct bisect_view *v, const struct bisect_level *lv)
{
	const struct bisect_level *in = rb_inner(lv);

	fprintf(out, "good: %s%s%s\n", lv->good.commit.sha, lv->good.given ? " " : "",
		lv->good.given ? lv->good.given : "");
	fprintf(out, "bad:  %s%s%s\n", lv->bad.commit.sha, lv->bad.given ? " " : "",
		lv->bad.given ? lv->bad.given : "");
	if (lv->candidates >= 0)
		fprintf(out, "%ld candidate commits\n", lv->candidates);
	fputc('\n', out);

	switch (lv->status) {
	case BISECT_STATUS_FOUND:
		text_found(out, v, lv);
		break;
	case BISECT_STATUS_RANGE:
		fprintf(out, "the first bad commit is one of these %zu (skipped: could not be built, so not told apart):\n",
			lv->range.n);
		put_entries(out, "  ", &lv->range);
		break;
	case BISECT_STATUS_UNDECIDED:
	case BISECT_STATUS_RUNNING:
		fprintf(out, "%s after %ld runs", lv->status == BISECT_STATUS_UNDECIDED ?
			"not decided" : "still running", lv->runs >= 0 ? lv->runs :
			lv->runs_search >= 0 ? lv->runs_search : 0);
		put_stop(out, v, lv);
		fputs(lv->best.n ? "; the most likely first bad commits:\n" : "\n", out);
		put_entries(out, "  ", &lv->best);
		break;
	case BISECT_STATUS_NO_CHANGE:
	case BISECT_STATUS_FAILED:
	case BISECT_STATUS_RESET:
		break;
	}
	if (lv->status == BISECT_STATUS_FAILED)
		fprintf(out, "why: %s\n", lv->message ? lv->message : "no reason was stored");
	else if (lv->message)
		fprintf(out, "%s\n", lv->message);
	if (rb_has_baseline(lv)) {
		fputs("baseline, the good and bad commits:\n", out);
		put_baseline(out, v, lv, "  ");
	}
	put_runs_spent(out, lv, "spent");
	fputs("\ncommits measured:\n", out);
	put_commit_table(out, v, lv);
	if (lv->merge && in) {
		fprintf(out, "\n--- inside the branch merged by %.12s: %s ---\n",
			lv->merge->commit.sha, rb_status_line(in->status));
		text_level(out, v, in);
	}
}

static void put_param_value(FILE *out, const struct bisect_param *p)
{
	if (p->kind == BISECT_PARAM_STRING)
		fputs(p->string, out);
	else
		fprintf(out, "%.10g", p->kind == BISECT_PARAM_INTEGER ? (double)p->integer :
			p->real);
}

static void text_report(FILE *out, const struct bisect_view *v)
{
	const struct bisect_result *r = v->r;

	if (r->id >= 0)
		fprintf(out, "bisection %lld: %s\n", (long long)r->id,
			rb_status_line(r->level.status));
	else
		fprintf(out, "bisection: %s\n", rb_status_line(r->level.status));
	put_metric(out, v);
	if (v->job || r->testcase || r->testbox) {
		fprintf(out, "job: %s", v->job ? v->job : "-");
		if (r->testcase)
			fprintf(out, " (testcase %s)", r->testcase);
		if (r->testbox)
			fprintf(out, " on %s", r->testbox);
		if (r->machine)
			fprintf(out, ": %s", r->machine);
		fputc('\n', out);
	}
	if (r->params.n) {
		fputs("params:", out);
		for (size_t i = 0; i < r->params.n; i++) {
			fprintf(out, " %s=", r->params.v[i].key);
			put_param_value(out, &r->params.v[i]);
		}
		fputc('\n', out);
	}
	if (r->repo)
		fprintf(out, "repository: %s\n", r->repo);
	if (r->origin_url)
		fprintf(out, "origin: %s\n", r->origin_url);
	text_level(out, v, v->top);
}

/* ---- email ---- */

static void email_where(FILE *out, const struct bisect_view *v)
{
	const struct bisect_result *r = v->r;

	fprintf(out, "in testcase: %s\n", r->testcase ? r->testcase : v->job ? v->job : "-");
	if (r->machine || r->testbox)
		fprintf(out, "test machine: %s\n", r->machine ? r->machine : r->testbox);
	if (r->params.n) {
		fputs("with following parameters:\n\n", out);
		for (size_t i = 0; i < r->params.n; i++) {
			fprintf(out, "\t%s: ", r->params.v[i].key);
			put_param_value(out, &r->params.v[i]);
			fputc('\n', out);
		}
	}
}

static void email_range_line(FILE *out, const struct bisect_level *lv)
{
	const struct bisect_end *ends[2] = { &lv->good, &lv->bad };

	fputs("bisected: ", out);
	for (int k = 0; k < 2; k++) {
		fputs(k ? " .. " : "", out);
		if (ends[k]->given)
			fprintf(out, "%s (%.10s)", ends[k]->given, ends[k]->commit.sha);
		else
			fprintf(out, "%.12s", ends[k]->commit.sha);
	}
	if (lv->candidates >= 0)
		fprintf(out, ", %ld candidate commits", lv->candidates);
	fputc('\n', out);
}

/* "repository: URL" (where it was cloned from), else "repository: /path" */
static void put_repository(FILE *out, const struct bisect_result *r)
{
	if (r->origin_url || r->repo)
		fprintf(out, "repository: %s\n", r->origin_url ? r->origin_url : r->repo);
}

static long commits_measured(const struct bisect_level *lv)
{
	long n = 0;

	for (size_t i = 0; i < lv->commits.n; i++)
		n += !rb_skipped(&lv->commits.v[i]) && lv->commits.v[i].n != 0;
	return n;
}

/* The probability of the commit blamed, given every run of the search. */
static void email_probability(FILE *out, const struct bisect_view *v,
			      const struct bisect_level *lv)
{
	const struct bisect_entry *c = &lv->culprit, *next = rb_best_other(lv, c->commit.sha);
	double conf = rb_confidence(v, lv);
	char p[32];

	long measured = commits_measured(lv);
	long searched = lv->runs_search >= 0 ? lv->runs_search : lv->runs;

	if (!measured && lv->candidates == 1) {
		/* the bad commit is the only candidate: it is its runs that count */
		fputs("The bad commit is the only candidate commit, so nothing was searched", out);
		/* the confirmation brings the culprit's runs up to its count */
		long n = lv->baseline.bad.n > lv->confirmation.culprit.n ?
			 lv->baseline.bad.n : lv->confirmation.culprit.n;

		if (n > 0)
			fprintf(out, "\n(it has %ld run%s)", n, n == 1 ? "" : "s");
	} else if (!measured) {
		fputs("Given the runs of the good and bad commits (no commit between them was\n"
		      "measured)", out);
	} else {
		fputs("Given every run of the bisection", out);
		if (searched >= 0) {
			fprintf(out, " (%ld runs on %ld", searched, measured);
			if (lv->candidates >= 0)
				fprintf(out, " of the %ld candidate", lv->candidates);
			fputs(" commits)", out);
		}
	}
	fprintf(out, ",\nP(first bad), the probability that %.12s is the first bad commit, is %s",
		c->commit.sha, rb_prob(p, sizeof(p), c->probability));
	if (isfinite(conf))
		fprintf(out, "\n(the search stops at %.10g%%)", 100 * conf);
	fputs(".\n", out);
	if (next && isfinite(next->probability)) {
		fprintf(out, "The next most likely, %.12s", next->commit.sha);
		if (next->commit.subject)
			fprintf(out, " (\"%s\")", next->commit.subject);
		fprintf(out, ", has P(first bad) %s.\n", rb_prob(p, sizeof(p), next->probability));
	}
	fputc('\n', out);
}

/* How sure: the probability, the confirmation, the baseline it explains. */
static void email_how_sure(FILE *out, const struct bisect_view *v,
			   const struct bisect_level *lv)
{
	const struct bisect_level *top = v->top;
	const struct bisect_change *conf = &lv->confirmation.change, *base = &top->baseline.change;
	char p[32];

	fputs("\nHow sure:\n\n", out);
	if (lv != top) {
		fprintf(out, "On the first-parent line, the first bad commit is the merge\n%.12s",
			top->merge->commit.sha);
		if (isfinite(top->culprit.probability))
			fprintf(out, " (P(first bad) %s)",
				rb_prob(p, sizeof(p), top->culprit.probability));
		fputs(";\nthe bisection inside the merged branch then found this commit.\n\n",
		      out);
	}
	if (isfinite(lv->culprit.probability))
		email_probability(out, v, lv);
	if (lv->confirmation.present) {
		fputs("Double-checked: the commit against its parent, compared directly\n"
		      "(not through the bisection's model):\n\n", out);
		put_confirmation(out, v, lv, "  ");
		if (!bisect_level_confirmed(lv))
			fputs("\nThe confirmation did NOT show the change: treat this commit as a\n"
			      "suspect, not as the cause.\n", out);
		fputc('\n', out);
	} else {
		fputs("Not double-checked: the commit was not measured again against its\n"
		      "parent.\n\n", out);
	}
	if (rb_has_baseline(top)) {
		fputs("The good and bad commits the bisection started from:\n\n", out);
		put_baseline(out, v, top, "  ");
		if (rb_change_known(conf) && rb_change_known(base) && base->pct != 0 &&
		    (conf->pct > 0) == (base->pct > 0))
			fprintf(out, "\nThis commit accounts for about %.0f%% of the change from good to bad.\n",
				100 * conf->pct / base->pct);
		else if (rb_change_known(conf) && rb_change_known(base))
			fputs("\nThis commit's change goes the other way from the change from good to bad.\n",
			      out);
		fputc('\n', out);
	}
	put_runs_spent(out, top, "spent");
	if (lv != top)
		put_runs_spent(out, lv, "spent inside the merged branch");
}

static void email_tags(FILE *out, const struct report_bisect_opts *o, bool fix)
{
	if (!o || (!o->reported_by && !o->link))
		return;
	if (fix) {
		fputs("\nIf you fix the issue in a separate patch/commit (i.e. not just a new version of\n"
		      "the same patch/commit), kindly add following tags\n", out);
		if (o->reported_by)
			fprintf(out, "| Reported-by: %s\n", o->reported_by);
		if (o->link)
			fprintf(out, "| Closes: %s\n", o->link);
	} else {
		fputc('\n', out);
		if (o->reported_by)
			fprintf(out, "Reported-by: %s\n", o->reported_by);
		if (o->link)
			fprintf(out, "Closes: %s\n", o->link);
	}
}

static void email_reproduce(FILE *out, const struct bisect_view *v,
			    const struct bisect_level *lv)
{
	const struct bisect_result *r = v->r;
	const char *repo = r->origin_url ? "repo" : r->repo ? r->repo : "REPO";
	const char *a = v->top->good.commit.sha, *b = v->top->bad.commit.sha;

	fputs("\nTo reproduce:\n\n", out);
	if (r->origin_url)
		fprintf(out, "        git clone %s repo\n", r->origin_url);
	fputs("        perfbot install job.yaml  # the job file is below\n", out);
	if (lv->status == BISECT_STATUS_FOUND && lv->have_culprit) {
		/* the parent when it was measured, then the culprit */
		a = lv->confirmation.parent.sha;
		b = lv->culprit.commit.sha;
	}
	if (a)
		fprintf(out, "        perfbot run --repo %s --commit %s job.yaml\n", repo, a);
	fprintf(out, "        perfbot run --repo %s --commit %s job.yaml\n", repo, b);
	if (a)
		fprintf(out, "        perfbot compare %.12s %.12s\n", a, b);
	if (r->job_text) {
		size_t n = strlen(r->job_text);

		fputs("\njob.yaml:\n\n", out);
		fputs(r->job_text, out);
		if (n && r->job_text[n - 1] != '\n')
			fputc('\n', out);
	}
}

static const char dashes[] =
	"-------------------------------------------------------------------------------------------------->\n";

static void email_details(FILE *out, const struct bisect_view *v,
			  const struct bisect_level *top)
{
	const struct bisect_result *r = v->r;

	fputs("\nDetails are as below:\n", out);
	fputs(dashes, out);
	fputc('\n', out);
	put_metric(out, v);
	if (v->job)
		fprintf(out, "job: %s\n", v->job);
	if (r->testbox)
		fprintf(out, "testbox: %s\n", r->testbox);
	if (r->repo)
		fprintf(out, "repository: %s\n", r->repo);
	if (r->origin_url)
		fprintf(out, "origin: %s\n", r->origin_url);
	fputs("\ncommits measured", out);
	if (top->candidates >= 0)
		fprintf(out, " (index: position among the %ld candidates, oldest first)",
			top->candidates);
	fputs(":\n\n", out);
	put_commit_table(out, v, top);
	if (rb_inner(top)) {
		fprintf(out, "\ncommits measured inside the branch merged by %.12s:\n\n",
			top->merge->commit.sha);
		put_commit_table(out, v, rb_inner(top));
	}
}

/* A merge blamed itself: what the bisection inside its branch found. */
static void email_merge_itself(FILE *out, const struct bisect_level *top)
{
	const struct bisect_level *in = rb_inner(top);

	fputs("\nThe commit is a merge; ", out);
	if (!in) {
		fputs("it was not bisected inside the merged branch.\n", out);
		return;
	}
	fprintf(out, "inside the merged branch the bisection is %s",
		bisect_status_name(in->status));
	if (in->message)
		fprintf(out, ": %s", in->message);
	fputs(".\n", out);
	if (in->best.n) {
		fputs("The most likely first bad commits inside the branch:\n", out);
		put_entries(out, "  ", &in->best);
	}
	if (in->status == BISECT_STATUS_RANGE) {
		fputs("The first bad commit inside the branch is one of:\n", out);
		put_entries(out, "  ", &in->range);
	}
}

static void email_found(FILE *out, const struct bisect_view *v,
			const struct report_bisect_opts *o)
{
	const struct bisect_result *r = v->r;
	const struct bisect_level *top = v->top, *lv = rb_blamed(top);
	const struct bisect_change *ch = rb_headline(v, lv);
	const struct bisect_commit *c = &lv->culprit.commit;
	const char *w = ch ? rb_direction(v, ch->pct) : NULL;
	bool fix;

	if (ch)
		fprintf(out, "perfbot bisected a %.1f%% %s of %s to:\n\n", fabs(ch->pct),
			rb_change_word(v, ch->pct), v->metric);
	else
		fprintf(out, "perfbot bisected a change of %s to:\n\n", v->metric);
	fputs("commit: ", out);
	put_commit(out, c);
	fputc('\n', out);
	if (c->author)
		fprintf(out, "author: %s\n", c->author);
	if (c->date)
		fprintf(out, "date: %s\n", c->date);
	if (lv != top) {
		fputs("merged by: ", out);
		put_commit(out, &top->merge->commit);
		fputc('\n', out);
	}
	put_repository(out, r);
	fputc('\n', out);
	email_where(out, v);
	fputc('\n', out);
	email_range_line(out, top);
	if (top->merge && lv == top)
		email_merge_itself(out, top);
	fix = w && !strcmp(w, "regression");
	if (fix)
		email_tags(out, o, true);
	email_how_sure(out, v, lv);
	email_details(out, v, top);
	email_reproduce(out, v, lv);
	if (!fix)
		email_tags(out, o, false);
}

/* What the bisection ended with, when it blames no one commit. */
static void email_other_opening(FILE *out, const struct bisect_view *v,
				const struct bisect_change *ch)
{
	const struct bisect_level *lv = v->top;
	const char *word = ch ? rb_change_word(v, ch->pct) : "change";
	char pct[32] = "";

	if (ch)
		snprintf(pct, sizeof(pct), "%.1f%% ", fabs(ch->pct));
	switch (lv->status) {
	case BISECT_STATUS_RANGE:
		fprintf(out, "perfbot bisected a %s%s of %s to one of these %zu commits:\n\n",
			pct, word, v->metric, lv->range.n);
		put_entries(out, "  ", &lv->range);
		fputs("\nThe commits marked skipped could not be built, so the bisection cannot\n"
		      "tell them apart from the first one after them that could.\n", out);
		break;
	case BISECT_STATUS_UNDECIDED:
		fprintf(out, "perfbot could not decide which commit caused the %s%s of %s:\n"
			"not decided after %ld runs", pct, word, v->metric,
			lv->runs >= 0 ? lv->runs : lv->runs_search);
		put_stop(out, v, lv);
		fputs(".\n", out);
		if (lv->best.n) {
			fputs("\nThe most likely first bad commits so far:\n\n", out);
			put_entries(out, "  ", &lv->best);
		}
		break;
	case BISECT_STATUS_NO_CHANGE:
		fprintf(out, "perfbot found no reproducible change of %s between the good and\n"
			"bad commits, so there is nothing to bisect:\n", v->metric);
		break;
	case BISECT_STATUS_FAILED:
		fprintf(out, "perfbot's bisection of %s failed.\n", v->metric);
		break;
	case BISECT_STATUS_RUNNING:
		fprintf(out, "perfbot is still bisecting %s (%ld runs so far).\n", v->metric,
			lv->runs >= 0 ? lv->runs : 0);
		if (lv->best.n) {
			fputs("\nThe most likely first bad commits so far:\n\n", out);
			put_entries(out, "  ", &lv->best);
		}
		break;
	case BISECT_STATUS_RESET:
		fprintf(out, "perfbot's bisection of %s was reset.\n", v->metric);
		break;
	case BISECT_STATUS_FOUND:
		break;
	}
}

static void email_other(FILE *out, const struct bisect_view *v,
			const struct report_bisect_opts *o)
{
	const struct bisect_result *r = v->r;
	const struct bisect_level *lv = v->top;
	const struct bisect_change *ch = rb_change_known(&lv->baseline.change) ?
					 &lv->baseline.change : NULL;
	const char *w = ch ? rb_direction(v, ch->pct) : NULL;
	bool fix;

	email_other_opening(out, v, ch);
	if (lv->message)
		fprintf(out, "\n%s\n", lv->message);
	fputc('\n', out);
	email_where(out, v);
	fputc('\n', out);
	email_range_line(out, lv);
	put_repository(out, r);
	fix = lv->status == BISECT_STATUS_RANGE && w && !strcmp(w, "regression");
	if (fix)
		email_tags(out, o, true);
	if (lv->baseline.good.n >= 0 || isfinite(lv->baseline.good.mean) || ch) {
		fputs("\nThe good and bad commits:\n\n", out);
		put_baseline(out, v, lv, "  ");
	}
	fputc('\n', out);
	put_runs_spent(out, lv, "spent");
	email_details(out, v, lv);
	email_reproduce(out, v, lv);
	if (!fix)
		email_tags(out, o, false);
}

/* The metric is a stat's name, of any length: built whole (shas: 10 characters). */
static void email_subject(struct strbuf *sb, const struct bisect_view *v)
{
	const struct bisect_level *top = v->top, *lv = rb_blamed(top);
	const struct bisect_change *ch = rb_headline(v, lv);

	if (top->status == BISECT_STATUS_FOUND) {
		if (ch)
			strbuf_addf(sb, "[perfbot] %.10s: %s %+.1f%% %s", lv->culprit.commit.sha,
				    v->metric, ch->pct, rb_change_word(v, ch->pct));
		else
			strbuf_addf(sb, "[perfbot] %.10s: %s first bad commit",
				    lv->culprit.commit.sha, v->metric);
		return;
	}
	ch = rb_change_known(&top->baseline.change) ? &top->baseline.change : NULL;
	if (top->status == BISECT_STATUS_RANGE && ch)
		strbuf_addf(sb, "[perfbot] bisect %.10s..%.10s: %s %+.1f%% %s in one of %zu commits",
			    top->good.commit.sha, top->bad.commit.sha, v->metric, ch->pct,
			    rb_change_word(v, ch->pct), top->range.n);
	else if (top->status == BISECT_STATUS_RANGE)
		strbuf_addf(sb, "[perfbot] bisect %.10s..%.10s: %s: one of %zu commits",
			    top->good.commit.sha, top->bad.commit.sha, v->metric, top->range.n);
	else
		strbuf_addf(sb, "[perfbot] bisect %.10s..%.10s: %s: %s", top->good.commit.sha,
			    top->bad.commit.sha, v->metric,
			    top->status == BISECT_STATUS_NO_CHANGE ? "no reproducible change" :
			    bisect_status_name(top->status));
}

static int email_report(FILE *out, const struct bisect_view *v,
			const struct report_bisect_opts *o)
{
	struct strbuf subj = STRBUF_INIT;
	char *body = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&body, &len);
	int err = 0;

	if (!mem)
		return -errno;
	if (v->top->status == BISECT_STATUS_FOUND)
		email_found(mem, v, o);
	else
		email_other(mem, v, o);
	if (fclose(mem))
		err = -EIO;
	if (!err) {
		email_subject(&subj, v);
		err = strbuf_error(&subj) ?:
		      report_email_message(out, o ? o->from : NULL, o ? o->to : NULL, NULL, NULL,
					   subj.buf, body, len);
	}
	strbuf_release(&subj);
	free(body);
	return err;
}

/* ---- the two writers ---- */

/* r quoted, checked, written by fn */
static int write_quoted(FILE *out, const struct bisect_result *r,
			const struct report_bisect_opts *o,
			int (*fn)(FILE *out, const struct bisect_view *v,
				  const struct report_bisect_opts *o))
{
	struct bisect_result q;
	struct bisect_view v;
	int err;

	if (rb_view(&v, r))
		return -EINVAL;
	if (bisect_result_quoted(r, &q))
		return -ENOMEM;
	err = rb_view(&v, &q);
	if (!err)
		err = fn(out, &v, o);
	bisect_result_release(&q);
	return err;
}

static int text_writer(FILE *out, const struct bisect_view *v,
		       const struct report_bisect_opts *o)
{
	(void)o;
	text_report(out, v);
	return ferror(out) ? -EIO : 0;
}

int report_bisect_text(FILE *out, const struct bisect_result *r)
{
	return write_quoted(out, r, NULL, text_writer);
}

int report_bisect_email(FILE *out, const struct bisect_result *r,
			const struct report_bisect_opts *o)
{
	return write_quoted(out, r, o, email_report);
}
