/*
 * runner.c - one repeat of an atomic job -> a run record.  See runner.h.
 */
#define _GNU_SOURCE
#include "run/runner.h"
#include "bench/bench.h"
#include "monitor/monitor.h"
#include "run/disturbance.h"
#include "run/env.h"
#include "util/cpus.h"
#include "util/quote.h"
#include "util/strbuf.h"
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

#define DEFAULT_INTERVAL_S 1.0

/* ---- parameters ---------------------------------------------------------- */

static double runtime_of(const struct atomic_job *j)
{
	return j->runtime_s > 0 ? j->runtime_s : BENCH_DEFAULT_RUNTIME_S;
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
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	/* a parameter from -s has no position in the file: name the option */
	if (p && !p->line)
		job_error_set(err, "<command line>", 0, 0, "-s %s=%s: %s", p->key, p->value,
			      msg.buf);
	else
		job_error_set(err, j->file, p ? p->line : 0, p ? p->column : 0, "%s",
			      msg.buf);
	if (strbuf_error(&msg))
		strbuf_setf(&err->msg, "out of memory");
	strbuf_release(&msg);
	return -EINVAL;
}

static bool has_job_keys(const struct bench_type *t)
{
	for (size_t i = 0; i < t->nr_params; i++)
		if (!(t->params[i].flags & (BENCH_CLI_ONLY | BENCH_GENERIC)))
			return true;
	return false;
}

static int unknown_param(struct job_error *err, const struct atomic_job *j,
			 const struct bench_type *t, const struct job_param *p)
{
	const char *near = bench_param_suggest(t, p->key);

	if (!near && !has_job_keys(t))
		return param_error(err, j, p, "%s jobs take no parameter '%s'%s%s",
				   t->name, p->key, t->param_hint ? ": " : "",
				   t->param_hint ? t->param_hint : "");
	if (near)
		return param_error(err, j, p,
				   "unknown parameter '%s' for %s (did you mean '%s'?)",
				   p->key, j->testcase, near);
	return param_error(err, j, p, "unknown parameter '%s' for %s%s%s", p->key,
			   j->testcase, t->param_hint ? ": " : "",
			   t->param_hint ? t->param_hint : "");
}

static int unknown_testcase(struct job_error *err, const struct atomic_job *j)
{
	const char *near = bench_type_suggest(j->testcase);
	struct strbuf names = STRBUF_INIT;
	int ret;

	if (near)
		return param_error(err, j, NULL,
				   "unknown testcase '%s' (did you mean '%s'?)",
				   j->testcase, near);
	for (const struct bench_type *const *t = bench_types; *t; t++)
		strbuf_addf(&names, "%s%s", t == bench_types ? "" : t[1] ? ", " : " and ",
			    (*t)->name);
	ret = param_error(err, j, NULL, "unknown testcase '%s': perfbot runs %s",
			  j->testcase, names.buf);
	strbuf_release(&names);
	return ret;
}

/*
 * The job's parameters through the benchmark's table into *a: every
 * benchmark parameter by the one validator, the generic keys the table
 * takes (runtime, timeout) from the job, then the checks of the rows
 * against each other.  0, or -EINVAL with the position and message.
 */
static int args_from_job(const struct atomic_job *j, const struct bench_type *t,
			 struct bench_args *a, struct job_error *err)
{
	struct strbuf msg = STRBUF_INIT;
	int row, ret = 0;

