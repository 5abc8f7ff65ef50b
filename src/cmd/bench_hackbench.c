/*
 * bench_hackbench.c - the front end of `perfbot bench hackbench`: its
 * output lines (so LKP's stats script reads them), the figures LKP
 * derives from them, and its JSON.  Options and checks are cmd/bench.c's,
 * from the table (bench_cli.h, bench/hackbench_type.h).
 */
#define _GNU_SOURCE
#include "bench/hackbench.h"
#include "bench/hackbench_type.h"
#include "cmd/bench_cli.h"
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "util/cpus.h"
#include "util/interrupt.h"
#include "util/parse.h"
#include "version.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void print_time(const void *event, size_t idx, void *arg)
{
	double secs = *(const double *)event;

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

static int run(const struct bench_type *t, const struct bench_args *a, bool json)
{
	struct hackbench_config cfg;
	struct bench_run run = { .args = a, .stop = &interrupted };
	struct bench_result res;
	const struct hackbench_result *r;
	int ret;

	hackbench_config_from_args(a, &cfg);
	ret = bench_cli_start();
	if (ret)
		return ret;
	if (!json) {
		/* hackbench's own lines, which LKP's stats script parses */
		printf("Running in %s mode with %u groups using %u file descriptors each (== %lu tasks)\n",
		       cfg.threads ? "threaded" : "process", cfg.groups,
		       2 * cfg.fds, hackbench_tasks(&cfg));
		printf("Each sender will pass %lu messages of %lu bytes\n",
		       cfg.loops, cfg.bytes);
		fflush(stdout);
		run.on_progress = print_time;
	}
	bench_type_run(t, &run, &res);
	r = res.detail;
	if (!r) {
		fprintf(stderr, "perfbot: bench: hackbench: %s\n", res.why);
		bench_result_release(&res);
		return EXIT_FAILED;
	}
	if (json) {
		ret = cmd_print_json("bench: hackbench", result_json(&cfg, r));
	} else {
		print_result(r);
		ret = 0;
	}
	if (r->status == HACKBENCH_FAILED || r->status == HACKBENCH_ERROR)
		fprintf(stderr, "perfbot: bench: hackbench: %s\n", r->why);
	ret = ret ? EXIT_FAILED : bench_cli_exit(res.status);
	bench_result_release(&res);
	return ret;
}

const struct bench_cli bench_cli_hackbench = {
	.type = "hackbench",
	.run = run,
};
