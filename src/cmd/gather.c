/*
 * gather.c - the jobs compare and report show, found and compared once
 * for both (gather.h).
 */
#define _GNU_SOURCE
#include "cmd/gather.h"
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "vcs/git.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define failure(ga, ...) cmd_failure((ga)->who, __VA_ARGS__)

static const struct store_group *find_group(const struct store_group *gs, size_t n,
					    const struct store_group *like)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(gs[i].testbox, like->testbox) && !strcmp(gs[i].job, like->job))
			return &gs[i];
	return NULL;
}

/*
 * What a commit's runs of a job give: complete runs to compare, or -- when
 * every run said so -- "unsupported here", which is not a failure and
 * which compare and report say instead of leaving the job out.  Failed or
 * stopped runs alone give nothing.
 */
enum side { SIDE_NONE, SIDE_COMPLETE, SIDE_UNSUPPORTED };

static enum side side_of(const struct store_group *g)
{
	if (!g)
		return SIDE_NONE;
	if (g->runs_complete)
		return SIDE_COMPLETE;
	if (g->runs_unsupported && !g->runs_failed && !g->runs_incomplete)
		return SIDE_UNSUPPORTED;
	return SIDE_NONE;
}

/* commit j's group of the job whose base group is g */
static const struct store_group *group_on(const struct gather *ga, size_t j,
					  const struct store_group *g)
{
	return j ? find_group(ga->groups[j], ga->ngroups[j], g) : g;
}

/*
 * -s matches the parameters of the base's latest run (every run of an
 * atomic job has the same), or its testcase: the job name alone cannot
 * tell which parameter a part of it came from.
 */
static bool job_matches(const struct gather *ga, const struct run_record *r)
{
	for (size_t i = 0; i < ga->nr_sets; i++) {
		const char *key = ga->sets[i], *eq = strchr(key, '=');
		size_t klen = (size_t)(eq - key);
		const char *v = NULL;

		/* the key is compared where it stands: a copy could be cut short */
		for (size_t k = 0; k < r->params.n && !v; k++)
			if (strlen(r->params.v[k].key) == klen &&
			    !memcmp(r->params.v[k].key, key, klen))
				v = r->params.v[k].value;
		if (!v && klen == strlen("testcase") && !memcmp(key, "testcase", klen))
			v = r->testcase;
		if (!v || strcmp(v, eq + 1))
			return false;
	}
	return true;
}

static bool job_wanted(const struct gather *ga, const char *job)
{
	if (!ga->only_jobs)
		return true;
	for (const char *const *j = ga->only_jobs; *j; j++)
		if (!strcmp(*j, job))
			return true;
	return false;
}

static double job_since(const struct gather *ga, const char *job)
{
	for (size_t i = 0; ga->since && ga->only_jobs[i]; i++)
		if (!strcmp(ga->only_jobs[i], job))
			return ga->since[i];
	return STORE_ALL_TIME;
}

static int resolve_commits(struct store *s, struct gather *ga)
{
	for (size_t j = 0; j < ga->nr_commits; j++) {
		int err = store_resolve_commit(s, ga->given[j], &ga->commits[j]);

		/* a tag or a branch: the repository knows its sha, the store that */
		if (err == -ENOENT && ga->repo) {
			char *sha = NULL;

			if (!git_resolve(ga->repo, ga->given[j], &sha, NULL))
				err = store_resolve_commit(s, sha, &ga->commits[j]);
			free(sha);
		}
		if (err == -ENOENT)
			return cmd_usage_error(ga->who, "unknown commit '%s' (%s)",
					       ga->given[j], store_error(s));
		if (err == -EEXIST)
			return cmd_usage_error(ga->who, "%s", store_error(s));
		if (err)
			return failure(ga, "%s", store_error(s));
	}
	return 0;
}

/*
 * Why the job could not run on each commit where it could not (its latest
 * run's env last_state.reason), and the sets' run counts: such a job has
 * no samples to load.
 */
static int gather_unsupported(struct store *s, struct gather *ga,
			      struct gather_job *jb)
{
	jb->unsupported = calloc(ga->nr_commits, sizeof(*jb->unsupported));
	jb->sets = calloc(ga->nr_commits, sizeof(*jb->sets));
	if (!jb->unsupported || !jb->sets)
		return failure(ga, "out of memory");
	for (size_t j = 0; j < ga->nr_commits; j++) {
		const struct store_group *h = group_on(ga, j, jb->g);
		struct run_record other = { 0 };
		const struct run_record *run = &jb->run;
		const char *why;

		jb->sets[j] = (struct sample_set){
			.commit = ga->commits[j], .nr_runs = h->runs_complete,
		};
		if (side_of(h) != SIDE_UNSUPPORTED)
			continue;
		if (j) {
			if (store_get_run(s, h->last_run_id, &other))
				return failure(ga, "%s", store_error(s));
			run = &other;
		}
		why = strmap_get(&run->env, "last_state.reason");
		jb->unsupported[j] = strdup(why ? why : "");
		run_record_release(&other);
		if (!jb->unsupported[j])
			return failure(ga, "out of memory");
	}
	return 0;
}

