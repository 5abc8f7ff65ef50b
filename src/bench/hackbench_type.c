/*
 * hackbench_type.c - hackbench's parameter and stat tables and its run(),
 * over the engine of hackbench.h.  See hackbench_type.h.
 */
#include "bench/hackbench_type.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

enum { IPC_SOCKET, IPC_PIPE };
enum { MODE_PROCESS, MODE_THREADS };

static const struct bench_choice ipcs[] = {
	[IPC_SOCKET] = { .name = "socket", .help = "AF_UNIX stream socketpairs" },
	[IPC_PIPE] = { .name = "pipe", .opt = 'p', .long_opt = "pipe",
		       .help = "pipes instead of AF_UNIX socketpairs" },
	{ 0 },
};

static const struct bench_choice modes[] = {
	[MODE_PROCESS] = { .name = "process",
			   .aliases = (const char *const[]){ "processes", NULL },
			   .opt = 'P', .long_opt = "processes",
			   .help = "workers are processes (the default)" },
	[MODE_THREADS] = { .name = "threads",
			   .aliases = (const char *const[]){ "thread", NULL },
			   .opt = 'T', .long_opt = "threads",
			   .help = "workers are threads" },
	{ 0 },
};

static const struct bench_param params[] = {
	[HB_P_NR_THREADS] = {
		.key = "nr_threads", .noun = "group count", .type = BENCH_TASKS,
		.opt = 'g', .long_opt = "groups", .metavar = "N|N%",
		.max = HACKBENCH_MAX_GROUPS, .def = HACKBENCH_DEF_GROUPS,
		.help = "groups; N% of the online CPUs, rounded down, at least 1 "
			"(as LKP's nr_threads; in a job it also sets loops to "
			"30000 x CPUs / groups unless loops is given)",
	},
	[HB_P_FDS] = {
		.key = "fds", .noun = "fd count", .type = BENCH_COUNT,
		.flags = BENCH_CLI_ONLY, .opt = 'f', .long_opt = "fds",
		.metavar = "N", .min = 1, .max = HACKBENCH_MAX_FDS,
		.def = HACKBENCH_DEF_FDS,
		.help = "senders, and receivers, per group (LKP keeps 20)",
	},
	[HB_P_LOOPS] = {
		.key = "loops", .noun = "loop count", .type = BENCH_COUNT,
		.opt = 'l', .long_opt = "loops", .metavar = "N", .min = 1,
		.max = HACKBENCH_MAX_LOOPS, .def = HACKBENCH_DEF_LOOPS,
		.help = "messages from each sender to each receiver",
	},
	[HB_P_DATASIZE] = {
		.key = "datasize", .noun = "message size", .type = BENCH_COUNT,
		.opt = 's', .long_opt = "datasize", .metavar = "BYTES", .min = 1,
		.max = HACKBENCH_MAX_BYTES, .def = HACKBENCH_DEF_BYTES,
		.help = "bytes per message",
	},
	[HB_P_IPC] = {
		.key = "ipc", .type = BENCH_ENUM, .choices = ipcs, .def = IPC_SOCKET,
		.help = "what carries the messages",
	},
	[HB_P_MODE] = {
		.key = "mode", .type = BENCH_ENUM, .choices = modes,
		.def = MODE_PROCESS,
		.help = "what the workers are (the last flag given wins)",
	},
	[HB_P_ITERATIONS] = {
		.key = "iterations", .noun = "iteration count", .type = BENCH_COUNT,
		.opt = 'i', .long_opt = "iterations", .metavar = "N", .min = 1,
		.max = HACKBENCH_MAX_ITERATIONS, .def = 1,
		.help = "run hackbench N times",
	},
	[HB_P_TIMEOUT] = {
		.key = "timeout", .type = BENCH_DURATION,
		.flags = BENCH_GENERIC | BENCH_ABOVE_MIN,
		.long_opt = "timeout", .metavar = "TIME",
		.max_s = HACKBENCH_MAX_TIMEOUT_S, .def_s = HACKBENCH_DEF_TIMEOUT_S,
		.def_text = "300s; in a job the job's timeout",
		.help = "give up on an iteration that has not finished after TIME, setup included",
	},
};

_Static_assert(sizeof(params) / sizeof(params[0]) == HB_NR_PARAMS,
	       "a row for every enum hackbench_row");

enum { S_THROUGHPUT, S_TIME };

static const struct bench_stat_decl stats[] = {
	[S_THROUGHPUT] = { "throughput", "KiB/s", STAT_BETTER_HIGHER, true, NULL,
			   "LKP's: groups x 2 x fds x loops x bytes / 1024 per iteration, over the mean time" },
	[S_TIME] = { "time", "s", STAT_BETTER_LOWER, false, NULL,
		     "the mean of the iterations' times" },
};

/* LKP: loops=$(( 30000 * nr_cpu / nr_threads )), at least 1 here */
static unsigned long lkp_loops(unsigned groups, unsigned ncpus)
{
	unsigned long loops = HACKBENCH_LKP_LOOPS_PER_CPU * ncpus / groups;

	if (loops < 1)
		return 1;
	return loops > HACKBENCH_MAX_LOOPS ? HACKBENCH_MAX_LOOPS : loops;
}

