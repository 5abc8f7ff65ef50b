/*
 * bisect_measure.c - one commit of a bisection measured
 * (bisect_internal.h): its stored runs read back, or its worktree checked
 * out and built (kept for the next run of it), the job run through the
 * runner and the run stored.  A commit that does not build or whose
 * benchmark fails is marked skipped in the store, with why.
 */
#define _GNU_SOURCE
#include "vcs/bisect_internal.h"
#include "vcs/git.h"
#include "run/runner.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "util/interrupt.h"
#include "util/strbuf.h"
#include "util/vec.h"
#include "util/words.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int session_fail(struct session *ss, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vsetf(ss->err, fmt, ap);
	va_end(ap);
	if (strbuf_error(ss->err)) {
		strbuf_release(ss->err);
		strbuf_addstr(ss->err, "out of memory");
	}
	return err;
}

void session_say(struct session *ss, bool logged, const char *fmt, ...)
{
	struct strbuf line = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&line, fmt, ap);
	va_end(ap);
	/* out of memory: a line of the log is lost, the bisection goes on */
	if (strbuf_error(&line))
		goto out;
	if (logged) {
		if (ss->id)
			store_bisect_log_add(ss->s, ss->id, line.buf);
		if (ss->hooks && ss->hooks->note)
			ss->hooks->note(ss->hooks->ctx, line.buf);
	} else if (ss->hooks && ss->hooks->progress) {
		ss->hooks->progress(ss->hooks->ctx, line.buf);
	}
out:
	strbuf_release(&line);
}

const char *short_sha(const char *sha)
{
	static char buf[4][13];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%.12s", sha);
	return b;
}

/* ---- the runs of a commit ---- */

/*
 * The runs a bisection may use: those that started once it was created
 * (every run when it has no id).  Runs stored before it - a robot's runs
 * of G and B, an earlier bisection's - were taken at another time, and
 * the model of good and bad would take the machine's drift since then
 * for the change; its own runs come back after ^C or a boot.
 */
static double own_since(const struct session *ss)
{
	return ss->created > 0 ? ss->created : STORE_ALL_TIME;
}

static void touch(struct session *ss, const char *sha)
{
	char *copy;

	for (size_t i = 0; i < ss->touched.n; i++)
		if (!strcmp(ss->touched.v[i], sha))
			return;
	/* out of memory: only the count of runs suffers */
	copy = strdup(sha);
	if (copy && vec_push(&ss->touched, copy))
		free(copy);
}

/* *out: a copy of the stored stat `name`'s values (none: empty). */
static int copy_stat(const struct store_samples *sm, const char *name, double **v, size_t *n,
		     size_t *cap)
{
	for (size_t i = 0; name && i < sm->nr; i++) {
		if (strcmp(sm->names[i], name))
			continue;
		*v = malloc((sm->counts[i] ? sm->counts[i] : 1) * sizeof(**v));
		if (!*v)
			return -ENOMEM;
		if (sm->counts[i])
			memcpy(*v, sm->values[i], sm->counts[i] * sizeof(**v));
		*n = *cap = sm->counts[i];
		break;
	}
	return 0;
}

/* sha's stored complete runs that started at `since` or later, into *sm. */
static int load_since(struct session *ss, const char *sha, double since,
		      struct store_samples *sm)
{
	int ret = store_load_samples_since(ss->s, ss->spec->testbox, ss->job->name, sha, since,
					   sm);

	return ret ? session_fail(ss, ret, "%s", store_error(ss->s)) : 0;
}

int measure_load(struct session *ss, const char *sha, double **v, size_t *n)
{
	struct store_samples sm = { 0 };
	size_t cap;
	int ret;

	*v = NULL;
	*n = 0;
	ret = load_since(ss, sha, own_since(ss), &sm);
	if (ret)
		return ret;
	if (copy_stat(&sm, ss->metric, v, n, &cap))
		ret = session_fail(ss, -ENOMEM, "out of memory");
	store_samples_release(&sm);
	if (!ret && *n)
		touch(ss, sha);
	return ret;
}

