/*
 * measure.c - compare --measure (measure.h): rounds of interleaved runs
 * of the commits, until compare's verdicts are decided.
 */
#define _GNU_SOURCE
#include "cmd/measure.h"
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/gather.h"
#include "run/runner.h"
#include "stats/verdict.h"
#include "util/interrupt.h"
#include "util/strbuf.h"
#include "util/vec.h"
#include "vcs/commitrun.h"
#include "vcs/git.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define failure(...) cmd_failure("compare", __VA_ARGS__)

/*
 * A progress line on stderr; with spec->stamped, after a UTC timestamp
 * and "perfbot watch: " (instead of "perfbot: compare: "), as every line
 * of the robot's log.
 */
static void say(const struct measure_spec *sp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(const struct measure_spec *sp, const char *fmt, ...)
{
	struct strbuf line = STRBUF_INIT;
	va_list ap;

	if (sp->stamped) {
		char stamp[64];

		cmd_robot_stamp(stamp, sizeof(stamp));
		strbuf_addstr(&line, stamp);
	}
	va_start(ap, fmt);
	strbuf_vaddf(&line, fmt, ap);
	va_end(ap);
	/* the robot's log names itself once: "perfbot: compare: " goes */
	if (!strbuf_error(&line)) {
		const char *text = line.buf, *tag = strstr(text, "perfbot: compare: ");

		if (sp->stamped && tag)
			fprintf(stderr, "%.*s%s\n", (int)(tag - text), text,
				tag + strlen("perfbot: compare: "));
		else
			fprintf(stderr, "%s\n", text);
	}
	strbuf_release(&line);
}

/* One commit's runs of the job being measured. */
struct commit_runs {
	size_t complete;			/* stored complete runs in the window */
	size_t unsupported, failed;		/* stored, ever */
	size_t failed_now;			/* failed in this measurement */
	double *started;			/* every stored complete run's start */
	size_t nr_started;
	size_t need;				/* runs still to make this round */
	bool warm;				/* a run of the job completed here now */
	bool given_up;				/* cannot be measured: said why */
};

struct measure {
	struct store *s;
	const struct measure_spec *sp;
	const struct atomic_job *job;
	size_t job_index, nr_jobs;
	struct commit_runner *builds;
	struct commit_runs *c;			/* [nr_commits] */
	struct measure_tally *tally;
	unsigned round;
	size_t target;				/* runs per commit this round */
	bool unsupported;			/* the job cannot run here */
	double since;				/* the window's start, or STORE_ALL_TIME */
};

/* A commit as the user named it; a full sha shortened. */
static const char *label(const struct measure *m, size_t i)
{
	static char buf[2][13];
	static int next;
	const char *l = m->sp->labels[i];

	if (strcmp(l, m->sp->shas[i]))
		return l;
	next = !next;
	snprintf(buf[next], sizeof(buf[next]), "%.12s", l);
	return buf[next];
}

static size_t runs_of(const struct commit_runs *c)
{
	return c->complete + c->failed_now;
}

/* ---- the window: the stored runs that alternate between the commits ---- */

/* Do the base's and one other commit's runs from `cut` on alternate (stats/compare.h)? */
static bool alternate_from(const struct commit_runs *a, const struct commit_runs *b,
			   double cut)
{
	return compare_alternate_from(a->started, a->nr_started, b->started, b->nr_started, cut);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The window the verdicts are judged on: the longest stretch at the end
 * of the job's stored runs in which every commit's runs alternate with
 * the base's.  All of them when they do (STORE_ALL_TIME); none (a time
 * after the last) when no stretch does: every commit is measured afresh.
 * Computed from the store alone, so a rerun finds the window again.
 * Runs before spec->not_before are never in it.
 */
static int find_window(struct measure *m)
{
	size_t n = 0, k = 0, first = 0;
	double *all;

	for (size_t i = 0; i < m->sp->nr_commits; i++)
		n += m->c[i].nr_started;
	all = malloc((n ? n : 1) * sizeof(*all));
	if (!all)
		return failure("out of memory");
	for (size_t i = 0; i < m->sp->nr_commits; i++)
		for (size_t r = 0; r < m->c[i].nr_started; r++)
			all[k++] = m->c[i].started[r];
	qsort(all, n, sizeof(*all), cmp_double);
	while (first < n && all[first] < m->sp->not_before)
		first++;
	m->since = n ? fmax(all[n - 1] + 1e-3, m->sp->not_before) :
	      m->sp->not_before > 0 ? m->sp->not_before : STORE_ALL_TIME;
	for (size_t cut = first; cut < n; cut++) {
		bool ok = true;

		if (cut && all[cut] == all[cut - 1])
			continue;
		for (size_t i = 1; ok && i < m->sp->nr_commits; i++)
			ok = alternate_from(&m->c[0], &m->c[i], all[cut]);
		if (ok) {
			m->since = cut ? all[cut] : STORE_ALL_TIME;
			break;
		}
	}
	for (size_t i = 0; i < m->sp->nr_commits; i++) {
		struct commit_runs *c = &m->c[i];

		c->complete = 0;
		for (size_t r = 0; r < c->nr_started; r++)
			c->complete += c->started[r] >= m->since;
	}
	free(all);
	return 0;
}

/*
 * The stored runs of the job on every commit, on this testbox: the
 * complete runs' starts, the window, the failed and unsupported counts.
 */
static int count_runs(struct measure *m)
{
	for (size_t i = 0; i < m->sp->nr_commits; i++) {
		struct store_filter f = {
			.commit = m->sp->shas[i], .job = m->job->name, .testbox = m->sp->testbox,
		};
		struct commit_runs *c = &m->c[i];
		struct store_group *g = NULL;
		size_t n = 0;

		if (store_list_groups(m->s, &f, &g, &n))
			return failure("%s", store_error(m->s));
		struct store_samples sm;

		c->failed = c->unsupported = 0;
		for (size_t k = 0; k < n; k++) {
			if (strcmp(g[k].job, m->job->name) || strcmp(g[k].testbox, m->sp->testbox))
				continue;
			c->failed += g[k].runs_failed;
			c->unsupported += g[k].runs_unsupported;
		}
		store_groups_release(g, n);
		if (store_load_samples(m->s, m->sp->testbox, m->job->name, m->sp->shas[i], &sm))
			return failure("%s", store_error(m->s));
		free(c->started);
		c->started = sm.started;
		c->nr_started = sm.started ? sm.nr_runs : 0;
		sm.started = NULL;
		store_samples_release(&sm);
	}
	return find_window(m);
}

/*
 * Compare's verdicts of the job's KPIs, every commit against the base:
 * *decided when none is left open; apart[i] when commit i's KPI changed
 * between runs taken apart from the base's (both sides need interleaved
 * runs).  open gets what is still open, for the progress line.
 */
static int evaluate(struct measure *m, bool *decided, bool *apart, struct strbuf *open)
{
	const char *only[] = { m->job->name, NULL };
	struct gather ga = {
		.who = "compare", .testbox = m->sp->testbox, .only_jobs = only,
		.since = &m->since,
		.given = (char **)m->sp->shas, .nr_commits = m->sp->nr_commits,
	};
	const struct gather_job *jb;
	int ret;

	*decided = true;
	ret = gather_jobs(m->s, &ga);
	if (!ret)
		ret = gather_compare(m->s, &ga, &ga.jobs[0], m->sp->opts);
	if (ret)
		goto out;
	jb = &ga.jobs[0];
	for (size_t r = 0; r < jb->nr_rows; r++) {
		const struct stat_row *row = &jb->rows[r];

		if (row->family != FAMILY_KPI)
			continue;
		for (size_t i = 1; i < m->sp->nr_commits; i++) {
			const struct stat_vs *v = &row->vs[i - 1];
			struct compare_order_info oi;

			switch (v->verdict) {
			case VERDICT_SAME:
			case VERDICT_SMALL:
			case VERDICT_NEW:
			case VERDICT_GONE:
				continue;
			case VERDICT_CHANGED:
				compare_order(&jb->sets[0], &jb->sets[i], &oi);
				if (oi.order != COMPARE_ORDER_APART)
					continue;
				apart[i] = true;
				strbuf_addf(open, "%s%s of %s: changed %+.1f%%, but between runs taken"
					    " apart", open->len ? "; " : "", row->name, label(m, i),
					    v->change.pct);
				break;
			case VERDICT_UNKNOWN:
				strbuf_addf(open, "%s%s of %s: unknown%s", open->len ? "; " : "",
					    row->name, label(m, i),
					    v->disturbed ? " (the machine was disturbed)" : "");
				if (v->more_runs && !v->disturbed)
					strbuf_addf(open, " — %u%s more runs", v->more_runs,
						    v->more_runs >= VERDICT_MORE_RUNS_MAX ? " or" : "");
				break;
			case VERDICT_FEW_RUNS:
				strbuf_addf(open, "%s%s of %s: too few runs", open->len ? "; " : "",
					    row->name, label(m, i));
				break;
			}
			*decided = false;
		}
	}
out:
	gather_release(&ga);
	return ret;
}

/* Commit i cannot be measured: said, and no more runs of it. */
static void give_up(struct measure *m, size_t i, const char *fmt, const char *why)
{
	struct strbuf what = STRBUF_INIT;

	m->c[i].given_up = true;
	strbuf_addf(&what, fmt, why);
	say(m->sp, "perfbot: compare: %s: %s (%.12s): %s", m->job->name, label(m, i),
	    m->sp->shas[i], what.buf);
	strbuf_release(&what);
}

/* A class's runs come from its boxes: which ones made them, for the summary. */
static void tally_box(struct measure_tally *t, const char *box)
{
	size_t len = strlen(t->boxes), n = strlen(box);

	for (const char *p = t->boxes; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 2 : 0))
		if (!strncmp(p, box, n) && (p[n] == ',' || !p[n]))
			return;
	if (len + n + 3 < sizeof(t->boxes))
		snprintf(t->boxes + len, sizeof(t->boxes) - len, "%s%s", len ? ", " : "", box);
}

