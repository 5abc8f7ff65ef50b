/*
 * submit.c - perfbot submit: a job file's atomic jobs x commits x repeats
 * queued for the fleet's workers (docs/fleet.md), in one transaction.
 */
#define _GNU_SOURCE
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "job/job.h"
#include "queue/needs.h"
#include "run/runner.h"
#include "store/store.h"
#include "util/parse.h"
#include "util/quote.h"
#include "vcs/git.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OVERRIDES 64
#define MAX_COMMITS 256
#define DEFAULT_REPEAT 3
/* a bound on one submit: 1,000,000 items is one statement of ~100 MB */
#define MAX_ITEMS 1000000

static const char submit_usage[] =
	"usage: perfbot submit JOB.yaml [options] --db postgresql://...\n"
	"\n"
	"Queue every atomic job of JOB.yaml, at each commit, REPEAT times, for\n"
	"the fleet's workers (perfbot worker); one item is one run.  Prints the\n"
	"ids of the items queued, one a line.\n"
	"\n"
	"  -s KEY=VALUE          override or narrow a job parameter; repeatable\n"
	"      --repo DIR        the git repository of the commits, at the same\n"
	"                        path on the workers (a shared or cloned tree)\n"
	"      --commit REV      a commit to run at (repeatable; with --repo,\n"
	"                        resolved here, default HEAD; without, a label)\n"
	"      --needs NEEDS     what a box must have: cpus>=N, mem>=SIZE,\n"
	"                        arch=NAME, tag=NAME (repeatable), testbox=NAME,\n"
	"                        class=NAME (a box of that class), comma-separated\n"
	"      --priority N      higher runs first (default 0)\n"
	"  -r, --repeat N        items of each atomic job and commit (default: the\n"
	"                        job's repeat:, else %d)\n"
	"      --max-attempts N  attempts before an item fails (default %d)\n"
	CMD_DB_USAGE
	"  -h, --help            show this help\n"
	"\n"
	"The queue is PostgreSQL's (--db postgresql://...).  Whoever may submit\n"
	"may run commands on the workers (docs/fleet.md, the trust model).\n"
	"Exit status: 0 queued, 1 the store failed, 2 bad usage or a bad job file.\n";

struct submit_opts {
	const char *job_path, *repo, *needs;
	const char *commits[MAX_COMMITS];
	size_t nr_commits;
	char *overrides[MAX_OVERRIDES];
	size_t nr_overrides;
	unsigned long repeat, max_attempts;
	long priority;
};

#define usage_error(...) cmd_usage_error("submit", __VA_ARGS__)

static int parse_args(int argc, char **argv, struct submit_opts *o)
{
	enum { OPT_REPO = 256, OPT_COMMIT, OPT_NEEDS, OPT_PRIO, OPT_MAXATT };
	static const struct option longopts[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "repo", required_argument, NULL, OPT_REPO },
		{ "commit", required_argument, NULL, OPT_COMMIT },
		{ "needs", required_argument, NULL, OPT_NEEDS },
		{ "priority", required_argument, NULL, OPT_PRIO },
		{ "max-attempts", required_argument, NULL, OPT_MAXATT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, err;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":r:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (parse_ulong(optarg, 1, 100000, &o->repeat) != PARSE_OK)
				return usage_error("invalid repeat count '%s': expected 1 to 100000",
						   optarg);
			break;
		case 's':
			if ((err = cmd_take_set("submit", optarg, o->overrides, &o->nr_overrides,
						 MAX_OVERRIDES)))
				return err;
			break;
		case OPT_REPO:
			o->repo = optarg;
			break;
		case OPT_COMMIT:
			if (o->nr_commits == MAX_COMMITS)
				return usage_error("at most %d --commit", MAX_COMMITS);
			o->commits[o->nr_commits++] = optarg;
			break;
		case OPT_NEEDS:
			o->needs = optarg;
			break;
		case OPT_PRIO: {
			char *end;

			errno = 0;
			o->priority = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->priority < -1000000 ||
			    o->priority > 1000000)
				return usage_error("invalid priority '%s': expected an integer from"
						   " -1000000 to 1000000", optarg);
			break;
		}
		case OPT_MAXATT:
			if (parse_ulong(optarg, 1, 100, &o->max_attempts) != PARSE_OK)
				return usage_error("invalid --max-attempts '%s': expected 1 to 100",
						   optarg);
			break;
		case 'h':
			printf(submit_usage, DEFAULT_REPEAT, STORE_QUEUE_MAX_ATTEMPTS);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("no job file: perfbot submit JOB.yaml");
	o->job_path = argv[optind++];
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* The jobs checked as perfbot run checks them: 0 or an exit status. */
static int check_jobs(const struct submit_opts *o, const struct atomic_job *jobs, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		int ret = cmd_check_runnable_job(&jobs[i]);

		if (ret)
			return ret;
		if (jobs[i].kernel.present && jobs[i].kernel.boot == JOB_BOOT_KEXEC)
			return usage_error("%s: boot: kexec reboots the box it runs on: it is not"
					   " queued (run it on the box: perfbot run)", o->job_path);
		if ((jobs[i].kernel.present || jobs[i].build) && !o->repo)
			return usage_error("%s: %s needs --repo: the workers build the commit",
					   o->job_path, jobs[i].build ? "build:" : "a kernel: section");
	}
	return 0;
}

