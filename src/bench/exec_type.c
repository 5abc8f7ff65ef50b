/*
 * exec_type.c - an external command as a struct bench_type (bench.h):
 * the `exec:` of a job (docs/jobs.md), run once by exec.h with its
 * output parsed into stats by parsers.h.
 *
 * Its stats are named by the command's output, so none is declared: they
 * fall under record.h's stat_rule_better().  A command that cannot be
 * found or started is the job's error, reported as a failed run with the
 * reason ("cannot run 'x': No such file or directory"), never as
 * unsupported: the machine is not what is missing.  No state.
 */
#define _GNU_SOURCE
#include "bench/bench.h"
#include "bench/exec.h"
#include "bench/parsers.h"
#include "util/bug.h"
#include "util/strbuf.h"

#include <string.h>
#include <sys/wait.h>

/* A command's stdout is read into memory; more than this kills it
 * (docs/jobs.md says so: keep them agreeing). */
#define EXEC_OUTPUT_MAX (64u << 20)

/* More warm-up runs than this is a typo, not a warm-up. */
#define EXEC_WARMUP_MAX 100

enum { EX_P_WARMUP, EX_P_TIMEOUT, EX_NR_PARAMS };

static const struct bench_param params[] = {
	/* run by the runner (BENCH_WARMUP_RUNS), never by run() below */
	[EX_P_WARMUP] = {
		.key = "warmup", .noun = "warm-up run count", .type = BENCH_COUNT,
		.flags = BENCH_WARMUP_RUNS, .min = 0, .max = EXEC_WARMUP_MAX,
		.unit = "runs", .def = 1,
		.help = "runs of the command before the first measured one of each"
			" atomic job in a perfbot run (in a bisection: of each commit's"
			" build), never stored as samples: a cold first run (caches,"
			" page cache, CPU frequency) is not measured",
	},
	[EX_P_TIMEOUT] = {
		.key = "timeout", .type = BENCH_DURATION,
		.flags = BENCH_GENERIC | BENCH_ABOVE_MIN,
		.def_text = "the job's timeout, else 2 x runtime + 60 s",
		.help = "the command's process group is killed after this long: a failed run",
	},
};

static enum bench_status run(const struct bench_run *run, struct bench_result *out)
{
	const struct bench_command *cmd = run->command;
	struct exec_opts eo = {
		.timeout_s = run->args->v[EX_P_TIMEOUT].v.s,
		.stop = run->stop,
		.capture_max = EXEC_OUTPUT_MAX,
	};
	struct exec_run r = { 0 };
	enum bench_status st = BENCH_FAILED;
	struct strbuf why = STRBUF_INIT;
	int err;

	BUG_ON(!cmd || !cmd->argv || !cmd->argv[0]);
	eo.cwd = cmd->cwd;
	if (run->on_phase)
		run->on_phase("measure", run->arg);
	err = exec_run_once(cmd->argv, &eo, &r);
	if (err) {
		bench_result_fail(out, BENCH_FAILED, "cannot run '%s': %s",
				  cmd->argv[0], strerror(-err));
		goto out;
	}
	switch (r.outcome) {
	case EXEC_STOPPED:
		st = bench_result_fail(out, BENCH_INCOMPLETE, "stopped");
		goto out;
	case EXEC_TIMED_OUT:
		bench_result_fail(out, BENCH_FAILED, "timed out after %g s", eo.timeout_s);
		goto out;
	case EXEC_OUTPUT_LIMIT:
		bench_result_fail(out, BENCH_FAILED,
				  "output exceeds %u MiB: the command was killed there",
				  EXEC_OUTPUT_MAX >> 20);
		goto out;
	case EXEC_EXITED:
		break;
	}
	if (!exec_run_ok(&r)) {
		if (WIFSIGNALED(r.status))
			bench_result_fail(out, BENCH_FAILED, "killed by signal %d (%s)",
					  WTERMSIG(r.status), strsignal(WTERMSIG(r.status)));
		else
			bench_result_fail(out, BENCH_FAILED, "exit status %d",
					  WEXITSTATUS(r.status));
		goto out;
	}
	err = exec_parse_output(cmd->parse ? cmd->parse : "time", r.output,
				r.output_len, cmd->paths, run->testcase, &out->extra,
				&why);
	if (err) {
		/* the result's reason is of fixed size: shortened, marked "..." */
		bench_result_fail(out, BENCH_FAILED, "%s",
				  strbuf_error(&why) ? "out of memory" : why.buf);
		goto out;
	}
	/* stats with names the store refuses were dropped: say so, whole */
	if (strbuf_error(&why) ||
	    (why.len && strmap_set(&out->env, "parse.dropped", why.buf))) {
		st = bench_result_fail(out, BENCH_ERROR, "out of memory");
		goto out;
	}
	st = BENCH_OK;
out:
	strbuf_release(&why);
	exec_run_release(&r);
	return st;
}

const struct bench_type bench_type_exec = {
	.name = "exec",
	.desc = "an external command (a job's exec: key), its output parsed into stats",
	.doc = "docs/exec-parsers.md",
	.flags = BENCH_TYPE_EXEC,
	.params = params,
	.nr_params = EX_NR_PARAMS,
	.param_hint = "exec jobs take warmup and timeout; pass the command's own in cmd",
	.run = run,
};
