/*
 * site.h - the pages of perfbot publish's static site (docs/publish.md):
 * the overview (index.html), a page per series (report/history.h's page
 * with the site's navigation, links and script), the alerts page, the
 * machines page, a page per run, the Atom feed (feed.xml), and the site's
 * navigation spliced into the pages other writers make (report_html(),
 * report_bisect_html()) for alerts and bisections.
 *
 * Every page is one self-contained HTML5 document: one small style sheet
 * inline (report_html_css and the site's), no script but the series
 * page's own, nothing fetched, every link relative to the site's one
 * directory.  Page names are the caller's (cmd/publish.c) except the
 * fixed ones below; names given here must be safe in an href as they are
 * (the caller makes them of [A-Za-z0-9._-]).
 *
 * The writers take structs the command fills; they never read the store.
 * Every string in them is untrusted and escaped (report_html_puts(); the
 * feed's through the same escaper, valid in XML).  Ownership: everything
 * is borrowed.  No state; any thread.  Errors: 0, -ENOMEM, -EIO.
 */
#ifndef PERFBOT_REPORT_SITE_H
#define PERFBOT_REPORT_SITE_H

#include "record/record.h"
#include "report/history.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SITE_INDEX "index.html"
#define SITE_ALERTS "alerts.html"
#define SITE_MACHINES "machines.html"
#define SITE_FEED "feed.xml"

/* A series on the overview: its history and its page's name. */
struct site_series {
	const struct history *h;
	const char *page;
};

/* An alert of the robot, with where its pages are. */
struct site_alert {
	int64_t id;
	const char *tree, *branch, *testbox, *job, *metric;
	const char *before, *after;	/* full shas */
	const char *how, *state;	/* state never NULL */
	double pct;			/* NaN: unknown */
	const char *culprit;		/* NULL: none yet */
	int64_t bisect_id, report_id;	/* 0: none */
	const char *note;
	double created, updated;
	const char *series_page;	/* NULL: its series is not on the site */
	bool compared;			/* alert-ID.html holds the comparison */
};

/* A bisection (its page is bisect-ID.html). */
struct site_bisect {
	int64_t id;
	const char *status;
	const char *job, *testbox, *metric;	/* NULL: not known */
	const char *culprit;			/* NULL: none */
	double created, updated;
};

/* A test box: from its runs' environment, and the fleet's registration. */
struct site_machine {
	const char *testbox;
	const char *machine;		/* the machine line of its newest run; may be NULL */
	size_t groups;			/* (job, commit) groups of runs on it */
	size_t runs;			/* complete runs */
	double last;			/* newest run's start, Unix s; NaN: none */
	bool fleet;			/* registered in the fleet's queue: */
	const char *state, *arch, *kernel, *why;
	int cpus;
	int64_t mem_mb, done, failed;
	double seen;
};

/* index.html: every series with a sparkline of its KPI and its latest change. */
int report_site_index(FILE *out, const struct site_series *s, size_t n,
		      const struct site_alert *alerts, size_t nalerts, const char *generated);
/* A series' page: the history page with the site's nav, links and script. */
int report_site_series(FILE *out, const struct history *h, const int64_t *run_ids);
/* alerts.html: the alerts and bisections grouped by culprit. */
int report_site_alerts(FILE *out, const struct site_alert *a, size_t na,
		       const struct site_bisect *b, size_t nb);
/* machines.html */
int report_site_machines(FILE *out, const struct site_machine *m, size_t n);
/* run-ID.html: every stat and the environment of one run. */
int report_site_run(FILE *out, int64_t id, const struct run_record *r);
/*
 * feed.xml: an Atom feed of the alerts in state confirmed, reported or
 * found (newest first), each entry's id "urn:perfbot:STORE_ID:alert:ID"
 * (stable across publishes), linking to alert-ID.html.
 */
int report_site_feed(FILE *out, const char *store_id, const struct site_alert *a, size_t n);
/*
 * An alert's page: what report_html() wrote of its comparison (page, a
 * whole document) with the site's nav and the alert's facts spliced in
 * after <body>; page NULL: a page of the facts and why there is no
 * comparison (why, a sentence).
 */
int report_site_alert(FILE *out, const struct site_alert *a, const char *page,
		      const char *why);
/* A page of one message (text, escaped) under title (escaped). */
int report_site_message(FILE *out, const char *title, const char *text);
/* A bisection's page: report_bisect_html()'s document with the site's nav. */
int report_site_bisect(FILE *out, const char *page);

#endif