	bench_args_init(a, t, online_cpus(), true);
	for (size_t i = 0; i < j->nr_params; i++) {
		const struct job_param *p = &j->params[i];
		enum bench_param_status st;

		if (job_generic_key(p->key))
			continue;
		row = bench_param_find(t, p->key);
		if (row < 0)
			return unknown_param(err, j, t, p);
		st = bench_args_set(a, row, p->value);
		if (st != BENCH_PARAM_OK) {
			bench_param_message(a, row, p->value, st, false, &msg);
			ret = param_error(err, j, p, "%s",
					  strbuf_error(&msg) ? "out of memory" : msg.buf);
			strbuf_release(&msg);
			return ret;
		}
		a->v[row].line = p->line;
		a->v[row].column = p->column;
	}
	for (size_t i = 0; i < t->nr_params; i++) {
		const char *key = t->params[i].key;

		if (!(t->params[i].flags & BENCH_GENERIC))
			continue;
		if (!strcmp(key, "runtime"))
			bench_args_set_seconds(a, (int)i, runtime_of(j));
		else if (!strcmp(key, "timeout"))
			bench_args_set_seconds(a, (int)i, runner_timeout(j));
		else if (!strcmp(key, "interval") && j->interval_s > 0)
			bench_args_set_seconds(a, (int)i, j->interval_s);
	}
	if (bench_args_check(a, false, &row, &msg))
		ret = param_error(err, j,
				  row >= 0 ? atomic_job_param(j, t->params[row].key)
					   : NULL,
				  "%s", strbuf_error(&msg) ? "out of memory" : msg.buf);
	strbuf_release(&msg);
	return ret;
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
	const struct bench_type *t;
	struct bench_args a;
	int ret;

	job_error_init(err);
	ret = check_monitors(j, err);
	if (ret)
		return ret;
	t = bench_type_find(j->testcase, j->exec.argv != NULL);
	if (!t)
		return unknown_testcase(err, j);
	return args_from_job(j, t, &a, err);
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
};

static void window_open(struct run_ctx *c)
{
	struct strbuf why = STRBUF_INIT;

	if (!c->monitors || c->window_open)
		return;
	if (monitor_set_start(c->monitors, &why))
		strmap_setf(&c->rec->env, "monitors", "unavailable: %s", why.buf);
	c->window_open = true;
	strbuf_release(&why);
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
	struct strbuf why = STRBUF_INIT;

	bench_rusage(c, &ru);
	end.bench_elapsed_s = mono_now() - c->t_start;
	if (!c->monitors)
		return;
	if (!c->window_open)
		window_open(c);
	if (monitor_set_stop(c->monitors, &end, &c->rec->stats, &c->rec->env, &why))
		strmap_setf(&c->rec->env, "monitors", "unavailable: %s", why.buf);
	c->window_open = false;
	strbuf_release(&why);
}

static void on_phase(const char *phase, void *arg)
{
	if (!strcmp(phase, "measure"))
		window_open(arg);
}

/*
 * The benchmark's result into the record: its declared stats with their
 * meta (unit, direction, KPI -- unless the job names its own KPI), the
 * stats it named itself, its environment entries and the reason.
 */
static int record_result(struct run_ctx *c, const struct bench_result *res)
{
	struct run_record *rec = c->rec;
	int err = 0;

	for (size_t i = 0; i < res->nr_stats; i++) {
		const struct bench_stat_decl *d = res->stats[i].decl;
		struct strbuf name = STRBUF_INIT;

		strbuf_addf(&name, "%s.%s", rec->testcase, d->name);
		err |= strbuf_error(&name);
		err |= statmap_add(&rec->stats, name.buf, res->stats[i].value);
		err |= stat_meta_set(&rec->meta, name.buf, d->unit, d->better,
				     d->kpi && !c->j->kpi);
		strbuf_release(&name);
	}
	for (size_t i = 0; i < res->extra.n; i++)
		err |= statmap_add(&rec->stats, res->extra.v[i].name,
				   res->extra.v[i].value);
	for (size_t i = 0; i < res->env.n; i++)
		err |= strmap_set(&rec->env, res->env.v[i].key, res->env.v[i].value);
	if (res->status != BENCH_OK) {
		/* the reason may quote a command's output: made storable (store.h) */
		char *q = quote_line(res->why);

		err |= strmap_set(&rec->env, "last_state.reason", q ? q : "?");
		free(q);
	}
	return err ? -ENOMEM : 0;
}