size_t measure_runs_made(struct session *ss)
{
	size_t total = 0;

	if (ss->made_known && ss->made_touched == ss->touched.n)
		return ss->made;
	for (size_t i = 0; i < ss->touched.n; i++) {
		struct store_samples sm = { 0 };

		if (store_load_samples_since(ss->s, ss->spec->testbox, ss->job->name,
					     ss->touched.v[i], own_since(ss), &sm))
			continue;
		total += sm.nr_runs;
		store_samples_release(&sm);
	}
	ss->made = total;
	ss->made_touched = ss->touched.n;
	ss->made_known = true;
	return total;
}

/* ---- built checkouts ---- */

/* A commit that does not build (here, or on the fleet's box): logged, the commit skipped. */
static int build_failed(struct session *ss, const char *sha, const char *why)
{
	session_fail(ss, -GIT_EBUILD, "%s", why);
	session_say(ss, true, "build %s: failed: %s", short_sha(sha), ss->err->buf);
	return -GIT_EBUILD;
}

/*
 * A built checkout of sha (vcs/builds.h), *fresh when it was built for
 * this run (it is warmed up before it is measured).  -GIT_EBUILD with the
 * failure logged when the commit does not build.
 */
static int checkout(struct session *ss, const char *sha, bool *fresh)
{
	struct strbuf err = STRBUF_INIT;
	size_t builds = ss->builds.builds, reused = ss->builds.reused;
	bool builds_something = ss->build || ss->job->kernel.present;
	int ret;

	if (builds_something && !commit_runner_ready(&ss->builds, ss->job, sha))
		session_say(ss, false, "bisect %" PRId64 ": building %s%s", ss->id,
			    ss->job->kernel.present ? "the kernel of " : "", short_sha(sha));
	ret = commit_runner_prepare(&ss->builds, ss->job, sha, &interrupted, fresh, &err);
	if (ret == -GIT_EBUILD) {
		build_failed(ss, sha, err.buf);
	} else if (ret == -ECANCELED || interrupted) {
		ret = -EINTR;
	} else if (ret) {
		session_fail(ss, ret, "%s", err.buf);
	} else if (builds_something && ss->builds.builds > builds) {
		if (ss->job->kernel.present)
			session_say(ss, true, "build %s: ok (a kernel, %.0f s)", short_sha(sha),
				    ss->builds.last_build_s);
		else
			session_say(ss, true, "build %s: ok", short_sha(sha));
	} else if (builds_something && ss->builds.reused > reused) {
		session_say(ss, true, "build %s: from the build cache", short_sha(sha));
	}
	strbuf_release(&err);
	return ret;
}

/* ---- a run ---- */

int measure_settle_metric(struct session *ss, const struct run_record *r)
{
	const char *kpi;

	if (ss->metric)
		return 0;
	kpi = run_record_kpi(r);
	if (!kpi)
		return session_fail(ss, -ENODATA,
				    "the job's runs have no KPI to bisect on: give --metric STAT");
	ss->metric = ss->metric_owned = strdup(kpi);
	if (!ss->metric)
		return session_fail(ss, -ENOMEM, "out of memory");
	session_say(ss, true, "metric: %s", ss->metric);
	return 0;
}

void measure_note_direction(struct session *ss, const struct run_record *r)
{
	if (ss->declared_better || !ss->metric || !stat_meta_find(&r->meta, ss->metric))
		return;
	ss->better = stat_better(&r->meta, ss->metric);
	ss->declared_better = true;
}

/* A run that failed: the commit is skipped, with why. */
static int run_failed(struct session *ss, const char *sha, int64_t run_id,
		      const struct run_record *rec)
{
	const char *why = strmap_get(&rec->env, "last_state.reason");

	session_fail(ss, 0, "the benchmark failed (run %" PRId64 "%s%s)", run_id,
		     why ? ": " : "", why ? why : "");
	session_say(ss, true, "run %s: %s", short_sha(sha), ss->err->buf);
	if (ss->id)
		store_bisect_mark(ss->s, ss->id, sha, "skip", ss->err->buf);
	return BISECT_SKIP;
}

