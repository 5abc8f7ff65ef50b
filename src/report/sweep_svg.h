/*
 * sweep_svg.h - will-it-scale's scaling plot of a 1..N task sweep
 * (`perfbot bench TEST --sweep --svg FILE`, docs/benchmarks.md): as
 * upstream's runtest.py + plot.js draw it -- x the number of tasks, y
 * the operations per second of all tasks, one line per mode (processes,
 * threads) and the linear scaling of the best 1-task result dotted -- as
 * one standalone SVG file (xmlns, its own style, nothing fetched), each
 * point's value also in a <title>.
 *
 * The caller measured; this only draws (report/ never runs anything).
 * Ownership: everything borrowed.  No state; any thread.
 */
#ifndef PERFBOT_REPORT_SWEEP_SVG_H
#define PERFBOT_REPORT_SWEEP_SVG_H

#include <stddef.h>
#include <stdio.h>

/* One mode's results: ops[i] at tasks[i]; NaN where it was not measured. */
struct report_sweep_series {
	const char *name;	/* "processes", "threads" */
	const double *ops;	/* [n] */
};

struct report_sweep {
	const char *title;	/* the test ("futex1: ..."); never NULL */
	const unsigned *tasks;	/* [n], increasing */
	size_t n;		/* >= 1 */
	const struct report_sweep_series *series;
	size_t nr_series;	/* 1 or 2 */
	const double *linear;	/* [n]: the best 1-task result x tasks; NULL or 0: none */
};

/*
 * The plot as one SVG document.  0, -EINVAL (nothing written) when s has
 * no point, or -EIO when out cannot be written.
 */
int report_sweep_svg(FILE *out, const struct report_sweep *s);

#endif
