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
#include <stdio.h>

/* ---- numbers (table.c), as every format shows them ---- */

/*
 * A mean as LKP shows it: "-" when not finite, 4 significant digits from
 * 1e9, no decimals for integers and from 1000, 1 from 100, 2 from 0.01,
 * else an exponent.
 */
void report_format_number(char *buf, size_t len, double v);
/*
 * The stddev relative to the mean, in %, when it is worth showing (above
 * 2%: under that it is noise about noise), else 0.
 */
double report_shown_stddev_pct(const struct summary *s);
/*
 * A job unsupported on every commit for the same reason: one line says it
 * (else one a commit).  j->unsupported must not be NULL.
 */
bool report_unsupported_alike(const struct report *r, const struct report_job *j);
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

#endif
