/*
 * internal.h - what the report writers share (table.c's numbers, text.c's
 * email envelope, html.c's escaping and SVG plot frame); not part of the
 * API (report.h).
 */
#ifndef PERFBOT_REPORT_INTERNAL_H
#define PERFBOT_REPORT_INTERNAL_H

#include "report/report.h"
#include "stats/summary.h"

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include <stdio.h>

/* ---- numbers (table.c), as every format shows them ---- */

/*
 * A mean as LKP's compare prints it (lib/compare.rb, show_perf_change):
 * "%.2f" below 1000 in size ("754.30", "4.10", "0.00"), "%.4g" above 1e8
 * ("1.759e+09"), else the whole number truncated towards zero ("%d" of a
 * Ruby float: 6105969.9 prints 6105969); "-" when not finite.
 */
void report_format_number(char *buf, size_t len, double v);
/*
 * A %change as LKP prints it: "%+.1f" ("+2.6", "+1196.5"), "%+.2g" from
 * 100000 in size ("+1.2e+05"), then "%" unless c->absolute (a base of 0:
 * the difference in the stat's unit); "-" when not finite.
 */
void report_format_change(char *buf, size_t len, const struct pct_change *c);
/*
 * The %change a table shows (text and html alike): LKP's, of the means
 * printed beside it (stat_vs.mean_pct); the verdict's own where the change
 * is absolute or LKP's cannot be computed.
 */
struct pct_change report_table_change(const struct stat_vs *v);
/* %reproduction as LKP prints it: "%.0f%%" ("-100%", "30%", "0%"). */
void report_format_reproduction(char *buf, size_t len, double pct);
/*
 * LKP's "± N%": the population stddev (n, not n - 1) over the mean, in %,
 * truncated to an integer; shown (true, *pct set) when above 2, as LKP
 * does -- so never for a negative mean nor for fewer than 2 runs, and for
 * a mean of 0 the stddev itself, as LKP compares it.  The statistics keep
 * the sample stddev (summary.stddev); this is only how the table shows it.
 */
bool report_lkp_stddev(const struct summary *s, long long *pct);
/* The population stddev of s (0 for n < 2). */
double report_population_stddev(const struct summary *s);
/*
 * A job unsupported on every commit for the same reason: one line says it
 * (else one a commit).  j->unsupported must not be NULL.
 */
bool report_unsupported_alike(const struct report *r, const struct report_job *j);
/*
 * Every row in the table, not only report_row_shown()'s: r->show_all, or
 * a commit with too few runs for a verdict (then every number is shown,
 * as compare shows it).  Text and HTML tables alike.
 */
bool report_table_show_all(const struct report *r, const struct report_job *j);

/* ---- what a report leads with (table.c; the email and the HTML page) ---- */

/*
 * The job the report leads with: report_headline()'s, else (what an
 * email written with --all says) report_change_apart()'s.  false: no KPI
 * changed anywhere (*job, *col and *row untouched).
 */
bool report_lead(const struct report *r, size_t *job, size_t *col,
		 const struct stat_row **row);
/*
 * What the report says of job j: its KPI row and the first column where
 * it changed (report_headline() for j alone, every test box's), else a
 * change between runs taken apart; NULL when none.
 */
const struct stat_row *report_job_change(const struct report *r,
					 const struct report_job *j, size_t *col);
/* "improvement", "regression", or "change" when neither way is better. */
const char *report_change_word(const struct stat_row *row, size_t col);
/* "perfbot noticed a 2.6% improvement of " (row NULL: "... no significant change of "). */
void report_lead_words(struct strbuf *sb, const struct stat_row *row, size_t col);
/*
 * How the runs of the base and of column col were taken, in sentences
 * ("The runs of both commits were interleaved (...)", "NOT CONFIRMED on
 * interleaved runs: ..."), lines broken where the email breaks them.
 */
void report_order_words(struct strbuf *sb, const struct report_job *j, size_t col);
/* "testcase: kpi 5.0% regression", the "In addition to that" table's change. */
void report_impact_line(struct strbuf *sb, const struct report_job *j,
			const struct stat_row *row, size_t col);
/*
 * The other job i of the "In addition to that" table (every job whose KPI
 * changed but the headline's): its row and column, or NULL.
 */
