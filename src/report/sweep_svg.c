/*
 * sweep_svg.c - will-it-scale's scaling plot (sweep_svg.h), drawn with
 * the plot frame, y ticks and axis labels every perfbot plot shares
 * (internal.h).
 */
#include "report/sweep_svg.h"
#include "report/internal.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>

/* A standalone file has no page's style sheet: its own, the classes used. */
static const char sweep_css[] =
	"text{font-family:sans-serif}"
	".frame{fill:#fafafa;stroke:#888}.grid{stroke:#ddd}"
	".tick{font-size:11px;text-anchor:end;fill:#444}"
	".commit{font-size:11px;text-anchor:middle;fill:#222}"
	".axis{font-size:12px;text-anchor:middle;fill:#222}"
	".legend{font-size:11px;fill:#222}"
	".mode{fill:none;stroke-width:2.5}.mode0{stroke:#1f77b4}.mode1{stroke:#d62728}"
	".dot0{fill:#1f77b4}.dot1{fill:#d62728}"
	".linear{fill:none;stroke:#666;stroke-width:1.5;stroke-dasharray:4 3}";

static double x_of(const struct report_sweep *s, size_t i)
{
	return report_plot_x((double)i, s->n);
}

static bool has_linear(const struct report_sweep *s)
{
	for (size_t i = 0; s->linear && i < s->n; i++)
		if (s->linear[i] > 0)
			return true;
	return false;
}

static void polyline(FILE *out, const char *cls, const char *mode,
		     const struct report_sweep *s, const double *v,
		     const struct report_axis *a)
{
	fprintf(out, "<polyline class=\"%s\"", cls);
	if (mode) {
		fputs(" data-mode=\"", out);
		report_html_puts(out, mode);
		fputc('"', out);
	}
	fputs(" points=\"", out);
	for (size_t i = 0, k = 0; i < s->n; i++)
		if (isfinite(v[i]) && v[i] > 0)
			fprintf(out, "%s%.1f,%.1f", k++ ? " " : "", x_of(s, i),
				report_axis_y(a, v[i]));
	fputs("\"/>\n", out);
}

/* x ticks: every task count, or 1, 2, 5 times a power of ten of them */
static void x_ticks(FILE *out, const struct report_sweep *s)
{
	double step = s->n > 1 ? fmax(1, round(report_nice_step((double)(s->n - 1)))) : 1;

	for (double t = 0; t < (double)s->n; t += step)
		fprintf(out, "<text class=\"commit\" x=\"%.1f\" y=\"%d\">%u</text>\n",
			x_of(s, (size_t)t), PLOT_H - MARGIN_B + 16, s->tasks[(size_t)t]);
}

static void legend(FILE *out, const struct report_sweep *s, bool linear)
{
	double x = MARGIN_L + 10, y = MARGIN_T + 14;

	fputs("<g class=\"legend\">", out);
	for (size_t m = 0; m <= s->nr_series; m++) {
		bool lin = m == s->nr_series;

		if (lin && !linear)
			break;
		if (lin)
			fprintf(out, "<line class=\"linear\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\"/>", x, y - 4, x + 24, y - 4);
		else
			fprintf(out, "<line class=\"mode mode%zu\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\"/>", m % 2, x, y - 4, x + 24, y - 4);
		fprintf(out, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">", x + 30, y);
		if (lin)
			fputs("linear (1 task x tasks)", out);
		else
			report_html_puts(out, s->series[m].name);
		fputs("</text>", out);
		y += 16;
	}
	fputs("</g>\n", out);
}

int report_sweep_svg(FILE *out, const struct report_sweep *s)
{
	struct report_axis a = { 0, -INFINITY };	/* from 0: a scaling plot */
	bool linear = has_linear(s);

	if (!s->n || !s->nr_series)
		return -EINVAL;
	for (size_t i = 0; i < s->n; i++) {
		for (size_t m = 0; m < s->nr_series; m++)
			report_axis_widen(&a, s->series[m].ops[i]);
		if (linear)
			report_axis_widen(&a, s->linear[i]);
	}
	report_axis_pad(&a);
	if (a.lo < 0)
		a.lo = 0;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	report_svg_begin_file(out, s->title);
	fprintf(out, "<style>%s</style>\n", sweep_css);
	fputs("<desc>will-it-scale's scaling plot: the operations per second of all tasks "
	      "at each number of tasks, a line per mode, and the linear scaling of the best "
	      "1-task result (dotted).</desc>\n", out);
	report_svg_y_ticks(out, &a);
	x_ticks(out, s);
	report_svg_axis_labels(out, "number of tasks", "operations per second",
			       "ops/s");
	if (linear)
		polyline(out, "linear", NULL, s, s->linear, &a);
	for (size_t m = 0; m < s->nr_series; m++) {
		char cls[32];

		snprintf(cls, sizeof(cls), "mode mode%zu", m % 2);
		polyline(out, cls, s->series[m].name, s, s->series[m].ops, &a);
	}
	/* each value in a <title>: a reader hovers, a script reads it */
	for (size_t m = 0; m < s->nr_series; m++)
		for (size_t i = 0; i < s->n; i++) {
			double v = s->series[m].ops[i];

			if (!isfinite(v))
				continue;
			fprintf(out, "<circle class=\"dot%zu\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>",
				m % 2, x_of(s, i), report_axis_y(&a, v));
			report_html_puts(out, s->series[m].name);
			fprintf(out, ", %u task%s: %.0f ops/s</title></circle>\n", s->tasks[i],
				s->tasks[i] == 1 ? "" : "s", v);
		}
	legend(out, s, linear);
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}