/* One run of commit i into the store; 0, or an exit status. */
static int run_one(struct measure *m, size_t i)
{
	struct commit_runs *c = &m->c[i];
	struct strbuf err = STRBUF_INIT;
	struct runner_opts ro = {
		.commit = m->sp->shas[i], .monitors = true, .stop = &interrupted,
	};
	struct run_record rec;
	size_t builds = m->builds->builds, reused = m->builds->reused;
	const char *kpi;
	const double *v;
	char value[96] = "";
	int64_t id = 0;
	bool fresh;
	int ret;

	if ((m->job->build || m->job->kernel.present) &&
	    !commit_runner_ready(m->builds, m->job, m->sp->shas[i]))
		say(m->sp, "perfbot: compare: building %s%s",
		    m->job->kernel.present ? "the kernel of " : "", label(m, i));
	ret = commit_runner_prepare(m->builds, m->job, m->sp->shas[i], &interrupted, &fresh,
				    &err);
	m->tally->builds += m->builds->builds - builds;
	m->tally->reused += m->builds->reused - reused;
	if (ret == -GIT_EBUILD)
		goto cannot;
	if (ret == -ECANCELED || interrupted) {
		ret = 128 + (interrupted ? interrupted : SIGINT);
		goto out;
	}
	if (ret) {
		ret = failure("%s (%.12s): %s", label(m, i), m->sp->shas[i], err.buf);
		goto out;
	}
	/* a cold first run is what a warm-up is for: once per commit, until one completes */
	ro.warm_up = fresh || !c->warm;
	ret = commit_runner_run(m->builds, m->job, m->sp->shas[i], &ro, &rec, &err);
	/* on the fleet: the worker's build failed, or every attempt of the item */
	if (ret == -GIT_EBUILD || ret == -COMMITRUN_EFAILED)
		goto cannot;
	if (ret == -EINTR || (ret && interrupted)) {
		ret = 128 + (interrupted ? interrupted : SIGINT);
		goto out;
	}
	if (ret) {
		ret = failure("%s: %s", m->job->name, err.buf);
		goto out;
	}
	/* a fleet's run is stored by its worker: never twice */
	id = m->builds->stored_id;
	if (!id && store_put_run(m->s, &rec, &id)) {
		ret = failure("cannot store the run: %s", store_error(m->s));
		goto release;
	}
	if (m->builds->stored_id && rec.testbox)
		tally_box(m->tally, rec.testbox);
	m->tally->runs++;
	c->need--;
	if (rec.status == RUN_INCOMPLETE || interrupted) {
		ret = 128 + (interrupted ? interrupted : SIGINT);
		goto release;
	}
	if (rec.status == RUN_UNSUPPORTED) {
		const char *why = strmap_get(&rec.env, "last_state.reason");

		say(m->sp, "perfbot: compare: %s: unsupported here%s%s: nothing more measured",
		    m->job->name, why ? ": " : "", why ? why : "");
		m->unsupported = true;
		goto release;
	}
	if (rec.status == RUN_FAILED) {
		const char *why = strmap_get(&rec.env, "last_state.reason");

		c->failed++;
		c->failed_now++;
		m->tally->failed_runs++;
		say(m->sp, "run %" PRId64 ": %s %s: failed%s%s", id, m->job->name, label(m, i),
		    why ? ": " : "", why ? why : "");
		if (!c->complete && c->failed_now >= MEASURE_FAILED_GIVE_UP)
			give_up(m, i, "cannot be measured: its runs fail (%s)",
				why ? why : "see perfbot results");
		goto release;
	}
	c->complete++;
	c->warm = true;
	kpi = run_record_kpi(&rec);
	v = kpi ? statmap_get(&rec.stats, kpi) : NULL;
	if (v)
		snprintf(value, sizeof(value), "  %.64s %.6g", kpi, *v);
	say(m->sp, "run %" PRId64 ": [%zu/%zu] %s round %u: %s %zu/%zu%s", id,
	    m->job_index + 1, m->nr_jobs, m->job->name, m->round, label(m, i), runs_of(c),
	    m->target, value);
release:
	run_record_release(&rec);
out:
	strbuf_release(&err);
	return ret;
cannot:
	m->tally->build_failures += ret == -GIT_EBUILD;
	give_up(m, i, "cannot be measured: %s", err.buf);
	ret = 0;
	goto out;
}

