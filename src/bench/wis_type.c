/*
 * wis_type.c - will-it-scale's parameter and stat tables and its run(),
 * over the engine of wis.h.  See wis_type.h.
 */
#include "bench/wis_type.h"
#include "util/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIS_TEST(name) extern const struct wis_test wis_test_##name;
#include "bench/wis/list.h"
#undef WIS_TEST

static const struct wis_test *const catalogue[] = {
#define WIS_TEST(name) &wis_test_##name,
#include "bench/wis/list.h"
#undef WIS_TEST
};

#define NR_TESTS (sizeof(catalogue) / sizeof(catalogue[0]))

const struct wis_test *wis_find_test(const char *name)
{
	for (size_t i = 0; i < NR_TESTS; i++)
		if (!strcmp(catalogue[i]->name, name))
			return catalogue[i];
	return NULL;
}

static bool test_at(size_t i, struct bench_choice *out)
{
	if (i >= NR_TESTS)
		return false;
	*out = (struct bench_choice){
		.name = catalogue[i]->name,
		.help = catalogue[i]->desc,
		.flags = catalogue[i]->hidden ? BENCH_CHOICE_HIDDEN : 0,
	};
	return true;
}

static const struct bench_choice modes[] = {
	[WIS_MODE_PROCESS] = { .name = "process",
			   .aliases = (const char *const[]){ "processes", NULL },
			   .help = "each task is a process" },
	[WIS_MODE_THREAD] = { .name = "thread",
			  .aliases = (const char *const[]){ "threads", NULL },
			  .help = "each task is a thread of one process" },
	[WIS_MODE_BOTH] = { .name = "both", .flags = BENCH_CHOICE_CLI_ONLY,
			    .help = "a sweep only: processes, then threads" },
	{ 0 },
};

static const struct bench_choice formats[] = {
	[WIS_FORMAT_TEXT] = { .name = "text", .help = "aligned columns" },
	[WIS_FORMAT_CSV] = { .name = "csv", .help = "will-it-scale's runtest CSV (as --csv)" },
	[WIS_FORMAT_MARKDOWN] = { .name = "markdown", .help = "a GitHub/GitLab pipe table" },
	{ 0 },
};

static const struct bench_param params[] = {
	[WIS_P_TEST] = {
		.key = "test", .type = BENCH_ENUM, .flags = BENCH_REQUIRED,
		.metavar = "TEST", .choice_at = test_at,
		.help = "the test: one loop of the catalogue, below",
	},
	[WIS_P_MODE] = {
		.key = "mode", .type = BENCH_ENUM, .opt = 'm', .long_opt = "mode",
		.metavar = "MODE", .choices = modes, .def = WIS_MODE_PROCESS,
		.help = "process or thread; a sweep also takes both, its default",
	},
	[WIS_P_NR_TASK] = {
		.key = "nr_task", .noun = "task count", .type = BENCH_TASKS,
		.opt = 't', .long_opt = "tasks", .metavar = "N|N%",
		.max = WIS_MAX_TASKS, .unit = "tasks", .def = 1,
		.help = "tasks to run: N, or N% of the online CPUs rounded down, at least 1",
	},
	[WIS_P_RUNTIME] = {
		.key = "runtime", .noun = "duration", .type = BENCH_DURATION,
		.flags = BENCH_GENERIC | BENCH_ABOVE_MIN | BENCH_QUOTE_SECONDS,
		.opt = 'd', .long_opt = "duration", .metavar = "TIME",
		.def_s = BENCH_DEFAULT_RUNTIME_S,
		.help = "the measurement, after warm-up",
	},
	[WIS_P_WARMUP] = {
		.key = "warmup", .noun = "warm-up", .type = BENCH_DURATION,
		.flags = BENCH_QUOTE_SECONDS, .opt = 'w', .long_opt = "warmup",
		.metavar = "TIME", .def_s = 5,
		.def_text = "5s (upstream discards its first 6 one-second samples); in a job at most half the runtime",
		.help = "warm-up, not measured",
	},
	[WIS_P_INTERVAL] = {
		.key = "interval", .type = BENCH_DURATION,
		.flags = BENCH_CLI_ONLY | BENCH_ABOVE_MIN | BENCH_QUOTE_SECONDS,
		.opt = 'i', .long_opt = "interval", .metavar = "TIME", .def_s = 1,
		.def_text = "1s; in a job at most the runtime",
		.help = "one sample per interval",
	},
	[WIS_P_AFFINITY] = {
		.key = "affinity", .type = BENCH_BOOL, .flags = BENCH_CLI_ONLY,
		.long_opt = "no-affinity", .def = 1,
		.help = "let the scheduler place tasks (default: bound round-robin to the usable CPUs, cores first)",
	},
	[WIS_P_SWEEP] = {
		.key = "sweep", .type = BENCH_BOOL, .flags = BENCH_CLI_ONLY,
		.long_opt = "sweep",
		.help = "run 1..N tasks and print the scaling table",
	},
	[WIS_P_MAX] = {
		.key = "max", .noun = "--max", .type = BENCH_COUNT,
		.flags = BENCH_CLI_ONLY, .long_opt = "max", .metavar = "N",
		.min = 1, .max = WIS_MAX_TASKS, .unit = "tasks",
		.def_text = "online CPUs",
		.help = "the sweep's largest task count",
	},
	[WIS_P_CSV] = {
		.key = "csv", .type = BENCH_BOOL, .flags = BENCH_CLI_ONLY,
		.long_opt = "csv",
		.help = "print the sweep table as CSV",
	},
	[WIS_P_FORMAT] = {
		.key = "format", .type = BENCH_ENUM, .flags = BENCH_CLI_ONLY,
		.long_opt = "format", .metavar = "FMT", .choices = formats,
		.def = WIS_FORMAT_TEXT,
		.help = "the sweep table: text, csv or markdown",
	},
	[WIS_P_SVG] = {
		.key = "svg", .type = BENCH_PATH, .flags = BENCH_CLI_ONLY,
		.long_opt = "svg", .metavar = "FILE",
		.help = "also draw will-it-scale's plot of the sweep into FILE (SVG)",
	},
};