/* A stat of the run, NaN when it has none. */
static double stat_or_nan(const struct run_record *r, const char *name)
{
	const double *v = statmap_get(&r->stats, name);

	return v && isfinite(*v) ? *v : NAN;
}

int measure_run(struct session *ss, const char *sha, double *value,
		struct run_disturbance *dist)
{
	struct runner_opts ro = { .commit = sha, .monitors = true, .stop = &interrupted };
	struct run_record rec;
	struct strbuf err = STRBUF_INIT;
	const double *v;
	int64_t run_id;
	int ret;

	if (interrupted)
		return -EINTR;
	/* an exec job's warm-up: once per build of the commit, before its
	 * first run there (a kept worktree is warm) */
	ret = checkout(ss, sha, &ro.warm_up);
	if (ret && ret != -GIT_EBUILD)
		return ret;
	if (!ret) {
		ret = commit_runner_run(&ss->builds, ss->job, sha, &ro, &rec, &err);
		/* on the fleet the worker builds: its build failure comes with the run */
		if (ret == -GIT_EBUILD)
			build_failed(ss, sha, err.buf);
	}
	if (ret == -GIT_EBUILD) {
		strbuf_release(&err);
		if (ss->id)
			store_bisect_mark(ss->s, ss->id, sha, "skip", ss->err->buf);
		return BISECT_SKIP;
	}
	if (ret == -COMMITRUN_EREBOOT) {
		/* the run is made after the boot; this session ends here */
		session_fail(ss, -EINPROGRESS, "%s", err.buf);
		session_say(ss, true, "run %s: %s; the bisection goes on after the boot",
			    short_sha(sha), err.buf);
		strbuf_release(&err);
		return -EINPROGRESS;
	}
	if (ret == -COMMITRUN_EBOOTFAILED || ret == -COMMITRUN_EFAILED) {
		session_fail(ss, 0, "%s", err.buf);
		session_say(ss, true, "run %s: the benchmark failed: %s", short_sha(sha), err.buf);
		strbuf_release(&err);
		if (ss->id)
			store_bisect_mark(ss->s, ss->id, sha, "skip", ss->err->buf);
		return BISECT_SKIP;
	}
	if (ret == -EINTR || (ret && interrupted)) {
		strbuf_release(&err);
		return -EINTR;
	}
	if (ret)
		session_fail(ss, ret, "%s: %s", ss->job->name, err.buf);
	strbuf_release(&err);
	if (ret)
		return ret;
	/* a fleet's run is stored by its worker: never twice */
	run_id = ss->builds.stored_id;
	if (!run_id && store_put_run(ss->s, &rec, &run_id)) {
		ret = session_fail(ss, -EIO, "cannot store the run: %s", store_error(ss->s));
		goto out;
	}
	if (rec.status == RUN_INCOMPLETE || interrupted) {
		ret = -EINTR;
		goto out;
	}
	if (rec.status == RUN_FAILED) {
		ret = run_failed(ss, sha, run_id, &rec);
		goto out;
	}
	ret = measure_settle_metric(ss, &rec);
	if (ret)
		goto out;
	measure_note_direction(ss, &rec);
	v = statmap_get(&rec.stats, ss->metric);
	if (!v || !isfinite(*v)) {
		ret = session_fail(ss, -ENODATA, "run %" PRId64 " at %s has no stat '%s'",
				   run_id, short_sha(sha), ss->metric);
		goto out;
	}
	*value = *v;
	if (dist)
		*dist = (struct run_disturbance){
			.others_cpu = stat_or_nan(&rec, STAT_DISTURBANCE_CPU),
			.steal = stat_or_nan(&rec, STAT_DISTURBANCE_STEAL),
		};
	touch(ss, sha);
	ss->made_here++;
	/* one more complete run made; a sha touched anew is counted afresh */
	if (ss->made_known && ss->made_touched == ss->touched.n)
		ss->made++;
	session_say(ss, true, "run %" PRId64 " %s: %s = %.6g", run_id, short_sha(sha),
		    ss->metric, *v);
out:
	run_record_release(&rec);
	return ret;
}

/* ---- sides ---- */