/*
 * The runs every commit still needs this round, for a target of runs
 * per commit; commits whose KPI changed between runs taken apart (and
 * the base) get a round's worth more, so that the sides interleave.
 * Never past max_runs.  The total.
 */
static size_t plan_round(struct measure *m, bool *apart)
{
	size_t total = 0, max = m->sp->max_runs;

	for (size_t i = 1; i < m->sp->nr_commits; i++)
		apart[0] |= apart[i];
	for (size_t i = 0; i < m->sp->nr_commits; i++) {
		struct commit_runs *c = &m->c[i];
		size_t have = runs_of(c), need = m->target > have ? m->target - have : 0;

		if (apart[i] && need < m->sp->first_runs)
			need = m->sp->first_runs;
		if (have + need > max)
			need = have < max ? max - have : 0;
		c->need = c->given_up ? 0 : need;
		total += c->need;
	}
	return total;
}

/* The smallest round target above what every commit has: first_runs, doubled. */
static size_t next_target(const struct measure *m)
{
	size_t least = SIZE_MAX, t = m->sp->first_runs;

	for (size_t i = 0; i < m->sp->nr_commits; i++)
		if (!m->c[i].given_up && runs_of(&m->c[i]) < least)
			least = runs_of(&m->c[i]);
	while (t <= least && t < m->sp->max_runs)
		t *= 2;
	return t < m->sp->max_runs ? t : m->sp->max_runs;
}