_Static_assert(sizeof(params) / sizeof(params[0]) == WIS_NR_PARAMS,
	       "a row for every enum wis_row");

enum { S_PER_PROCESS, S_PER_THREAD, S_WORKLOAD };

static const struct bench_stat_decl stats[] = {
	[S_PER_PROCESS] = { "per_process_ops", "ops/s", STAT_BETTER_HIGHER, true,
			    "mode: process", "workload / tasks, as LKP names it" },
	[S_PER_THREAD] = { "per_thread_ops", "ops/s", STAT_BETTER_HIGHER, true,
			   "mode: thread", "workload / tasks, as LKP names it" },
	[S_WORKLOAD] = { "workload", "ops/s", STAT_BETTER_HIGHER, true, NULL,
			 "all operations in the samples / their total time" },
};

void wis_config_from_args(const struct bench_args *a, struct wis_config *cfg)
{
	const struct bench_arg *v = a->v;

	memset(cfg, 0, sizeof(*cfg));
	cfg->test = catalogue[v[WIS_P_TEST].v.choice];
	cfg->mode = v[WIS_P_MODE].v.choice == WIS_MODE_THREAD ? WIS_THREAD : WIS_PROCESS;
	cfg->nr_tasks = (unsigned)v[WIS_P_NR_TASK].v.n;
	cfg->duration_s = v[WIS_P_RUNTIME].v.s;
	cfg->warmup_s = v[WIS_P_WARMUP].v.s;
	cfg->interval_s = v[WIS_P_INTERVAL].v.s;
	cfg->affinity = v[WIS_P_AFFINITY].v.on;
	if (a->job) {
		/* upstream warms up 5 s; a short job cannot afford that much */
		if (!v[WIS_P_WARMUP].given)
			cfg->warmup_s = fmin(cfg->warmup_s, cfg->duration_s / 2);
		if (!v[WIS_P_INTERVAL].given && cfg->duration_s < cfg->interval_s)
			cfg->interval_s = cfg->duration_s;
	}
}

