/*
 * bench.c - perfbot bench: list the catalogue, run one will-it-scale test,
 * or sweep 1..N tasks.
 */
#define _GNU_SOURCE
#include "bench/bench.h"
#include "bench/wis.h"
#include "bench/wis_json.h"
#include "bench/wis_sweep.h"
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "util/cpus.h"
#include "util/interrupt.h"
#include "util/parse.h"
#include "version.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

static const char bench_usage[] =
	"usage: perfbot bench                      list the tests\n"
	"   or: perfbot bench TEST [options]       run one test\n"
	"   or: perfbot bench TEST --sweep [--max N] [-m process|thread|both] [--csv]\n"
	"\n"
	"  -t, --tasks N|N%%      tasks to run: N, or N%% of the online CPUs rounded\n"
	"                        down, at least 1 (default 1; at most %d)\n"
	"  -m, --mode MODE       process or thread (default process; a sweep\n"
	"                        also takes both, its default)\n"
	"  -d, --duration TIME   measurement after warm-up (default 10s)\n"
	"  -w, --warmup TIME     warm-up, not measured (default 5s, as upstream)\n"
	"  -i, --interval TIME   one sample per interval (default 1s)\n"
	"      --no-affinity     let the scheduler place tasks (default: bound\n"
	"                        round-robin to the usable CPUs, cores first)\n"
	"      --json            print the result and samples as JSON (docs/bench.md)\n"
	"      --sweep           run 1..N tasks and print the scaling table\n"
	"      --max N           the sweep's largest task count (default: online CPUs)\n"
	"      --csv             print the sweep table as CSV\n"
	"  -h, --help            show this help\n"
	"\n"
	"TIME is seconds, or a number with ms, s, m or h.  Exit status: 0 done,\n"
	"1 the run failed, 2 bad usage, 77 the test is unsupported here,\n"
	"128+signal when interrupted (what was measured is printed first).\n";

struct bench_opts {
	const char *test_name;
	const char *tasks;
	const char *mode;
	unsigned max_tasks;
	bool max_given;
	double warmup_s, duration_s, interval_s;
	bool affinity, json, sweep, csv;
};

#define usage_error(...) cmd_usage_error("bench", __VA_ARGS__)

static void list_tests(void)
{
	printf("will-it-scale tests (perfbot bench TEST --help for options):\n");
	for (size_t i = 0; i < bench_table_size; i++)
		if (bench_table[i].kind == BENCH_WIS && !bench_hidden(&bench_table[i]))
			printf("  %-18s %s\n", bench_name(&bench_table[i]),
			       bench_desc(&bench_table[i]));
	printf("\nother benchmarks (perfbot bench NAME --help):\n");
	for (size_t i = 0; i < bench_table_size; i++)
		if (bench_table[i].kind != BENCH_WIS)
			printf("  %-18s %s\n", bench_name(&bench_table[i]),
			       bench_desc(&bench_table[i]));
}

static int parse_time_opt(const char *opt, const char *arg, double *out)
{
	return cmd_parse_duration("bench", opt, arg, out);
}