static bool any_given_up(const struct measure *m)
{
	for (size_t i = 0; i < m->sp->nr_commits; i++)
		if (m->c[i].given_up)
			return true;
	return false;
}

static bool all_have(const struct measure *m, size_t n)
{
	for (size_t i = 0; i < m->sp->nr_commits; i++)
		if (m->c[i].complete < n)
			return false;
	return true;
}

/* One job measured until decided or spent; 0 or an exit status. */
static int measure_job(struct measure *m)
{
	bool *apart = calloc(m->sp->nr_commits, sizeof(*apart));
	struct strbuf open = STRBUF_INIT;
	int ret = apart ? 0 : failure("out of memory");

	while (!ret) {
		bool decided = false;
		size_t total;

		ret = count_runs(m);
		if (ret)
			break;
		for (size_t i = 0; i < m->sp->nr_commits; i++)
			if (!m->c[i].nr_started && m->c[i].unsupported && !m->c[i].failed)
				m->unsupported = true;
		if (m->unsupported || any_given_up(m))
			break;
		memset(apart, 0, m->sp->nr_commits * sizeof(*apart));
		strbuf_reset(&open);
		/* one commit alone (a branch's first point): one round, no verdict */
		if (m->sp->nr_commits == 1 && all_have(m, m->sp->first_runs))
			break;
		if (m->sp->nr_commits > 1 && all_have(m, VERDICT_MIN_RUNS)) {
			ret = evaluate(m, &decided, apart, &open);
			if (ret)
				break;
			if (decided) {
				say(m->sp, "perfbot: compare: %s: every KPI decided", m->job->name);
				break;
			}
		}
		m->target = next_target(m);
		total = plan_round(m, apart);
		if (!total) {
			say(m->sp, "perfbot: compare: %s: --max-runs %u spent, still open: %s",
				m->job->name, m->sp->max_runs,
				open.len ? open.buf : "too few complete runs");
			m->tally->undecided++;
			break;
		}
		m->round++;
		say(m->sp, "perfbot: compare: %s: round %u: %zu runs, up to %zu a commit%s%s",
			m->job->name, m->round, total, m->target, open.len ? "; open: " : "",
			open.buf);
		/* A B C A B C ...: every commit's runs across the same stretch of time */
		while (!ret && total) {
			for (size_t i = 0; !ret && i < m->sp->nr_commits; i++) {
				if (!m->c[i].need || m->c[i].given_up)
					continue;
				ret = run_one(m, i);
				if (m->unsupported || m->c[i].given_up)
					break;
			}
			if (m->unsupported || any_given_up(m))
				break;
			total = 0;
			for (size_t i = 0; i < m->sp->nr_commits; i++)
				total += m->c[i].need;
		}
	}
	if (!ret && any_given_up(m))
		ret = EXIT_FAILED;
	free(apart);
	strbuf_release(&open);
	return ret;
}

