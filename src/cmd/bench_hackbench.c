/*
 * bench_hackbench.c - perfbot bench hackbench: rt-tests' options, its
 * output lines (so LKP's stats script reads them), and the figures LKP
 * derives from them.
 */
#define _GNU_SOURCE
#include "bench/hackbench.h"
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "util/cpus.h"
#include "util/interrupt.h"
#include "util/parse.h"
#include "version.h"

#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char hackbench_usage[] =
	"usage: perfbot bench hackbench [options]\n"
	"\n"
	"GROUPS groups of FDS senders and FDS receivers; each sender writes LOOPS\n"
	"messages of BYTES bytes to every receiver of its group.  Time: from the\n"
	"start signal until every worker is done.  Defaults as rt-tests' hackbench.\n"
	"\n"
	"  -g, --groups N|N%%     groups (default %d); N%% of the online CPUs,\n"
	"                        rounded down, at least 1 (as LKP's nr_threads)\n"
	"  -f, --fds N           senders, and receivers, per group (default %d)\n"
	"  -l, --loops N         messages from each sender to each receiver\n"
	"                        (default %d)\n"
	"  -s, --datasize BYTES  bytes per message (default %d)\n"
	"  -p, --pipe            pipes instead of AF_UNIX socketpairs\n"
	"  -T, --threads         workers are threads\n"
	"  -P, --processes       workers are processes (the default)\n"
	"  -i, --iterations N    run hackbench N times (default 1, at most %d)\n"
	"      --timeout TIME    give up on an iteration that has not finished\n"
	"                        after TIME, setup included (default %gs)\n"
	"      --json            print the result as JSON (docs/hackbench.md)\n"
	"  -h, --help            show this help\n"
	"\n"
	"TIME is seconds, or a number with ms, s, m or h.  throughput is LKP's:\n"
	"groups x 2 x FDS x LOOPS x BYTES / 1024 KiB per iteration, over the mean\n"
	"time.  Exit status: 0 done, 1 failed or timed out, 2 bad usage,\n"
	"128+signal when interrupted (finished iterations are printed first).\n";

struct hb_opts {
	const char *groups, *fds, *loops, *bytes, *iterations, *timeout;
	bool json;
};

#define usage_error(...) cmd_usage_error("bench: hackbench", __VA_ARGS__)

