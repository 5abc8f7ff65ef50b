/*
 * Unit tests: the robot's tree registry (robot/registry.h) -- the minimal
 * form with its defaults, the full form, relative paths, branch
 * allow/deny, every error with its position and message, the checks of
 * files on disk, and registry_describe() loading back into the same.
 *
 * Each test writes its registry into a temporary directory (made by the
 * group's setup, with a repository `repo/.git`, a job file `job.yaml`
 * and `job2.yaml`); the teardown removes the directory whole.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "robot/registry.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[4096];
static unsigned nr_files;

static void touch(const char *rel, const char *text)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void mkdir_in(const char *rel)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_int_equal(mkdir(path, 0700), 0);
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/perfbot-unit.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	mkdir_in("repo");
	mkdir_in("repo/.git");
	mkdir_in("bare.git");
	touch("bare.git/HEAD", "ref: refs/heads/main\n");
	mkdir_in("plain");
	mkdir_in("sub");
	mkdir_in("sub/jobs");
	touch("job.yaml", "testcase: exec\nexec:\n  cmd: [true]\n");
	touch("job2.yaml", "testcase: exec\nexec:\n  cmd: [true]\n");
	touch("sub/jobs/a.yaml", "testcase: exec\nexec:\n  cmd: [true]\n");
	touch("notadir", "");
	touch("sendmail", "#!/bin/sh\n");
	{
		char path[4200];

		snprintf(path, sizeof(path), "%s/sendmail", dir);
		assert_int_equal(chmod(path, 0700), 0);
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A registry file holding text (in the temp dir, or `sub` of it). */
static const char *write_registry_in(const char *subdir, const char *text)
{
	static char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s%sreg%u.yaml", dir, subdir ? subdir : "",
		 subdir ? "/" : "", nr_files++);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

static const char *write_registry(const char *text)
{
	return write_registry_in(NULL, text);
}

static char *in_dir(const char *rel)
{
	static char path[4][4200];
	static unsigned next;
	char *p = path[next++ % 4];
	char *real = realpath(dir, NULL);

	assert_non_null(real);
	snprintf(p, sizeof(path[0]), "%s/%s", real, rel);
	free(real);
	return p;
}

static const char minimal_fmt[] =
	"trees:\n"
	"  - name: demo\n"
	"    repo: %s\n"
	"    branches: [main]\n"
	"    jobs: [%s]\n"
	"report:\n"
	"  outbox: %s\n";

/* The minimal form of the issue, absolute paths: it loads, with every default. */
static void minimal_defaults(void **state)
{
	struct registry *r;
	struct job_error err;
	const struct registry_tree *t;
	char text[16384];
	char repo[4200], job[4200], outbox[4200];

	(void)state;
	snprintf(repo, sizeof(repo), "%s", in_dir("repo"));
	snprintf(job, sizeof(job), "%s", in_dir("job.yaml"));
	snprintf(outbox, sizeof(outbox), "%s", in_dir("outbox"));
	snprintf(text, sizeof(text), minimal_fmt, repo, job, outbox);
	assert_int_equal(registry_load(write_registry(text), &r, &err), 0);
	assert_non_null(r);
	assert_int_equal(r->nr_trees, 1);
	t = &r->trees[0];
	assert_string_equal(t->name, "demo");
	assert_string_equal(t->repo, repo);
	assert_null(t->url);
	assert_int_equal(t->nr_branches, 1);
	assert_string_equal(t->branches[0], "main");
	assert_null(t->branches[1]);
	assert_int_equal(t->nr_allow, 0);
	assert_null(t->allow[0]);
	assert_int_equal(t->nr_deny, 0);
	assert_int_equal(t->nr_jobs, 1);
	assert_string_equal(t->jobs[0].file, job);
	assert_int_equal(t->jobs[0].nr_set, 0);
	assert_null(t->jobs[0].set[0]);
	assert_int_equal(t->jobs[0].line, 5);
	assert_int_equal(t->jobs[0].column, 12);
	assert_int_equal(t->base, REGISTRY_BASE_PREVIOUS);
	assert_null(t->base_branch);
	assert_int_equal(t->priority, 0);
	assert_true(t->max_age_s == 28 * 86400.0);
	assert_int_equal(t->line, 2);
	assert_int_equal(t->column, 5);
	/* report */
	assert_string_equal(r->report.outbox, outbox);
	assert_null(r->report.sendmail);
	assert_string_equal(r->report.from, "perfbot <perfbot@localhost>");
	assert_string_equal(r->report.reported_by, r->report.from);
	assert_int_equal(r->report.nr_to, 1);
	assert_int_equal(r->report.to[0].kind, REGISTRY_RCPT_AUTHOR);
	assert_null(r->report.to[0].address);
	assert_int_equal(r->report.nr_cc, 0);
	assert_null(r->report.link);
	assert_false(r->report.follow_up);
	/* policy */
	assert_true(r->policy.poll_s == 600);
	assert_int_equal(r->policy.max_heads, 10);
	assert_int_equal(r->policy.bisect_max_runs, 200);
	assert_true(registry_family_wanted(r, FAMILY_KPI));
	assert_true(registry_family_wanted(r, FAMILY_FAILURE));
	assert_false(registry_family_wanted(r, FAMILY_OTHER));
	assert_false(r->policy.min_change_set);
	/* accessors */
	assert_ptr_equal(registry_tree(r, "demo"), t);
	assert_null(registry_tree(r, "dem"));
	assert_true(registry_branch_wanted(t, "main"));
	assert_false(registry_branch_wanted(t, "main2"));
	assert_false(registry_branch_wanted(t, "mai"));
	registry_free(r);
}

