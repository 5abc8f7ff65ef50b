/*
 * gather.h - the atomic jobs that every given commit has complete runs
 * of, with their samples and compare rows, and the jobs that could not
 * run there (unsupported): what perfbot compare and perfbot report both
 * show, gathered one way and handed to report/ as one struct report.
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
#include "report/report.h"
#include "stats/compare.h"
#include "store/store.h"

struct gather_job {
	const struct store_group *g;	/* the base's group */
	struct run_record run;		/* the base's latest run: params, KPI, declarations */
	const char *kpis[2];		/* run_record_kpi(), NULL-terminated */
	/*
	 * [nr_commits], or NULL when the job ran on every commit: the reason
	 * (env last_state.reason, "" when none) on a commit where every run
	 * of it was unsupported here.  Such a job is not compared.
	 */
	char **unsupported;
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
	/* only these atomic jobs (NULL-terminated names); NULL: every one */
	const char *const *only_jobs;
	/*
	 * [only_jobs], or NULL: each job's samples are of the runs that
	 * started then or later (STORE_ALL_TIME: every run).
	 */
	const double *since;
	/* no job with runs on every commit is said by no message (still EXIT_FAILED) */
	bool quiet;
	char **given;			/* the commits as given */
	size_t nr_commits;
	/* out */
	char **commits;			/* [nr_commits] full */
	struct store_group **groups;
	size_t *ngroups;
	struct gather_job *jobs;
	size_t njobs;
	/*
	 * The report of it all, commits and jobs filled (pointing into this
	 * struct); each job's rows once gather_compare() has compared it.  The
	 * caller sets the rest (opts, show_all, ...) and may add the commits'
	 * subjects.
	 */
	struct report report;
	struct report_commit *report_commits;	/* [nr_commits] */
	struct report_job *report_jobs;		/* [njobs] */
};

int gather_jobs(struct store *s, struct gather *ga);
/* Nothing to do (0) for a job that was unsupported on some commit. */
int gather_compare(struct store *s, struct gather *ga, struct gather_job *jb,
		   const struct compare_opts *o);
void gather_release(struct gather *ga);

/* The repository's origin URL (git remote get-url origin), or NULL. */
char *gather_origin_url(const char *repo);
/*
 * The [SUBSYSTEM] of the report's headline commit onto sb: from its
 * subject, else from the paths it touches in repo (report_subsystem());
 * nothing when neither tells.
 */
void gather_subsystem(struct strbuf *sb, const char *repo, const struct report *r);

#endif
