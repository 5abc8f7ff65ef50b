/*
 * bench_wis.c - the front end of `perfbot bench TEST` (will-it-scale): its
 * header, samples, result and JSON, ASLR off, and the 1..N task sweep.
 * Options and checks are cmd/bench.c's, from the table (bench_cli.h).
 */
#define _GNU_SOURCE
#include "bench/wis.h"
#include "bench/wis_json.h"
#include "bench/wis_sweep.h"
#include "bench/wis_type.h"
#include "cmd/bench_cli.h"
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "report/tabular.h"
#include "report/sweep_svg.h"
#include "util/cpus.h"
#include "util/interrupt.h"
#include "util/strbuf.h"
#include "version.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

#define usage_error(...) cmd_usage_error("bench", __VA_ARGS__)

/*
 * Address-space randomisation changes page-table-heavy results, so
 * upstream runs with it off.  It is fixed at exec, so set the personality
 * and re-execute perfbot once; where the kernel refuses, run with it on
 * and say so in the result.
 */
static bool disable_aslr(void)
{
	static const char guard[] = "PERFBOT_ASLR_REEXEC";
	int pers = personality(0xffffffff);

	if (getenv(guard)) {
		unsetenv(guard);
		return pers != -1 && (pers & ADDR_NO_RANDOMIZE);
	}
	if (pers == -1)
		return false;
	if (pers & ADDR_NO_RANDOMIZE)
		return true;
	if (personality((unsigned long)pers | ADDR_NO_RANDOMIZE) == -1)
		return false;
	setenv(guard, "1", 1);
	fflush(NULL);
	execv("/proc/self/exe", perfbot_argv);
	/* exec failed: carry on as we are */
	unsetenv(guard);
	personality((unsigned long)pers);
	return false;
}

/* ---- one run ----------------------------------------------------------- */

/* "1 process", "2 processes", "1 thread", "2 threads" */
static const char *task_noun(unsigned n, enum wis_mode mode)
{
	if (mode == WIS_THREAD)
		return n == 1 ? "thread" : "threads";
	return n == 1 ? "process" : "processes";
}

static void print_sample(const void *event, size_t idx, void *arg)
{
	const struct wis_sample *s = event;

	(void)arg;
	if (idx == 0)
		printf("%7s %8s %14s %14s %14s %6s\n", "sample", "secs",
		       "min/task", "max/task", "total", "idle%");
	printf("%7zu %8.3f %14.0f %14.0f %14.0f %6.1f\n", idx + 1, s->secs,
	       s->min_task, s->max_task, s->total, s->idle_pct);
	fflush(stdout);
}

static void print_phase(const char *phase, void *arg)
{
	const struct wis_config *cfg = arg;

	if (!strcmp(phase, "warm-up") && cfg->warmup_s > 0)
		printf("warm-up %g s\n", cfg->warmup_s);
	fflush(stdout);
}

static void print_result(const struct wis_config *cfg, const struct wis_result *r)
{
	printf("status: %s", wis_status_name(r->status));
	if (r->status != WIS_OK)
		printf(" (%s)", r->why);
	putchar('\n');
	if (!r->nr_samples)
		return;
	printf("%-16s %.0f\n", wis_per_task_stat(cfg->mode), r->per_task);
	printf("%-16s %.0f ops/s over %.3f s\n", "workload", r->workload,
	       r->measured_s);
	printf("%-16s min %.0f  max %.0f  stddev %.0f (%.2f%%)\n", "samples",
	       r->min, r->max, r->stddev,
	       r->workload > 0 ? 100.0 * r->stddev / r->workload : 0.0);
	if (r->idle_pct >= 0)
		printf("%-16s %.1f%%\n", "idle", r->idle_pct);
}

static int run_one(const struct bench_type *t, const struct bench_args *a,
		   bool json, const struct wis_json_context *ctx)
{
	struct wis_config cfg;
	struct bench_run run = { .args = a, .stop = &interrupted };
	struct bench_result res;
	const struct wis_result *r;
	int ret;

	wis_config_from_args(a, &cfg);
	if (!json) {
		printf("%s: %s\n", cfg.test->name, cfg.test->desc);
		printf("%u %s, %s, ASLR %s; %g s of %g s samples after %g s warm-up\n",
		       cfg.nr_tasks, task_noun(cfg.nr_tasks, cfg.mode),
		       cfg.affinity ? "bound to CPUs" : "unbound",
		       ctx->aslr_disabled ? "off" : "on",
		       cfg.duration_s, cfg.interval_s, cfg.warmup_s);
		if (cfg.test->partner)
			printf("each task has a partner task on its CPU\n");
		run.on_progress = print_sample;
		run.on_phase = print_phase;
		run.arg = &cfg;
		fflush(stdout);
	}
	bench_type_run(t, &run, &res);
	r = res.detail;
	if (!r) {
		fprintf(stderr, "perfbot: bench: %s: %s\n", cfg.test->name, res.why);
		bench_result_release(&res);
		return EXIT_FAILED;
	}
	if (json) {
		ret = cmd_print_json("bench", wis_result_json(&cfg, r, ctx));
	} else {
		print_result(&cfg, r);
		ret = 0;
	}
	if (r->status == WIS_UNSUPPORTED || r->status == WIS_ERROR ||
	    r->status == WIS_FAILED)
		fprintf(stderr, "perfbot: bench: %s: %s%s\n", cfg.test->name,
			r->status == WIS_UNSUPPORTED ? "unsupported: " : "", r->why);
	ret = ret ? EXIT_FAILED : bench_cli_exit(res.status);
	bench_result_release(&res);
	return ret;
}

