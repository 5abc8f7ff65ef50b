/*
 * run.c - perfbot run: every atomic job of a job file, repeated, with its
 * monitors, into the result store.
 */
#define _GNU_SOURCE
#include "bench/bench.h"
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "job/job.h"
#include "record/record.h"
#include "run/runner.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "util/interrupt.h"
#include "util/parse.h"
#include "util/quote.h"
#include "util/timeutil.h"
#include "vcs/git.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAX_OVERRIDES 64
#define DEFAULT_REPEAT 3

static const char run_usage[] =
	"usage: perfbot run JOB.yaml [options]\n"
	"\n"
	"Run every atomic job of JOB.yaml REPEAT times with the system monitors\n"
	"around it, and store each run.\n"
	"\n"
	"  -r, --repeat N        runs of each atomic job (default: the job's\n"
	"                        repeat:, else %d)\n"
	"  -s KEY=VALUE          override or narrow a job parameter; repeatable\n"
	"      --commit REV      the commit to record: a label without --repo (default:\n"
	"                        the running kernel's release, as LKP labels local\n"
	"                        runs); with --repo, a revision of that repository\n"
	"                        (default HEAD), checked out in a git worktree where\n"
	"                        the job's build: runs and exec: commands find it as\n"
	"                        $PERFBOT_SRC\n"
	"      --repo DIR        the git repository of the commit\n"
	CMD_DB_USAGE
	"      --no-monitors     run the benchmarks alone\n"
	"      --dry-run         print what would run; run and store nothing\n"
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: 0 every run complete (or unsupported here, and not all),\n"
	"1 a run failed (it is stored as failed and the next one goes on) or the\n"
	"store failed, 2 bad usage or a bad job file, 77 every run was\n"
	"unsupported here (stored as unsupported, with the reason; not a\n"
	"failure), 128+signal when interrupted (the partial run is stored as\n"
	"incomplete).\n";

struct run_opts {
	const char *job_path;
	unsigned long repeat;
	const char *commit, *repo;
	bool monitors, dry_run;
	char *overrides[MAX_OVERRIDES];
	size_t nr_overrides;
};

#define usage_error(...) cmd_usage_error("run", __VA_ARGS__)

