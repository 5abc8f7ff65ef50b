/*
 * bisect_session.c - a stored bisection driven to its end
 * (bisect_session.h).  The decisions are vcs/bisect.c's; this file only
 * fetches samples - from the store, else by building and running a
 * commit - and writes down what happened.
 */
#define _GNU_SOURCE
#include "vcs/bisect_session.h"
#include "vcs/bisect.h"
#include "vcs/git.h"
#include "run/env.h"
#include "run/runner.h"
#include "stats/compare.h"
#include "stats/summary.h"
#include "stats/ttest.h"
#include "stats/verdict.h"
#include "util/fsutil.h"
#include "util/interrupt.h"
#include "util/quote.h"
#include "util/words.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* runs a side before the baseline's verdict, and at most */
#define BASELINE_MIN 3
#define BASELINE_MAX 10
/* runs of the culprit and of the commit before it, for the evidence */
#define CONFIRM_RUNS 5
/* runs of the commit under test in bisect_session_classify(), at most */
#define CLASSIFY_MAX 10
/* built worktrees kept at once: a kernel tree is large */
#define WORKTREES_KEPT 4
/* a build that runs longer hangs: the commit is skipped (a kernel: ~1 h) */
#define BUILD_TIMEOUT_S (4 * 3600.0)
/* merges bisected inside, one inside the other */
#define MERGE_DEPTH 1
/* the baseline's and the confirmation's test: the KPI family's */
#define KPI_ALPHA 0.05
#define KPI_MIN_PCT 1.0
#define LEVEL 0.95

/* ---- the spec ---- */

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int bisect_spec_to_json(const struct bisect_spec *sp, char **text)
{
	/* absent, not null, when unset: the reader unpacks them as optional */
	json_t *j = json_pack("{s:s, s:s, s:s, s:s*, s:s*, s:s*, s:s, s:s, s:s*,"
			      " s:s, s:f, s:i}",
			      "repo", sp->repo, "good", sp->good, "bad", sp->bad,
			      "good_given", sp->good_given, "bad_given", sp->bad_given,
			      "metric", sp->metric, "job_path", sp->job_path,
			      "job_text", sp->job_text, "build", sp->build,
			      "testbox", sp->testbox, "confidence", sp->confidence,
			      "max_runs", (json_int_t)sp->max_runs);

	if (!j)
		return -EINVAL;
	*text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return *text ? 0 : -ENOMEM;
}

/* side {sha, given} of spec, where the document has none */
static void fill_side(json_t *doc, const char *key, const json_t *sp,
		      const char *sha_key, const char *given_key)
{
	json_t *side = json_object_get(doc, key), *sha = json_object_get(sp, sha_key);
	json_t *given = json_object_get(sp, given_key);

	if (!json_is_object(side)) {
		side = json_object();
		json_object_set_new(doc, key, side);
	}
	if (!side)
		return;
	if (json_is_string(sha) && !json_is_string(json_object_get(side, "sha")))
		json_object_set(side, "sha", sha);
	if (!json_is_string(json_object_get(side, "given")))
		json_object_set(side, "given", json_is_string(given) ? given : sha);
}

int bisect_document(const struct store_bisect *b, json_t **out)
{
	static const char *const copied[] = {
		"repo", "job_path", "job_text", "metric", "testbox", "confidence",
		"max_runs",
	};
	json_t *doc = b->result ? json_loads(b->result, 0, NULL) : json_object();
	json_t *sp = json_loads(b->spec, 0, NULL);

	*out = NULL;
	if (!json_is_object(doc) || !json_is_object(sp)) {
		/* not JSON, or not an object: damaged; else out of memory */
		int ret = (b->result && !json_is_object(doc)) || !json_is_object(sp) ?
			  -EINVAL : -ENOMEM;

		json_decref(doc);
		json_decref(sp);
		return ret;
	}
	json_object_set_new(doc, "id", json_integer((json_int_t)b->id));
	json_object_set_new(doc, "status", json_string(b->status));
	fill_side(doc, "good", sp, "good", "good_given");
	fill_side(doc, "bad", sp, "bad", "bad_given");
	for (size_t i = 0; i < sizeof(copied) / sizeof(copied[0]); i++) {
		json_t *v = json_object_get(sp, copied[i]);

		if (v && !json_object_get(doc, copied[i]))
			json_object_set(doc, copied[i], v);
	}
	json_object_set_new(doc, "spec", sp);
	*out = doc;
	return 0;
}

int bisect_spec_from_json(const char *text, struct bisect_spec *out)
{
	const char *repo, *good, *bad, *gg = NULL, *bg = NULL, *metric = NULL;
	const char *path, *jt, *build = NULL, *box;
	json_int_t max_runs;
	double conf;
	json_t *j = json_loads(text, 0, NULL);
	int ret = -EINVAL;

	memset(out, 0, sizeof(*out));
	if (!j)
		return -EINVAL;
	if (json_unpack(j, "{s:s, s:s, s:s, s?s, s?s, s?s, s:s, s:s, s?s, s:s,"
			" s:F, s:I}",
			"repo", &repo, "good", &good, "bad", &bad, "good_given", &gg,
			"bad_given", &bg, "metric", &metric, "job_path", &path,
			"job_text", &jt, "build", &build, "testbox", &box,
			"confidence", &conf, "max_runs", &max_runs) ||
	    !(conf > 0.5 && conf < 1) || max_runs < 1)
		goto out;
	*out = (struct bisect_spec){
		.repo = strdup(repo), .good = strdup(good), .bad = strdup(bad),
		.good_given = dup_or_null(gg), .bad_given = dup_or_null(bg),
		.metric = dup_or_null(metric), .job_path = strdup(path),
		.job_text = strdup(jt), .build = dup_or_null(build),
		.testbox = strdup(box), .confidence = conf,
		.max_runs = (unsigned)max_runs,
	};
	ret = 0;
	if (!out->repo || !out->good || !out->bad || !out->job_path ||
	    !out->job_text || !out->testbox || (gg && !out->good_given) ||
	    (bg && !out->bad_given) || (metric && !out->metric) ||
	    (build && !out->build)) {
		bisect_spec_release(out);
		ret = -ENOMEM;
	}
out:
	json_decref(j);
	return ret;
}

