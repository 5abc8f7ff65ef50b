/*
 * registry.h - the robot's tree registry (docs/registry.md): which
 * repositories and branches `perfbot watch` follows, the jobs it runs on
 * each new head, what a head is compared against, where reports go, and
 * the policy of a pass.  Loaded and checked here into a struct the watch
 * loop only reads.
 *
 * The file is YAML, read with job/'s tree (job/yaml.h: ytree_load()), so
 * every value keeps its line and column; errors are a struct job_error
 * (job/job.h) -- file:line:column and a message quoting the offending
 * value, "did you mean" for a misspelt key -- printed by the command with
 * cmd_print_job_error(), as a job file's are.
 *
 * Paths: a relative `repo:`, `jobs:` file, `outbox:` or `publish:` is relative to the
 * directory the registry file is in, and is stored absolute (that
 * directory resolved with realpath(3), the relative part appended as
 * written), so the loop may chdir freely.
 *
 * Files on disk: registry_load() checks, at load, that every `repo:`
 * (without `url:`) is a directory holding a git repository (`.git` or a
 * bare `HEAD`), that every job file is a regular file, that an `outbox:`
 * that exists is a directory, and that a `sendmail:` program given as a
 * path exists; the error names the path.  REGISTRY_NO_FS_CHECK skips
 * these (a registry checked on another machine, a fuzzer); the syntax and
 * values are checked all the same.  Nothing is created or run here.
 *
 * Ownership: *out is the caller's, freed with registry_free(); every
 * string and array in it is owned by the registry and lives until then.
 * registry_load() initialises *err itself; after a failure the caller
 * releases it with job_error_release() (on success it holds nothing).
 * Returns 0, -EINVAL for a bad registry (err says why), -ENOMEM, or a
 * negative errno when the file cannot be read (err names it).
 *
 * Threading: no global state.  A loaded registry is never changed by
 * these functions, so any number of threads may read it (and call the
 * accessors) at once; registry_free() needs the only reference.
 */
#ifndef PERFBOT_ROBOT_REGISTRY_H
#define PERFBOT_ROBOT_REGISTRY_H

#include "job/job.h"
#include "stats/compare.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A tree name: [A-Za-z0-9_][A-Za-z0-9_.-]*, at most this many bytes. */
#define REGISTRY_NAME_MAX 64

/* Defaults (docs/registry.md says the same). */
#define REGISTRY_DEFAULT_PRIORITY	0
#define REGISTRY_DEFAULT_MAX_AGE_S	(28 * 86400.0)	/* LKP's 4 weeks */
#define REGISTRY_DEFAULT_POLL_S		600.0
#define REGISTRY_DEFAULT_MAX_HEADS	10
#define REGISTRY_DEFAULT_BISECT_MAX_RUNS 200	/* perfbot bisect's --max-runs */
#define REGISTRY_DEFAULT_FROM		"perfbot <perfbot@localhost>"
/* the families whose changes may lead to a report: kpi and failure */
#define REGISTRY_DEFAULT_FAMILIES \
	(REGISTRY_FAMILY(FAMILY_KPI) | REGISTRY_FAMILY(FAMILY_FAILURE))

/* Upper bounds of the values (a typo must not mean "forever"). */
#define REGISTRY_MAX_DURATION_S		(3650 * 86400.0)	/* 10 years */
#define REGISTRY_MAX_PRIORITY		1000000
#define REGISTRY_MAX_HEADS		100000
#define REGISTRY_MAX_BISECT_RUNS	1000000
#define REGISTRY_MAX_MIN_CHANGE		1000.0	/* percent */

#define REGISTRY_FAMILY(f) (1u << (f))	/* f: enum stat_family */

enum registry_load_flags {
	REGISTRY_NO_FS_CHECK = 1 << 0,	/* do not look at repos, job files, outbox */
};

enum registry_base {
	REGISTRY_BASE_PREVIOUS,	/* the branch's previous tested head */
	REGISTRY_BASE_UPSTREAM,	/* the merge base with base_branch */
};