static bool same_argv(char *const *a, char *const *b)
{
	if (!a || !b)
		return a == b;
	for (; *a && *b; a++, b++)
		if (strcmp(*a, *b))
			return false;
	return !*a && !*b;
}

int measure_commits(struct store *s, const struct atomic_job *jobs, size_t nr_jobs,
		    const struct measure_spec *spec, double *since,
		    struct measure_tally *tally)
{
	struct commit_runner builds = { 0 };
	struct strbuf err = STRBUF_INIT;
	bool open = false;
	int ret = 0, failed = 0;

	memset(tally, 0, sizeof(*tally));
	for (size_t j = 0; j < nr_jobs && !ret; j++) {
		struct measure m = {
			.s = s, .sp = spec, .job = &jobs[j], .job_index = j, .nr_jobs = nr_jobs,
			.builds = &builds, .tally = tally,
		};

		/* one checkout serves every job of one build command */
		if (open && !same_argv(jobs[j].build, builds.build)) {
			commit_runner_close(&builds);
			open = false;
		}
		if (!open) {
			if (commit_runner_open(&builds, spec->repo, jobs[j].build, &err)) {
				ret = failure("%s", err.buf);
				break;
			}
			open = true;
			if (spec->fleet && commit_runner_set_fleet(&builds, spec->fleet, &err)) {
				ret = failure("%s", err.buf);
				break;
			}
		}
		m.c = calloc(spec->nr_commits, sizeof(*m.c));
		if (!m.c) {
			ret = failure("out of memory");
			break;
		}
		ret = measure_job(&m);
		/* the window as the runs now stand: what the table is to show */
		if (!ret || ret == EXIT_FAILED) {
			int e = count_runs(&m);

			ret = e ? e : ret;
		}
		since[j] = m.since;
		for (size_t i = 0; i < spec->nr_commits; i++)
			free(m.c[i].started);
		free(m.c);
		/* a commit that cannot be measured for one job may be for the next */
		if (ret == EXIT_FAILED && !interrupted) {
			failed = ret;
			ret = 0;
		}
	}
	if (open)
		commit_runner_close(&builds);
	strbuf_release(&err);
	return ret ? ret : failed;
}