static int parse_args(int argc, char **argv, struct run_opts *o)
{
	enum { OPT_COMMIT = 256, OPT_REPO, OPT_NO_MON, OPT_DRY };
	static const struct option longopts[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "commit", required_argument, NULL, OPT_COMMIT },
		{ "repo", required_argument, NULL, OPT_REPO },
		{ "no-monitors", no_argument, NULL, OPT_NO_MON },
		{ "dry-run", no_argument, NULL, OPT_DRY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":r:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (parse_ulong(optarg, 1, 1000000, &o->repeat) != PARSE_OK)
				return usage_error("invalid repeat count '%s': expected 1 or more",
						   optarg);
			break;
		case 's':
			if (!strchr(optarg, '='))
				return usage_error("-s '%s': expected KEY=VALUE", optarg);
			if (o->nr_overrides == MAX_OVERRIDES)
				return usage_error("at most %d -s", MAX_OVERRIDES);
			o->overrides[o->nr_overrides++] = optarg;
			break;
		case OPT_COMMIT:
			o->commit = optarg;
			break;
		case OPT_REPO:
			o->repo = optarg;
			break;
		case OPT_NO_MON:
			o->monitors = false;
			break;
		case OPT_DRY:
			o->dry_run = true;
			break;
		case 'h':
			printf(run_usage, DEFAULT_REPEAT);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("no job file: perfbot run JOB.yaml");
	o->job_path = argv[optind++];
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

static unsigned repeat_of(const struct run_opts *o, const struct atomic_job *j)
{
	if (o->repeat)
		return (unsigned)o->repeat;
	return j->repeat ? j->repeat : DEFAULT_REPEAT;
}

static bool needs_worktree(const struct atomic_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (jobs[i].build || jobs[i].exec.argv)
			return true;
	return false;
}

/* The first build: command of the jobs (one checkout serves them all). */
static char **build_of(const struct atomic_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (jobs[i].build)
			return jobs[i].build;
	return NULL;
}

static void format_left(double secs, char *buf, size_t len)
{
	if (secs >= 3600)
		snprintf(buf, len, "%.0fh%02.0fm", secs / 3600, fmod(secs, 3600) / 60);
	else if (secs >= 60)
		snprintf(buf, len, "%.0fm%02.0fs", floor(secs / 60), fmod(secs, 60));
	else
		snprintf(buf, len, "%.0fs", secs);
}

static double estimate_run_s(const struct atomic_job *j)
{
	/* measurement plus the warm-up and start-up a run adds */
	double rt = j->runtime_s > 0 ? j->runtime_s : BENCH_DEFAULT_RUNTIME_S;

	return rt * 1.5 + 0.5;
}

static void print_plan(const struct run_opts *o, const struct atomic_job *jobs,
		       size_t n, const char *commit, const char *db)
{
	double total = 0;
	char left[32];

	printf("would run %zu atomic job%s of %s at commit %s into %s:\n", n,
	       n == 1 ? "" : "s", o->job_path, commit, db);
	for (size_t i = 0; i < n; i++) {
		unsigned r = repeat_of(o, &jobs[i]);

		total += r * estimate_run_s(&jobs[i]);
		printf("  %s  x%u%s\n", jobs[i].name, r,
		       o->monitors ? "" : "  (no monitors)");
	}
	format_left(total, left, sizeof(left));
	printf("about %s\n", left);
}

static void print_run(int64_t id, const struct run_record *r)
{
	const char *kpi = run_record_kpi(r);
	const double *v = kpi ? statmap_get(&r->stats, kpi) : NULL;
	const char *why = strmap_get(&r->env, "last_state.reason");

	if (r->status == RUN_UNSUPPORTED) {
		printf("run %" PRId64 ": %s unsupported here: %s\n", id, r->job,
		       why ? why : "?");
		fflush(stdout);
		return;
	}
	printf("run %" PRId64 ": %s %s", id, r->job, run_status_name(r->status));
	if (v)
		printf("  %s %.6g", kpi, *v);
	if (r->status != RUN_COMPLETE && why)
		printf("  (%s)", why);
	putchar('\n');
	fflush(stdout);
}

/* The local commit label: the running kernel's release (65 bytes at most). */
static int kernel_release(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		return -errno;
	snprintf(buf, len, "%s", u.release);
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { .monitors = true };
	struct atomic_job *jobs = NULL;
	struct job_error jerr = { 0 };
	struct store *store = NULL;
	const char *db;
	char *sha = NULL, *worktree = NULL, *cache = NULL;
	struct strbuf err = STRBUF_INIT;
	char label[256];
	size_t nr = 0, total_runs = 0, done = 0, unsupported = 0;
	bool any_failed = false;
	double t0;
	/* recorded as given: --commit is the user's label, of any length */
	const char *commit;
	int ret = parse_args(argc, argv, &o);

	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (job_load(o.job_path, o.overrides, o.nr_overrides, &jobs, &nr, &jerr)) {
		cmd_print_job_error(&jerr);
		job_error_release(&jerr);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < nr; i++) {
		const char *why = name_problem(jobs[i].testcase);

		/* the store would refuse it after the run (store.h): say so first */
		if (why) {
			char *q = quote_c(jobs[i].testcase, true);

			fprintf(stderr, "perfbot: %s: testcase %s %s\n", jobs[i].file,
				q ? q : "?", why);
			free(q);
			ret = EXIT_USAGE;
			goto out;
		}
		if (runner_check_job(&jobs[i], &jerr)) {
			cmd_print_job_error(&jerr);
			job_error_release(&jerr);
			ret = EXIT_USAGE;
			goto out;
		}
		total_runs += repeat_of(&o, &jobs[i]);
	}

	if (o.repo) {
		if (git_resolve(o.repo, o.commit ? o.commit : "HEAD", &sha, &err)) {
			fprintf(stderr, "perfbot: run: %s\n", err.buf);
			ret = EXIT_USAGE;
			goto out;
		}
		commit = sha;
	} else if (o.commit) {
		commit = o.commit;
	} else {
		commit = kernel_release(label, sizeof(label)) ? "local" : label;
	}
	db = cmd_store_location("run");
	if (!db) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (o.dry_run) {
		print_plan(&o, jobs, nr, commit, db);
		ret = EXIT_OK;
		goto out;
	}
	ret = cmd_lifetime_start("run");
	if (ret)
		goto out;
	if (o.repo && git_worktree_prune_own(o.repo) < 0)
		fprintf(stderr, "perfbot: run: warning: cannot look for perfbot's stale worktrees in %s\n",
			o.repo);
	ret = cmd_store_open("run", STORE_WRITE, &store);
	if (ret)
		goto out;
	interrupt_install();
	if (o.repo && needs_worktree(jobs, nr)) {
		int e = make_temp_dir(NULL, "perfbot-worktrees", &cache);

		if (e || git_checkout_built(o.repo, sha, build_of(jobs, nr), cache,
					    runner_timeout(&jobs[0]), &interrupted,
					    &worktree, &err)) {
			fprintf(stderr, "perfbot: run: %s\n",
				e ? strerror(-e) : err.buf);
			ret = interrupted ? 128 + interrupted : EXIT_FAILED;
			goto out;
		}
	}

	t0 = mono_now();
	for (size_t i = 0; i < nr && !interrupted; i++) {
		unsigned reps = repeat_of(&o, &jobs[i]);

		for (unsigned r = 1; r <= reps && !interrupted; r++) {
			struct runner_opts ro = {
				.commit = commit, .src_dir = worktree,
				.monitors = o.monitors, .stop = &interrupted,
			};
			struct run_record rec;
			int64_t id = 0;
			char left[32];
			double per_run = done ? (mono_now() - t0) / (double)done
					      : estimate_run_s(&jobs[i]);

			format_left(per_run * (double)(total_runs - done), left,
				    sizeof(left));
			fprintf(stderr, "[%zu/%zu] %s: repeat %u/%u, about %s left\n",
				i + 1, nr, jobs[i].name, r, reps, left);
			if (runner_run(&jobs[i], &ro, &rec, &err)) {
				fprintf(stderr, "perfbot: run: %s: %s\n", jobs[i].name,
					err.buf);
				any_failed = true;
				done++;
				continue;
			}
			if (store_put_run(store, &rec, &id)) {
				fprintf(stderr, "perfbot: run: cannot store the run: %s\n",
					store_error(store));
				run_record_release(&rec);
				ret = EXIT_FAILED;
				goto out;
			}
			print_run(id, &rec);
			any_failed |= rec.status == RUN_FAILED;
			unsupported += rec.status == RUN_UNSUPPORTED;
			run_record_release(&rec);
			done++;
		}
	}
	/* a run that cannot run here is no failure; only all of them is news */
	if (interrupted)
		ret = 128 + interrupted;
	else if (any_failed)
		ret = EXIT_FAILED;
	else
		ret = done && unsupported == done ? EXIT_UNSUPPORTED : EXIT_OK;
out:
	if (worktree) {
		git_worktree_remove(o.repo, worktree);
		free(worktree);
	}
	if (cache) {
		remove_tree(cache);
		free(cache);
	}
	if (store)
		store_close(store);
	free(sha);
	atomic_jobs_release(jobs, nr);
	strbuf_release(&err);
	return ret;
}
