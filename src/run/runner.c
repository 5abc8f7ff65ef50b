/*
 * runner.c - one repeat of an atomic job -> a run record.  See runner.h.
 */
#define _GNU_SOURCE
#include "run/runner.h"
#include "bench/exec.h"
#include "bench/hackbench.h"
#include "bench/netperf.h"
#include "bench/parsers.h"
#include "bench/wis.h"
#include "bench/wis_params.h"
#include "monitor/monitor.h"
#include "run/env.h"
#include "util/cpus.h"
#include "util/fsutil.h"
#include "util/parse.h"
#include "util/quote.h"
#include "util/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_RUNTIME_S 10.0
#define DEFAULT_INTERVAL_S 1.0
#define EXEC_OUTPUT_MAX (64u << 20)

const char *const runner_testcases[] = {
	"will-it-scale", "hackbench", "netperf", "exec", NULL,
};

/* ---- parameters ---------------------------------------------------------- */

/* Keys of the job itself, not of its benchmark (job.h's generic keys). */
static bool generic_key(const char *key)
{
	static const char *const keys[] = {
		"suite", "testcase", "category", "runtime", "repeat",
		"interval", "timeout", "monitors", "packages", "build", "exec",
		"cpufreq_governor", "ucode", "kconfig", "compiler", "rootfs",
		"kpi", NULL,
	};

	for (const char *const *k = keys; *k; k++)
		if (!strcmp(*k, key))
			return true;
	return false;
}

static double runtime_of(const struct atomic_job *j)
{
	return j->runtime_s > 0 ? j->runtime_s : DEFAULT_RUNTIME_S;
}

double runner_timeout(const struct atomic_job *j)
{
	return j->timeout_s > 0 ? j->timeout_s : 2 * runtime_of(j) + 60;
}