/* Who a report is addressed to: a fixed address, or a rule about the culprit. */
enum registry_rcpt_kind {
	REGISTRY_RCPT_ADDRESS,	/* `address` as written */
	REGISTRY_RCPT_AUTHOR,	/* the culprit's author */
	REGISTRY_RCPT_COMMITTER,	/* the culprit's committer */
	REGISTRY_RCPT_SIGNERS,	/* every Signed-off-by of the culprit */
};

struct registry_rcpt {
	enum registry_rcpt_kind kind;
	char *address;		/* REGISTRY_RCPT_ADDRESS only, else NULL */
};

struct registry_job {
	char *file;		/* absolute path */
	char **set;		/* NULL-terminated "key=value" (-s) overrides, never NULL */
	size_t nr_set;
	unsigned line, column;	/* where the entry is written */
};

struct registry_tree {
	char *name;
	/*
	 * repo: the local repository (absolute).  With url: it is where the
	 * local mirror is kept (fetched into; may not exist yet), and NULL
	 * when the registry leaves that place to the loop.
	 */
	char *repo;
	char *url;		/* remote to `git fetch` from, or NULL */
	char **branches;	/* exact names, NULL-terminated, never NULL */
	char **allow;		/* fnmatch(3) globs, NULL-terminated, never NULL */
	char **deny;		/* fnmatch(3) globs, NULL-terminated, never NULL */
	size_t nr_branches, nr_allow, nr_deny;
	struct registry_job *jobs;	/* at least one */
	size_t nr_jobs;
	enum registry_base base;
	char *base_branch;	/* REGISTRY_BASE_UPSTREAM: the branch, else NULL */
	unsigned long priority;	/* higher first; REGISTRY_DEFAULT_PRIORITY */
	double max_age_s;	/* heads committed longer ago are not tested */
	unsigned line, column;	/* where the tree's entry starts */
};

struct registry_report {
	char *from;		/* REGISTRY_DEFAULT_FROM when not given */
	struct registry_rcpt *to, *cc;	/* to: [author] when not given */
	size_t nr_to, nr_cc;
	char *reported_by;	/* the Reported-by: tag; `from` when not given */
	char *link;		/* base of the Closes: link, or NULL (no link) */
	char *outbox;		/* Maildir directory (absolute), or NULL */
	char **sendmail;	/* argv, NULL-terminated, or NULL */
	bool follow_up;		/* mail later changes of a reported culprit */
	char *publish;		/* the site republished after each pass (absolute), or NULL */
};

struct registry_policy {
	double poll_s;		/* time between passes */
	unsigned long max_heads;	/* new heads tested per pass, at most */
	unsigned long bisect_max_runs;	/* budget of one bisection */
	unsigned families;	/* REGISTRY_FAMILY() bits */
	bool min_change_set;	/* false: compare's floors (COMPARE_*_MIN_PCT) */
	double min_change_pct;	/* when min_change_set */
	/*
	 * on: the fleet's box whose worker makes every run (docs/fleet.md), as
	 * `perfbot bisect --on`; NULL: the runs are made here.
	 */
	char *on;
};

struct registry {
	char *path;		/* the registry file as given */
	char *dir;		/* its directory, absolute */
	struct registry_tree *trees;	/* at least one, in file order */
	size_t nr_trees;
	struct registry_report report;
	struct registry_policy policy;
};

int registry_load(const char *path, struct registry **out, struct job_error *err);
/* The same with registry_load_flags. */
int registry_load_opts(const char *path, unsigned flags, struct registry **out,
		       struct job_error *err);
void registry_free(struct registry *r);

/* The tree named `name`, or NULL. */
const struct registry_tree *registry_tree(const struct registry *r,
					  const char *name);

/*
 * Whether branch `name` of tree t is watched: it is one of `branches`, or
 * it matches an `allow` glob and no `deny` glob (fnmatch(3) without flags:
 * `*` matches across `/`).  A named branch is never denied (the load
 * refuses a name a deny glob matches).
 */
bool registry_branch_wanted(const struct registry_tree *t, const char *name);

/* Whether changes of stats of family f may lead to a report. */
bool registry_family_wanted(const struct registry *r, enum stat_family f);

/*
 * Print the registry resolved -- every key, defaults included, paths
 * absolute -- as YAML that loads back into the same registry (defaults
 * marked by a comment).  0, or -EIO when writing failed.
 */
int registry_describe(FILE *f, const struct registry *r);

#endif