static int parse_args(int argc, char **argv, struct hb_opts *o,
		      struct hackbench_config *cfg)
{
	enum { OPT_TIMEOUT = 256, OPT_JSON };
	static const struct option longopts[] = {
		{ "groups", required_argument, NULL, 'g' },
		{ "fds", required_argument, NULL, 'f' },
		{ "loops", required_argument, NULL, 'l' },
		{ "datasize", required_argument, NULL, 's' },
		{ "pipe", no_argument, NULL, 'p' },
		{ "threads", no_argument, NULL, 'T' },
		{ "processes", no_argument, NULL, 'P' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":g:f:l:s:pTPi:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'g':
			o->groups = optarg;
			break;
		case 'f':
			o->fds = optarg;
			break;
		case 'l':
			o->loops = optarg;
			break;
		case 's':
			o->bytes = optarg;
			break;
		case 'p':
			cfg->pipe = true;
			break;
		case 'T':
			cfg->threads = true;
			break;
		case 'P':
			cfg->threads = false;
			break;
		case 'i':
			o->iterations = optarg;
			break;
		case OPT_TIMEOUT:
			o->timeout = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case 'h':
			printf(hackbench_usage, HACKBENCH_DEF_GROUPS, HACKBENCH_DEF_FDS,
			       HACKBENCH_DEF_LOOPS, HACKBENCH_DEF_BYTES,
			       HACKBENCH_MAX_ITERATIONS, HACKBENCH_DEF_TIMEOUT_S);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* One count option: "invalid <noun> '<value>': <why>". */
static int parse_count(const char *noun, const char *value, unsigned long max,
		       unsigned long *out)
{
	switch (parse_ulong(value, 1, max, out)) {
	case PARSE_OK:
		return 0;
	case PARSE_TOO_LARGE:
		return usage_error("invalid %s '%s': at most %lu", noun, value, max);
	case PARSE_TOO_SMALL:
		return usage_error("invalid %s '%s': must be at least 1", noun, value);
	default:
		return usage_error("invalid %s '%s': expected a whole number", noun,
				   value);
	}
}

/* Everything that can be checked before anything starts. */
static int validate(const struct hb_opts *o, struct hackbench_config *cfg)
{
	unsigned long v;

	if (o->groups) {
		switch (parse_task_count(o->groups, online_cpus(),
					 HACKBENCH_MAX_GROUPS, &cfg->groups)) {
		case PARSE_OK:
			break;
		case PARSE_TOO_LARGE:
			return usage_error("invalid group count '%s': at most %d",
					   o->groups, HACKBENCH_MAX_GROUPS);
		case PARSE_TOO_SMALL:
			return usage_error("invalid group count '%s': must be at least 1 (or a percentage above 0%%)",
					   o->groups);
		default:
			return usage_error("invalid group count '%s': expected N or N%%",
					   o->groups);
		}
	}
	if (o->fds) {
		if (parse_count("fd count", o->fds, HACKBENCH_MAX_FDS, &v))
			return EXIT_USAGE;
		cfg->fds = (unsigned)v;
	}
	if (o->loops && parse_count("loop count", o->loops, HACKBENCH_MAX_LOOPS,
				    &cfg->loops))
		return EXIT_USAGE;
	if (o->bytes && parse_count("message size", o->bytes, HACKBENCH_MAX_BYTES,
				    &cfg->bytes))
		return EXIT_USAGE;
	if (o->iterations) {
		if (parse_count("iteration count", o->iterations,
				HACKBENCH_MAX_ITERATIONS, &v))
			return EXIT_USAGE;
		cfg->iterations = (unsigned)v;
	}
	if (o->timeout) {
		if (cmd_parse_duration("bench: hackbench", "timeout", o->timeout,
				       &cfg->timeout_s))
			return EXIT_USAGE;
		if (!(cfg->timeout_s > 0))
			return usage_error("invalid timeout '%s': must be above 0",
					   o->timeout);
		if (cfg->timeout_s > HACKBENCH_MAX_TIMEOUT_S)
			return usage_error("invalid timeout '%s': at most 7 days",
					   o->timeout);
	}
	if (hackbench_tasks(cfg) > HACKBENCH_MAX_TASKS)
		return usage_error("%u groups of 2 x %u tasks is %lu tasks, more than %u",
				   cfg->groups, cfg->fds, hackbench_tasks(cfg),
				   HACKBENCH_MAX_TASKS);
	/* the library's own check: nothing above may let a bad run through */
	if (hackbench_config_invalid(cfg))
		return usage_error("%s", hackbench_config_invalid(cfg));
	return 0;
}

static void print_time(unsigned idx, double secs, void *arg)
{
	(void)idx;
	(void)arg;
	/* hackbench's format: milliseconds, truncated */
	printf("Time: %lu.%03lu\n", (unsigned long)secs,
	       (unsigned long)((secs - floor(secs)) * 1000));
	fflush(stdout);
}

static void print_result(const struct hackbench_result *r)
{
	printf("status: %s", hackbench_status_name(r->status));
	if (r->status != HACKBENCH_OK)
		printf(" (%s)", r->why);
	putchar('\n');
	if (!r->nr_times)
		return;
	printf("%-16s %.2f KiB/s\n", "throughput", r->throughput);
	printf("%-16s %.6f s, mean of %u iteration%s\n", "time", r->mean_s,
	       r->nr_times, r->nr_times == 1 ? "" : "s");
}

static json_t *result_json(const struct hackbench_config *cfg,
			   const struct hackbench_result *r)
{
	json_t *o = NULL, *times = json_array();
	bool have = r->nr_times > 0;

	if (!times)
		return NULL;
	for (unsigned i = 0; i < r->nr_times; i++)
		if (json_array_append_new(times, json_real(r->times[i])))
			goto fail;
	o = json_pack("{s:s, s:s, s:I, s:{s:I, s:I, s:I, s:I, s:I, s:s, s:s, s:I, s:f},"
		      " s:s, s:b, s:o, s:O, s:o, s:f, s:o}",
		      "perfbot_version", PERFBOT_VERSION,
		      "benchmark", "hackbench",
		      "cpus_online", (json_int_t)online_cpus(),
		      "parameters",
		      "groups", (json_int_t)cfg->groups,
		      "fds", (json_int_t)cfg->fds,
		      "tasks", (json_int_t)hackbench_tasks(cfg),
		      "loops", (json_int_t)cfg->loops,
		      "datasize", (json_int_t)cfg->bytes,
		      "mode", hackbench_mode_name(cfg),
		      "ipc", hackbench_ipc_name(cfg),
		      "iterations", (json_int_t)cfg->iterations,
		      "timeout_s", cfg->timeout_s,
		      "status", hackbench_status_name(r->status),
		      "incomplete", r->status == HACKBENCH_INCOMPLETE,
		      "reason", r->status == HACKBENCH_OK ? json_null()
							   : json_string(r->why),
		      "times", times,
		      "time", have ? json_real(r->mean_s) : json_null(),
		      "kib_per_iteration", r->kib,
		      "throughput", have ? json_real(r->throughput) : json_null());
fail:
	json_decref(times);
	return o;
}

static int exit_status(enum hackbench_status st)
{
	if (interrupted)
		return 128 + interrupted;
	return st == HACKBENCH_OK ? EXIT_OK : EXIT_FAILED;
}

int cmd_bench_hackbench(int argc, char **argv)
{
	struct hackbench_config cfg;
	struct hackbench_result *r = NULL;
	struct hb_opts o = { 0 };
	enum hackbench_status st;
	int ret;

	hackbench_config_init(&cfg);
	ret = parse_args(argc, argv, &o, &cfg);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	ret = validate(&o, &cfg);
	if (ret)
		return ret;
	/* the result holds every iteration's time: too big for the stack */
	ret = cmd_lifetime_start("bench");
	if (ret)
		return ret;
	r = malloc(sizeof(*r));
	if (!r) {
		fprintf(stderr, "perfbot: bench: hackbench: out of memory\n");
		return EXIT_FAILED;
	}

	interrupt_install();
	cfg.stop = &interrupted;
	if (!o.json) {
		/* hackbench's own lines, which LKP's stats script parses */
		printf("Running in %s mode with %u groups using %u file descriptors each (== %lu tasks)\n",
		       cfg.threads ? "threaded" : "process", cfg.groups,
		       2 * cfg.fds, hackbench_tasks(&cfg));
		printf("Each sender will pass %lu messages of %lu bytes\n",
		       cfg.loops, cfg.bytes);
		fflush(stdout);
		cfg.on_iteration = print_time;
	}
	st = hackbench_run(&cfg, r);
	if (o.json) {
		ret = cmd_print_json("bench: hackbench", result_json(&cfg, r));
	} else {
		print_result(r);
		ret = 0;
	}
	if (st == HACKBENCH_FAILED || st == HACKBENCH_ERROR)
		fprintf(stderr, "perfbot: bench: hackbench: %s\n", r->why);
	free(r);
	return ret ? EXIT_FAILED : exit_status(st);
}
