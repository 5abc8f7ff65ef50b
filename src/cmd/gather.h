/*
 * gather.h - the atomic jobs that every given commit has complete runs
 * of, with their samples and compare rows: what perfbot compare and
 * perfbot report both show, gathered one way.
 *
 * gather_jobs() resolves the commits and finds the jobs (and reads each
 * job's base latest run); gather_compare() loads one job's samples and
 * compares them.  Both print "perfbot: <who>: ..." on failure and return
 * an exit status (cmds.h): EXIT_USAGE for an unknown or ambiguous commit,
 * EXIT_FAILED otherwise.  gather_release() frees everything, also after
 * a failure.  Use from one thread.
 */
#ifndef PERFBOT_CMD_GATHER_H
#define PERFBOT_CMD_GATHER_H

#include "record/record.h"
#include "stats/compare.h"
#include "store/store.h"

struct gather_job {
	const struct store_group *g;	/* the base's group */
	struct run_record run;		/* the base's latest run: params, KPI */
	const char *kpis[2];		/* run_record_kpi(), NULL-terminated */
	struct store_samples *sm;	/* [nr_commits], after gather_compare() */
	struct sample_set *sets;	/* [nr_commits], pointing into sm */
	size_t loaded;
	struct stat_row *rows;
	size_t nr_rows;
};

struct gather {
	/* in */
	const char *who;		/* the command, for messages */
	const char *testbox;		/* only runs on it; may be NULL */
	char **sets;			/* -s KEY=VALUE filters */
	size_t nr_sets;
	const char *repo;		/* resolves tags and branches; may be NULL */
	char **given;			/* the commits as given */
	size_t nr_commits;
	/* out */
	char **commits;			/* [nr_commits] full */
	struct store_group **groups;
	size_t *ngroups;
	struct gather_job *jobs;
	size_t njobs;
};

int gather_jobs(struct store *s, struct gather *ga);
int gather_compare(struct store *s, const struct gather *ga,
		   struct gather_job *jb, const struct compare_opts *o);
void gather_release(struct gather *ga);

#endif
