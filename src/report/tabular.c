/*
 * tabular.c - CSV and Markdown tables (tabular.h).
 */
#include "report/tabular.h"
#include "report/internal.h"
#include "util/bug.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool tabular_format_parse(const char *name, enum tabular_format *out)
{
	if (!strcmp(name, "csv"))
		*out = TABULAR_CSV;
	else if (!strcmp(name, "markdown") || !strcmp(name, "md"))
		*out = TABULAR_MARKDOWN;
	else
		return false;
	return true;
}

static void csv_field(FILE *out, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/*
 * Markdown's specials are escaped here; the run of plain text between
 * them goes through the HTML escaper, so a cell never opens a tag.
 */
static void md_field(FILE *out, const char *s)
{
	while (*s) {
		size_t n = strcspn(s, "|\\*_`[]\r\n");

		if (n) {
			char *seg = strndup(s, n);

			if (seg)
				report_html_puts(out, seg);
			else	/* out of memory: the text unescaped would be unsafe */
				fputs("\xef\xbf\xbd", out);
			free(seg);
			s += n;
			continue;
		}
		if (*s == '\n')
			fputs("<br>", out);
		else if (*s != '\r') {
			fputc('\\', out);
			fputc(*s, out);
		}
		s++;
	}
}

void tabular_begin(struct tabular *t, FILE *out, enum tabular_format format,
		   const struct tabular_column *cols, size_t ncols)
{
	BUG_ON(!ncols);
	*t = (struct tabular){ .out = out, .format = format, .ncols = ncols,
			       .precision = TABULAR_PRECISION };
	for (size_t i = 0; i < ncols; i++)
		tabular_cell(t, cols[i].name);
	tabular_end_row(t);
	t->rows = 0;
	if (format != TABULAR_MARKDOWN)
		return;
	for (size_t i = 0; i < ncols; i++)
		fputs(cols[i].numeric ? "| ---: " : "| --- ", out);
	fputs("|\n", out);
}

void tabular_cell(struct tabular *t, const char *s)
{
	BUG_ON(t->col >= t->ncols);
	if (t->format == TABULAR_CSV) {
		if (t->col)
			fputc(',', t->out);
		csv_field(t->out, s ? s : "");
	} else {
		fputs(t->col ? " " : "| ", t->out);
		md_field(t->out, s ? s : "");
		fputs(" |", t->out);
	}
	t->col++;
}

void tabular_cellf(struct tabular *t, const char *fmt, ...)
{
	char buf[256], *s = buf;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf)) {
		s = malloc((size_t)n + 1);
		if (s) {
			va_start(ap, fmt);
			vsnprintf(s, (size_t)n + 1, fmt, ap);
			va_end(ap);
		}
	}
	tabular_cell(t, n < 0 ? "" : s ? s : buf);
	if (s != buf)
		free(s);
}

void tabular_number(struct tabular *t, double v)
{
	if (isfinite(v))
		tabular_cellf(t, "%.*g", t->precision, v);
	else
		tabular_cell(t, NULL);
}

void tabular_end_row(struct tabular *t)
{
	while (t->col < t->ncols)
		tabular_cell(t, NULL);
	fputc('\n', t->out);
	t->col = 0;
	t->rows++;
}

int tabular_finish(struct tabular *t)
{
	BUG_ON(t->col);
	return ferror(t->out) ? -EIO : 0;
}
