/*
 * history.h - a metric over a branch's history (perfbot history,
 * docs/history.md): the points the robot tested on a branch in order,
 * every run's value of one metric at each, the change points found in
 * that series and the robot's alerts on it, written as text for a
 * terminal, one JSON document ("schema": "perfbot-history", "version": 1)
 * or one self-contained HTML page with an inline SVG plot.
 *
 * The writers take the series as a struct the command fills (cmd/
 * history.c reads the store and runs stats/changepoint.h); they never
 * read the store.  Every string in it (names from job files, branches,
 * commit subjects, alert notes) is untrusted: the text writer quotes it
 * for a terminal (util/quote.h), the HTML writer escapes it, the JSON
 * writer makes it valid UTF-8.
 *
 * Ownership: everything is borrowed and only read.  No state; any thread.
 * Errors: 0, -EINVAL (with nothing written) when h breaks the rules
 * below, -ENOMEM, or -EIO when out cannot be written.
 */
#ifndef PERFBOT_REPORT_HISTORY_H
#define PERFBOT_REPORT_HISTORY_H

#include "stats/changepoint.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One tested head: the values of the metric in its complete runs. */
struct history_point {
	int64_t seq;		/* the robot's order on the branch: 1, 2, ... */
	const char *sha;	/* full sha; never NULL */
	const char *base;	/* what the robot compared it with; may be NULL */
	const char *subject;	/* the commit's subject (--repo); may be NULL */
	double tested;		/* Unix time the robot added it; NaN: unknown */
	const double *values;	/* every run's value, oldest run first (finite) */
	size_t n;		/* 0: no run of the job holds the metric there */
};

/* A change point, between points[index - 1] and points[index]. */
struct history_change {
	size_t index;		/* into points: the first point after the change, >= 1 */
	double p;		/* the detector's corrected p */
	double before, after;	/* the segments' levels either side */
	double pct;		/* 100 (after - before) / |before| */
	bool tentative;		/* too few points after it yet */
	size_t outliers;	/* outlier points set aside around it */
};

/* An alert of the robot on this (tree, branch, testbox, job, metric). */
struct history_alert {
	int64_t id;
	const char *before, *after;	/* full shas of the points either side */
	const char *how;		/* "head" or "changepoint"; may be NULL */
	const char *state;		/* "confirmed", "reported", ...; never NULL */
	double pct;			/* NaN: not known */
	const char *culprit;		/* may be NULL */
	int64_t bisect_id, report_id;	/* 0: none */
	const char *note;		/* may be NULL */
};

struct history {
	const char *tree, *branch, *testbox, *job, *metric;	/* never NULL */
	const char *unit;	/* the metric's declared unit; NULL or "": none */
	int better;		/* record.h's enum stat_better: 1, -1, 0 unknown */
	const struct history_point *points;	/* in order of seq */
	size_t nr_points;	/* >= 1 */
	const struct history_change *changes;	/* in order of index */
	size_t nr_changes;
	const struct history_alert *alerts;	/* oldest first */
	size_t nr_alerts;
	/* the detector's parameters (for the JSON and the page); may be NULL */
	const struct cp_opts *detector;
	/*
	 * The text writer colours the change points' marks and %change
	 * (report_change_colour(): red worse, green better, bold yellow
	 * with no better direction); the caller decides it for its
	 * terminal (util/colour.h).  The JSON and HTML writers ignore it.
	 */
	bool colour;
};

/*
 * 0 when h follows the rules above (points in strictly increasing seq,
 * shas set, finite values, changes in increasing index within
 * 1..nr_points-1, alerts with a state), else -EINVAL with the reason in
 * why (may be NULL).  Every writer checks it first.
 */
int report_history_check(const struct history *h, const char **why);

/*
 * Which point an alert's sha is: its index in points, or SIZE_MAX when
 * the robot's point with that sha is not in h (a rebased branch).
 */
size_t report_history_find(const struct history *h, const char *sha);

/*
 * A line per point (seq, commit, subject when known, runs, mean ±
 * stddev, min..max, markers: "|" a change point before this point, "?"
 * tentative, "A<id>" an alert ending here), then the change points and
 * the alerts listed.
 */
int report_history_text(FILE *out, const struct history *h);
/*
 * A row per point as a CSV or Markdown table (report/tabular.h; format
 * an enum tabular_format): seq, commit, base, subject, tested, n, mean,
 * stddev, min, max as the JSON has them, and the change point before it
 * (change_pct; change "change" or "tentative").
 */
int report_history_tabular(FILE *out, const struct history *h, int format);
/* The document of docs/history.md, every run's value in it. */
int report_history_json(FILE *out, const struct history *h);
/*
 * One HTML5 page, nothing fetched, no script: the facts, an SVG plot
 * (every run a dot at its point, the points' means joined, change points
 * as vertical lines labelled with their %change and state, with the
 * first point after each in data-sha; alerts labelled with their state;
 * each point's <title> naming its commit and subject), and the tables of
 * points, change points and alerts.
 */
int report_history_html(FILE *out, const struct history *h);

/* What a page of perfbot publish's site adds to the history page. */
struct history_html_opts {
	const char *nav;	/* trusted HTML written first in <body>; NULL: none */
	const char *css;	/* more style rules (trusted); NULL: none */
	/*
	 * site: alert ids link to alert-ID.html, bisections to
	 * bisect-ID.html, and the points table gains every run's value;
	 * run_ids ([nr_points], 0: none; NULL: no link) link each point's
	 * commit to run-ID.html.
	 */
	bool site;
	const int64_t *run_ids;
	/*
	 * The controls (zoom, pan, log scale, relative to a reference
	 * point) and the small inline script that drives them; without
	 * the script the controls stay hidden and the page reads the same.
	 */
	bool interactive;
};
/* report_history_html() with o (NULL: exactly report_history_html()). */
int report_history_html_opts(FILE *out, const struct history *h,
			     const struct history_html_opts *o);
/*
 * A change point's state in words: the state of the newest alert whose
 * range holds it ("confirmed", "reported", "ignored", ...), else
 * "tentative" or "detected".  A static string or one of h's.
 */
const char *report_history_change_state(const struct history *h,
				       const struct history_change *c);

#endif