/* The job's own `kpi:` is the KPI, in meta too (after statmap_finish()). */
static int mark_job_kpi(struct run_record *rec, const char *kpi)
{
	const struct stat_meta *m;

	if (!kpi || !statmap_get(&rec->stats, kpi))
		return 0;
	m = stat_meta_find(&rec->meta, kpi);
	if (m)
		return stat_meta_set(&rec->meta, kpi, m->unit, m->better, true);
	return stat_meta_set(&rec->meta, kpi, "", stat_rule_better(kpi), true);
}

/* The type's warm-up run count (BENCH_WARMUP_RUNS), or -1 when it has none. */
static long warmup_runs(const struct bench_type *t, const struct bench_args *a)
{
	for (size_t i = 0; i < t->nr_params; i++)
		if (t->params[i].flags & BENCH_WARMUP_RUNS)
			return (long)a->v[i].v.n;
	return -1;
}

/*
 * The warm-up: n runs of the benchmark as `run` describes it, but with
 * no phase or progress callbacks (no monitor window opens), their
 * results thrown away.  Recorded in the env of rec.  A run that is not
 * BENCH_OK ends it: *res (zeroed) gets its status and the reason, and
 * false is returned; true when every run was ok.  *oom on out of memory.
 */
static bool warm_up(const struct bench_type *t, const struct bench_run *run, long n,
		    struct run_record *rec, struct bench_result *res, int *oom)
{
	struct bench_run w = *run;
	double spent = 0;
	long i;
	bool ok = true;

	w.on_phase = NULL;
	w.on_progress = NULL;
	w.arg = NULL;
	for (i = 0; i < n && ok; i++) {
		struct bench_result wr;
		double t0 = mono_now();

		bench_type_run(t, &w, &wr);
		spent += mono_now() - t0;
		if (wr.status != BENCH_OK) {
			ok = false;
			bench_result_fail(res, wr.status, "warm-up run %ld of %ld: %s", i + 1,
					  n, wr.why);
			*oom |= strmap_set(&rec->env, "warmup.status",
					   bench_status_name(wr.status));
		}
		bench_result_release(&wr);
	}
	*oom |= strmap_setf(&rec->env, "warmup.runs", "%ld", i);
	*oom |= strmap_setf(&rec->env, "warmup.elapsed_s", "%.6f", spent);
	if (ok)
		*oom |= strmap_set(&rec->env, "warmup.status", "ok");
	return ok;
}

/* Identity, environment and what the job records as given. */
static int fill_identity(struct run_ctx *c)
{
	const struct atomic_job *j = c->j;
	struct run_record *rec = c->rec;
	const char *host;
	int err = 0;

	/* out of memory only, which the copies below meet too */
	if (env_capture(&rec->env, NULL))
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
		struct strbuf key = STRBUF_INIT;

		strbuf_addf(&key, "job.%s", j->recorded.v[i].key);
		err |= strbuf_error(&key);
		err |= strmap_set(&rec->env, key.buf, j->recorded.v[i].value);
		strbuf_release(&key);
	}
	if (j->kpi)
		err |= strmap_set(&rec->env, "kpi", j->kpi);
	err |= strmap_setf(&rec->env, "runtime_s", "%g", runtime_of(j));
	return err ? -ENOMEM : 0;
}

int runner_run(const struct atomic_job *j, const struct runner_opts *opts,
	       struct run_record *out, struct strbuf *err)
{
	struct run_ctx c = { .j = j, .opts = opts, .rec = out };
	struct cpufreq_saved *saved = NULL;
	const char *governor = strmap_get(&j->recorded, "cpufreq_governor");
	const struct bench_type *t = bench_type_find(j->testcase, j->exec.argv != NULL);
	struct bench_command cmd = {
		.argv = j->exec.argv, .parse = j->exec.parse,
		.paths = &j->exec.paths, .cwd = opts->src_dir,
	};
	struct bench_run run = {
		.stop = opts->stop, .on_phase = on_phase, .arg = &c,
		.testcase = j->testcase,
	};
	struct disturbance *dist;
	struct job_error jerr;
	struct bench_result res;
	struct bench_args args;
	enum run_status status;
	struct timespec wall;
	bool measured = true;
	long nwarm;
	int ret, oom = 0;