static const char full[] =
	"# every key\n"
	"trees:\n"
	"  - name: linux-next_1\n"
	"    url: https://git.example.org/next.git\n"
	"    repo: mirrors/next\n"
	"    branches: [master, for-next]\n"
	"    allow: ['for-*', 'topic/*']\n"
	"    deny: ['*-wip', 'topic/old-*']\n"
	"    jobs:\n"
	"      - job.yaml\n"
	"      - {file: job.yaml, set: [nr_task=1, 'mode=thread']}\n"
	"      - file: job2.yaml\n"
	"        set: runtime=5s\n"
	"    base:\n"
	"      upstream: master\n"
	"    priority: 7\n"
	"    max_age: 2w\n"
	"  - name: local\n"
	"    repo: bare.git\n"
	"    allow: '*'\n"
	"    jobs: job2.yaml\n"
	"    base: previous\n"
	"    max_age: 36h\n"
	"report:\n"
	"  from: Perf Robot <robot@example.org>\n"
	"  to: [author, committer, list@example.org]\n"
	"  cc:\n"
	"    - signers\n"
	"    - Some One <one@example.org>\n"
	"  reported_by: kernel test robot <lkp@example.org>\n"
	"  link: https://lore.example.org/r/\n"
	"  outbox: out/maildir\n"
	"  sendmail: [./sendmail, -t, -i, -f, a@b, -f, a@b]\n"
	"  follow_up: true\n"
	"  publish: www/site\n"
	"policy:\n"
	"  poll: 90s\n"
	"  max_heads: 3\n"
	"  bisect_max_runs: 500\n"
	"  families: [other, kpi]\n"
	"  min_change: 2.5%\n"
	"  on: w1\n";

static void full_form(void **state)
{
	struct registry *r;
	struct job_error err;
	const struct registry_tree *t;

	(void)state;
	assert_int_equal(registry_load(write_registry(full), &r, &err), 0);
	assert_int_equal(r->nr_trees, 2);
	t = &r->trees[0];
	assert_string_equal(t->name, "linux-next_1");
	assert_string_equal(t->url, "https://git.example.org/next.git");
	/* with url:, repo: is the mirror: it need not exist yet */
	assert_string_equal(t->repo, in_dir("mirrors/next"));
	assert_int_equal(t->nr_branches, 2);
	assert_string_equal(t->branches[1], "for-next");
	assert_int_equal(t->nr_allow, 2);
	assert_string_equal(t->allow[1], "topic/*");
	assert_int_equal(t->nr_deny, 2);
	assert_int_equal(t->nr_jobs, 3);
	assert_string_equal(t->jobs[0].file, in_dir("job.yaml"));
	assert_int_equal(t->jobs[0].nr_set, 0);
	assert_string_equal(t->jobs[1].file, in_dir("job.yaml"));
	assert_int_equal(t->jobs[1].nr_set, 2);
	assert_string_equal(t->jobs[1].set[0], "nr_task=1");
	assert_string_equal(t->jobs[1].set[1], "mode=thread");
	assert_null(t->jobs[1].set[2]);
	assert_int_equal(t->jobs[1].line, 11);
	assert_int_equal(t->jobs[1].column, 9);
	assert_string_equal(t->jobs[2].file, in_dir("job2.yaml"));
	assert_int_equal(t->jobs[2].nr_set, 1);
	assert_string_equal(t->jobs[2].set[0], "runtime=5s");
	assert_int_equal(t->base, REGISTRY_BASE_UPSTREAM);
	assert_string_equal(t->base_branch, "master");
	assert_int_equal(t->priority, 7);
	assert_true(t->max_age_s == 14 * 86400.0);

	t = &r->trees[1];
	assert_string_equal(t->name, "local");
	assert_null(t->url);
	assert_string_equal(t->repo, in_dir("bare.git"));
	assert_int_equal(t->nr_branches, 0);
	assert_int_equal(t->nr_allow, 1);
	assert_int_equal(t->nr_jobs, 1);
	assert_int_equal(t->base, REGISTRY_BASE_PREVIOUS);
	assert_true(t->max_age_s == 36 * 3600.0);
	assert_true(registry_branch_wanted(t, "anything/at-all"));

	assert_string_equal(r->policy.on, "w1");
	assert_string_equal(r->report.from, "Perf Robot <robot@example.org>");
	assert_int_equal(r->report.nr_to, 3);
	assert_int_equal(r->report.to[0].kind, REGISTRY_RCPT_AUTHOR);
	assert_int_equal(r->report.to[1].kind, REGISTRY_RCPT_COMMITTER);
	assert_int_equal(r->report.to[2].kind, REGISTRY_RCPT_ADDRESS);
	assert_string_equal(r->report.to[2].address, "list@example.org");
	assert_int_equal(r->report.nr_cc, 2);
	assert_int_equal(r->report.cc[0].kind, REGISTRY_RCPT_SIGNERS);
	assert_string_equal(r->report.cc[1].address, "Some One <one@example.org>");
	assert_string_equal(r->report.reported_by, "kernel test robot <lkp@example.org>");
	assert_string_equal(r->report.link, "https://lore.example.org/r/");
	assert_string_equal(r->report.outbox, in_dir("out/maildir"));
	/* argv[0] with a '/' is a path, relative to the registry; repeats kept */
	assert_string_equal(r->report.sendmail[0], in_dir("./sendmail"));
	assert_string_equal(r->report.sendmail[1], "-t");
	assert_string_equal(r->report.sendmail[6], "a@b");
	assert_null(r->report.sendmail[7]);
	assert_true(r->report.follow_up);
	/* the site: relative to the registry, need not exist yet */
	assert_string_equal(r->report.publish, in_dir("www/site"));

	assert_true(r->policy.poll_s == 90);
	assert_int_equal(r->policy.max_heads, 3);
	assert_int_equal(r->policy.bisect_max_runs, 500);
	assert_true(registry_family_wanted(r, FAMILY_KPI));
	assert_true(registry_family_wanted(r, FAMILY_OTHER));
	assert_false(registry_family_wanted(r, FAMILY_FAILURE));
	assert_true(r->policy.min_change_set);
	assert_true(r->policy.min_change_pct == 2.5);
	registry_free(r);
}