/*
 * Whether the job's runs on every commit were booted alike: a kernel run
 * under QEMU's TCG is tens of times slower than under KVM, and the one
 * never compares with the other (nor either with a run on the host).
 * Read from each commit's newest run.  0 alike; 1 not (said, unless
 * quiet: the job is left out); a negative errno.
 */
static int same_boot(struct store *s, struct gather *ga, const struct gather_job *jb)
{
	const char *base = strmap_get(&jb->run.env, "boot.accel");

	for (size_t j = 1; j < ga->nr_commits; j++) {
		const struct store_group *h = group_on(ga, j, jb->g);
		struct run_record other = { 0 };
		const char *accel;
		bool alike;

		if (!h || !h->last_run_id)
			continue;
		if (store_get_run(s, h->last_run_id, &other))
			return -EIO;
		accel = strmap_get(&other.env, "boot.accel");
		alike = (!base && !accel) || (base && accel && !strcmp(base, accel));
		if (!alike && !ga->quiet)
			fprintf(stderr, "perfbot: %s: %s: %s%s on %s, %s%s on %s: never compared,"
				" left out (docs/kernel.md)\n", ga->who, jb->g->job,
				base ? "booted with " : "run on the host", base ? base : "",
				ga->given[0], accel ? "booted with " : "run on the host",
				accel ? accel : "", ga->given[j]);
		run_record_release(&other);
		if (!alike)
			return 1;
	}
	return 0;
}

/* The report of the jobs found, each pointing into its gather_job. */
static int gather_report(struct gather *ga)
{
	ga->report_commits = calloc(ga->nr_commits, sizeof(*ga->report_commits));
	ga->report_jobs = calloc(ga->njobs ? ga->njobs : 1, sizeof(*ga->report_jobs));
	if (!ga->report_commits || !ga->report_jobs)
		return failure(ga, "out of memory");
	for (size_t j = 0; j < ga->nr_commits; j++)
		ga->report_commits[j] = (struct report_commit){
			.id = ga->commits[j], .given = ga->given[j],
		};
	for (size_t i = 0; i < ga->njobs; i++) {
		struct gather_job *jb = &ga->jobs[i];

		ga->report_jobs[i] = (struct report_job){
			.testbox = jb->g->testbox, .testcase = jb->g->testcase,
			.job = jb->g->job, .params = &jb->run.params, .kpi = jb->kpis[0],
			.machine = strmap_get(&jb->run.env, "machine"), .env = &jb->run.env,
			.job_text = jb->run.job_text, .sets = jb->sets,
			.unsupported = (const char *const *)jb->unsupported,
		};
	}
	ga->report = (struct report){
		.commits = ga->report_commits, .ncommits = ga->nr_commits,
		.jobs = ga->report_jobs, .njobs = ga->njobs,
	};
	return 0;
}

static void no_job_error(const struct gather *ga)
{
	fprintf(stderr, "perfbot: %s: no atomic job has complete runs on all of ", ga->who);
	for (size_t j = 0; j < ga->nr_commits; j++)
		fprintf(stderr, "%s%s", j ? ", " : "", ga->given[j]);
	fputc('\n', stderr);
}

int gather_jobs(struct store *s, struct gather *ga)
{
	int ret;

	ga->commits = calloc(ga->nr_commits, sizeof(*ga->commits));
	ga->groups = calloc(ga->nr_commits, sizeof(*ga->groups));
	ga->ngroups = calloc(ga->nr_commits, sizeof(*ga->ngroups));
	if (!ga->commits || !ga->groups || !ga->ngroups)
		return failure(ga, "out of memory");
	ret = resolve_commits(s, ga);
	if (ret)
		return ret;
	for (size_t j = 0; j < ga->nr_commits; j++) {
		struct store_filter f = { .commit = ga->commits[j], .testbox = ga->testbox };

		if (store_list_groups(s, &f, &ga->groups[j], &ga->ngroups[j]))
			return failure(ga, "%s", store_error(s));
	}
	ga->jobs = calloc(ga->ngroups[0] ? ga->ngroups[0] : 1, sizeof(*ga->jobs));
	if (!ga->jobs)
		return failure(ga, "out of memory");
	for (size_t i = 0; i < ga->ngroups[0]; i++) {
		const struct store_group *g = &ga->groups[0][i];
		struct gather_job *jb = &ga->jobs[ga->njobs];
		bool everywhere = job_wanted(ga, g->job), unsupported = false;

		for (size_t j = 0; everywhere && j < ga->nr_commits; j++) {
			enum side side = side_of(group_on(ga, j, g));

			everywhere = side != SIDE_NONE;
			unsupported |= side == SIDE_UNSUPPORTED;
		}
		if (!everywhere)
			continue;
		jb->g = g;
		if (store_get_run(s, g->last_run_id, &jb->run))
			return failure(ga, "%s", store_error(s));
		if (!job_matches(ga, &jb->run)) {
			run_record_release(&jb->run);
			memset(jb, 0, sizeof(*jb));
			continue;
		}
		ret = same_boot(s, ga, jb);
		if (ret < 0)
			return ret == -ENOMEM ? failure(ga, "out of memory") :
					       failure(ga, "%s", store_error(s));
		if (ret) {
			run_record_release(&jb->run);
			memset(jb, 0, sizeof(*jb));
			continue;
		}
		jb->kpis[0] = run_record_kpi(&jb->run);
		ga->njobs++;
		if (unsupported && (ret = gather_unsupported(s, ga, jb)))
			return ret;
	}
	if (!ga->njobs) {
		if (!ga->quiet)
			no_job_error(ga);
		return EXIT_FAILED;
	}
	return gather_report(ga);
}