const struct stat_row *report_impact(const struct report *r, size_t headline,
				     size_t i, size_t *col);

/* One line of a job's parameter block: borrowed key and value. */
struct report_ident {
	const char *key, *value;
};

struct report_idents {
	struct report_ident *v;
	size_t n, cap;
};

/*
 * The job's identity as the email's parameter block shows it: its
 * parameters, then the keys it recorded (job.cpufreq_governor, ...) and
 * the machine's cpufreq governor and microcode where it gave none; sorted
 * by key (as LKP's "test parameters") when sorted.  0 or -ENOMEM; free
 * out->v (vec_free()) either way.
 */
int report_identity(const struct report_job *j, bool sorted, struct report_idents *out);

/* "label: value\n", the value quoted for a terminal (util/quote.h). */
void report_field(FILE *out, const char *label, const char *value);

/* ---- email (text.c) ---- */

/* RFC 5322 allows 998 octets a line before the CRLF. */
#define REPORT_MAX_LINE 998

/*
 * One message: From (NULL: "perfbot <perfbot@localhost>"), To (omitted
 * when NULL), Subject (bytes outside printable ASCII become '?'; one too
 * long for a header line ends in "..."), Date and
 * Message-ID of now, MIME-Version, Content-Type text/plain UTF-8, 8bit;
 * a blank line; then the body as report_put_body() writes it.
 */
int report_email_message(FILE *out, const char *from, const char *to,
			 const char *cc, const char *in_reply_to,
			 const char *subject, const char *body, size_t len);
/*
 * The body as a message may carry it: invalid UTF-8 becomes '?', NULs and
 * stray CRs go, a line longer than REPORT_MAX_LINE octets is broken
 * between characters, and the last line ends with a newline.
 */
void report_put_body(FILE *out, const char *buf, size_t len);

/* ---- HTML (html.c) ---- */

/* Text with & < > " ' escaped; NULL writes nothing. */
void report_html_puts(FILE *out, const char *s);
/* "<dt>term</dt><dd>value</dd>", value escaped; nothing when value is NULL. */
void report_html_dl(FILE *out, const char *term, const char *value);
/*
 * root (its reference taken) written as every JSON document of report/ is:
 * indented, 10 significant digits, a newline; 0, -ENOMEM (root NULL) or
 * -EIO.
 */
int report_json_dump(FILE *out, json_t *root);
/* The first 12 characters of a commit id, escaped ("?" for NULL). */
void report_html_short_id(FILE *out, const char *id);
/* The style sheet of every perfbot page (without <style>). */
extern const char report_html_css[];

/* Plot geometry, in SVG user units (the viewBox scales it). */
#define PLOT_W		640
#define PLOT_H		300
#define MARGIN_L	90
#define MARGIN_R	20
#define MARGIN_T	20
#define MARGIN_B	50

/* A y axis: start with { INFINITY, -INFINITY }, widen, then pad. */
struct report_axis {
	double lo, hi;
};

void report_axis_widen(struct report_axis *a, double v);	/* NaN/inf ignored */
/*
 * Room around the values: 8% of the range a side; a constant gets +-5%
 * of its value (+-1 around 0); an axis that saw no value becomes [0, 1].
 */
void report_axis_pad(struct report_axis *a);
double report_axis_y(const struct report_axis *a, double v);
/* The centre of slot c of n across the plot. */
double report_plot_x(double c, size_t n);
/* Grid lines and labels at 1, 2 or 5 times a power of ten. */
void report_svg_y_ticks(FILE *out, const struct report_axis *a);
/* 1, 2 or 5 times a power of ten, about range / 4. */
double report_nice_step(double range);
/* <svg ...><title>title</title> and the plot's frame; close with </svg>. */
void report_svg_begin(FILE *out, const char *title);
/* The same for an SVG file of its own: with xmlns (it has no HTML parser). */
void report_svg_begin_file(FILE *out, const char *title);
/*
 * The axes' names: x centred under the tick labels; y, the stat's name
 * and " (unit)" when unit is neither NULL nor "", up the left side
 * (squeezed into the frame's height when long).  Escaped.
 */
void report_svg_axis_labels(FILE *out, const char *x, const char *y, const char *unit);

#endif
