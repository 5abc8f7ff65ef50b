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
		if (gs[i].runs_complete && !strcmp(gs[i].testbox, like->testbox) &&
		    !strcmp(gs[i].job, like->job))
			return &gs[i];
	return NULL;
}

/*
 * -s matches the parameters of the base's latest run (every run of an
 * atomic job has the same), or its testcase: the job name alone cannot
 * tell which parameter a part of it came from.
 */
static bool job_matches(const struct gather *ga, const struct run_record *r)
{
	for (size_t i = 0; i < ga->nr_sets; i++) {
		const char *eq = strchr(ga->sets[i], '=');
		size_t klen = eq - ga->sets[i];
		char key[256];
		const char *v;

		snprintf(key, sizeof(key), "%.*s", (int)klen, ga->sets[i]);
		v = strmap_get(&r->params, key);
		if (!v && !strcmp(key, "testcase"))
			v = r->testcase;
		if (!v || strcmp(v, eq + 1))
			return false;
	}
	return true;
}

static int resolve_commits(struct store *s, struct gather *ga)
{
	for (size_t j = 0; j < ga->nr_commits; j++) {
		int err = store_resolve_commit(s, ga->given[j], &ga->commits[j]);

		/* a tag or a branch: the repository knows its sha, the store that */
		if (err == -ENOENT && ga->repo) {
			char *sha = NULL, why[256];

			if (!git_resolve(ga->repo, ga->given[j], &sha, why,
					 sizeof(why)))
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
		bool everywhere = g->runs_complete > 0;

		for (size_t j = 1; everywhere && j < ga->nr_commits; j++)
			everywhere = find_group(ga->groups[j], ga->ngroups[j], g) != NULL;
		if (!everywhere)
			continue;
		jb->g = g;
		if (store_get_run(s, g->last_run_id, &jb->run))
			return failure(ga, "%s", store_error(s));
		if (job_matches(ga, &jb->run)) {
			jb->kpis[0] = run_record_kpi(&jb->run);
			ga->njobs++;
		} else {
			run_record_release(&jb->run);
			memset(jb, 0, sizeof(*jb));
		}
	}
	if (!ga->njobs) {
		no_job_error(ga);
		return EXIT_FAILED;
	}
	return 0;
}

int gather_compare(struct store *s, const struct gather *ga,
		   struct gather_job *jb, const struct compare_opts *base_opts)
{
	struct compare_opts o = *base_opts;
	int err;

	jb->sm = calloc(ga->nr_commits, sizeof(*jb->sm));
	jb->sets = calloc(ga->nr_commits, sizeof(*jb->sets));
	if (!jb->sm || !jb->sets)
		return failure(ga, "out of memory");
	o.kpis = jb->kpis;
	for (; jb->loaded < ga->nr_commits; jb->loaded++) {
		size_t j = jb->loaded;

		if (store_load_samples(s, jb->g->testbox, jb->g->job, ga->commits[j],
				       &jb->sm[j]))
			return failure(ga, "%s", store_error(s));
		jb->sets[j] = (struct sample_set){
			.commit = ga->commits[j], .nr = jb->sm[j].nr,
			.names = jb->sm[j].names, .values = jb->sm[j].values,
			.counts = jb->sm[j].counts, .nr_runs = jb->sm[j].nr_runs,
		};
	}
	err = compare_sets(jb->sets, ga->nr_commits, &o, &jb->rows, &jb->nr_rows);
	if (err)
		return failure(ga, "cannot compare: %s", strerror(-err));
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
		run_record_release(&jb->run);
	}
	free(ga->jobs);
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