static int check(const struct bench_args *a, int *row, struct strbuf *why)
{
	const struct bench_arg *v = a->v;
	double duration = v[WIS_P_RUNTIME].v.s, interval = v[WIS_P_INTERVAL].v.s;
	bool sweep = v[WIS_P_SWEEP].v.on;

	*row = -1;
	if (v[WIS_P_MODE].v.choice == WIS_MODE_BOTH && !sweep) {
		*row = WIS_P_MODE;
		strbuf_addstr(why, "invalid mode 'both': expected process or thread");
		return -1;
	}
	if (sweep && v[WIS_P_NR_TASK].given) {
		*row = WIS_P_NR_TASK;
		strbuf_addstr(why, "-t and --sweep do not go together: the sweep runs 1..--max tasks");
		return -1;
	}
	if (!sweep && (v[WIS_P_MAX].given || v[WIS_P_CSV].given || v[WIS_P_FORMAT].given ||
		       v[WIS_P_SVG].given)) {
		strbuf_addf(why, "%s is only for --sweep",
			    v[WIS_P_CSV].given ? "--csv" :
			    v[WIS_P_FORMAT].given ? "--format" :
			    v[WIS_P_SVG].given ? "--svg" : "--max");
		return -1;
	}
	if (v[WIS_P_CSV].given && v[WIS_P_FORMAT].given &&
	    v[WIS_P_FORMAT].v.choice != WIS_FORMAT_CSV) {
		strbuf_addstr(why, "--csv and --format do not go together (--csv is --format csv)");
		return -1;
	}
	if (a->job)
		return 0;	/* the interval follows a job's runtime */
	if (duration < interval) {
		*row = WIS_P_RUNTIME;
		strbuf_addf(why, "duration %g s is shorter than the interval %g s",
			    duration, interval);
		return -1;
	}
	if (duration / interval > 1e6) {
		*row = WIS_P_RUNTIME;
		strbuf_addf(why, "duration %g s at interval %g s is over a million samples",
			    duration, interval);
		return -1;
	}
	return 0;
}

struct ctx {
	const struct bench_run *run;
};

static void on_sample(const struct wis_sample *s, size_t idx, void *arg)
{
	const struct ctx *c = arg;

	if (c->run->on_progress)
		c->run->on_progress(s, idx, c->run->arg);
}

static void on_phase(const char *phase, void *arg)
{
	const struct ctx *c = arg;

	if (c->run->on_phase)
		c->run->on_phase(phase, c->run->arg);
}

static void free_detail(void *detail)
{
	wis_result_release(detail);
	free(detail);
}

static enum bench_status run(const struct bench_run *run, struct bench_result *out)
{
	struct ctx c = { .run = run };
	struct wis_config cfg;
	struct wis_result *r = calloc(1, sizeof(*r));
	enum wis_status st;

	if (!r)
		return bench_result_fail(out, BENCH_ERROR, "out of memory");
	wis_config_from_args(run->args, &cfg);
	cfg.stop = run->stop;
	cfg.on_sample = on_sample;
	cfg.on_phase = on_phase;
	cfg.arg = &c;
	if (strmap_setf(&out->env, "resolved.nr_task", "%u", cfg.nr_tasks) ||
	    strmap_setf(&out->env, "resolved.warmup_s", "%g", cfg.warmup_s)) {
		free(r);
		return bench_result_fail(out, BENCH_ERROR, "out of memory");
	}
	st = wis_run(&cfg, r);
	out->detail = r;
	out->free_detail = free_detail;
	if (r->nr_samples && (st == WIS_OK || st == WIS_INCOMPLETE)) {
		bench_result_add(out, &stats[cfg.mode == WIS_THREAD ? S_PER_THREAD
								     : S_PER_PROCESS],
				 r->per_task);
		bench_result_add(out, &stats[S_WORKLOAD], r->workload);
	}
	if (st != WIS_OK)
		str_copy_marked(out->why, sizeof(out->why), r->why);
	switch (st) {
	case WIS_OK:
		return BENCH_OK;
	case WIS_INCOMPLETE:
		return BENCH_INCOMPLETE;
	case WIS_UNSUPPORTED:
		return BENCH_UNSUPPORTED;
	case WIS_FAILED:
		return BENCH_FAILED;
	default:
		return BENCH_ERROR;
	}
}

const struct bench_type bench_type_wis = {
	.name = "will-it-scale",
	.desc = "N tasks each run one operation in a loop (will-it-scale's catalogue); ops/s",
	.doc = "docs/bench.md",
	.params = params,
	.nr_params = WIS_NR_PARAMS,
	.stats = stats,
	.nr_stats = sizeof(stats) / sizeof(stats[0]),
	.cli_alias = "test",
	.synopsis =
		"perfbot bench                      list the tests\n"
		"   or: perfbot bench TEST [options]       run one test\n"
		"   or: perfbot bench TEST --sweep [--max N] [-m process|thread|both] [--csv]\n"
		"                                  [--svg FILE]\n",
	.notes =
		"TIME is seconds, or a number with ms, s, m or h.  Exit status: 0 done,\n"
		"1 the run failed, 2 bad usage, 77 the test is unsupported here,\n"
		"128+signal when interrupted (what was measured is printed first).\n",
	.check = check,
	.run = run,
};