/* ---- the sweep --------------------------------------------------------- */

/*
 * The sweep's table: aligned text, or through the tabular writer as
 * will-it-scale's runtest CSV (byte for byte what --csv always printed:
 * ops as "%.0f", idle as "%.2f", a mode not run as empty fields) or as a
 * Markdown table of the same cells.
 */
static void print_sweep(const struct wis_sweep_row *rows, size_t n, size_t format)
{
	static const char *const col[2] = { "processes", "threads" };
	static const struct tabular_column cols[] = {
		{ "tasks", true }, { "processes", true }, { "processes_idle", true },
		{ "threads", true }, { "threads_idle", true }, { "linear", true },
	};
	bool text = format == WIS_FORMAT_TEXT;
	struct tabular t;

	if (text)
		printf("%5s %14s %14s %14s %14s %14s\n", "tasks", "processes",
		       "processes_idle", "threads", "threads_idle", "linear");
	else
		tabular_begin(&t, stdout, format == WIS_FORMAT_CSV ? TABULAR_CSV :
				   TABULAR_MARKDOWN, cols, sizeof(cols) / sizeof(cols[0]));
	for (size_t i = 0; i < n; i++) {
		const struct wis_sweep_row *row = &rows[i];

		if (!text) {
			tabular_cellf(&t, "%u", row->tasks);
			for (int m = 0; m < 2; m++) {
				if (row->have[m]) {
					tabular_cellf(&t, "%.0f", row->ops[m]);
					tabular_cellf(&t, "%.2f", row->idle[m]);
				} else {
					tabular_cell(&t, NULL);
					tabular_cell(&t, NULL);
				}
			}
			tabular_cellf(&t, "%.0f", row->linear);
			tabular_end_row(&t);
			continue;
		}
		printf("%5u", row->tasks);
		for (int m = 0; m < 2; m++) {
			if (!row->have[m])
				printf(" %14s %14s", "-", "-");
			else
				printf(" %14.0f %14.2f", row->ops[m], row->idle[m]);
		}
		printf(" %14.0f\n", row->linear);
	}
	if (!text)
		tabular_finish(&t);	/* stdout's errors: main's flush reports them */
	/* a table stays a pure table on stdout; the derived figure goes to stderr */
	for (int m = 0; m < 2; m++) {
		double s = wis_sweep_scalability(rows, n, (enum wis_mode)m);

		if (!isnan(s))
			fprintf(text ? stdout : stderr, "scalability %-9s %.3f (at %u tasks)\n",
				col[m], s, rows[n - 1].tasks);
	}
}

/*
 * The sweep as will-it-scale's plot into svg (report/sweep_svg.h): the
 * modes measured, total ops/s, and linear.  0 or EXIT_FAILED after
 * saying why; svg is closed either way.
 */
static int write_sweep_svg(FILE *svg, const char *path, const struct wis_config *cfg,
			   const struct wis_sweep_row *rows, size_t n, bool both_modes)
{
	static const char *const names[2] = { "processes", "threads" };
	unsigned *tasks = calloc(n ? n : 1, sizeof(*tasks));
	double *v = calloc(3 * (n ? n : 1), sizeof(*v));
	struct report_sweep_series series[2];
	struct strbuf title = STRBUF_INIT;
	struct report_sweep s = { .tasks = tasks, .n = n, .series = series };
	int err = tasks && v ? 0 : -ENOMEM;

	for (int m = 0; !err && m < 2; m++) {
		double *ops = v + (size_t)m * n;

		if (!both_modes && (enum wis_mode)m != cfg->mode)
			continue;
		for (size_t i = 0; i < n; i++)
			ops[i] = rows[i].have[m] ? rows[i].ops[m] : NAN;
		series[s.nr_series++] = (struct report_sweep_series){ names[m], ops };
	}
	for (size_t i = 0; !err && i < n; i++) {
		tasks[i] = rows[i].tasks;
		v[2 * n + i] = rows[i].linear;
	}
	s.linear = v ? v + 2 * n : NULL;
	strbuf_addf(&title, "will-it-scale %s: %s", cfg->test->name, cfg->test->desc);
	s.title = strbuf_error(&title) ? cfg->test->name : title.buf;
	if (!err)
		err = report_sweep_svg(svg, &s);
	if (fclose(svg) && !err)
		err = -EIO;
	strbuf_release(&title);
	free(tasks);
	free(v);
	if (err) {
		fprintf(stderr, "perfbot: bench: cannot write the plot to %s: %s\n", path,
			err == -EINVAL ? "nothing was measured" : strerror(-err));
		unlink(path);
		return EXIT_FAILED;
	}
	return 0;
}