static int param_error(struct job_error *err, const struct atomic_job *j,
		       const struct job_param *p, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int param_error(struct job_error *err, const struct atomic_job *j,
		       const struct job_param *p, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	snprintf(err->file, sizeof(err->file), "%s", j->file ? j->file : "");
	err->line = p ? p->line : 0;
	err->column = p ? p->column : 0;
	/* a parameter from -s has no position in the file: name the option */
	if (p && !p->line) {
		snprintf(err->file, sizeof(err->file), "<command line>");
		n = snprintf(err->msg, sizeof(err->msg), "-s %s=%s: ", p->key,
			     p->value);
		if (n < 0 || (size_t)n >= sizeof(err->msg))
			n = 0;
	}
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int unknown_param(struct job_error *err, const struct atomic_job *j,
			 const struct job_param *p, const char *const *names)
{
	const char *near = suggest_nearest(p->key, names);

	if (near)
		return param_error(err, j, p,
				   "unknown parameter '%s' for %s (did you mean '%s'?)",
				   p->key, j->testcase, near);
	return param_error(err, j, p, "unknown parameter '%s' for %s", p->key,
			   j->testcase);
}

static const char *const hackbench_names[] = {
	"nr_threads", "mode", "ipc", "iterations", "loops", "datasize", NULL,
};
static const char *const netperf_names[] = {
	"nr_threads", "test", "ip", "send_size", "cluster", NULL,
};

/* Apply every benchmark parameter of j to the benchmark's config. */
static int apply_wis(const struct atomic_job *j, struct wis_config *cfg,
		     struct job_error *err)
{
	unsigned ncpus = online_cpus();

	for (size_t i = 0; i < j->nr_params; i++) {
		const struct job_param *p = &j->params[i];

		if (generic_key(p->key))
			continue;
		switch (wis_set_param(cfg, p->key, p->value, ncpus)) {
		case WIS_PARAM_OK:
			break;
		case WIS_PARAM_UNKNOWN:
			return unknown_param(err, j, p, wis_param_names);
		default:
			return param_error(err, j, p, "invalid %s '%s': expected %s",
					   p->key, p->value, wis_param_expects(p->key));
		}
	}
	if (!cfg->test)
		return param_error(err, j, NULL, "will-it-scale needs a 'test' parameter");
	return 0;
}

static int apply_hackbench(const struct atomic_job *j,
			   struct hackbench_config *cfg, struct job_error *err)
{
	unsigned ncpus = online_cpus();

	for (size_t i = 0; i < j->nr_params; i++) {
		const struct job_param *p = &j->params[i];

		if (generic_key(p->key))
			continue;
		switch (hackbench_set_param(cfg, p->key, p->value, ncpus)) {
		case HACKBENCH_PARAM_OK:
			break;
		case HACKBENCH_PARAM_UNKNOWN:
			return unknown_param(err, j, p, hackbench_names);
		default:
			return param_error(err, j, p, "invalid %s '%s': expected %s",
					   p->key, p->value,
					   hackbench_param_expects(p->key));
		}
	}
	return 0;
}

static int apply_netperf(const struct atomic_job *j, struct netperf_config *cfg,
			 struct job_error *err)
{
	unsigned ncpus = online_cpus();
	char why[256];

	for (size_t i = 0; i < j->nr_params; i++) {
		const struct job_param *p = &j->params[i];
		enum netperf_param_err e;

		if (generic_key(p->key))
			continue;
		e = netperf_set_param(cfg, p->key, p->value, ncpus);
		if (e == NETPERF_PARAM_UNKNOWN)
			return unknown_param(err, j, p, netperf_names);
		if (e != NETPERF_PARAM_OK)
			return param_error(err, j, p, "invalid %s '%s': %s", p->key,
					   p->value, netperf_param_strerror(e));
	}
	cfg->duration_s = runtime_of(j);
	if (netperf_config_check(cfg, why, sizeof(why)))
		return param_error(err, j, NULL, "netperf: %s", why);
	return 0;
}

static int check_monitors(const struct atomic_job *j, struct job_error *err)
{
	for (char **m = j->monitors; m && *m; m++) {
		const char *near;

		if (monitor_known(*m))
			continue;
		near = monitor_suggest(*m);
		if (near)
			return param_error(err, j, NULL,
					   "unknown monitor '%s' (did you mean '%s'?)",
					   *m, near);
		return param_error(err, j, NULL, "unknown monitor '%s'", *m);
	}
	return 0;
}

int runner_check_job(const struct atomic_job *j, struct job_error *err)
{
	int ret = check_monitors(j, err);

	if (ret)
		return ret;
	if (!strcmp(j->testcase, "will-it-scale")) {
		struct wis_config cfg = { .nr_tasks = 1 };

		return apply_wis(j, &cfg, err);
	}
	if (!strcmp(j->testcase, "hackbench")) {
		struct hackbench_config cfg;

		hackbench_config_init(&cfg);
		return apply_hackbench(j, &cfg, err);
	}
	if (!strcmp(j->testcase, "netperf")) {
		struct netperf_config cfg;

		netperf_config_init(&cfg);
		return apply_netperf(j, &cfg, err);
	}
	if (j->exec.argv) {
		/* the parse kind was checked, with its position, by job_load() */
		for (size_t i = 0; i < j->nr_params; i++)
			if (!generic_key(j->params[i].key))
				return param_error(err, j, &j->params[i],
						   "exec jobs take no parameter '%s': pass it in cmd",
						   j->params[i].key);
		return 0;
	}
	{
		const char *near = suggest_nearest(j->testcase, runner_testcases);

		if (near)
			return param_error(err, j, NULL,
					   "unknown testcase '%s' (did you mean '%s'?)",
					   j->testcase, near);
		return param_error(err, j, NULL,
				   "unknown testcase '%s': perfbot runs will-it-scale, hackbench, netperf and exec",
				   j->testcase);
	}
}

/* ---- one run -------------------------------------------------------------- */

struct run_ctx {
	const struct atomic_job *j;
	const struct runner_opts *opts;
	struct run_record *rec;
	struct monitor_set *monitors;
	bool window_open;
	struct rusage ru_before;
	double t_start;
	char *err;
	size_t errlen;
};

static void window_open(struct run_ctx *c)
{
	char why[256];

	if (!c->monitors || c->window_open)
		return;
	if (monitor_set_start(c->monitors, why, sizeof(why)))
		strmap_setf(&c->rec->env, "monitors", "unavailable: %s", why);
	c->window_open = true;
}

/* The rusage of every child reaped since the run began: the benchmark's tree. */
static void bench_rusage(const struct run_ctx *c, struct rusage *out)
{
	struct rusage now;

	getrusage(RUSAGE_CHILDREN, &now);
	*out = now;
	timersub(&now.ru_utime, &c->ru_before.ru_utime, &out->ru_utime);
	timersub(&now.ru_stime, &c->ru_before.ru_stime, &out->ru_stime);
	out->ru_minflt = now.ru_minflt - c->ru_before.ru_minflt;
	out->ru_majflt = now.ru_majflt - c->ru_before.ru_majflt;
	out->ru_nvcsw = now.ru_nvcsw - c->ru_before.ru_nvcsw;
	out->ru_nivcsw = now.ru_nivcsw - c->ru_before.ru_nivcsw;
	out->ru_inblock = now.ru_inblock - c->ru_before.ru_inblock;
	out->ru_oublock = now.ru_oublock - c->ru_before.ru_oublock;
	/* ru_maxrss is the largest child ever, not a counter: kept as is */
}

static void window_close(struct run_ctx *c)
{
	struct rusage ru;
	struct monitor_end end = { .bench_rusage = &ru };
	char why[256];

	bench_rusage(c, &ru);
	end.bench_elapsed_s = mono_now() - c->t_start;
	if (!c->monitors)
		return;
	if (!c->window_open)
		window_open(c);
	if (monitor_set_stop(c->monitors, &end, &c->rec->stats, &c->rec->env,
			     why, sizeof(why)))
		strmap_setf(&c->rec->env, "monitors", "unavailable: %s", why);
	c->window_open = false;
}

static void add_stat(struct run_ctx *c, const char *name, double v)
{
	statmap_addf(&c->rec->stats, v, "%s.%s", c->rec->testcase, name);
}

static void wis_phase(const char *phase, void *arg)
{
	if (!strcmp(phase, "measure"))
		window_open(arg);
}

static enum run_status run_wis(struct run_ctx *c, struct job_error *jerr)
{
	struct wis_config cfg = {
		.nr_tasks = 1, .affinity = true, .interval_s = 1,
		.stop = c->opts->stop, .on_phase = wis_phase, .arg = c,
	};
	struct wis_result r;
	enum wis_status st;

	cfg.duration_s = runtime_of(c->j);
	/* upstream warms up 5 s; a short job cannot afford that much */
	cfg.warmup_s = fmin(5, cfg.duration_s / 2);
	if (cfg.duration_s < cfg.interval_s)
		cfg.interval_s = cfg.duration_s;
	if (apply_wis(c->j, &cfg, jerr))
		return RUN_FAILED;
	strmap_setf(&c->rec->env, "resolved.nr_task", "%u", cfg.nr_tasks);
	strmap_setf(&c->rec->env, "resolved.warmup_s", "%g", cfg.warmup_s);
	st = wis_run(&cfg, &r);
	window_close(c);
	if (r.nr_samples && (st == WIS_OK || st == WIS_INCOMPLETE)) {
		add_stat(c, cfg.mode == WIS_THREAD ? "per_thread_ops"
						   : "per_process_ops", r.per_task);
		add_stat(c, "workload", r.workload);
	}
	if (st != WIS_OK)
		strmap_set(&c->rec->env, "last_state.reason", r.why);
	wis_result_release(&r);
	return st == WIS_OK ? RUN_COMPLETE
			    : st == WIS_INCOMPLETE ? RUN_INCOMPLETE : RUN_FAILED;
}

static enum run_status run_hackbench(struct run_ctx *c, struct job_error *jerr)
{
	struct hackbench_config cfg;
	struct hackbench_result *r = calloc(1, sizeof(*r));
	enum run_status status;
	enum hackbench_status st;

	if (!r)
		return RUN_FAILED;
	hackbench_config_init(&cfg);
	cfg.timeout_s = runner_timeout(c->j);
	cfg.stop = c->opts->stop;
	if (apply_hackbench(c->j, &cfg, jerr)) {
		free(r);
		return RUN_FAILED;
	}
	strmap_setf(&c->rec->env, "resolved.groups", "%u", cfg.groups);
	strmap_setf(&c->rec->env, "resolved.loops", "%lu", cfg.loops);
	window_open(c);
	st = hackbench_run(&cfg, r);
	window_close(c);
	if (r->nr_times) {
		add_stat(c, "throughput", r->throughput);
		add_stat(c, "time", r->mean_s);
	}
	if (st != HACKBENCH_OK)
		strmap_set(&c->rec->env, "last_state.reason", r->why);
	status = st == HACKBENCH_OK ? RUN_COMPLETE
				    : st == HACKBENCH_INCOMPLETE ? RUN_INCOMPLETE
								  : RUN_FAILED;
	free(r);
	return status;
}

static enum run_status run_netperf(struct run_ctx *c, struct job_error *jerr)
{
	struct netperf_config cfg;
	struct netperf_result r;
	struct netperf_stat stats[NETPERF_MAX_STATS];
	enum netperf_status st;
	size_t n;

	netperf_config_init(&cfg);
	if (apply_netperf(c->j, &cfg, jerr))
		return RUN_FAILED;
	cfg.timeout_s = runner_timeout(c->j);
	cfg.stop = c->opts->stop;
	strmap_setf(&c->rec->env, "resolved.clients", "%u", cfg.clients);
	window_open(c);
	st = netperf_run(&cfg, &r);
	window_close(c);
	n = netperf_result_stats(&r, stats, NETPERF_MAX_STATS);
	for (size_t i = 0; i < n; i++)
		add_stat(c, stats[i].name, stats[i].value);
	if (st != NETPERF_OK)
		strmap_set(&c->rec->env, "last_state.reason", r.why);
	netperf_result_release(&r);
	return st == NETPERF_OK ? RUN_COMPLETE
				: st == NETPERF_INCOMPLETE ? RUN_INCOMPLETE : RUN_FAILED;
}

static enum run_status run_exec(struct run_ctx *c)
{
	const struct atomic_job *j = c->j;
	struct exec_opts eo = {
		.timeout_s = runner_timeout(j), .stop = c->opts->stop,
		.capture_max = EXEC_OUTPUT_MAX,
	};
	enum run_status status = RUN_FAILED;
	char why[512] = "";
	struct exec_run r = { 0 };
	int err;

	eo.cwd = c->opts->src_dir;	/* a repository's benchmark runs in its checkout */
	if (c->opts->src_dir)
		setenv("PERFBOT_SRC", c->opts->src_dir, 1);
	window_open(c);
	err = exec_run_once(j->exec.argv, &eo, &r);
	window_close(c);
	if (c->opts->src_dir)
		unsetenv("PERFBOT_SRC");
	if (err) {
		snprintf(why, sizeof(why), "cannot run '%s': %s", j->exec.argv[0],
			 strerror(-err));
		goto out;
	}
	if (r.outcome == EXEC_STOPPED) {
		status = RUN_INCOMPLETE;
		snprintf(why, sizeof(why), "stopped");
		goto out;
	}
	if (r.outcome == EXEC_TIMED_OUT) {
		snprintf(why, sizeof(why), "timed out after %g s", eo.timeout_s);
		goto out;
	}
	if (r.outcome == EXEC_OUTPUT_LIMIT) {
		snprintf(why, sizeof(why),
			 "output exceeds %u MiB: the command was killed there",
			 EXEC_OUTPUT_MAX >> 20);
		goto out;
	}
	if (!exec_run_ok(&r)) {
		if (WIFSIGNALED(r.status))
			snprintf(why, sizeof(why), "killed by signal %d (%s)",
				 WTERMSIG(r.status), strsignal(WTERMSIG(r.status)));
		else
			snprintf(why, sizeof(why), "exit status %d",
				 WEXITSTATUS(r.status));
		goto out;
	}
	if (exec_parse_output(j->exec.parse ? j->exec.parse : "time", r.output,
			      r.output_len, &j->exec.paths, c->rec->testcase,
			      &c->rec->stats, why, sizeof(why)))
		goto out;
	if (why[0]) {
		/* stats with names the store refuses were dropped: say so */
		strmap_set(&c->rec->env, "parse.dropped", why);
		why[0] = '\0';
	}
	status = RUN_COMPLETE;
out:
	if (why[0]) {
		/* the reason may quote the output: made storable (store.h) */
		char *q = quote_line(why);

		strmap_set(&c->rec->env, "last_state.reason", q ? q : "?");
		free(q);
	}
	exec_run_release(&r);
	return status;
}

/* Identity, environment and what the job records as given. */
static int fill_identity(struct run_ctx *c)
{
	const struct atomic_job *j = c->j;
	struct run_record *rec = c->rec;
	const char *host;
	int err = 0;

	if (env_capture(&rec->env, c->err, c->errlen))
		strmap_set(&rec->env, "env", "incomplete");
	host = strmap_get(&rec->env, "testbox");
	err |= record_set_str(&rec->testbox, host ? host : "localhost");
	err |= record_set_str(&rec->testcase, j->testcase);
	err |= record_set_str(&rec->job, j->name);
	err |= record_set_str(&rec->commit, c->opts->commit);
	err |= record_set_str(&rec->job_text, j->text);
	for (size_t i = 0; i < j->nr_params; i++)
		err |= strmap_set(&rec->params, j->params[i].key, j->params[i].value);
	/* as the job gives them, beside the measured ones (ucode: microcode) */
	for (size_t i = 0; i < j->recorded.n; i++) {
		char key[128];

		snprintf(key, sizeof(key), "job.%s", j->recorded.v[i].key);
		err |= strmap_set(&rec->env, key, j->recorded.v[i].value);
	}
	if (j->kpi)
		err |= strmap_set(&rec->env, "kpi", j->kpi);
	err |= strmap_setf(&rec->env, "runtime_s", "%g", runtime_of(j));
	return err ? -ENOMEM : 0;
}

int runner_run(const struct atomic_job *j, const struct runner_opts *opts,
	       struct run_record *out, char *err, size_t errlen)
{
	struct run_ctx c = {
		.j = j, .opts = opts, .rec = out, .err = err, .errlen = errlen,
	};
	struct cpufreq_saved *saved = NULL;
	const char *governor = strmap_get(&j->recorded, "cpufreq_governor");
	struct job_error jerr = { 0 };
	enum run_status status;
	struct timespec wall;
	int ret;

	memset(out, 0, sizeof(*out));
	*err = '\0';
	ret = fill_identity(&c);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (governor) {
		char why[256];

		if (cpufreq_set_governor(governor, &saved, why, sizeof(why)))
			strmap_setf(&out->env, "cpufreq_governor.set",
				    "unavailable: %s", why);
		else
			strmap_set(&out->env, "cpufreq_governor.set", governor);
	}
	if (opts->monitors) {
		struct monitor_ctx mctx = {
			.interval_s = j->interval_s > 0 ? j->interval_s
							: DEFAULT_INTERVAL_S,
			.testcase = j->testcase,
		};
		char why[256];

		if (monitor_set_open((const char *const *)j->monitors, &mctx,
				     &c.monitors, why, sizeof(why)))
			strmap_setf(&out->env, "monitors", "unavailable: %s", why);
	}
	clock_gettime(CLOCK_REALTIME, &wall);
	out->started = (double)wall.tv_sec + (double)wall.tv_nsec * 1e-9;
	getrusage(RUSAGE_CHILDREN, &c.ru_before);
	c.t_start = mono_now();

	if (!strcmp(j->testcase, "will-it-scale"))
		status = run_wis(&c, &jerr);
	else if (!strcmp(j->testcase, "hackbench"))
		status = run_hackbench(&c, &jerr);
	else if (!strcmp(j->testcase, "netperf"))
		status = run_netperf(&c, &jerr);
	else
		status = run_exec(&c);
	out->duration_s = mono_now() - c.t_start;
	if (jerr.msg[0]) {
		snprintf(err, errlen, "%s", jerr.msg);
		ret = -EINVAL;
		goto fail;
	}
	out->status = status;
	add_stat(&c, "exit_fail", status == RUN_FAILED);
	statmap_add(&out->stats, "last_state.is_incomplete_run",
		    status == RUN_INCOMPLETE);
	statmap_finish(&out->stats);
	strmap_sort(&out->params);
	ret = 0;
	goto out;
fail:
	run_record_release(out);
out:
	if (c.monitors)
		monitor_set_close(c.monitors);
	if (saved)
		cpufreq_restore(saved);
	return ret;
}
