/*
 * bisect_internal.h - what the bisection report's writers share
 * (bisect.c): the words and numbers every format prints alike, and the
 * defaults a report applies to what the document does not say.  Not part
 * of the API (bisect_report.h).  No state.
 */
#ifndef PERFBOT_REPORT_BISECT_INTERNAL_H
#define PERFBOT_REPORT_BISECT_INTERNAL_H

#include "record/bisect_result.h"

#include <stdbool.h>
#include <stddef.h>

/* A checked result and what every writer derives from it alike. */
struct bisect_view {
	const struct bisect_result *r;
	const struct bisect_level *top;	/* &r->level */
	const char *metric;		/* "the job's KPI" when not known */
	const char *job;		/* job, else the job file */
	int decimals;			/* of every mean and stddev shown */
};

/* -EINVAL (nothing to write) when r breaks the document's rules. */
int rb_view(struct bisect_view *v, const struct bisect_result *r);

/* "improvement", "regression" or NULL (not known, or no change). */
const char *rb_direction(const struct bisect_view *v, double pct);
/* rb_direction(), else "change". */
const char *rb_change_word(const struct bisect_view *v, double pct);
/* 99.8%, 99.94%, 0.09%, 0.0002%: the decimals a probability needs. */
const char *rb_prob(char *buf, size_t len, double p);
/* A mean or stddev with the report's decimals; "-" when not known. */
const char *rb_num(char *buf, size_t len, const struct bisect_view *v, double x);
/*
 * rb_num() with the metric's unit (struct bisect_result's unit): "1.56 s",
 * "830 ops/s", "12.5%"; no unit when the result stores none (results
 * stored before issue 13) or the value is not known.
 */
const char *rb_qty(char *buf, size_t len, const struct bisect_view *v, double x);
/*
 * The two probabilities a report shows, never under one name:
 *  - "P(first bad)", P(first bad == e): the entry's probability field,
 *    the number beside the culprit and in best[] and range[].  For a row
 *    of commits[] (which does not store it) it is the culprit's, or the
 *    best[] or range[] entry's of the same sha: the same field, so the
 *    header and the table print one number; NaN when none holds it.
 *  - "P(bad)", P(first bad <= e), the probability that e is bad: p_bad,
 *    only in the table of commits measured (and the plot).
 * Both come from the posterior at the end of the search (bisect_assemble.c).
 */
double rb_first_bad_p(const struct bisect_level *lv, const struct bisect_entry *e);
/* "found the first bad commit", ... */
const char *rb_status_line(enum bisect_status s);

/* A change is known when its %change is. */
bool rb_change_known(const struct bisect_change *c);
/* The level inside the merged branch, or NULL. */
const struct bisect_level *rb_inner(const struct bisect_level *lv);
/* The level whose culprit the report blames: inside a merge when found. */
const struct bisect_level *rb_blamed(const struct bisect_level *top);
/* The change the report is about: the confirmation's, else the baseline's. */
const struct bisect_change *rb_headline(const struct bisect_view *v,
					const struct bisect_level *lv);
/* The most probable of lv's best other than sha (any when sha is NULL). */
const struct bisect_entry *rb_best_other(const struct bisect_level *lv, const char *sha);
/* Where lv's search stops: its own, else the level it is inside of's. */
double rb_confidence(const struct bisect_view *v, const struct bisect_level *lv);
long rb_max_runs(const struct bisect_view *v, const struct bisect_level *lv);

bool rb_skipped(const struct bisect_entry *e);
/* "measured", "skipped" or NULL */
const char *rb_state(const struct bisect_entry *e);
/* The culprit's sha when lv found one, else NULL: the row to mark. */
const char *rb_culprit_sha(const struct bisect_level *lv);
/*
 * The median and MAD (raw) of a sample's runs, when they tell another
 * story than its mean ± stddev (docs/report.md, "Outliers"): at least 3
 * runs, and the stddev above twice the robust sigma (1.4826 MAD) or the
 * mean further than one robust sigma from the median (a MAD of 0: mean
 * and median differ at all).  false: mean ± stddev says it.
 */
bool rb_robust(const struct bisect_sample *s, double *median, double *mad);
/*
 * The change of the medians, 100 (median_b - median_a) / |median_a|, when
 * either sample is rb_robust(); NaN otherwise or when not computable.
 */
double rb_median_change(const struct bisect_sample *a, const struct bisect_sample *b);
/*
 * May the interval be shown beside the verdict?  Not when the verdict is
 * "changed" and the interval holds 0: the two would contradict each
 * other (a mean's interval widened by an outlier run while the verdict
 * rests on a robust test).  Unknown intervals are not shown anyway.
 */
bool rb_interval_shown(const struct bisect_change *c);

/* The baseline was measured: a section to show. */
bool rb_has_baseline(const struct bisect_level *lv);

#endif