void bisect_spec_release(struct bisect_spec *sp)
{
	free(sp->repo);
	free(sp->good);
	free(sp->bad);
	free(sp->good_given);
	free(sp->bad_given);
	free(sp->metric);
	free(sp->job_path);
	free(sp->job_text);
	free(sp->build);
	free(sp->testbox);
	memset(sp, 0, sizeof(*sp));
}

/* ---- the session ---- */

struct worktree {
	char *sha, *path;
	unsigned long used;
};

struct session {
	struct store *s;
	int64_t id;
	const struct bisect_spec *spec;
	const struct atomic_job *job;
	const struct bisect_hooks *hooks;
	char **build;			/* argv, NULL-terminated, or NULL */
	char *cache;			/* worktrees and build logs */
	struct worktree wt[WORKTREES_KEPT];
	unsigned long tick;
	const char *metric;
	char *metric_owned;
	size_t builds, build_failures;
	char **touched;			/* shas with samples this bisection used */
	size_t ntouched;
	char *err;
	size_t errlen;
};

static int fail(struct session *ss, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The arguments may include ss->err itself (a cause wrapped in context). */
static int fail(struct session *ss, int err, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	snprintf(ss->err, ss->errlen, "%s", n < 0 ? "out of memory" : msg);
	free(msg);
	return err;
}

static void say(struct session *ss, bool logged, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A progress line, and when logged a line of the bisection's log too. */
static void say(struct session *ss, bool logged, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (logged) {
		if (ss->id)
			store_bisect_log_add(ss->s, ss->id, line);
		if (ss->hooks && ss->hooks->note)
			ss->hooks->note(ss->hooks->ctx, line);
	} else if (ss->hooks && ss->hooks->progress) {
		ss->hooks->progress(ss->hooks->ctx, line);
	}
}

static void touch(struct session *ss, const char *sha)
{
	char **n;

	for (size_t i = 0; i < ss->ntouched; i++)
		if (!strcmp(ss->touched[i], sha))
			return;
	n = realloc(ss->touched, (ss->ntouched + 1) * sizeof(*n));
	if (!n)
		return;		/* only the count of runs suffers */
	ss->touched = n;
	ss->touched[ss->ntouched] = strdup(sha);
	if (ss->touched[ss->ntouched])
		ss->ntouched++;
}

/* The metric's values in the stored complete runs of sha (any number). */
static int load_values(struct session *ss, const char *sha, double **v, size_t *n)
{
	struct store_samples sm = { 0 };
	int ret;

	*v = NULL;
	*n = 0;
	ret = store_load_samples(ss->s, ss->spec->testbox, ss->job->name, sha, &sm);
	if (ret)
		return fail(ss, ret, "%s", store_error(ss->s));
	for (size_t i = 0; ss->metric && i < sm.nr; i++) {
		if (strcmp(sm.names[i], ss->metric))
			continue;
		*v = malloc((sm.counts[i] ? sm.counts[i] : 1) * sizeof(**v));
		if (!*v) {
			store_samples_release(&sm);
			return fail(ss, -ENOMEM, "out of memory");
		}
		memcpy(*v, sm.values[i], sm.counts[i] * sizeof(**v));
		*n = sm.counts[i];
		break;
	}
	store_samples_release(&sm);
	if (*n)
		touch(ss, sha);
	return 0;
}

static const char *short_sha(const char *sha)
{
	static char buf[4][13];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%.12s", sha);
	return b;
}

/* The last lines of a build log, for the bisection's log. */
static void log_tail(const char *path, char *out, size_t len)
{
	char buf[4096];
	size_t n = 0;
	FILE *f = fopen(path, "r");
	long size;

	out[0] = '\0';
	if (!f)
		return;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0) {
		long from = size > (long)sizeof(buf) - 1 ? size - (long)sizeof(buf) + 1 : 0;

		if (!fseek(f, from, SEEK_SET))
			n = fread(buf, 1, sizeof(buf) - 1, f);
	}
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	/* the last 3 lines, joined */
	for (int lines = 0; n > 0; n--) {
		if (buf[n - 1] == '\n' && ++lines == 3)
			break;
	}
	snprintf(out, len, "%s", buf + n);
	for (char *p = out; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
}

static void drop_worktree(struct session *ss, struct worktree *w)
{
	git_worktree_remove(ss->spec->repo, w->path);
	free(w->sha);
	free(w->path);
	memset(w, 0, sizeof(*w));
}

/*
 * A built worktree of sha: kept ones first (a commit is measured again
 * without a new build), else the least recently used one makes room.
 * -GIT_EBUILD with the failure logged when the commit does not build.
 */
static int checkout(struct session *ss, const char *sha, const char **path)
{
	struct worktree *w = &ss->wt[0];
	char err[1024], log[PATH_MAX + 8], tail[600];
	char *dir = NULL;
	int ret;

	for (size_t i = 0; i < WORKTREES_KEPT; i++) {
		if (ss->wt[i].sha && !strcmp(ss->wt[i].sha, sha)) {
			ss->wt[i].used = ++ss->tick;
			*path = ss->wt[i].path;
			return 0;
		}
		if (!ss->wt[i].sha || ss->wt[i].used < w->used)
			w = &ss->wt[i];
	}
	if (w->sha)
		drop_worktree(ss, w);
	if (ss->build)
		say(ss, false, "bisect %" PRId64 ": building %s", ss->id, short_sha(sha));
	ret = git_checkout_built(ss->spec->repo, sha, ss->build, ss->cache,
				 BUILD_TIMEOUT_S, &interrupted, &dir, err, sizeof(err));
	if (ss->build && ret != -ECANCELED)
		ss->builds++;
	if (ret == -GIT_EBUILD || ret == -ETIMEDOUT) {
		ss->build_failures++;
		snprintf(log, sizeof(log), "%s/%s.log", ss->cache, sha);
		log_tail(log, tail, sizeof(tail));
		snprintf(ss->err, ss->errlen, "build failed: %s%s%s", err,
			 *tail ? "; log ends: " : "", tail);
		say(ss, true, "build %s: failed: %s", short_sha(sha), ss->err);
		return -GIT_EBUILD;
	}
	if (ret == -ECANCELED || interrupted)
		return -EINTR;
	if (ret)
		return fail(ss, ret, "%s", err);
	if (ss->build)
		say(ss, true, "build %s: ok", short_sha(sha));
	w->sha = strdup(sha);
	w->path = dir;
	w->used = ++ss->tick;
	if (!w->sha) {
		drop_worktree(ss, w);
		return fail(ss, -ENOMEM, "out of memory");
	}
	*path = w->path;
	return 0;
}

/* The metric, once known: the spec's, the job's, else the first run's KPI. */
static int settle_metric(struct session *ss, const struct run_record *r)
{
	const char *kpi;

	if (ss->metric)
		return 0;
	kpi = run_record_kpi(r);
	if (!kpi)
		return fail(ss, -ENODATA,
			    "the job's runs have no KPI to bisect on: give --metric STAT");
	ss->metric = ss->metric_owned = strdup(kpi);
	if (!ss->metric)
		return fail(ss, -ENOMEM, "out of memory");
	say(ss, true, "metric: %s", ss->metric);
	return 0;
}

/*
 * One run of sha into the store: 0 with its value, BISECT_SKIP when the
 * commit cannot be measured (build or benchmark failed; marked in the
 * store with the reason), -EINTR, or another error.
 */
static int measure(struct session *ss, const char *sha, double *value)
{
	struct runner_opts ro = { .commit = sha, .monitors = true, .stop = &interrupted };
	struct run_record rec;
	char err[512];
	const double *v;
	int64_t run_id;
	int ret;

	if (interrupted)
		return -EINTR;
	ret = checkout(ss, sha, &ro.src_dir);
	if (ret == -GIT_EBUILD) {
		if (ss->id)
			store_bisect_mark(ss->s, ss->id, sha, "skip", ss->err);
		return BISECT_SKIP;
	}
	if (ret)
		return ret;
	ret = runner_run(ss->job, &ro, &rec, err, sizeof(err));
	if (ret)
		return fail(ss, ret, "%s: %s", ss->job->name, err);
	if (store_put_run(ss->s, &rec, &run_id)) {
		ret = fail(ss, -EIO, "cannot store the run: %s", store_error(ss->s));
		goto out;
	}
	if (rec.status == RUN_INCOMPLETE || interrupted) {
		ret = -EINTR;
		goto out;
	}
	if (rec.status == RUN_FAILED) {
		const char *why = strmap_get(&rec.env, "last_state.reason");

		snprintf(ss->err, ss->errlen, "the benchmark failed (run %" PRId64 "%s%s)",
			 run_id, why ? ": " : "", why ? why : "");
		say(ss, true, "run %s: %s", short_sha(sha), ss->err);
		if (ss->id)
			store_bisect_mark(ss->s, ss->id, sha, "skip", ss->err);
		ret = BISECT_SKIP;
		goto out;
	}
	ret = settle_metric(ss, &rec);
	if (ret)
		goto out;
	v = statmap_get(&rec.stats, ss->metric);
	if (!v || !isfinite(*v)) {
		ret = fail(ss, -ENODATA, "run %" PRId64 " at %s has no stat '%s'",
			   run_id, short_sha(sha), ss->metric);
		goto out;
	}
	*value = *v;
	touch(ss, sha);
	say(ss, true, "run %" PRId64 " %s: %s = %.6g", run_id, short_sha(sha),
	    ss->metric, *v);
out:
	run_record_release(&rec);
	return ret;
}

/* ---- samples of one commit ---- */

struct side {
	const char *sha;
	double *v;
	size_t n;
};

static int side_load(struct session *ss, struct side *sd, const char *sha)
{
	free(sd->v);
	sd->sha = sha;
	return load_values(ss, sha, &sd->v, &sd->n);
}

/* One more run of a side; a baseline that cannot be measured is an error. */
static int side_grow(struct session *ss, struct side *sd, const char *what)
{
	double value, *nv;
	int ret = measure(ss, sd->sha, &value);

	if (ret == BISECT_SKIP)
		return fail(ss, -ENOEXEC, "the %s commit %s cannot be measured: %s",
			    what, short_sha(sd->sha), ss->err);
	if (ret)
		return ret;
	nv = realloc(sd->v, (sd->n + 1) * sizeof(*nv));
	if (!nv)
		return fail(ss, -ENOMEM, "out of memory");
	sd->v = nv;
	sd->v[sd->n++] = value;
	return 0;
}

static json_t *values_json(const double *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

static json_t *side_json(const struct side *sd)
{
	struct summary s;

	summarize(sd->v, sd->n, &s);
	return json_pack("{s:s, s:I, s:f, s:f, s:o}", "sha", sd->sha,
			 "n", (json_int_t)sd->n, "mean", s.mean, "stddev", s.stddev,
			 "values", values_json(sd->v, sd->n));
}

/* Welch's test and the KPI family's verdict of b against a. */
static enum verdict judge(const struct side *a, const struct side *b,
			  json_t **out)
{
	struct summary sa, sb;
	struct pct_change c;
	struct welch w;
	enum verdict v;

	summarize(a->v, a->n, &sa);
	summarize(b->v, b->n, &sb);
	w = welch_test(&sa, &sb);
	v = decide(&(struct verdict_input){
			.a = &sa, .b = &sb, .p = w.p, .min_size_pct = KPI_MIN_PCT,
			.alpha = KPI_ALPHA, .level = LEVEL,
		}, &c);
	*out = json_pack("{s:f, s:f, s:f, s:f, s:s}", "pct", isfinite(c.pct) ? c.pct : 0,
			 "low", isfinite(c.low) ? c.low : 0,
			 "high", isfinite(c.high) ? c.high : 0,
			 "p", isfinite(w.p) ? w.p : 1, "verdict", verdict_name(v));
	return v;
}

/*
 * The baseline: runs of good and bad until the verdict on the metric is
 * "changed" (*changed true), "same", or still open after BASELINE_MAX
 * runs a side.  The sides are alternated so drift hits both.
 */
static int baseline(struct session *ss, struct side *g, struct side *b,
		    bool *changed, json_t **out)
{
	json_t *change = NULL;
	enum verdict v;
	int ret;

	*changed = false;
	*out = NULL;
	while (g->n < BASELINE_MIN || b->n < BASELINE_MIN) {
		if (g->n < BASELINE_MIN && (ret = side_grow(ss, g, "good")))
			return ret;
		if (b->n < BASELINE_MIN && (ret = side_grow(ss, b, "bad")))
			return ret;
	}
	for (;;) {
		json_decref(change);
		v = judge(g, b, &change);
		if (v == VERDICT_CHANGED || v == VERDICT_SAME ||
		    (g->n >= BASELINE_MAX && b->n >= BASELINE_MAX))
			break;
		if (g->n < BASELINE_MAX && (ret = side_grow(ss, g, "good")))
			goto fail;
		if (b->n < BASELINE_MAX && (ret = side_grow(ss, b, "bad")))
			goto fail;
	}
	*changed = v == VERDICT_CHANGED;
	*out = json_pack("{s:o, s:o, s:o}", "good", side_json(g), "bad", side_json(b),
			 "change", change);
	return *out ? 0 : fail(ss, -ENOMEM, "out of memory");
fail:
	json_decref(change);
	return ret;
}

/* ---- one level: G..B along the first parents ---- */

struct level {
	struct session *ss;
	const char *good, *bad;
	char **cands;			/* oldest first; the last is bad */
	size_t n;
	struct bisect *engine;
};

static int list_candidates(struct session *ss, struct level *lv)
{
	char err[512], range[2 * 64 + 3], *out = NULL, *save = NULL;
	size_t cap = 0;
	int ret;

	snprintf(range, sizeof(range), "%s..%s", lv->good, lv->bad);
	ret = git_cmd(ss->spec->repo, &out, err, sizeof(err), "rev-list",
		      "--first-parent", "--reverse", range, NULL);
	if (ret)
		return fail(ss, ret, "%s", err);
	for (char *t = strtok_r(out, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		if (lv->n == cap) {
			char **nc = realloc(lv->cands, (cap ? 2 * cap : 64) * sizeof(*nc));

			if (!nc)
				goto nomem;
			lv->cands = nc;
			cap = cap ? 2 * cap : 64;
		}
		lv->cands[lv->n] = strdup(t);
		if (!lv->cands[lv->n])
			goto nomem;
		lv->n++;
	}
	free(out);
	if (!lv->n || strcmp(lv->cands[lv->n - 1], lv->bad))
		return fail(ss, -EINVAL, "%s is not on the first-parent line of %s",
			    short_sha(lv->good), short_sha(lv->bad));
	return 0;
nomem:
	free(out);
	return fail(ss, -ENOMEM, "out of memory");
}

static void level_release(struct level *lv)
{
	for (size_t i = 0; i < lv->n; i++)
		free(lv->cands[i]);
	free(lv->cands);
	bisect_free(lv->engine);
}

/* Every stored sample and skip mark of the candidates, into the engine. */
static int preload(struct session *ss, struct level *lv)
{
	struct store_bisect_mark *marks = NULL;
	size_t nmarks = 0;
	int ret = 0;

	/* B's samples are bad under every hypothesis: they would cancel */
	for (size_t i = 0; i + 1 < lv->n && !ret; i++) {
		double *v;
		size_t n;

		ret = load_values(ss, lv->cands[i], &v, &n);
		for (size_t k = 0; !ret && k < n; k++)
			bisect_add_sample(lv->engine, i, v[k]);
		free(v);
	}
	if (!ret && ss->id && store_bisect_marks(ss->s, ss->id, &marks, &nmarks))
		ret = fail(ss, -EIO, "%s", store_error(ss->s));
	for (size_t m = 0; !ret && m < nmarks; m++) {
		if (strcmp(marks[m].mark, "skip"))
			continue;
		for (size_t i = 0; i + 1 < lv->n; i++)
			if (!strcmp(lv->cands[i], marks[m].sha))
				bisect_skip(lv->engine, i);
	}
	store_bisect_marks_release(marks, nmarks);
	return ret;
}

static const char *level_sha(const struct level *lv, size_t i)
{
	return i == BISECT_GOOD ? lv->good : i == BISECT_BAD ? lv->bad : lv->cands[i];
}

/* G or B cannot be skipped: they were measured for the baseline. */
static int level_measure(void *ctx, size_t i, double *value)
{
	struct level *lv = ctx;
	int ret = measure(lv->ss, level_sha(lv, i), value);

	if (ret == BISECT_SKIP && (i == BISECT_GOOD || i == BISECT_BAD))
		return fail(lv->ss, -ENOEXEC, "the %s commit %s cannot be measured any more: %s",
			    i == BISECT_GOOD ? "good" : "bad", short_sha(level_sha(lv, i)),
			    lv->ss->err);
	return ret;
}

static void level_progress(void *ctx, struct bisect *b, const struct bisect_step *s)
{
	struct level *lv = ctx;
	struct session *ss = lv->ss;
	char which[64];
	size_t left = 0;

	for (size_t i = 0; i < lv->n; i++)
		left += bisect_posterior(b, i) >= 1e-3;
	if (s->state != BISECT_MEASURE)
		return;
	if (s->commit == BISECT_GOOD || s->commit == BISECT_BAD)
		snprintf(which, sizeof(which), "the %s side", s->commit == BISECT_GOOD ?
			 "good" : "bad");
	else
		snprintf(which, sizeof(which), "%zu/%zu", s->commit + 1, lv->n);
	say(ss, false, "bisect %" PRId64 ": %zu of %zu candidates left, best %s at %.1f%%,"
	    " %zu runs, %zu builds; measuring %s (%s)", ss->id, left, lv->n,
	    short_sha(lv->cands[s->best]), 100 * s->best_p, bisect_total_samples(b),
	    ss->builds, short_sha(level_sha(lv, s->commit)), which);
}

static json_t *commit_json(struct session *ss, const char *sha)
{
	struct git_commit c;
	json_t *j;

	if (git_commit_info(ss->spec->repo, sha, &c))
		return json_pack("{s:s}", "sha", sha);
	/* git keeps whatever bytes a commit was written with */
	j = json_pack("{s:s, s:o, s:o, s:o}", "sha", sha, "subject", json_str(c.subject),
		      "author", json_str(c.author), "date", json_str(c.date));
	git_commit_release(&c);
	return j;
}

static const char *commit_subject(json_t *c)
{
	const char *s = json_string_value(json_object_get(c, "subject"));

	return s ? s : "";
}

/* The candidates measured or skipped, in commit order, for the plot. */
static json_t *commits_json(struct session *ss, struct level *lv)
{
	json_t *a = json_array();
	struct store_bisect_mark *marks = NULL;
	size_t nmarks = 0;

	if (ss->id)
		store_bisect_marks(ss->s, ss->id, &marks, &nmarks);
	for (size_t i = 0; a && i < lv->n; i++) {
		bool skipped = bisect_is_skipped(lv->engine, i);
		double *v = NULL;
		size_t n = 0;
		json_t *c;

		/* the engine knows which were measured: read only those back */
		if (!skipped && (i + 1 == lv->n || !bisect_samples(lv->engine, i) ||
				 load_values(ss, lv->cands[i], &v, &n) || !n))
			continue;
		c = commit_json(ss, lv->cands[i]);
		json_object_set_new(c, "index", json_integer((json_int_t)i));
		json_object_set_new(c, "state", json_string(skipped ? "skipped" : "measured"));
		json_object_set_new(c, "n", json_integer((json_int_t)n));
		json_object_set_new(c, "p_bad", json_real(bisect_p_bad(lv->engine, i)));
		if (n) {
			struct summary s;

			summarize(v, n, &s);
			json_object_set_new(c, "mean", json_real(s.mean));
			json_object_set_new(c, "values", values_json(v, n));
		}
		for (size_t m = 0; skipped && m < nmarks; m++)
			if (!strcmp(marks[m].sha, lv->cands[i]) && marks[m].note)
				json_object_set_new(c, "note", json_string(marks[m].note));
		json_array_append_new(a, c);
		free(v);
	}
	store_bisect_marks_release(marks, nmarks);
	return a;
}

/* The most probable candidates, best first, at most 5 above 0.1%. */
static json_t *best_json(struct session *ss, struct level *lv)
{
	json_t *a = json_array();
	bool *taken = calloc(lv->n, sizeof(*taken));

	for (int k = 0; a && taken && k < 5; k++) {
		size_t best = lv->n;
		json_t *c;

		for (size_t i = 0; i < lv->n; i++)
			if (!taken[i] && (best == lv->n ||
					  bisect_posterior(lv->engine, i) >
					  bisect_posterior(lv->engine, best)))
				best = i;
		if (best == lv->n || (k && bisect_posterior(lv->engine, best) < 1e-3))
			break;
		taken[best] = true;
		c = commit_json(ss, lv->cands[best]);
		json_object_set_new(c, "index", json_integer((json_int_t)best));
		json_object_set_new(c, "probability",
				    json_real(bisect_posterior(lv->engine, best)));
		json_array_append_new(a, c);
	}
	free(taken);
	return a;
}

/*
 * The evidence: the culprit and the commit before it (G when the culprit
 * is the first candidate) brought to CONFIRM_RUNS runs each, alternating,
 * and judged as compare judges a KPI.
 */
static int confirm(struct session *ss, struct level *lv, size_t culprit,
		   size_t before, const struct side *g, json_t **out)
{
	struct side parent = { 0 }, bad = { 0 };
	json_t *change = NULL;
	int ret;

	ret = side_load(ss, &parent, before == lv->n ? g->sha : lv->cands[before]);
	if (!ret)
		ret = side_load(ss, &bad, lv->cands[culprit]);
	while (!ret && (parent.n < CONFIRM_RUNS || bad.n < CONFIRM_RUNS)) {
		if (parent.n < CONFIRM_RUNS)
			ret = side_grow(ss, &parent, "parent");
		if (!ret && bad.n < CONFIRM_RUNS)
			ret = side_grow(ss, &bad, "culprit");
	}
	if (!ret) {
		enum verdict v = judge(&parent, &bad, &change);

		say(ss, true, "confirm %s against %s: %s, %s%+.2f%%",
		    short_sha(bad.sha), short_sha(parent.sha), verdict_name(v),
		    ss->metric, json_real_value(json_object_get(change, "pct")));
		json_object_set_new(change, "parent", side_json(&parent));
		json_object_set_new(change, "culprit", side_json(&bad));
		*out = change;
	}
	free(parent.v);
	free(bad.v);
	return ret;
}

/* The parents of sha, or 0 on error; *second: the second parent's sha. */
static int parents_of(struct session *ss, const char *sha, char **second)
{
	char err[512], *out = NULL, *save = NULL, *t;
	int n = 0;

	*second = NULL;
	if (git_cmd(ss->spec->repo, &out, err, sizeof(err), "rev-list", "--parents",
		    "-n", "1", sha, NULL))
		return 0;
	for (t = strtok_r(out, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
		if (++n == 3)
			*second = strdup(t);
	}
	free(out);
	return n - 1;
}

static int run_level(struct session *ss, const char *good, const char *bad,
		     unsigned depth, json_t *out);

/*
 * A merge culprit: is the change inside the branch it merged?  Then that
 * branch, from the merge base to the second parent, is bisected too.
 */
static int bisect_merge(struct session *ss, const char *merge, unsigned depth,
			json_t *out)
{
	char err[512], *second = NULL, *base = NULL, first_parent[128];
	json_t *inner = NULL, *m;
	int ret = 0;

	if (parents_of(ss, merge, &second) < 2 || !second)
		return 0;
	snprintf(first_parent, sizeof(first_parent), "%s^1", merge);
	if (git_cmd(ss->spec->repo, &base, err, sizeof(err), "merge-base",
		    first_parent, second, NULL)) {
		ret = fail(ss, -EIO, "%s", err);
		goto out;
	}
	base[strcspn(base, "\n")] = '\0';
	m = commit_json(ss, merge);
	json_object_set_new(out, "merge", m);
	if (!strcmp(base, second)) {
		say(ss, true, "merge %s: its branch holds no commit of its own",
		    short_sha(merge));
		goto out;
	}
	say(ss, true, "merge %s: bisecting its branch %s..%s", short_sha(merge),
	    short_sha(base), short_sha(second));
	inner = json_object();
	if (!inner) {
		ret = fail(ss, -ENOMEM, "out of memory");
		goto out;
	}
	ret = run_level(ss, base, second, depth + 1, inner);
	if (!ret)
		json_object_set(m, "inner", inner);
out:
	json_decref(inner);
	free(second);
	free(base);
	return ret;
}

/* One level, G..B: baseline, search, confirmation, and a merge inside. */
static int run_level(struct session *ss, const char *good, const char *bad,
		     unsigned depth, json_t *out)
{
	struct level lv = { .ss = ss, .good = good, .bad = bad };
	struct side g = { 0 }, b = { 0 };
	struct bisect_step step;
	struct bisect_search search;
	json_t *base_json = NULL, *evidence = NULL;
	const char *status;
	size_t before;
	bool changed;
	int ret;

	json_object_set_new(out, "good", commit_json(ss, good));
	json_object_set_new(out, "bad", commit_json(ss, bad));
	ret = list_candidates(ss, &lv);
	if (ret)
		goto out;
	json_object_set_new(out, "candidates", json_integer((json_int_t)lv.n));
	say(ss, true, "level %u: %zu candidates in %s..%s", depth, lv.n,
	    short_sha(good), short_sha(bad));
	ret = side_load(ss, &g, good);
	if (!ret)
		ret = side_load(ss, &b, bad);
	if (!ret)
		ret = baseline(ss, &g, &b, &changed, &base_json);
	if (ret)
		goto out;
	json_object_set(out, "baseline", base_json);
	if (!changed) {
		json_t *c = json_object_get(base_json, "change");

		say(ss, true, "baseline: no reproducible change of %s (%+.2f%%, p = %.3g, %s)"
		    " after %zu + %zu runs", ss->metric,
		    json_real_value(json_object_get(c, "pct")),
		    json_real_value(json_object_get(c, "p")),
		    json_string_value(json_object_get(c, "verdict")), g.n, b.n);
		json_object_set_new(out, "status", json_string("no-change"));
		goto out;
	}
	say(ss, true, "baseline: %s changed %+.2f%% (%zu + %zu runs)", ss->metric,
	    json_real_value(json_object_get(json_object_get(base_json, "change"), "pct")),
	    g.n, b.n);
	lv.engine = bisect_new_estimated(lv.n, g.v, g.n, b.v, b.n);
	if (!lv.engine) {
		ret = fail(ss, -ENOMEM, "cannot set up the search");
		goto out;
	}
	ret = preload(ss, &lv);
	if (ret)
		goto out;
	search = (struct bisect_search){
		.confidence = ss->spec->confidence, .max_samples = ss->spec->max_runs,
		.measure = level_measure, .progress = level_progress, .ctx = &lv,
	};
	ret = bisect_run(lv.engine, &search, &step);
	if (ret)
		goto out;
	json_object_set_new(out, "runs_search",
			    json_integer((json_int_t)bisect_total_samples(lv.engine)));
	json_object_set_new(out, "best", best_json(ss, &lv));
	json_object_set_new(out, "commits", commits_json(ss, &lv));
	if (step.state == BISECT_MEASURE) {
		say(ss, true, "undecided after %zu runs: best %s at %.1f%%",
		    bisect_total_samples(lv.engine), short_sha(lv.cands[step.best]),
		    100 * step.best_p);
		json_object_set_new(out, "status", json_string("undecided"));
		goto out;
	}
	status = step.state == BISECT_FOUND ? "found" : "found-range";
	json_object_set_new(out, "status", json_string(status));
	{
		json_t *c = commit_json(ss, lv.cands[step.commit]);

		json_object_set_new(c, "index", json_integer((json_int_t)step.commit));
		json_object_set_new(c, "probability", json_real(step.p));
		json_object_set_new(out, "culprit", c);
		say(ss, true, "%s %s %s at %.2f%%", status, short_sha(lv.cands[step.commit]),
		    commit_subject(c), 100 * step.p);
	}
	if (step.state == BISECT_FOUND_RANGE) {
		json_t *r = json_array();

		for (size_t i = step.first; r && i <= step.last; i++) {
			json_t *c = commit_json(ss, lv.cands[i]);

			json_object_set_new(c, "skipped", json_boolean(i != step.last));
			json_object_set_new(c, "probability",
					    json_real(bisect_posterior(lv.engine, i)));
			json_array_append_new(r, c);
		}
		json_object_set_new(out, "range", r);
	}
	/* the commit before the culprit's block: G when it is the first */
	before = step.first ? step.first - 1 : lv.n;
	ret = confirm(ss, &lv, step.commit, before, &g, &evidence);
	if (ret)
		goto out;
	json_object_set_new(out, "confirmation", evidence);
	if (step.state == BISECT_FOUND && depth < MERGE_DEPTH)
		ret = bisect_merge(ss, lv.cands[step.commit], depth, out);
out:
	json_decref(base_json);
	free(g.v);
	free(b.v);
	level_release(&lv);
	return ret;
}

/* ---- the whole ---- */

/*
 * Without --metric or the job's kpi: the KPI of a stored complete run at
 * G or B, so that a resumed bisection reads its stored runs before it
 * measures anything (the first measured run settles it otherwise).
 */
static int metric_from_store(struct session *ss)
{
	const char *shas[2] = { ss->spec->good, ss->spec->bad };
	int ret = 0;

	for (int k = 0; k < 2 && !ss->metric && !ret; k++) {
		int64_t *ids = NULL;
		size_t n = 0;

		if (store_group_runs(ss->s, ss->spec->testbox, ss->job->name, shas[k],
				     &ids, &n))
			return fail(ss, -EIO, "%s", store_error(ss->s));
		for (size_t i = 0; i < n && !ss->metric && !ret; i++) {
			struct run_record r;

			if (store_get_run(ss->s, ids[i], &r)) {
				ret = fail(ss, -EIO, "%s", store_error(ss->s));
				break;
			}
			if (r.status == RUN_COMPLETE)
				ret = settle_metric(ss, &r);
			run_record_release(&r);
		}
		free(ids);
	}
	return ret;
}

static int session_init(struct session *ss, struct store *s, int64_t id,
			const struct bisect_spec *spec, const struct atomic_job *job,
			const struct bisect_hooks *hooks, char *err, size_t errlen)
{
	int ret;

	*ss = (struct session){
		.s = s, .id = id, .spec = spec, .job = job, .hooks = hooks,
		.metric = spec->metric ? spec->metric : job->kpi, .err = err,
		.errlen = errlen,
	};
	if (spec->build) {
		if (split_words(spec->build, &ss->build) <= 0)
			return fail(ss, -EINVAL, "invalid --build '%s'", spec->build);
	} else if (job->build) {
		ss->build = job->build;
	}
	ret = make_temp_dir(NULL, "perfbot-bisect", &ss->cache);
	if (ret)
		return fail(ss, ret, "cannot make a directory for the worktrees: %s",
			    strerror(-ret));
	return metric_from_store(ss);
}

static void session_release(struct session *ss)
{
	for (size_t i = 0; i < WORKTREES_KEPT; i++)
		if (ss->wt[i].sha)
			drop_worktree(ss, &ss->wt[i]);
	if (ss->cache) {
		remove_tree(ss->cache);
		free(ss->cache);
	}
	if (ss->spec->build)
		free_words(ss->build);
	for (size_t i = 0; i < ss->ntouched; i++)
		free(ss->touched[i]);
	free(ss->touched);
	free(ss->metric_owned);
}

/* Every run this bisection used, each stored run once. */
static size_t runs_used(struct session *ss)
{
	size_t total = 0;

	for (size_t i = 0; i < ss->ntouched; i++) {
		double *v;
		size_t n;

		if (!load_values(ss, ss->touched[i], &v, &n))
			total += n;
		free(v);
	}
	return total;
}

/* The level a report leads with: inside the merge when the change is there. */
static const char *final_status(json_t *top)
{
	return json_string_value(json_object_get(top, "status"));
}

int bisect_session_run(struct store *s, int64_t id, const struct bisect_spec *spec,
		       const struct atomic_job *job, const struct bisect_hooks *hooks,
		       json_t **result, char *err, size_t errlen)
{
	struct session ss;
	struct strmap env = { 0 };
	char envmsg[256], *text = NULL;
	json_t *r = NULL, *params;
	int ret, direction;

	*result = NULL;
	ret = session_init(&ss, s, id, spec, job, hooks, err, errlen);
	if (ret)
		goto out;
	r = json_object();
	params = json_object();
	if (!r || !params) {
		json_decref(params);
		ret = fail(&ss, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < job->nr_params; i++)
		json_object_set_new(params, job->params[i].key,
				    json_string(job->params[i].value));
	json_object_set_new(r, "params", params);
	ret = run_level(&ss, spec->good, spec->bad, 0, r);
	if (ret)
		goto out;
	env_capture(&env, envmsg, sizeof(envmsg));
	direction = compare_stat_direction(ss.metric);
	json_object_update_missing_new(r, json_pack(
		"{s:I, s:s, s:s, s:s, s:s, s:s?, s:s, s:s?, s:f, s:I, s:I, s:I, s:I}",
		"id", (json_int_t)id, "repo", spec->repo, "job", job->name,
		"testcase", job->testcase, "testbox", spec->testbox,
		"machine", strmap_get(&env, "machine"), "job_text", spec->job_text,
		"metric", ss.metric, "confidence", spec->confidence,
		"max_runs", (json_int_t)spec->max_runs,
		"runs", (json_int_t)runs_used(&ss), "builds", (json_int_t)ss.builds,
		"build_failures", (json_int_t)ss.build_failures));
	if (direction)
		json_object_set_new(r, "higher_is_better", json_boolean(direction > 0));
	json_object_set_new(json_object_get(r, "good"), "given",
			    json_string(spec->good_given ? spec->good_given : spec->good));
	json_object_set_new(json_object_get(r, "bad"), "given",
			    json_string(spec->bad_given ? spec->bad_given : spec->bad));
	text = json_dumps(r, JSON_COMPACT | JSON_REAL_PRECISION(10));
	if (!text || store_bisect_update(s, id, final_status(r), text)) {
		ret = fail(&ss, -EIO, "cannot store the result: %s",
			   text ? store_error(s) : "out of memory");
		goto out;
	}
	*result = r;
	r = NULL;
out:
	if (ret == -EINTR || (interrupted && ret)) {
		ret = -EINTR;
		say(&ss, true, "interrupted; perfbot bisect resume %" PRId64 " goes on", id);
	}
	strmap_release(&env);
	free(text);
	json_decref(r);
	session_release(&ss);
	return ret;
}

int bisect_session_classify(struct store *s, const struct bisect_spec *spec,
			    const struct atomic_job *job, const char *sha,
			    const struct bisect_hooks *hooks, int *verdict,
			    char *err, size_t errlen)
{
	struct session ss;
	struct side g = { 0 }, b = { 0 };
	struct bisect *two = NULL;
	json_t *base = NULL;
	double *v = NULL, p_bad = 0.5;
	size_t n = 0;
	bool changed;
	int ret;

	*verdict = 125;
	ret = session_init(&ss, s, 0, spec, job, hooks, err, errlen);
	if (!ret)
		ret = side_load(&ss, &g, spec->good);
	if (!ret)
		ret = side_load(&ss, &b, spec->bad);
	if (!ret)
		ret = baseline(&ss, &g, &b, &changed, &base);
	if (ret)
		goto out;
	if (!changed) {
		ret = fail(&ss, -ENODATA, "no reproducible change of %s between %s and %s",
			   ss.metric, short_sha(spec->good), short_sha(spec->bad));
		goto out;
	}
	/* two hypotheses: sha is the first bad (index 0), or B is (sha good) */
	two = bisect_new_estimated(2, g.v, g.n, b.v, b.n);
	if (!two) {
		ret = fail(&ss, -ENOMEM, "cannot set up the model");
		goto out;
	}
	ret = load_values(&ss, sha, &v, &n);
	for (size_t k = 0; !ret && k < n; k++)
		bisect_add_sample(two, 0, v[k]);
	while (!ret) {
		double value;

		p_bad = bisect_posterior(two, 0);
		if (p_bad >= spec->confidence || 1 - p_bad >= spec->confidence ||
		    bisect_samples(two, 0) >= CLASSIFY_MAX)
			break;
		ret = measure(&ss, sha, &value);
		if (ret == BISECT_SKIP) {
			ret = 0;
			say(&ss, true, "%s cannot be measured: skip", short_sha(sha));
			goto out;
		}
		if (!ret)
			bisect_add_sample(two, 0, value);
	}
	if (ret)
		goto out;
	if (p_bad >= spec->confidence)
		*verdict = 1;
	else if (1 - p_bad >= spec->confidence)
		*verdict = 0;
	say(&ss, true, "%s: P(bad) = %.4f after %zu runs: %s", short_sha(sha), p_bad,
	    bisect_samples(two, 0),
	    *verdict == 0 ? "good" : *verdict == 1 ? "bad" : "cannot tell");
out:
	if (interrupted && ret)
		ret = -EINTR;
	json_decref(base);
	bisect_free(two);
	free(v);
	free(g.v);
	free(b.v);
	session_release(&ss);
	return ret;
}