	memset(out, 0, sizeof(*out));
	strbuf_reset(err);
	job_error_init(&jerr);
	/* what runner_check_job() said already, for a caller that did not ask */
	if (check_monitors(j, &jerr) ||
	    (!t ? unknown_testcase(&jerr, j) : args_from_job(j, t, &args, &jerr))) {
		strbuf_setf(err, "%s", jerr.msg.buf);
		job_error_release(&jerr);
		return -EINVAL;
	}
	run.args = &args;
	if (t->flags & BENCH_TYPE_EXEC)
		run.command = &cmd;
	ret = fill_identity(&c);
	if (ret) {
		strbuf_setf(err, "out of memory");
		goto fail;
	}
	if (governor) {
		struct strbuf why = STRBUF_INIT;

		if (cpufreq_set_governor(governor, &saved, &why))
			strmap_setf(&out->env, "cpufreq_governor.set",
				    "unavailable: %s", why.buf);
		else
			strmap_set(&out->env, "cpufreq_governor.set", governor);
		strbuf_release(&why);
	}
	/* a repository's benchmark runs in its checkout and finds it here */
	if (opts->src_dir)
		setenv("PERFBOT_SRC", opts->src_dir, 1);
	/* after the governor is set (warming the CPU is its point), before
	 * monitors, clocks and the disturbance window: none of it is measured */
	memset(&res, 0, sizeof(res));
	if (opts->warm_up && (nwarm = warmup_runs(t, &args)) >= 0)
		measured = warm_up(t, &run, nwarm, out, &res, &oom);
	if (opts->monitors && measured) {
		struct monitor_ctx mctx = {
			.interval_s = j->interval_s > 0 ? j->interval_s
							: DEFAULT_INTERVAL_S,
			.testcase = j->testcase,
		};
		struct strbuf why = STRBUF_INIT;

		if (monitor_set_open((const char *const *)j->monitors, &mctx,
				     &c.monitors, &why))
			strmap_setf(&out->env, "monitors", "unavailable: %s", why.buf);
		strbuf_release(&why);
	}
	clock_gettime(CLOCK_REALTIME, &wall);
	out->started = (double)wall.tv_sec + (double)wall.tv_nsec * 1e-9;
	getrusage(RUSAGE_CHILDREN, &c.ru_before);
	c.t_start = mono_now();

	ret = oom ? -ENOMEM : 0;
	if (measured) {
		/* every run, monitors or not: fork to reap is its window (disturbance.h) */
		dist = disturbance_start(opts->disturbance_paths,
					 disturbance_interval(runtime_of(j)));
		bench_type_run(t, &run, &res);
		if (!dist)
			ret |= strmap_set(&out->env, "disturbance",
					  "unavailable: out of memory");
		else
			ret |= disturbance_stop(dist, out);
		window_close(&c);
	}
	if (opts->src_dir)
		unsetenv("PERFBOT_SRC");
	out->duration_s = mono_now() - c.t_start;
	status = bench_run_status(res.status);
	ret |= record_result(&c, &res);
	bench_result_release(&res);
	if (ret) {
		strbuf_setf(err, "out of memory");
		goto fail;
	}
	out->status = status;
	/* both failure stats in every run, so a comparison can count them;
	 * an unsupported run is not a failure */
	statmap_addf(&out->stats, status == RUN_FAILED, "%s.exit_fail", j->testcase);
	statmap_add(&out->stats, "last_state.is_incomplete_run",
		    status == RUN_INCOMPLETE);
	statmap_finish(&out->stats);
	strmap_sort(&out->params);
	if (mark_job_kpi(out, j->kpi)) {
		strbuf_setf(err, "out of memory");
		ret = -ENOMEM;
		goto fail;
	}
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
