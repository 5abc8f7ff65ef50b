/*
 * tabular.h - a table (a header, then rows of cells) written as CSV or as
 * a Markdown pipe table: the one writer of both for every command
 * (compare, report, results, history, stat, bench --sweep).
 *
 * CSV is RFC 4180: comma-separated, CRLF-free ("\n" line ends, as every
 * tool here writes them), a field quoted when it holds ',', '"', CR or LF
 * (a '"' doubled); bytes are kept as they are (a CSV is data, and
 * Python's csv module reads it back exactly).  Numbers are written
 * unrounded as the JSON writers write them (TABULAR_PRECISION significant
 * digits), so a CSV reads back to the --json numbers; a number that is
 * not finite is an empty field.
 *
 * Markdown is a GitHub/GitLab pipe table that pastes into a comment as
 * it is: "| a | b |", then the "| --- | ---: |" row (numbers
 * right-aligned), then one line a row, every row with the header's number
 * of cells.  Cells are untrusted text: '|', '\\' and the characters that
 * start emphasis, code or links are backslash-escaped, HTML's & < > " '
 * are entities (report_html_puts(): a cell cannot open a tag), a newline
 * is "<br>" and control characters become U+FFFD.
 *
 * Streaming: nothing is buffered but stdio's.  Use from one thread; the
 * struct borrows the FILE and the column names.
 */
#ifndef PERFBOT_REPORT_TABULAR_H
#define PERFBOT_REPORT_TABULAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* report_json_dump()'s JSON_REAL_PRECISION: the same digits in both. */
#define TABULAR_PRECISION 10

enum tabular_format {
	TABULAR_CSV,
	TABULAR_MARKDOWN,
};

struct tabular_column {
	const char *name;
	bool numeric;		/* right-aligned in Markdown */
};

struct tabular {
	FILE *out;
	enum tabular_format format;
	size_t ncols, col;
	size_t rows;		/* written so far, the header not counted */
	/*
	 * tabular_number()'s significant digits: TABULAR_PRECISION from
	 * tabular_begin(); 17 for stored values that JSON writes whole.
	 */
	int precision;
};

/*
 * "csv" or "markdown" (also "md"): true and *out set; false for any other
 * name (the caller names it and the accepted ones).
 */
bool tabular_format_parse(const char *name, enum tabular_format *out);

/* Writes the header (and Markdown's alignment row); ncols >= 1. */
void tabular_begin(struct tabular *t, FILE *out, enum tabular_format format,
		   const struct tabular_column *cols, size_t ncols);
/* The next cell of the row: text (NULL: empty). */
void tabular_cell(struct tabular *t, const char *s);
/* printf()-formatted text. */
void tabular_cellf(struct tabular *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A number, unrounded (t->precision digits); empty when not finite. */
void tabular_number(struct tabular *t, double v);
/* Ends the row; cells not given are empty.  BUG() on more cells than columns. */
void tabular_end_row(struct tabular *t);
/* 0, or -EIO when out has an error. */
int tabular_finish(struct tabular *t);

#endif