/* Relative paths are the registry's directory's, wherever perfbot runs. */
static void relative_paths(void **state)
{
	static const char text[] =
		"trees:\n"
		"  - name: demo\n"
		"    repo: ../repo\n"
		"    branches: main\n"
		"    jobs: [jobs/a.yaml]\n"
		"report:\n"
		"  outbox: out\n";
	struct registry *r;
	struct job_error err;
	const char *path = write_registry_in("sub", text);
	char cwd[4200], rel[64];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	/* the registry named relative to the current directory */
	snprintf(rel, sizeof(rel), "sub/%s", strrchr(path, '/') + 1);
	assert_int_equal(registry_load(rel, &r, &err), 0);
	assert_int_equal(chdir("/"), 0);
	assert_string_equal(r->path, rel);
	assert_string_equal(r->dir, in_dir("sub"));
	assert_string_equal(r->trees[0].repo, in_dir("sub/../repo"));
	assert_string_equal(r->trees[0].jobs[0].file, in_dir("sub/jobs/a.yaml"));
	assert_string_equal(r->report.outbox, in_dir("sub/out"));
	/* a single value is a list of one */
	assert_int_equal(r->trees[0].nr_branches, 1);
	registry_free(r);

	/* the same file from elsewhere resolves the same; without the file
	 * checks nothing is looked at on disk */
	assert_int_equal(registry_load_opts(path, REGISTRY_NO_FS_CHECK, &r, &err), 0);
	assert_string_equal(r->trees[0].jobs[0].file, in_dir("sub/jobs/a.yaml"));
	registry_free(r);
	assert_int_equal(chdir(cwd), 0);
}

static void branch_rules(void **state)
{
	static const char text[] =
		"trees:\n"
		"  - name: demo\n"
		"    repo: repo\n"
		"    branches: [main, release/v1]\n"
		"    allow: ['for-*', 'topic/[ab]*', 'x?']\n"
		"    deny: ['*-wip', 'topic/b-old*']\n"
		"    jobs: [job.yaml]\n"
		"report:\n"
		"  outbox: out\n";
	static const struct {
		const char *branch;
		bool wanted;
	} cases[] = {
		{ "main", true },
		{ "release/v1", true },
		{ "release/v2", false },	/* names are exact */
		{ "mai", false },
		{ "for-next", true },
		{ "for-next/core", true },	/* '*' crosses '/' */
		{ "for-next-wip", false },	/* denied */
		{ "topic/a1", true },
		{ "topic/b-new", true },
		{ "topic/b-old-1", false },
		{ "topic/c", false },
		{ "xy", true },
		{ "xyz", false },
		{ "next", false },
	};
	struct registry *r;
	struct job_error err;

	(void)state;
	assert_int_equal(registry_load(write_registry(text), &r, &err), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (registry_branch_wanted(&r->trees[0], cases[i].branch) != cases[i].wanted)
			fail_msg("branch '%s': expected %s", cases[i].branch,
				 cases[i].wanted ? "wanted" : "not wanted");
	}
	registry_free(r);
}

