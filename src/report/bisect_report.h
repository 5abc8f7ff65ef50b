/*
 * bisect_report.h - the report of one bisection (docs/design.md §8, §9;
 * docs/report.md, "Bisection reports"), from its result as
 * record/bisect_result.h reads it: text for a terminal and the email
 * (bisect_text.c), one HTML page (bisect_html.c), the JSON document
 * (bisect_json.c).
 *
 * What the report must answer is the maintainer's question of seed 001,
 * "is this commit really the cause?": so next to the culprit it always
 * shows the posterior probability, the confirmation (culprit against its
 * parent, runs of their own, %change with its interval and p) and the
 * good/bad baseline it explains.
 *
 * Writers write to a FILE and return 0 or a negative errno: -EINVAL, with
 * nothing written, when r breaks the document's rules
 * (bisect_result_check(); the caller says which bisection).
 * Ownership: everything is borrowed.  No state; any thread.
 */
#ifndef PERFBOT_REPORT_BISECT_REPORT_H
#define PERFBOT_REPORT_BISECT_REPORT_H

#include "record/bisect_result.h"

#include <stdio.h>

struct report_bisect_opts {
	const char *from, *to;		/* email headers; NULL: as report_email */
	const char *reported_by, *link;	/* tags, may be NULL */
};

int report_bisect_text(FILE *out, const struct bisect_result *r);
int report_bisect_email(FILE *out, const struct bisect_result *r,
			const struct report_bisect_opts *o);	/* o may be NULL */
int report_bisect_html(FILE *out, const struct bisect_result *r);
/* The document, indented by 2, reals with 10 significant digits. */
int report_bisect_json(FILE *out, const struct bisect_result *r);

#endif