int side_load(struct session *ss, struct side *sd, const char *sha)
{
	int ret;

	side_release(sd);
	sd->sha = sha;
	ret = measure_load(ss, sha, &sd->v, &sd->n);
	sd->cap = sd->n;
	return ret;
}

int side_load_since(struct session *ss, struct side *sd, const char *sha, double since)
{
	struct store_samples sm = { 0 };
	int ret;

	side_release(sd);
	sd->sha = sha;
	ret = load_since(ss, sha, since, &sm);
	if (ret)
		return ret;
	if (copy_stat(&sm, ss->metric, &sd->v, &sd->n, &sd->cap) ||
	    copy_stat(&sm, STAT_DISTURBANCE_CPU, &sd->cpu.v, &sd->cpu.n, &sd->cpu.cap) ||
	    copy_stat(&sm, STAT_DISTURBANCE_STEAL, &sd->steal.v, &sd->steal.n, &sd->steal.cap))
		ret = session_fail(ss, -ENOMEM, "out of memory");
	store_samples_release(&sm);
	if (!ret && sd->n)
		touch(ss, sha);
	return ret;
}

int measure_starts(struct session *ss, const char *sha, double **t, size_t *n)
{
	struct store_samples sm = { 0 };
	int ret;

	*t = NULL;
	*n = 0;
	ret = load_since(ss, sha, own_since(ss), &sm);
	if (ret)
		return ret;
	*t = malloc((sm.nr_runs ? sm.nr_runs : 1) * sizeof(**t));
	if (!*t)
		ret = session_fail(ss, -ENOMEM, "out of memory");
	else if (sm.started && sm.nr_runs)
		memcpy(*t, sm.started, sm.nr_runs * sizeof(**t));
	*n = *t && sm.started ? sm.nr_runs : 0;
	store_samples_release(&sm);
	return ret;
}

int side_grow(struct session *ss, struct side *sd, const char *what)
{
	struct run_disturbance dist;
	double value;
	int ret = measure_run(ss, sd->sha, &value, &dist);

	if (ret == BISECT_SKIP)
		return session_fail(ss, -ENOEXEC, "the %s commit %s cannot be measured: %s",
				    what, short_sha(sd->sha), ss->err->buf);
	if (ret)
		return ret;
	if (vec_push(sd, value) ||
	    (isfinite(dist.others_cpu) && vec_push(&sd->cpu, dist.others_cpu)) ||
	    (isfinite(dist.steal) && vec_push(&sd->steal, dist.steal)))
		return session_fail(ss, -ENOMEM, "out of memory");
	return 0;
}

void side_release(struct side *sd)
{
	vec_free(sd);
	vec_free(&sd->cpu);
	vec_free(&sd->steal);
	sd->sha = NULL;
}

/* ---- the session's measuring state ---- */

int measure_init(struct session *ss)
{
	int ret;

	if (ss->spec->build) {
		if (split_words(ss->spec->build, &ss->build) <= 0)
			return session_fail(ss, -EINVAL, "invalid --build '%s'", ss->spec->build);
	} else if (ss->job->build) {
		ss->build = ss->job->build;
	}
	ret = commit_runner_open(&ss->builds, ss->spec->repo, ss->build, ss->err);
	if (ret)
		return session_fail(ss, ret, "%s", ss->err->buf);
	if (ss->hooks && ss->hooks->kexec)
		commit_runner_set_kexec(&ss->builds, ss->hooks->kexec);
	if (ss->hooks && ss->hooks->fleet) {
		struct strbuf why = STRBUF_INIT;

		ret = commit_runner_set_fleet(&ss->builds, ss->hooks->fleet, &why);
		if (ret)
			session_fail(ss, ret, "%s", why.buf);
		strbuf_release(&why);
		return ret;
	}
	return 0;
}

void measure_release(struct session *ss)
{
	commit_runner_close(&ss->builds);
	if (ss->spec->build)
		free_words(ss->build);
	for (size_t i = 0; i < ss->touched.n; i++)
		free(ss->touched.v[i]);
	vec_free(&ss->touched);
	free(ss->metric_owned);
}