/* A registry whose load must fail at line:column with exactly msg. */
struct bad {
	const char *text;
	unsigned line, column;
	const char *msg;
};

#define TREE_HEAD "trees:\n  - name: demo\n"
#define GOOD_TREE TREE_HEAD "    repo: repo\n    branches: [main]\n    jobs: [job.yaml]\n"
#define GOOD_REPORT "report:\n  outbox: out\n"

static const struct bad bad[] = {
	/* 0: the top level */
	{ "treez:\n" GOOD_REPORT, 1, 1,
	  "unknown key 'treez' in the registry (did you mean 'trees'?)" },
	{ GOOD_TREE GOOD_REPORT "zzzzzzzz: 1\n", 8, 1,
	  "unknown key 'zzzzzzzz' in the registry (expected trees, report or policy)" },
	{ GOOD_REPORT, 1, 1, "the registry needs trees: (a list of trees to watch)" },
	{ GOOD_TREE, 1, 1, "the registry needs report: (outbox: and/or sendmail:)" },
	{ "- a\n", 1, 1,
	  "the registry must be a mapping (trees:, report:, policy:), not a list" },
	{ "trees: []\n" GOOD_REPORT, 1, 8, "'trees' must be a list of trees, not empty" },
	{ "trees: demo\n" GOOD_REPORT, 1, 8, "'trees' must be a list of trees, not a value" },
	{ "trees: [a: b\n", 2, 1,
	  "did not find expected ',' or ']' while parsing a flow sequence at 1:8" },
	{ "a: &x 1\nb: *x\n", 2, 4, "yaml aliases are not supported in a registry (alias 'x')" },
	{ GOOD_TREE GOOD_REPORT "report: {}\n", 8, 1, "duplicate key 'report'" },
	/* 10: trees */
	{ "trees:\n  - repo: repo\n    branches: [main]\n    jobs: [job.yaml]\n" GOOD_REPORT,
	  2, 5, "a tree needs name: (a word naming it)" },
	{ "trees:\n  - name: -x\n", 2, 11,
	  "invalid tree name '-x' (letters, digits, '_', '.' and '-', starting with a letter, digit or '_', at most 64 bytes)" },
	{ "trees:\n  - name: [a]\n", 2, 11, "'name' must be a single value, not a list" },
	{ "trees:\n  - name:\n", 2, 10, "'name' needs a value" },
	{ "trees:\n  - demo\n", 2, 5,
	  "a tree must be a mapping (name:, repo:, branches:, jobs:, ...), not 'demo'" },
	{ GOOD_TREE "  - name: demo\n    repo: repo\n    branches: [main]\n    jobs: [job.yaml]\n"
	  GOOD_REPORT, 6, 11, "duplicate tree name 'demo' (also at 2:5)" },
	{ TREE_HEAD "    brnches: [main]\n", 3, 5,
	  "unknown key 'brnches' in a tree (did you mean 'branches'?)" },
	{ TREE_HEAD "    branches: [main]\n    jobs: [job.yaml]\n" GOOD_REPORT, 2, 5,
	  "tree 'demo' needs repo: (a local repository) or url: (a remote to fetch)" },
	{ TREE_HEAD "    repo: repo\n    branches: [main]\n" GOOD_REPORT, 2, 5,
	  "tree 'demo' needs jobs: (the job files to run on each new head)" },
	{ TREE_HEAD "    repo: repo\n    jobs: [job.yaml]\n" GOOD_REPORT, 2, 5,
	  "tree 'demo' watches no branch: give branches: (names) or allow: (patterns)" },
	/* 20 */
	{ TREE_HEAD "    repo: repo\n    branches: []\n", 4, 15,
	  "tree 'demo' watches no branch: give branches: (names) or allow: (patterns)" },
	{ TREE_HEAD "    url: 'ext::sh -c id'\n", 3, 10,
	  "invalid url 'ext::sh -c id' (expected https://, http://, git://, ssh://, file:// or host:path)" },
	{ TREE_HEAD "    url: --upload-pack=x:y\n", 3, 10,
	  "invalid url '--upload-pack=x:y' (expected https://, http://, git://, ssh://, file:// or host:path)" },
	{ TREE_HEAD "    url: ftp://x/y\n", 3, 10,
	  "invalid url 'ftp://x/y' (expected https://, http://, git://, ssh://, file:// or host:path)" },
	{ TREE_HEAD "    repo: repo\n    branches: [main, -f]\n", 4, 22,
	  "invalid branch name '-f' in 'branches': starts with '-'" },
	{ TREE_HEAD "    repo: repo\n    branches: [ma*]\n", 4, 16,
	  "invalid branch name 'ma*' in 'branches': holds one of ? * [ (a glob belongs in allow: or deny:)" },
	{ TREE_HEAD "    repo: repo\n    branches: [a..b]\n", 4, 16,
	  "invalid branch name 'a..b' in 'branches': holds '..', '//', '@{' or a part starting with '.'" },
	{ TREE_HEAD "    repo: repo\n    branches: [main, main]\n", 4, 22,
	  "duplicate item 'main' in 'branches' (also at 4:16)" },
	{ TREE_HEAD "    repo: repo\n    branches: [main]\n    deny: ['ma*']\n    jobs: [job.yaml]\n"
	  GOOD_REPORT, 4, 16,
	  "branch 'main' is named in branches: and denied by 'ma*' in deny:" },
	{ TREE_HEAD "    repo: repo\n    allow: ['a b']\n", 4, 13,
	  "invalid branch pattern 'a b' in 'allow': holds a space, a control character or one of ~ ^ : \\" },
	/* 30: jobs */
	{ TREE_HEAD "    repo: repo\n    branches: [main]\n    jobs: []\n", 5, 11,
	  "tree 'demo' has no jobs: list job files under jobs:" },
	{ TREE_HEAD "    repo: repo\n    branches: [main]\n    jobs: [{file: job.yaml, set: [nr_task]}]\n",
	  5, 35, "invalid override 'nr_task' in 'set' (expected key=value)" },
	{ TREE_HEAD "    repo: repo\n    branches: [main]\n    jobs: [{file: job.yaml, sett: [a=1]}]\n",
	  5, 29, "unknown key 'sett' in a job entry (did you mean 'set'?)" },
	{ TREE_HEAD "    repo: repo\n    branches: [main]\n    jobs: [{set: [a=1]}]\n", 5, 12,
	  "a job entry needs file: (the job file)" },
	{ TREE_HEAD "    repo: repo\n    branches: [main]\n    jobs: [[job.yaml]]\n", 5, 12,
	  "a job must be a job file or {file: FILE, set: [key=value]}, not a list" },
	{ TREE_HEAD "    repo: repo\n    branches: [main]\n    jobs: [job.yaml, {file: job.yaml}]\n",
	  5, 22, "duplicate job '%DIR%/job.yaml' in tree 'demo' (also at 5:12)" },
	/* base, priority, max_age */
	{ GOOD_TREE "    base: prev\n", 6, 11,
	  "invalid base 'prev' (expected previous, or upstream: BRANCH)" },
	{ GOOD_TREE "    base:\n      upstrem: master\n", 7, 7,
	  "unknown key 'upstrem' in base (did you mean 'upstream'?)" },
	{ GOOD_TREE "    base: {upstream: --all}\n", 6, 22,
	  "invalid branch name '--all' in 'upstream': starts with '-'" },
	{ GOOD_TREE "    priority: high\n", 6, 15,
	  "priority 'high' is not a whole number (decimal digits, no sign or leading zero)" },
	/* 40 */
	{ GOOD_TREE "    priority: -1\n", 6, 15, "'priority' must be at least 0, not '-1'" },
	{ GOOD_TREE "    max_age: 28 days\n", 6, 14,
	  "max_age '28 days' is not a duration (a whole number of seconds, or a number with a unit s, m, h, d or w)" },
	{ GOOD_TREE "    max_age: 0d\n", 6, 14, "max_age '0d' must be at least 1s" },
	{ GOOD_TREE "    max_age: 3651d\n", 6, 14, "max_age '3651d' is more than 3650 days" },
	{ GOOD_TREE "    max_age: 1.5s\n", 6, 14,
	  "max_age '1.5s' is not a whole number of seconds" },
	{ GOOD_TREE "    max_age: 01d\n", 6, 14,
	  "max_age '01d' is not a duration (a whole number of seconds, or a number with a unit s, m, h, d or w)" },
	/* report */
	{ GOOD_TREE "report:\n  to: [author]\n", 7, 3,
	  "report needs outbox: (a Maildir directory) or sendmail: (a command), or both" },
	{ GOOD_TREE "report:\n  outbx: out\n", 7, 3,
	  "unknown key 'outbx' in report (did you mean 'outbox'?)" },
	{ GOOD_TREE "report:\n  sendmail: /usr/sbin/sendmail -t\n", 7, 13,
	  "'sendmail' must be a list of words (an argv, never run by a shell), e.g. [/usr/sbin/sendmail, -t, -i], not '/usr/sbin/sendmail -t'" },
	{ GOOD_TREE "report:\n  sendmail: []\n", 7, 13,
	  "'sendmail' is empty: give the command as a list of words" },
	/* 50 */
	{ GOOD_TREE GOOD_REPORT "  to: [autor]\n", 8, 8,
	  "unknown rule 'autor' in 'to' (did you mean 'author'?)" },
	{ GOOD_TREE GOOD_REPORT "  to: []\n", 8, 7,
	  "'to' is empty: a report needs a recipient (author, an address, ...)" },
	{ GOOD_TREE GOOD_REPORT "  cc: [\"a@b\\r\\nBcc: x@y\"]\n", 8, 8,
	  "an item of 'cc' holds a control character" },
	{ GOOD_TREE GOOD_REPORT "  cc: ['a@b, c@d']\n", 8, 8,
	  "invalid address 'a@b, c@d' in 'cc' (expected name@host or Name <name@host>)" },
	{ GOOD_TREE GOOD_REPORT "  from: robot\n", 8, 9,
	  "invalid address 'robot' in 'from' (expected name@host or Name <name@host>)" },
	{ GOOD_TREE GOOD_REPORT "  reported_by: A <a@b> x\n", 8, 16,
	  "invalid address 'A <a@b> x' in 'reported_by' (expected name@host or Name <name@host>)" },
	{ GOOD_TREE GOOD_REPORT "  link: ftp://x/\n", 8, 9,
	  "invalid link 'ftp://x/' (expected an http:// or https:// URL, no spaces)" },
	{ GOOD_TREE GOOD_REPORT "  follow_up: maybe\n", 8, 14, "follow_up 'maybe' is not true or false" },
	/* policy */
	{ GOOD_TREE GOOD_REPORT "policy:\n  pol: 5m\n", 9, 3,
	  "unknown key 'pol' in policy (did you mean 'poll'?)" },
	{ GOOD_TREE GOOD_REPORT "policy:\n  poll: 5x\n", 9, 9,
	  "poll '5x' is not a duration (a whole number of seconds, or a number with a unit s, m, h, d or w)" },
	/* 60 */
	{ GOOD_TREE GOOD_REPORT "policy:\n  max_heads: 0\n", 9, 14,
	  "'max_heads' must be at least 1, not '0'" },
	{ GOOD_TREE GOOD_REPORT "policy:\n  bisect_max_runs: 1000001\n", 9, 20,
	  "bisect_max_runs '1000001' is more than 1000000" },
	{ GOOD_TREE GOOD_REPORT "policy:\n  families: [kpi, kpii]\n", 9, 19,
	  "unknown family 'kpii' in 'families' (did you mean 'kpi'?)" },
	{ GOOD_TREE GOOD_REPORT "policy:\n  families: [perf]\n", 9, 14,
	  "unknown family 'perf' in 'families' (expected kpi, failure or other)" },
	{ GOOD_TREE GOOD_REPORT "policy:\n  families: []\n", 9, 13,
	  "'families' is empty: no change could lead to a report (give kpi, failure or other)" },
	{ GOOD_TREE GOOD_REPORT "policy:\n  min_change: 1e3\n", 9, 15,
	  "min_change '1e3' is not a percentage (a decimal number such as 2 or 2.5%)" },
	{ GOOD_TREE GOOD_REPORT "policy:\n  min_change: -1%\n", 9, 15,
	  "min_change '-1%' is not a percentage (a decimal number such as 2 or 2.5%)" },
	{ GOOD_TREE GOOD_REPORT "policy:\n  min_change: 1001\n", 9, 15,
	  "min_change '1001' is more than 1000%" },
	{ GOOD_TREE GOOD_REPORT "policy: 5m\n", 8, 9,
	  "policy must be a mapping (poll:, max_heads:, bisect_max_runs:, families:, min_change:, on:), not '5m'" },
	{ GOOD_TREE GOOD_REPORT "policy:\n  on: [w1, w2]\n", 9, 7,
	  "'on' must be a single value, not a list" },
	{ GOOD_TREE GOOD_REPORT "policy:\n  on:\n", 9, 6, "'on' needs a value" },
};