/* The commits as the workers get them: full shas with --repo, else labels. */
static int resolve_commits(const struct submit_opts *o, char **shas, char **repo_abs)
{
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	if (!o->repo)
		return 0;
	*repo_abs = realpath(o->repo, NULL);
	if (!*repo_abs)
		return usage_error("--repo '%s': %s", o->repo, strerror(errno));
	for (size_t i = 0; i < (o->nr_commits ? o->nr_commits : 1) && !ret; i++) {
		const char *rev = o->nr_commits ? o->commits[i] : "HEAD";

		if (git_resolve(o->repo, rev, &shas[i], &err))
			ret = usage_error("%s", err.buf);
	}
	strbuf_release(&err);
	return ret;
}

int cmd_submit(int argc, char **argv)
{
	struct submit_opts o = { 0 };
	struct atomic_job *jobs = NULL;
	struct job_error jerr = { 0 };
	struct store_needs needs = { 0 };
	struct store_queue_item *items = NULL;
	struct store *store = NULL;
	struct strbuf err = STRBUF_INIT;
	char *shas[MAX_COMMITS] = { 0 }, *repo_abs = NULL;
	int64_t *ids = NULL, batch = 0;
	size_t nr = 0, n_items = 0, n_commits;
	int ret = parse_args(argc, argv, &o);

	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (o.needs && needs_parse(o.needs, &needs, &err)) {
		ret = usage_error("%s", err.buf);
		goto out;
	}
	if (job_load(o.job_path, o.overrides, o.nr_overrides, &jobs, &nr, &jerr)) {
		cmd_print_job_error(&jerr);
		job_error_release(&jerr);
		ret = EXIT_USAGE;
		goto out;
	}
	if ((ret = check_jobs(&o, jobs, nr)) || (ret = resolve_commits(&o, shas, &repo_abs)))
		goto out;
	n_commits = o.nr_commits ? o.nr_commits : 1;
	for (size_t i = 0; i < nr; i++)
		n_items += (o.repeat ? o.repeat : jobs[i].repeat ? jobs[i].repeat : DEFAULT_REPEAT) *
			   n_commits;
	if (n_items > MAX_ITEMS) {
		ret = usage_error("%zu items: at most %d in one submit", n_items, MAX_ITEMS);
		goto out;
	}
	items = calloc(n_items, sizeof(*items));
	ids = calloc(n_items, sizeof(*ids));
	if (!items || !ids) {
		ret = cmd_failure("submit", "out of memory");
		goto out;
	}
	n_items = 0;
	/* commit by commit, then job, then repeat: a box's runs of a commit come together */
	for (size_t c = 0; c < n_commits; c++)
		for (size_t i = 0; i < nr; i++) {
			unsigned reps = o.repeat ? (unsigned)o.repeat
					: jobs[i].repeat ? jobs[i].repeat : DEFAULT_REPEAT;

			for (unsigned r = 0; r < reps; r++) {
				struct store_queue_item *it = &items[n_items++];

				/* borrowed: the items are not released, only the array */
				it->priority = (int)o.priority;
				it->job = jobs[i].name;
				it->testcase = jobs[i].testcase;
				it->job_text = jobs[i].text;
				it->repo = repo_abs;
				it->commit = repo_abs ? shas[c]
					     : o.nr_commits ? (char *)o.commits[c] : NULL;
				it->needs = (char *)(o.needs ? o.needs : "");
				it->parsed = needs;
				it->max_attempts = (int)o.max_attempts;
			}
		}
	if ((ret = cmd_store_open("submit", STORE_WRITE, &store)))
		goto out;
	if (store_queue_submit(store, items, n_items, &batch, ids)) {
		ret = cmd_failure("submit", "%s", store_error(store));
		goto out;
	}
	for (size_t i = 0; i < n_items; i++)
		printf("%" PRId64 "\n", ids[i]);
	fprintf(stderr, "perfbot: submit: %zu item%s queued (batch %" PRId64 "): %zu atomic"
		" job%s x %zu commit%s\n", n_items, n_items == 1 ? "" : "s", batch, nr,
		nr == 1 ? "" : "s", n_commits, n_commits == 1 ? "" : "s");
	ret = EXIT_OK;
out:
	store_close(store);
	free(items);
	free(ids);
	for (size_t c = 0; c < MAX_COMMITS; c++)
		free(shas[c]);
	free(repo_abs);
	store_needs_release(&needs);
	atomic_jobs_release(jobs, nr);
	strbuf_release(&err);
	return ret;
}