static int parse_args(int argc, char **argv, struct bench_opts *o)
{
	enum { OPT_NO_AFFINITY = 256, OPT_JSON, OPT_SWEEP, OPT_MAX, OPT_CSV };
	static const struct option longopts[] = {
		{ "tasks", required_argument, NULL, 't' },
		{ "mode", required_argument, NULL, 'm' },
		{ "duration", required_argument, NULL, 'd' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "interval", required_argument, NULL, 'i' },
		{ "no-affinity", no_argument, NULL, OPT_NO_AFFINITY },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "sweep", no_argument, NULL, OPT_SWEEP },
		{ "max", required_argument, NULL, OPT_MAX },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":t:m:d:w:i:h", longopts, NULL)) != -1) {
		unsigned long v;

		switch (c) {
		case 't':
			o->tasks = optarg;
			break;
		case 'm':
			o->mode = optarg;
			break;
		case 'd':
			if (parse_time_opt("duration", optarg, &o->duration_s))
				return EXIT_USAGE;
			break;
		case 'w':
			if (parse_time_opt("warm-up", optarg, &o->warmup_s))
				return EXIT_USAGE;
			break;
		case 'i':
			if (parse_time_opt("interval", optarg, &o->interval_s))
				return EXIT_USAGE;
			break;
		case OPT_NO_AFFINITY:
			o->affinity = false;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_SWEEP:
			o->sweep = true;
			break;
		case OPT_MAX:
			switch (parse_ulong(optarg, 1, WIS_MAX_TASKS, &v)) {
			case PARSE_OK:
				break;
			case PARSE_TOO_LARGE:
				return usage_error("--max %s is more than %d tasks",
						   optarg, WIS_MAX_TASKS);
			default:
				return usage_error("invalid --max '%s': expected a task count of at least 1",
						   optarg);
			}
			o->max_tasks = (unsigned)v;
			o->max_given = true;
			break;
		case OPT_CSV:
			o->csv = true;
			break;
		case 'h':
			printf(bench_usage, WIS_MAX_TASKS);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		o->test_name = argv[optind++];
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* Everything that can be checked before anything starts. */
static int validate(struct bench_opts *o, struct wis_config *cfg,
		    bool *both_modes)
{
	const struct bench_entry *b = bench_find(o->test_name);
	const struct wis_test *test = b && b->kind == BENCH_WIS ? b->wis : NULL;

	if (b && !test)
		return usage_error("options of %s go after its name: perfbot bench %s [options]",
				   o->test_name, o->test_name);
	if (!test) {
		const struct bench_entry *near = bench_suggest(o->test_name);

		if (near)
			return usage_error("unknown test '%s' (did you mean '%s'?)",
					   o->test_name, bench_name(near));
		return usage_error("unknown test '%s' ('perfbot bench' lists them)",
				   o->test_name);
	}
	cfg->test = test;
	*both_modes = false;
	if (!o->mode || !strcmp(o->mode, "process"))
		cfg->mode = WIS_PROCESS;
	else if (!strcmp(o->mode, "thread") || !strcmp(o->mode, "threads"))
		cfg->mode = WIS_THREAD;
	else if (o->sweep && !strcmp(o->mode, "both"))
		*both_modes = true;
	else
		return usage_error("invalid mode '%s': expected process, thread%s",
				   o->mode, o->sweep ? " or both" : "");
	if (o->sweep && !o->mode)
		*both_modes = true;

	if (o->tasks) {
		switch (parse_task_count(o->tasks, online_cpus(), WIS_MAX_TASKS,
					 &cfg->nr_tasks)) {
		case PARSE_OK:
			break;
		case PARSE_TOO_LARGE:
			return usage_error("-t %s is more than %d tasks", o->tasks,
					   WIS_MAX_TASKS);
		case PARSE_TOO_SMALL:
			return usage_error("invalid task count '%s': must be at least 1 (or a percentage above 0%%)",
					   o->tasks);
		default:
			return usage_error("invalid task count '%s': expected N or N%%",
					   o->tasks);
		}
	}
	if (o->sweep && o->tasks)
		return usage_error("-t and --sweep do not go together: the sweep runs 1..--max tasks");
	if (!o->sweep && (o->max_given || o->csv))
		return usage_error("%s is only for --sweep", o->csv ? "--csv" : "--max");
	if (o->csv && o->json)
		return usage_error("--csv and --json do not go together");
	if (!(o->interval_s > 0))
		return usage_error("invalid interval '%g s': must be above 0", o->interval_s);
	if (!(o->duration_s > 0))
		return usage_error("invalid duration '%g s': must be above 0", o->duration_s);
	if (o->duration_s < o->interval_s)
		return usage_error("duration %g s is shorter than the interval %g s",
				   o->duration_s, o->interval_s);
	if (o->warmup_s < 0)
		return usage_error("invalid warm-up '%g s': must not be negative",
				   o->warmup_s);
	if (o->duration_s / o->interval_s > 1e6)
		return usage_error("duration %g s at interval %g s is over a million samples",
				   o->duration_s, o->interval_s);
	cfg->warmup_s = o->warmup_s;
	cfg->duration_s = o->duration_s;
	cfg->interval_s = o->interval_s;
	cfg->affinity = o->affinity;
	cfg->stop = &interrupted;
	if (!o->max_given)
		o->max_tasks = online_cpus() < WIS_MAX_TASKS ? online_cpus()
							      : WIS_MAX_TASKS;
	return 0;
}

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

static void print_sample(const struct wis_sample *s, size_t idx, void *arg)
{
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

static int exit_status(enum wis_status st)
{
	if (interrupted)
		return 128 + interrupted;
	switch (st) {
	case WIS_OK:
		return EXIT_OK;
	case WIS_UNSUPPORTED:
		return EXIT_UNSUPPORTED;
	default:
		return EXIT_FAILED;
	}
}

static int run_one(struct wis_config *cfg, const struct bench_opts *o,
		   const struct wis_json_context *ctx)
{
	struct wis_result r;
	enum wis_status st;
	int ret;

	if (!o->json) {
		printf("%s: %s\n", cfg->test->name, cfg->test->desc);
		printf("%u %s, %s, ASLR %s; %g s of %g s samples after %g s warm-up\n",
		       cfg->nr_tasks, task_noun(cfg->nr_tasks, cfg->mode),
		       cfg->affinity ? "bound to CPUs" : "unbound",
		       ctx->aslr_disabled ? "off" : "on",
		       cfg->duration_s, cfg->interval_s, cfg->warmup_s);
		if (cfg->test->partner)
			printf("each task has a partner task on its CPU\n");
		cfg->on_sample = print_sample;
		cfg->on_phase = print_phase;
		cfg->arg = cfg;
		fflush(stdout);
	}
	st = wis_run(cfg, &r);
	if (o->json) {
		ret = cmd_print_json("bench", wis_result_json(cfg, &r, ctx));
	} else {
		print_result(cfg, &r);
		ret = 0;
	}
	if (st == WIS_UNSUPPORTED || st == WIS_ERROR || st == WIS_FAILED)
		fprintf(stderr, "perfbot: bench: %s: %s%s\n", cfg->test->name,
			st == WIS_UNSUPPORTED ? "unsupported: " : "", r.why);
	wis_result_release(&r);
	return ret ? EXIT_FAILED : exit_status(st);
}

/* ---- the sweep --------------------------------------------------------- */

static void print_sweep(const struct wis_sweep_row *rows, size_t n, bool csv)
{
	static const char *const col[2] = { "processes", "threads" };

	if (csv)
		printf("tasks,processes,processes_idle,threads,threads_idle,linear\n");
	else
		printf("%5s %14s %14s %14s %14s %14s\n", "tasks", "processes",
		       "processes_idle", "threads", "threads_idle", "linear");
	for (size_t i = 0; i < n; i++) {
		const struct wis_sweep_row *row = &rows[i];

		printf(csv ? "%u" : "%5u", row->tasks);
		for (int m = 0; m < 2; m++) {
			if (!row->have[m])
				printf(csv ? ",," : " %14s %14s", "-", "-");
			else if (csv)
				printf(",%.0f,%.2f", row->ops[m], row->idle[m]);
			else
				printf(" %14.0f %14.2f", row->ops[m], row->idle[m]);
		}
		printf(csv ? ",%.0f\n" : " %14.0f\n", row->linear);
	}
	/* CSV stays pure CSV on stdout; the derived figure goes to stderr */
	for (int m = 0; m < 2; m++) {
		double s = wis_sweep_scalability(rows, n, (enum wis_mode)m);

		if (!isnan(s))
			fprintf(csv ? stderr : stdout, "scalability %-9s %.3f (at %u tasks)\n",
				col[m], s, rows[n - 1].tasks);
	}
}

static int run_sweep(struct wis_config *cfg, const struct bench_opts *o,
		     bool both_modes, const struct wis_json_context *ctx)
{
	struct wis_sweep_row *rows = calloc(o->max_tasks, sizeof(*rows));
	enum wis_status st = WIS_OK;
	char why[WIS_WHY_MAX + 64] = "";
	size_t n = 0;
	int ret = 0;

	if (!rows) {
		fprintf(stderr, "perfbot: bench: out of memory\n");
		return EXIT_FAILED;
	}
	for (unsigned tasks = 1; tasks <= o->max_tasks && st == WIS_OK; tasks++) {
		struct wis_sweep_row *row = &rows[n++];

		row->tasks = tasks;
		for (int m = 0; m < 2 && st == WIS_OK; m++) {
			struct wis_config c = *cfg;
			struct wis_result r;

			if (!both_modes && (enum wis_mode)m != cfg->mode)
				continue;
			c.mode = (enum wis_mode)m;
			c.nr_tasks = tasks;
			st = wis_run(&c, &r);
			if (st == WIS_OK) {
				row->have[m] = true;
				row->ops[m] = r.workload;
				row->idle[m] = r.idle_pct;
				fprintf(stderr, "sweep: %s %u %s: %.0f ops/s\n",
					cfg->test->name, tasks,
					task_noun(tasks, c.mode), r.workload);
			} else {
				snprintf(why, sizeof(why), "%u %s: %s", tasks,
					 task_noun(tasks, c.mode), r.why);
			}
			wis_result_release(&r);
		}
		if (st != WIS_OK && !row->have[0] && !row->have[1])
			n--;	/* nothing measured at this count */
	}
	wis_sweep_linear(rows, n);
	if (o->json)
		ret = cmd_print_json("bench", wis_sweep_json(cfg, rows, n, st, why, ctx));
	else if (n)
		print_sweep(rows, n, o->csv);
	if (st != WIS_OK)
		fprintf(stderr, "perfbot: bench: sweep %s: %s%s\n",
			wis_status_name(st),
			st == WIS_UNSUPPORTED ? "unsupported: " : "", why);
	free(rows);
	return ret ? EXIT_FAILED : exit_status(st);
}

int cmd_bench(int argc, char **argv)
{
	struct bench_opts o = {
		.warmup_s = 5, .duration_s = 10, .interval_s = 1,
		.affinity = true,
	};
	struct wis_config cfg = { .nr_tasks = 1 };
	struct wis_json_context ctx = { .version = PERFBOT_VERSION };
	bool both_modes = false;
	const struct bench_entry *b = argc > 1 ? bench_find(argv[1]) : NULL;
	int ret;

	/* hackbench and netperf have options of their own */
	if (b && b->kind == BENCH_HACKBENCH)
		return cmd_bench_hackbench(argc - 1, argv + 1);
	if (b && b->kind == BENCH_NETPERF)
		return cmd_bench_netperf(argc - 1, argv + 1);
	ret = parse_args(argc, argv, &o);

	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (!o.test_name) {
		if (o.sweep || o.json || o.tasks || o.mode)
			return usage_error("options given but no test; 'perfbot bench' lists them");
		list_tests();
		return EXIT_OK;
	}
	ret = validate(&o, &cfg, &both_modes);
	if (ret)
		return ret;

	ctx.aslr_disabled = disable_aslr();
	ctx.cpus_online = online_cpus();
	ret = cmd_lifetime_start("bench");
	if (ret)
		return ret;
	interrupt_install();
	if (o.sweep)
		return run_sweep(&cfg, &o, both_modes, &ctx);
	return run_one(&cfg, &o, &ctx);
}