static int run_sweep(const struct bench_type *t, const struct bench_args *args,
		     bool json, const struct wis_json_context *ctx)
{
	const struct bench_arg *v = args->v;
	unsigned max_tasks = v[WIS_P_MAX].given ? (unsigned)v[WIS_P_MAX].v.n
			   : online_cpus() < WIS_MAX_TASKS ? online_cpus()
							   : WIS_MAX_TASKS;
	/* a sweep runs both modes unless told one */
	bool both_modes = !v[WIS_P_MODE].given ||
			  v[WIS_P_MODE].v.choice == WIS_MODE_BOTH;
	struct wis_sweep_row *rows = calloc(max_tasks, sizeof(*rows));
	struct wis_config cfg;
	enum wis_status st = WIS_OK;
	enum bench_status bst = BENCH_OK;	/* the exit status's, as st */
	struct strbuf why = STRBUF_INIT;
	const char *svg_path = v[WIS_P_SVG].text;
	FILE *svg = NULL;
	size_t n = 0;
	int ret = 0;

	if (!rows) {
		fprintf(stderr, "perfbot: bench: out of memory\n");
		return EXIT_FAILED;
	}
	/* a plot that cannot be written is known before minutes of measuring */
	if (svg_path && !(svg = fopen(svg_path, "w"))) {
		ret = usage_error("cannot write --svg '%s': %s", svg_path, strerror(errno));
		free(rows);
		return ret;
	}
	wis_config_from_args(args, &cfg);
	for (unsigned tasks = 1; tasks <= max_tasks && st == WIS_OK; tasks++) {
		struct wis_sweep_row *row = &rows[n++];

		row->tasks = tasks;
		for (int m = 0; m < 2 && st == WIS_OK; m++) {
			struct bench_args a = *args;
			struct bench_run run = { .args = &a, .stop = &interrupted };
			struct bench_result res;
			const struct wis_result *r;

			if (!both_modes && (enum wis_mode)m != cfg.mode)
				continue;
			/* this step's mode and tasks, as if given */
			a.v[WIS_P_MODE].v.choice = (enum wis_mode)m == WIS_THREAD
						   ? WIS_MODE_THREAD : WIS_MODE_PROCESS;
			a.v[WIS_P_NR_TASK].v.n = tasks;
			bst = bench_type_run(t, &run, &res);
			r = res.detail;
			if (!r) {
				st = WIS_ERROR;
				strbuf_addstr(&why, res.why);
			} else if ((st = r->status) == WIS_OK) {
				row->have[m] = true;
				row->ops[m] = r->workload;
				row->idle[m] = r->idle_pct;
				fprintf(stderr, "sweep: %s %u %s: %.0f ops/s\n",
					cfg.test->name, tasks,
					task_noun(tasks, (enum wis_mode)m), r->workload);
			} else {
				strbuf_addf(&why, "%u %s: %s", tasks,
					    task_noun(tasks, (enum wis_mode)m), r->why);
			}
			bench_result_release(&res);
		}
		if (st != WIS_OK && !row->have[0] && !row->have[1])
			n--;	/* nothing measured at this count */
	}
	wis_sweep_linear(rows, n);
	if (json)
		ret = cmd_print_json("bench", wis_sweep_json(&cfg, rows, n, st, why.buf, ctx));
	else if (n)
		print_sweep(rows, n, v[WIS_P_CSV].v.on ? WIS_FORMAT_CSV : v[WIS_P_FORMAT].v.choice);
	if (svg && write_sweep_svg(svg, svg_path, &cfg, rows, n, both_modes) && !ret)
		ret = -1;
	if (st != WIS_OK)
		fprintf(stderr, "perfbot: bench: sweep %s: %s%s\n",
			wis_status_name(st),
			st == WIS_UNSUPPORTED ? "unsupported: " : "",
			strbuf_error(&why) ? "out of memory" : why.buf);
	strbuf_release(&why);
	free(rows);
	return ret ? EXIT_FAILED : bench_cli_exit(bst);
}

static int check(const struct bench_args *a, bool json)
{
	if ((a->v[WIS_P_CSV].v.on || a->v[WIS_P_FORMAT].given) && json)
		return usage_error("--%s and --json do not go together",
				   a->v[WIS_P_CSV].v.on ? "csv" : "format");
	return 0;
}

static int run(const struct bench_type *t, const struct bench_args *a, bool json)
{
	struct wis_json_context ctx = { .version = PERFBOT_VERSION };
	int ret;

	ctx.aslr_disabled = disable_aslr();
	ctx.cpus_online = online_cpus();
	ret = bench_cli_start();
	if (ret)
		return ret;
	if (a->v[WIS_P_SWEEP].v.on)
		return run_sweep(t, a, json, &ctx);
	return run_one(t, a, json, &ctx);
}

const struct bench_cli bench_cli_wis = {
	.type = "will-it-scale",
	.check = check,
	.run = run,
};