/* "%DIR%" in an expected message is the temp directory, resolved */
static void expect_msg(const char *want, const char *got, size_t i)
{
	char buf[8192];
	const char *at = strstr(want, "%DIR%");

	if (at) {
		char *real = realpath(dir, NULL);

		assert_non_null(real);
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - want), want, real, at + 5);
		free(real);
		want = buf;
	}
	if (strcmp(want, got))
		fail_msg("case %zu: expected\n  %s\ngot\n  %s", i, want, got);
}

static void errors_with_positions(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct registry *r = (struct registry *)1;
		struct job_error err;
		const char *path = write_registry(bad[i].text);
		int ret = registry_load(path, &r, &err);

		if (ret != -EINVAL)
			fail_msg("case %zu: expected -EINVAL, got %d (%s)", i, ret,
				 ret ? err.msg.buf : "loaded");
		assert_null(r);
		assert_string_equal(err.file.buf, path);
		expect_msg(bad[i].msg, err.msg.buf, i);
		if (err.line != bad[i].line || err.column != bad[i].column)
			fail_msg("case %zu (%s): expected %u:%u, got %u:%u", i, bad[i].msg,
				 bad[i].line, bad[i].column, err.line, err.column);
		job_error_release(&err);
	}
}

/* What is on disk: the error names the path; REGISTRY_NO_FS_CHECK skips it. */
static void files_on_disk(void **state)
{
	static const struct bad cases[] = {
		{ TREE_HEAD "    repo: nowhere\n    branches: [main]\n    jobs: [job.yaml]\n"
		  GOOD_REPORT, 3, 11,
		  "repo 'nowhere' (%DIR%/nowhere): No such file or directory" },
		{ TREE_HEAD "    repo: plain\n    branches: [main]\n    jobs: [job.yaml]\n"
		  GOOD_REPORT, 3, 11,
		  "repo 'plain' (%DIR%/plain): not a git repository (no .git, not a bare repository)" },
		{ TREE_HEAD "    repo: notadir\n    branches: [main]\n    jobs: [job.yaml]\n"
		  GOOD_REPORT, 3, 11, "repo 'notadir' (%DIR%/notadir): not a directory" },
		{ TREE_HEAD "    url: git://h/r\n    repo: notadir\n    branches: [main]\n    jobs: [job.yaml]\n"
		  GOOD_REPORT, 4, 11, "repo 'notadir' (%DIR%/notadir): not a directory" },
		{ TREE_HEAD "    repo: repo\n    branches: [main]\n    jobs: [job.yaml, gone.yaml]\n"
		  GOOD_REPORT, 5, 22,
		  "job file 'gone.yaml' (%DIR%/gone.yaml): No such file or directory" },
		{ TREE_HEAD "    repo: repo\n    branches: [main]\n    jobs: [{file: sub}]\n"
		  GOOD_REPORT, 5, 19, "job file 'sub' (%DIR%/sub): not a regular file" },
		{ GOOD_TREE "report:\n  outbox: notadir\n", 7, 11,
		  "outbox 'notadir' (%DIR%/notadir): not a directory" },
		{ GOOD_TREE "report:\n  sendmail: [./nosendmail, -t]\n", 7, 14,
		  "sendmail './nosendmail' (%DIR%/./nosendmail): No such file or directory" },
		{ GOOD_TREE "report:\n  outbox: outbox\n  publish: job.yaml\n", 8, 12,
		  "publish 'job.yaml' (%DIR%/job.yaml): not a directory" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct registry *r;
		struct job_error err;
		const char *path = write_registry(cases[i].text);

		if (registry_load(path, &r, &err) != -EINVAL)
			fail_msg("case %zu: loaded", i);
		expect_msg(cases[i].msg, err.msg.buf, i);
		if (err.line != cases[i].line || err.column != cases[i].column)
			fail_msg("case %zu: expected %u:%u, got %u:%u", i, cases[i].line,
				 cases[i].column, err.line, err.column);
		job_error_release(&err);
		assert_int_equal(registry_load_opts(path, REGISTRY_NO_FS_CHECK, &r, &err), 0);
		registry_free(r);
	}
}

static void unreadable(void **state)
{
	struct registry *r;
	struct job_error err;
	char path[4200];

	(void)state;
	snprintf(path, sizeof(path), "%s/absent.yaml", dir);
	assert_int_equal(registry_load(path, &r, &err), -ENOENT);
	assert_null(r);
	assert_string_equal(err.file.buf, path);
	assert_int_equal(err.line, 0);
	assert_string_equal(err.msg.buf, "cannot read the registry: No such file or directory");
	job_error_release(&err);

	assert_int_equal(registry_load(write_registry(""), &r, &err), -EINVAL);
	assert_string_equal(err.msg.buf, "the registry is empty: it needs trees: and report:");
	job_error_release(&err);
}

static char *describe(const struct registry *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(registry_describe(f, r), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* Everything but the first line (which names the file described). */
static const char *body(const char *text)
{
	const char *nl = strchr(text, '\n');

	assert_non_null(nl);
	return nl + 1;
}

/* describe's YAML loads back into the same registry, defaults marked. */
static void describe_round_trip(void **state)
{
	static const char *const texts[] = { full, NULL };
	struct job_error err;
	char minimal[16384];
	char repo[4200], job[4200], outbox[4200];

	(void)state;
	snprintf(repo, sizeof(repo), "%s", in_dir("repo"));
	snprintf(job, sizeof(job), "%s", in_dir("job.yaml"));
	snprintf(outbox, sizeof(outbox), "%s", in_dir("outbox"));
	snprintf(minimal, sizeof(minimal), minimal_fmt, repo, job, outbox);
	for (size_t i = 0; i < 2; i++) {
		const char *text = i ? minimal : texts[0];
		struct registry *r, *again;
		char *one, *two;

		assert_int_equal(registry_load(write_registry(text), &r, &err), 0);
		one = describe(r);
		if (registry_load(write_registry(one), &again, &err))
			fail_msg("case %zu: the description does not load: %u:%u: %s\n%s", i,
				 err.line, err.column, err.msg.buf, one);
		two = describe(again);
		assert_string_equal(body(one), body(two));
		if (i) {
			/* the minimal form: the defaults, marked as such */
			assert_non_null(strstr(one, "    max_age: 4w  # default\n"));
			assert_non_null(strstr(one, "    base: previous  # default"));
			assert_non_null(strstr(one, "  poll: 10m  # default\n"));
			assert_non_null(strstr(one, "  families: [kpi, failure]  # default\n"));
			assert_non_null(strstr(one, "  to:  # default\n    - author\n"));
			assert_non_null(strstr(one, "  from: \"perfbot <perfbot@localhost>\"  # default\n"));
			assert_non_null(strstr(one, "  # min_change: compare's floors, kpi 1%, other stats 5%\n"));
			assert_non_null(strstr(one, "  # on: none, the runs made here\n"));
			assert_non_null(strstr(one, "  # publish: none, no site\n"));
			assert_null(again->report.publish);
			assert_null(again->policy.on);
		} else {
			assert_non_null(strstr(one, "    max_age: 2w\n"));
			assert_non_null(strstr(one, "  min_change: 2.5%\n"));
			assert_non_null(strstr(one, "      upstream: master"));
			assert_non_null(strstr(one, "        set:\n          - nr_task=1\n          - mode=thread\n"));
			assert_non_null(strstr(one, "  families: [kpi, other]\n"));
			assert_non_null(strstr(one, "    - \"Some One <one@example.org>\"\n"));
			assert_int_equal(again->report.follow_up, true);
			assert_string_equal(again->report.publish, r->report.publish);
			assert_non_null(strstr(one, "  on: w1\n"));
			assert_string_equal(again->policy.on, "w1");
			assert_string_equal(again->trees[0].url, r->trees[0].url);
		}
		free(one);
		free(two);
		registry_free(r);
		registry_free(again);
	}
}

/*
 * Values YAML would fold or end a comment at (NEL, LS, PS, the BOM), one
 * that reads as null, and a percentage %g would write with an exponent:
 * the description still loads back into the same.
 */
static void describe_escapes(void **state)
{
	static const char text[] =
		"trees:\n"
		"  - name: demo\n"
		"    repo: \"/a\\Lb\\Nc\\uFEFFd\\Pe \\\"f\\\\\"\n"
		"    branches: [main, \"null\", \"true\"]\n"
		"    jobs: [\"/j #x: y\"]\n"
		"report:\n"
		"  outbox: /o\n"
		"policy:\n"
		"  min_change: 0.0000001\n";
	struct registry *r, *again;
	struct job_error err;
	char *one, *two;

	(void)state;
	assert_int_equal(registry_load_opts(write_registry(text), REGISTRY_NO_FS_CHECK, &r,
					    &err), 0);
	assert_string_equal(r->trees[0].repo,
			    "/a\xe2\x80\xa8" "b\xc2\x85" "c\xef\xbb\xbf" "d\xe2\x80\xa9" "e \"f\\");
	assert_string_equal(r->trees[0].branches[1], "null");
	one = describe(r);
	assert_non_null(strstr(one, "    repo: \"/a\\Lb\\Nc\\uFEFFd\\Pe \\\"f\\\\\"\n"));
	assert_non_null(strstr(one, "  min_change: 0.0000001%\n"));
	if (registry_load_opts(write_registry(one), REGISTRY_NO_FS_CHECK, &again, &err))
		fail_msg("the description does not load: %u:%u: %s\n%s", err.line, err.column,
			 err.msg.buf, one);
	assert_string_equal(again->trees[0].repo, r->trees[0].repo);
	assert_string_equal(again->trees[0].branches[2], "true");
	assert_string_equal(again->trees[0].jobs[0].file, "/j #x: y");
	assert_true(again->policy.min_change_pct == r->policy.min_change_pct);
	two = describe(again);
	assert_string_equal(body(one), body(two));
	free(one);
	free(two);
	registry_free(r);
	registry_free(again);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(minimal_defaults),
		cmocka_unit_test(full_form),
		cmocka_unit_test(relative_paths),
		cmocka_unit_test(branch_rules),
		cmocka_unit_test(errors_with_positions),
		cmocka_unit_test(files_on_disk),
		cmocka_unit_test(unreadable),
		cmocka_unit_test(describe_round_trip),
		cmocka_unit_test(describe_escapes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