/* ---- the changes found ---- */

int measure_changes(struct store *s, const struct atomic_job *jobs, size_t nr_jobs,
		    const struct measure_spec *spec, const double *since,
		    unsigned families, struct measure_change **out, size_t *nr)
{
	struct { struct measure_change *v; size_t n, cap; } found = { 0 };
	int ret = 0;

	*out = NULL;
	*nr = 0;
	for (size_t j = 0; j < nr_jobs && !ret; j++) {
		const char *only[] = { jobs[j].name, NULL };
		struct gather ga = {
			.who = "compare", .testbox = spec->testbox, .only_jobs = only,
			.since = &since[j], .given = (char **)spec->shas,
			.nr_commits = spec->nr_commits, .quiet = true,
		};
		const struct gather_job *jb;

		/* a job without complete runs on every commit changed nothing we know */
		if (gather_jobs(s, &ga)) {
			gather_release(&ga);
			continue;
		}
		ret = gather_compare(s, &ga, &ga.jobs[0], spec->opts);
		jb = &ga.jobs[0];
		for (size_t r = 0; !ret && r < jb->nr_rows; r++) {
			const struct stat_row *row = &jb->rows[r];

			if (!(families & (1u << row->family)))
				continue;
			for (size_t i = 1; !ret && i < spec->nr_commits; i++) {
				const struct stat_vs *v = &row->vs[i - 1];
				struct compare_order_info oi;
				struct measure_change c = {
					.job = j, .family = row->family, .commit = i,
					.pct = v->change.pct,
					.low = v->change.low, .high = v->change.high,
					.better = row->better, .p = v->p,
				};

				if (v->verdict != VERDICT_CHANGED)
					continue;
				compare_order(&jb->sets[0], &jb->sets[i], &oi);
				if (oi.order == COMPARE_ORDER_APART)
					continue;
				c.metric = strdup(row->name);
				if (!c.metric || vec_push(&found, c)) {
					free(c.metric);
					ret = failure("out of memory");
				}
			}
		}
		gather_release(&ga);
	}
	if (ret) {
		measure_changes_release(found.v, found.n);
		return ret;
	}
	*out = found.v;
	*nr = found.n;
	return 0;
}

void measure_changes_release(struct measure_change *c, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(c[i].metric);
	free(c);
}
