/*
 * report.h - the report a developer acts on, from what compare computed
 * (docs/design.md §9).  report/ formats; it never queries the store and never
 * computes statistics (stats/compare does).
 *
 * One report covers N commits (the first is the base) and the atomic jobs
 * that ran on all of them, each with its compare rows and the samples they
 * came from.  Writers write to a FILE and return 0 or a negative errno.
 * Ownership: everything is borrowed from the caller.  No state.
 */
#ifndef PERFBOT_REPORT_REPORT_H
#define PERFBOT_REPORT_REPORT_H

#include "record/record.h"
#include "stats/compare.h"

#include <jansson.h>
#include <stdio.h>

struct report_commit {
	const char *id;		/* full sha or label, as stored */
	const char *subject;	/* NULL unless known from a repository */
	const char *author, *date;	/* NULL unless known */
};

struct report_job {
	const char *testbox, *testcase, *job;
	const struct strmap *params;	/* the atomic job's parameters */
	const char *kpi;		/* its KPI stat name, or NULL */
	const char *machine;		/* "2 threads AMD EPYC with 23G memory" */
	const char *job_text;		/* to reproduce; may be NULL */
	const struct sample_set *sets;	/* [ncommits], sets[0] the base */
	const struct stat_row *rows;	/* compare_sets() of sets */
	size_t nr_rows;
};

struct report {
	const struct report_commit *commits;
	size_t ncommits;
	const struct report_job *jobs;
	size_t njobs;
	const char *repo_url, *branch;	/* may be NULL */
	const char *from, *to;		/* email addresses; may be NULL */
	const char *reported_by;	/* "Reported-by:" tag value; may be NULL */
	const char *link;		/* "Closes:" link; may be NULL */
	int show_all;			/* every row, not only the changed */
};

/*
 * "improvement" or "regression" for a change of `change` (%) in stat
 * `name`, NULL when the name does not tell which way is better.
 */
const char *report_direction_word(const char *name, double change);
/* Did the row change against any of the other commits? */
int report_row_changed(const struct stat_row *row, size_t ncols);

/* The LKP-style table of one job (docs/design.md §7), as compare prints it. */
int report_write_table(FILE *out, const struct report *r,
		       const struct report_job *j, int with_ci);

int report_text(FILE *out, const struct report *r);
int report_email(FILE *out, const struct report *r);
int report_json(FILE *out, const struct report *r);
int report_html(FILE *out, const struct report *r);

#endif