void hackbench_config_from_args(const struct bench_args *a,
				struct hackbench_config *cfg)
{
	const struct bench_arg *v = a->v;

	hackbench_config_init(cfg);
	cfg->groups = (unsigned)v[HB_P_NR_THREADS].v.n;
	cfg->fds = (unsigned)v[HB_P_FDS].v.n;
	cfg->loops = v[HB_P_LOOPS].v.n;
	cfg->bytes = v[HB_P_DATASIZE].v.n;
	cfg->pipe = v[HB_P_IPC].v.choice == IPC_PIPE;
	cfg->threads = v[HB_P_MODE].v.choice == MODE_THREADS;
	cfg->iterations = (unsigned)v[HB_P_ITERATIONS].v.n;
	cfg->timeout_s = v[HB_P_TIMEOUT].v.s;
	if (a->job && v[HB_P_NR_THREADS].given && !v[HB_P_LOOPS].given)
		cfg->loops = lkp_loops(cfg->groups, a->ncpus);
}

static int check(const struct bench_args *a, int *row, struct strbuf *why)
{
	struct hackbench_config cfg;
	const char *invalid;

	hackbench_config_from_args(a, &cfg);
	*row = HB_P_NR_THREADS;
	if (hackbench_tasks(&cfg) > HACKBENCH_MAX_TASKS) {
		strbuf_addf(why, "%u groups of 2 x %u tasks is %lu tasks, more than %u",
			    cfg.groups, cfg.fds, hackbench_tasks(&cfg),
			    HACKBENCH_MAX_TASKS);
		return -1;
	}
	/* the engine's own check: nothing above may let a bad run through */
	*row = -1;
	invalid = hackbench_config_invalid(&cfg);
	if (invalid) {
		strbuf_addstr(why, invalid);
		return -1;
	}
	return 0;
}

struct ctx {
	const struct bench_run *run;
};

static void on_iteration(unsigned idx, double secs, void *arg)
{
	const struct ctx *c = arg;

	if (c->run->on_progress)
		c->run->on_progress(&secs, idx, c->run->arg);
}

static void on_phase(const char *phase, void *arg)
{
	const struct ctx *c = arg;

	if (c->run->on_phase)
		c->run->on_phase(phase, c->run->arg);
}

static enum bench_status run(const struct bench_run *run, struct bench_result *out)
{
	struct ctx c = { .run = run };
	struct hackbench_config cfg;
	/* every iteration's time: too big for the stack */
	struct hackbench_result *r = calloc(1, sizeof(*r));
	enum hackbench_status st;

	if (!r)
		return bench_result_fail(out, BENCH_ERROR, "out of memory");
	hackbench_config_from_args(run->args, &cfg);
	cfg.stop = run->stop;
	cfg.on_iteration = on_iteration;
	cfg.on_phase = on_phase;
	cfg.arg = &c;
	if (strmap_setf(&out->env, "resolved.groups", "%u", cfg.groups) ||
	    strmap_setf(&out->env, "resolved.loops", "%lu", cfg.loops)) {
		free(r);
		return bench_result_fail(out, BENCH_ERROR, "out of memory");
	}
	st = hackbench_run(&cfg, r);
	out->detail = r;
	out->free_detail = free;
	if (r->nr_times) {
		bench_result_add(out, &stats[S_THROUGHPUT], r->throughput);
		bench_result_add(out, &stats[S_TIME], r->mean_s);
	}
	if (st != HACKBENCH_OK)
		str_copy_marked(out->why, sizeof(out->why), r->why);
	switch (st) {
	case HACKBENCH_OK:
		return BENCH_OK;
	case HACKBENCH_INCOMPLETE:
		return BENCH_INCOMPLETE;
	case HACKBENCH_FAILED:
		return BENCH_FAILED;
	default:
		return BENCH_ERROR;
	}
}

const struct bench_type bench_type_hackbench = {
	.name = "hackbench",
	.desc = "rt-tests' hackbench: senders to receivers over socketpairs or pipes",
	.doc = "docs/hackbench.md",
	.params = params,
	.nr_params = HB_NR_PARAMS,
	.stats = stats,
	.nr_stats = sizeof(stats) / sizeof(stats[0]),
	.intro =
		"GROUPS groups of FDS senders and FDS receivers; each sender writes LOOPS\n"
		"messages of BYTES bytes to every receiver of its group.  Time: from the\n"
		"start signal until every worker is done.  Defaults as rt-tests' hackbench.\n",
	.notes =
		"TIME is seconds, or a number with ms, s, m or h.  throughput is LKP's:\n"
		"groups x 2 x FDS x LOOPS x BYTES / 1024 KiB per iteration, over the mean\n"
		"time.  Exit status: 0 done, 1 failed or timed out, 2 bad usage,\n"
		"128+signal when interrupted (finished iterations are printed first).\n",
	.check = check,
	.run = run,
};