int gather_compare(struct store *s, struct gather *ga, struct gather_job *jb,
		   const struct compare_opts *base_opts)
{
	struct report_job *rj = &ga->report_jobs[jb - ga->jobs];
	struct compare_opts o = *base_opts;
	double since;
	int err;

	if (jb->unsupported)
		return 0;
	jb->sm = calloc(ga->nr_commits, sizeof(*jb->sm));
	jb->sets = calloc(ga->nr_commits, sizeof(*jb->sets));
	if (!jb->sm || !jb->sets)
		return failure(ga, "out of memory");
	o.kpis = jb->kpis;
	since = job_since(ga, jb->g->job);
	rj->since = since > 0 ? since : 0;
	for (; jb->loaded < ga->nr_commits; jb->loaded++) {
		size_t j = jb->loaded;

		if (store_load_samples_since(s, jb->g->testbox, jb->g->job, ga->commits[j],
					     since, &jb->sm[j]))
			return failure(ga, "%s", store_error(s));
		/* each commit's declarations, its newest complete runs' (store.h) */
		jb->sets[j] = (struct sample_set){
			.commit = ga->commits[j], .nr = jb->sm[j].nr,
			.names = jb->sm[j].names, .values = jb->sm[j].values,
			.counts = jb->sm[j].counts, .nr_runs = jb->sm[j].nr_runs,
			.meta = &jb->sm[j].meta, .started = jb->sm[j].started,
		};
	}
	err = compare_sets(jb->sets, ga->nr_commits, &o, &jb->rows, &jb->nr_rows);
	if (err)
		return failure(ga, "cannot compare: %s", strerror(-err));
	rj->sets = jb->sets;
	rj->rows = jb->rows;
	rj->nr_rows = jb->nr_rows;
	return 0;
}

void gather_release(struct gather *ga)
{
	for (size_t i = 0; ga->jobs && i < ga->njobs; i++) {
		struct gather_job *jb = &ga->jobs[i];

		compare_release(jb->rows, jb->nr_rows);
		for (size_t j = 0; jb->sm && j < jb->loaded; j++)
			store_samples_release(&jb->sm[j]);
		free(jb->sm);
		free(jb->sets);
		for (size_t j = 0; jb->unsupported && j < ga->nr_commits; j++)
			free(jb->unsupported[j]);
		free(jb->unsupported);
		run_record_release(&jb->run);
	}
	free(ga->jobs);
	free(ga->report_commits);
	free(ga->report_jobs);
	for (size_t j = 0; j < ga->nr_commits; j++) {
		if (ga->groups)
			store_groups_release(ga->groups[j], ga->ngroups ? ga->ngroups[j] : 0);
		if (ga->commits)
			free(ga->commits[j]);
	}
	free(ga->groups);
	free(ga->ngroups);
	free(ga->commits);
}

/* ---- what a report names beside the runs ---- */

char *gather_origin_url(const char *repo)
{
	char *out = NULL;
	size_t n;

	if (git_cmd(repo, &out, NULL, "remote", "get-url", "origin", NULL)) {
		free(out);
		return NULL;
	}
	n = strlen(out);
	while (n && (out[n - 1] == '\n' || out[n - 1] == '\r'))
		out[--n] = '\0';
	if (!n) {
		free(out);
		return NULL;
	}
	return out;
}

void gather_subsystem(struct strbuf *sb, const char *repo, const struct report *r)
{
	size_t job, col;
	const struct report_commit *c;
	char *out = NULL, **paths = NULL;
	size_t n = 0;

	if (!report_headline(r, &job, &col, NULL) && !report_change_apart(r, &job, &col, NULL))
		return;
	c = &r->commits[col + 1];
	/* an id that git would read as an option (a label) names no commit */
	if (report_subsystem(sb, c->subject, NULL, 0) || !repo || c->id[0] == '-')
		return;
	if (git_cmd(repo, &out, NULL, "diff-tree", "--no-commit-id", "--name-only", "-r",
		    "--root", "-z", c->id, NULL))
		goto out;
	for (char *p = out; *p; p += strlen(p) + 1)
		n++;
	paths = calloc(n ? n : 1, sizeof(*paths));
	if (!paths)
		goto out;
	n = 0;
	for (char *p = out; *p; p += strlen(p) + 1)
		paths[n++] = p;
	report_subsystem(sb, NULL, (const char *const *)paths, n);
out:
	free(paths);
	free(out);
}

