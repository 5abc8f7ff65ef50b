/*
 * bisect.c - perfbot bisect: find the commit that changed a metric, on
 * noisy numbers, and keep the evidence (docs/design.md §8, docs/bisect.md).
 *
 * start/resume drive a stored bisection with vcs/bisect_session.h; status,
 * log and reset read or mark it; run-step is the exit-code helper for
 * `git bisect run`.
 */
#define _GNU_SOURCE
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "job/job.h"
#include "record/bisect_result.h"
#include "run/runner.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "util/interrupt.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/parse.h"
#include "util/words.h"
#include "vcs/bisect_session.h"
#include "vcs/git.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define usage_error(...) cmd_usage_error("bisect", __VA_ARGS__)
#define failure(...) cmd_failure("bisect", __VA_ARGS__)

#define DEFAULT_CONFIDENCE 0.99
#define DEFAULT_MAX_RUNS 200

/* git bisect run: 125 skips the commit, 128 and above abort the bisection */
#define STEP_SKIP 125
#define STEP_ABORT 128

static const char bisect_usage[] =
	"usage: perfbot bisect start --repo DIR --good G --bad B [--metric STAT]\n"
	"                            [-s KEY=VALUE ...] [--build CMD] [--confidence P]\n"
	"                            [--max-runs N] [--on TESTBOX] [--db PATH] JOB.yaml\n"
	"       perfbot bisect status [ID] [--json] [--db PATH]\n"
	"       perfbot bisect log [ID] [--db PATH]\n"
	"       perfbot bisect resume [ID] [--db PATH]\n"
	"       perfbot bisect reset [ID] [--db PATH]\n"
	"       perfbot bisect run-step --baseline-good G --baseline-bad B [--repo DIR]\n"
	"                            [--metric STAT] [-s KEY=VALUE ...] [--build CMD]\n"
	"                            [--confidence P] [--db PATH] JOB.yaml\n"
	"\n"
	"Find the first commit of G..B (first parents; a merge found guilty is\n"
	"bisected again inside its branch) at which the job's metric looks like\n"
	"B's, on noisy numbers: G and B are measured until their difference is a\n"
	"real change; every run of every commit then updates the probability of\n"
	"each commit being the first bad one; the next commit measured is the one\n"
	"whose P(bad) is closest to 1/2; the search stops when one commit holds\n"
	"the confidence.  The culprit and the commit before it then get 5 runs\n"
	"each, judged as perfbot compare judges a KPI.  Each commit is built in\n"
	"its own git worktree; one that does not build is skipped.  All runs and\n"
	"the state are in the store: an interrupted bisection resumes where it\n"
	"stopped, measuring nothing twice.\n"
	"\n"
	"      --repo DIR        the git repository\n"
	"      --good G, --bad B revisions: G before the change, B after it\n"
	"      --metric STAT     the stat to bisect on (default: the job's KPI)\n"
	"  -s, --set KEY=VALUE   narrow the job to one atomic job (repeatable)\n"
	"      --build CMD       build command, run in each worktree (default: the\n"
	"                        job's build:); split as a shell would, no shell runs\n"
	"      --confidence P    stop when one commit is first bad with this\n"
	"                        probability (default 0.99)\n"
	"      --max-runs N      the bisection's budget: it makes at most N runs in\n"
	"                        all (default 200); it judges its own runs only\n"
	"      --on TESTBOX      start: every run queued for that box's worker (or\n"
	"                        any box of that class) and waited for, one at a\n"
	"                        time (a PostgreSQL store: docs/fleet.md); resume\n"
	"                        goes on there\n"
	CMD_DB_USAGE
	"      --json            status: the result document (docs/bisect.md)\n"
	"\n"
	"ID defaults to the latest bisection.  Exit status of start and resume:\n"
	"0 a culprit named and confirmed against its parent (or a range), 1 no\n"
	"reproducible change, undecided or failed, 2 bad usage, 3 a culprit named\n"
	"that its confirmation did not show (a suspect), 128 + N interrupted by\n"
	"signal N.  run-step exits 0 (good), 1 (bad), 125 (skip: cannot tell or\n"
	"cannot build) or 128 and above (abort).\n";

struct bisect_args {
	const char *repo, *good, *bad, *metric, *build, *job_path;
	const char *on;			/* --on TESTBOX: the fleet's box */
	char **sets;
	size_t nr_sets;
	double confidence;
	unsigned long max_runs;
	bool json;
	int64_t id;			/* 0: the latest */
};

/* ---- arguments ---- */

static int parse_id(const char *arg, int64_t *id)
{
	unsigned long v;

	if (parse_ulong(arg, 1, INT64_MAX, &v) != PARSE_OK)
		return usage_error("invalid bisection id '%s': expected a positive number", arg);
	*id = (int64_t)v;
	return 0;
}

/*
 * Every subcommand's options; which are allowed is the caller's check.
 * Positional arguments land in *rest.
 */
static int parse_args(int argc, char **argv, struct bisect_args *a,
		      char ***rest, int *nrest)
{
	enum { OPT_REPO = 256, OPT_GOOD, OPT_BAD, OPT_METRIC, OPT_BUILD, OPT_CONF,
	       OPT_MAX, OPT_JSON, OPT_ON };
	static const struct option longopts[] = {
		{ "repo", required_argument, NULL, OPT_REPO },
		{ "good", required_argument, NULL, OPT_GOOD },
		{ "baseline-good", required_argument, NULL, OPT_GOOD },
		{ "bad", required_argument, NULL, OPT_BAD },
		{ "baseline-bad", required_argument, NULL, OPT_BAD },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "build", required_argument, NULL, OPT_BUILD },
		{ "confidence", required_argument, NULL, OPT_CONF },
		{ "max-runs", required_argument, NULL, OPT_MAX },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "on", required_argument, NULL, OPT_ON },
		{ "set", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, err;

	a->confidence = DEFAULT_CONFIDENCE;
	a->max_runs = DEFAULT_MAX_RUNS;
	a->sets = calloc(argc + 1, sizeof(*a->sets));
	if (!a->sets)
		return failure("out of memory");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hs:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_REPO:
			a->repo = optarg;
			break;
		case OPT_GOOD:
			a->good = optarg;
			break;
		case OPT_BAD:
			a->bad = optarg;
			break;
		case OPT_METRIC:
			if (!*optarg)
				return usage_error("--metric needs a stat name");
			a->metric = optarg;
			break;
		case OPT_BUILD: {
			char **words = NULL;
			int n = split_words(optarg, &words);

			free_words(words);
			if (n <= 0)
				return usage_error("invalid --build '%s': %s", optarg,
						   n ? "unbalanced quotes" : "empty command");
			a->build = optarg;
			break;
		}
		case OPT_CONF:
			if (parse_double(optarg, &a->confidence) != PARSE_OK ||
			    !(a->confidence > 0.5 && a->confidence < 1))
				return usage_error("invalid --confidence '%s': expected a probability above 0.5 and below 1",
						   optarg);
			break;
		case OPT_MAX:
			if (parse_ulong(optarg, 1, 1000000, &a->max_runs) != PARSE_OK)
				return usage_error("invalid --max-runs '%s': expected a number of runs from 1 to 1000000",
						   optarg);
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_ON:
			if (!*optarg)
				return usage_error("--on needs a test box's or a class's name (perfbot"
						   " queue boxes)");
			a->on = optarg;
			break;
		case 's':
			if ((err = cmd_take_set("bisect", optarg, a->sets, &a->nr_sets,
						 (size_t)argc)))
				return err;
			break;
		case 'h':
			fputs(bisect_usage, stdout);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	*rest = argv + optind;
	*nrest = argc - optind;
	return 0;
}

/* status, log, resume, reset take no bisection options: refused, by name. */
static int refuse(const char *sub, const struct bisect_args *a, bool json)
{
	if (a->repo || a->good || a->bad || a->metric || a->build || a->nr_sets || a->on ||
	    a->confidence != DEFAULT_CONFIDENCE || a->max_runs != DEFAULT_MAX_RUNS)
		return usage_error("%s takes only [ID]%s and --db", sub,
				   json ? ", --json" : "");
	if (!json && a->json)
		return usage_error("%s does not take --json", sub);
	return 0;
}

/* ---- output ---- */

static bool stderr_tty;

static void hook_progress(void *ctx, const char *line)
{
	(void)ctx;
	/* a line quotes commit subjects: git's bytes, escaped (util/quote.h) */
	if (stderr_tty)
		fputs("\r\033[K", stderr);
	quote_line_fputs(line, stderr);
	if (!stderr_tty)
		fputc('\n', stderr);
}

static void hook_note(void *ctx, const char *line)
{
	int64_t id = *(const int64_t *)ctx;

	if (stderr_tty)
		fputs("\r\033[K", stderr);
	if (id)
		fprintf(stderr, "bisect %" PRId64 ": ", id);
	else
		fputs("bisect: ", stderr);
	quote_line_fputs(line, stderr);
	fputc('\n', stderr);
}

/* A count or a number the result may not know, for %.0f: "nan" then. */
static double known_count(long n)
{
	return n == BISECT_UNKNOWN ? NAN : (double)n;
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

/*
 * The culprit against its parent; false when that did not show the change
 * (or was not measured): the culprit is a suspect, and says so.
 */
static bool print_evidence(const struct bisect_level *lv, const char *metric)
{
	const struct bisect_confirmation *c = &lv->confirmation;
	bool confirmed = bisect_level_confirmed(lv);

	if (!c->present) {
		printf("not confirmed against its parent: a suspect, not shown to be the cause\n");
		return false;
	}
	printf("%s: %s %+.2f%% [%+.2f%%, %+.2f%%], p = %.2g: %s, on %.0f runs of the"
	       " commit before and %.0f of the culprit\n", confirmed ? "confirmed" : "not confirmed",
	       metric, c->change.pct, c->change.low, c->change.high, c->change.p,
	       str_or_empty(c->change.verdict), known_count(c->parent.n),
	       known_count(c->culprit.n));
	if (c->disturbed)
		printf("the two were disturbed differently (%s): no verdict\n", c->disturbed);
	if (!confirmed)
		printf("the culprit against its parent did not show the change: a suspect,"
		       " not shown to be the cause\n");
	return confirmed;
}

static void print_culprit(const struct bisect_level *lv)
{
	const struct bisect_commit *c = &lv->culprit.commit;

	if (lv->range.present) {
		printf("first bad commit is one of:\n");
		for (size_t i = 0; i < lv->range.n; i++) {
			const struct bisect_entry *e = &lv->range.v[i];

			printf("  %s %s%s\n", e->commit.sha, str_or_empty(e->commit.subject),
			       e->skipped > 0 ? " (skipped: build failed)" : "");
		}
		return;
	}
	printf("first bad commit: %s %s\n", str_or_empty(c->sha), str_or_empty(c->subject));
	printf("author: %s\ndate: %s\n", str_or_empty(c->author), str_or_empty(c->date));
}

/* What start, resume and a finished status print; the exit status. */
static int print_quoted(const struct bisect_result *r)
{
	const struct bisect_level *top = &r->level, *lead = top;
	const struct bisect_level *inner = top->merge ? top->merge->inner : NULL;
	const struct bisect_baseline *base = &top->baseline;
	const char *metric = str_or_empty(r->metric);
	bool confirmed;

	switch (top->status) {
	case BISECT_STATUS_NO_CHANGE:
		printf("no reproducible change between %.12s and %.12s: %s %+.2f%%, p = %.2g"
		       " (%s) after %.0f + %.0f runs\n", top->good.commit.sha,
		       top->bad.commit.sha, metric, base->change.pct, base->change.p,
		       str_or_empty(base->change.verdict), known_count(base->good.n),
		       known_count(base->bad.n));
		return EXIT_FAILED;
	case BISECT_STATUS_UNDECIDED:
		printf("undecided after %.0f runs on the candidates; the most probable first bad commits:\n",
		       known_count(top->runs_search));
		for (size_t i = 0; i < top->best.n; i++)
			printf("  %s %5.1f%%  %s\n", top->best.v[i].commit.sha,
			       100 * top->best.v[i].probability,
			       str_or_empty(top->best.v[i].commit.subject));
		return EXIT_FAILED;
	case BISECT_STATUS_FOUND:
	case BISECT_STATUS_RANGE:
		break;
	default:
		printf("bisection %s%s%s\n", bisect_status_name(top->status),
		       top->message ? ": " : "", str_or_empty(top->message));
		return EXIT_FAILED;
	}
	/* a merge whose branch holds the change: the commit inside leads */
	if (inner && (inner->status == BISECT_STATUS_FOUND ||
		      inner->status == BISECT_STATUS_RANGE))
		lead = inner;
	print_culprit(lead);
	if (top->merge) {
		printf("merged by: %s %s\n", top->merge->commit.sha,
		       str_or_empty(top->merge->commit.subject));
		if (lead == top)
			printf("the merged branch alone shows no change: the merge itself does\n");
	}
	printf("probability %.1f%% (stops at %.0f%%)\n", 100 * lead->culprit.probability,
	       100 * top->confidence);
	/* a range has no one culprit to set against its parent */
	confirmed = lead->range.present || print_evidence(lead, metric);
	printf("spent %.0f runs and %.0f builds (%.0f failed)\n", known_count(top->runs),
	       known_count(top->builds), known_count(top->build_failures));
	return confirmed ? EXIT_OK : EXIT_SUSPECT;
}

/* What the result quotes (subjects, names) is printed escaped. */
static int print_result(const struct bisect_result *r)
{
	struct bisect_result q;
	int ret;

	if (bisect_result_quoted(r, &q))
		return failure("out of memory");
	ret = print_quoted(&q);
	bisect_result_release(&q);
	return ret;
}

/* ---- start and resume ---- */

/* A SIGKILLed perfbot's worktrees leave the user's repository (git.h). */
static void prune_own_worktrees(const char *repo)
{
	if (repo && git_worktree_prune_own(repo) < 0)
		fprintf(stderr, "perfbot: bisect: warning: cannot look for perfbot's stale worktrees in %s\n",
			repo);
}

/* A bisection that failed: stored as such, with why. */
static int store_failure(struct store *s, int64_t id, const char *why)
{
	struct bisect_result f;
	char err[256], *text = NULL;

	bisect_result_init(&f);
	f.id = id;
	f.level.status = BISECT_STATUS_FAILED;
	f.level.message = strdup(why);
	/* failed, not lost: resume tries again from the stored runs */
	if (f.level.message)
		bisect_result_to_json(&f, BISECT_JSON_COMPACT, &text, err, sizeof(err));
	store_bisect_update(s, id, "failed", text);
	store_bisect_log_add(s, id, why);
	free(text);
	bisect_result_release(&f);
	return failure("%s", why);
}

/*
 * boot: kexec: each run is a reboot.  The boot runs the job from a file
 * of its own (the atomic job's text, in the kexec directory) and, back in
 * the default kernel, `perfbot bisect resume ID --db DB`, which finds the
 * run in the store and arranges the next boot, until the bisection ends.
 */
struct bisect_kexec {
	struct cmd_kexec k;
	struct commit_runner_kexec ctx;
	char *job_file, *id;
	char *continuation[7];
	char host[256];
};

static int kexec_prepare(struct bisect_kexec *bk, int64_t id, const struct atomic_job *job)
{
	int ret = cmd_kexec_setup("bisect", &bk->k);

	if (ret)
		return ret;
	if (asprintf(&bk->job_file, "%s/bisect-%" PRId64 ".yaml", bk->k.c.kexec_dir, id) < 0 ||
	    asprintf(&bk->id, "%" PRId64, id) < 0)
		return failure("out of memory");
	ret = make_dirs(bk->k.c.kexec_dir);
	if (!ret)
		ret = write_file_atomic(bk->job_file, NULL, job->text, strlen(job->text), false);
	if (ret)
		return failure("%s: %s", bk->job_file, strerror(-ret));
	if (gethostname(bk->host, sizeof(bk->host)))
		snprintf(bk->host, sizeof(bk->host), "unknown");
	bk->host[sizeof(bk->host) - 1] = '\0';
	bk->continuation[0] = bk->k.perfbot;
	bk->continuation[1] = "bisect";
	bk->continuation[2] = "resume";
	bk->continuation[3] = bk->id;
	bk->continuation[4] = "--db";
	bk->continuation[5] = bk->k.db;
	bk->continuation[6] = NULL;
	bk->ctx = (struct commit_runner_kexec){
		.cmds = &bk->k.c, .testbox = bk->host, .job_file = bk->job_file,
		.continuation = bk->continuation,
	};
	return 0;
}

static void kexec_done(struct bisect_kexec *bk, bool ended)
{
	if (ended && bk->job_file)
		unlink(bk->job_file);
	free(bk->job_file);
	free(bk->id);
	if (bk->k.perfbot)
		cmd_kexec_release(&bk->k);
}

/* on: the fleet's box that makes the runs (the spec's testbox); NULL: here */
static int run_session(struct store *s, int64_t id, const struct bisect_spec *spec,
		       const struct atomic_job *job, const char *on)
{
	struct commit_runner_fleet fleet = { .s = s, .testbox = on };
	struct bisect_hooks hooks = {
		.progress = hook_progress, .note = hook_note, .ctx = &id,
		.fleet = on ? &fleet : NULL,
	};
	struct bisect_kexec bk = { 0 };
	struct bisect_result result;
	struct strbuf err = STRBUF_INIT;
	int ret;

	if (job->kernel.present && job->kernel.boot == JOB_BOOT_KEXEC) {
		ret = kexec_prepare(&bk, id, job);
		if (ret) {
			kexec_done(&bk, false);
			return ret;
		}
		bk.ctx.s = s;
		hooks.kexec = &bk.ctx;
	}
	stderr_tty = isatty(STDERR_FILENO);
	interrupt_install();
	ret = bisect_session_run(s, id, spec, job, &hooks, &result, &err);
	if (stderr_tty)
		fputs("\r\033[K", stderr);
	kexec_done(&bk, ret != -EINPROGRESS && ret != -EINTR);
	if (ret == -EINPROGRESS) {
		fprintf(stderr, "perfbot: bisect: %" PRId64 ": %s; the bisection goes on after the"
			" boot (perfbot kexec status)\n", id, err.buf);
		ret = EXIT_OK;
	} else if (ret == -EINTR) {
		fprintf(stderr, "perfbot: bisect: %" PRId64 " interrupted; 'perfbot bisect resume %"
			PRId64 "' goes on from here\n", id, id);
		ret = 128 + (interrupted ? interrupted : SIGINT);
	} else if (ret) {
		ret = store_failure(s, id, err.buf);
	} else {
		ret = print_result(&result);
		bisect_result_release(&result);
	}
	strbuf_release(&err);
	return ret;
}

/* The one atomic job of a job file and its -s narrowing; exit status or 0. */
static int load_one_job(const char *path, char **sets, size_t nr_sets,
			struct atomic_job **job)
{
	struct job_error jerr = { 0 };
	struct atomic_job *jobs = NULL;
	size_t nr = 0;

	if (job_load(path, sets, nr_sets, &jobs, &nr, &jerr)) {
		cmd_print_job_error(&jerr);
		job_error_release(&jerr);
		return EXIT_USAGE;
	}
	if (nr != 1) {
		fprintf(stderr, "perfbot: bisect: %s has %zu atomic jobs (%s, %s%s): narrow it to one with -s KEY=VALUE\n",
			path, nr, jobs[0].name, jobs[1].name, nr > 2 ? ", ..." : "");
		atomic_jobs_release(jobs, nr);
		return EXIT_USAGE;
	}
	if (runner_check_job(&jobs[0], &jerr)) {
		cmd_print_job_error(&jerr);
		job_error_release(&jerr);
		atomic_jobs_release(jobs, nr);
		return EXIT_USAGE;
	}
	*job = jobs;
	return 0;
}

/* A stored spec's job: its text, loaded back through a private file. */
static int load_spec_job(const struct bisect_spec *spec, struct atomic_job **job)
{
	struct strbuf path = STRBUF_INIT;
	char *dir = NULL;
	FILE *f = NULL;
	int ret = make_temp_dir(NULL, "perfbot-bisect-job", &dir);

	if (ret)
		return failure("cannot make a temporary directory: %s", strerror(-ret));
	/* $TMPDIR is the user's: the path is whole or not made at all */
	strbuf_addf(&path, "%s/job.yaml", dir);
	if (strbuf_error(&path))
		ret = failure("out of memory");
	else if (!(f = fopen(path.buf, "w")) || fputs(spec->job_text, f) == EOF) {
		ret = failure("cannot write %s: %s", path.buf, strerror(errno));
		if (f)
			fclose(f);
	} else if (fclose(f)) {
		ret = failure("cannot write %s: %s", path.buf, strerror(errno));
	} else {
		ret = load_one_job(path.buf, NULL, 0, job);
	}
	remove_tree(dir);
	free(dir);
	strbuf_release(&path);
	return ret;
}

/* rev of repo to a full sha; exit status or 0.  `what`: the option, for messages. */
static int resolve(const char *repo, const char *rev, const char *what, char **sha,
		   int usage_status)
{
	struct strbuf err = STRBUF_INIT;
	int ret = git_resolve(repo, rev, sha, &err);

	if (ret)
		fprintf(stderr, "perfbot: bisect: %s: %s\n", what, err.buf);
	strbuf_release(&err);
	if (!ret)
		return 0;
	return ret == -ENOENT || ret == -EINVAL ? usage_status : EXIT_FAILED;
}

/*
 * The spec of a new bisection from the command line, checked before
 * anything is stored; exit status or 0.  *job is the atomic job.
 */
static int make_spec(const struct bisect_args *a, int usage_status,
		     struct bisect_spec *spec, struct atomic_job **job)
{
	char real[PATH_MAX], host[256];
	int ret;

	memset(spec, 0, sizeof(*spec));
	if (!realpath(a->repo ? a->repo : ".", real)) {
		fprintf(stderr, "perfbot: bisect: --repo '%s': %s\n", a->repo ? a->repo : ".",
			strerror(errno));
		return usage_status;
	}
	spec->repo = strdup(real);
	if (!spec->repo)
		return failure("out of memory");
	ret = resolve(spec->repo, a->good, "--good", &spec->good, usage_status);
	if (!ret)
		ret = resolve(spec->repo, a->bad, "--bad", &spec->bad, usage_status);
	if (ret)
		return ret;
	if (!strcmp(spec->good, spec->bad)) {
		fprintf(stderr, "perfbot: bisect: --good and --bad are the same commit %.12s\n",
			spec->good);
		return usage_status;
	}
	if (git_cmd(spec->repo, NULL, NULL, "merge-base", "--is-ancestor",
		    spec->good, spec->bad, NULL)) {
		fprintf(stderr, "perfbot: bisect: --good %s is not an ancestor of --bad %s\n",
			a->good, a->bad);
		return usage_status;
	}
	ret = load_one_job(a->job_path, a->sets, a->nr_sets, job);
	if (ret)
		return ret == EXIT_USAGE ? usage_status : ret;
	{
		struct strbuf why = STRBUF_INIT;

		ret = cmd_kernel_jobs_fit(spec->repo, a->bad, spec->bad, *job, 1, true, &why);
		if (ret)
			fprintf(stderr, "perfbot: bisect: %s\n", why.buf);
		strbuf_release(&why);
		if (ret)
			return ret == -EINVAL ? usage_status : EXIT_FAILED;
	}
	if (a->on && a->build) {
		fprintf(stderr, "perfbot: bisect: --build with --on: the worker builds with the"
			" job's build: (put the command there)\n");
		return usage_status;
	}
	if (a->on && (*job)->kernel.present && (*job)->kernel.boot == JOB_BOOT_KEXEC) {
		fprintf(stderr, "perfbot: bisect: %s: boot: kexec reboots the box it runs on: not"
			" with --on (run the bisection there)\n", (*job)->name);
		return usage_status;
	}
	if (!a->build && !(*job)->build && !(*job)->exec.argv && !(*job)->kernel.present) {
		fprintf(stderr, "perfbot: bisect: %s: nothing in the job depends on the commit: give --build CMD or a job with build: or exec:\n",
			a->job_path);
		return usage_status;
	}
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	spec->good_given = strdup(a->good);
	spec->bad_given = strdup(a->bad);
	spec->metric = a->metric ? strdup(a->metric) : NULL;
	spec->job_path = realpath(a->job_path, NULL);
	spec->job_text = strdup((*job)->text);
	spec->build = a->build ? strdup(a->build) : NULL;
	/* on the fleet, the runs are the box's, and only its runs are compared */
	spec->testbox = strdup(a->on ? a->on : host);
	spec->confidence = a->confidence;
	spec->max_runs = (unsigned)a->max_runs;
	if (!spec->good_given || !spec->bad_given || (a->metric && !spec->metric) ||
	    !spec->job_path || !spec->job_text || (a->build && !spec->build) ||
	    !spec->testbox)
		return failure("out of memory");
	return 0;
}

static int cmd_start(struct bisect_args *a, char **rest, int nrest)
{
	struct bisect_spec spec = { 0 };
	struct atomic_job *job = NULL;
	struct store *s = NULL;
	char *text = NULL;
	int64_t id = 0;
	int ret;

	if (!a->repo)
		return usage_error("start needs --repo DIR");
	if (!a->good)
		return usage_error("start needs --good G (a commit before the change)");
	if (!a->bad)
		return usage_error("start needs --bad B (a commit after the change)");
	if (!nrest)
		return usage_error("start needs a job file");
	if (nrest > 1)
		return usage_error("start takes one job file, not %d arguments", nrest);
	if (a->json)
		return usage_error("start does not take --json");
	a->job_path = rest[0];
	ret = make_spec(a, EXIT_USAGE, &spec, &job);
	if (ret)
		goto out;
	prune_own_worktrees(spec.repo);
	ret = cmd_store_open("bisect", STORE_WRITE, &s);
	if (ret)
		goto out;
	if (a->on) {
		struct strbuf why = STRBUF_INIT;
		char *selector = NULL;
		int err;

		/*
		 * Refused before anything is stored: a SQLite store, a box or
		 * class unknown.  A class's spec keeps "class:NAME": its
		 * verdicts read the class's runs, resume finds the class.
		 */
		err = commit_runner_fleet_resolve(&(struct commit_runner_fleet){ .s = s,
						  .testbox = a->on }, &selector, &why);
		if (err) {
			ret = err == -ESRCH ? usage_error("%s", why.buf) : failure("%s", why.buf);
		} else {
			free(spec.testbox);
			spec.testbox = selector;
		}
		strbuf_release(&why);
		if (ret)
			goto out;
	}
	if (bisect_spec_to_json(&spec, &text)) {
		ret = failure("out of memory");
		goto out;
	}
	if (store_bisect_add(s, "running", text, &id)) {
		ret = failure("%s", store_error(s));
		goto out;
	}
	printf("bisect %" PRId64 ": %s..%s of %s, %s\n", id, a->good, a->bad, spec.repo,
	       job->name);
	fflush(stdout);
	store_bisect_log_add(s, id, "start");
	ret = run_session(s, id, &spec, job, a->on ? spec.testbox : NULL);
out:
	if (job)
		atomic_jobs_release(job, 1);
	bisect_spec_release(&spec);
	store_close(s);
	free(text);
	return ret;
}

/* The bisection asked for (rest[0], else the latest); exit status or 0. */
static int find_bisection(struct store *s, char **rest, int nrest,
			  struct store_bisect *b)
{
	int64_t id = 0;
	int ret;

	if (nrest > 1)
		return usage_error("one bisection id at most, not %d arguments", nrest);
	if (nrest && (ret = parse_id(rest[0], &id)))
		return ret;
	ret = id ? store_bisect_get(s, id, b) : store_bisect_latest(s, b);
	if (ret == -ENOENT)
		return id ? failure("no bisection %" PRId64 " in the store", id)
			  : failure("no bisection in the store yet");
	if (ret)
		return failure("%s", store_error(s));
	return 0;
}

static bool finished(const char *status)
{
	enum bisect_status st;

	return !bisect_status_parse(status, &st) && bisect_status_finished(st);
}

static int open_store(enum store_mode mode, struct store **s)
{
	return cmd_store_open("bisect", mode, s);
}

/*
 * The fleet's box (or class) a bisection was started on (--on), NULL:
 * this machine.  The spec keeps the box as its testbox ("class:NAME" for
 * a class): one that is not this host's name and that a worker
 * registered in this store (or a class with such a box) is the fleet's.
 */
static const char *fleet_box(struct store *s, const struct bisect_spec *spec)
{
	struct strbuf why = STRBUF_INIT;
	char host[256];
	int ret;

	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	if (!spec->testbox || !strcmp(spec->testbox, host))
		return NULL;
	ret = commit_runner_fleet_check(&(struct commit_runner_fleet){ .s = s,
					.testbox = spec->testbox }, &why);
	strbuf_release(&why);
	return ret ? NULL : spec->testbox;
}

static int cmd_resume(struct bisect_args *a, char **rest, int nrest)
{
	struct store_bisect b = { 0 };
	struct bisect_spec spec = { 0 };
	struct atomic_job *job = NULL;
	struct store *s = NULL;
	int ret = refuse("resume", a, false);

	if (ret || (ret = open_store(STORE_WRITE, &s)) ||
	    (ret = find_bisection(s, rest, nrest, &b)))
		goto out;
	if (!strcmp(b.status, "reset")) {
		ret = failure("bisection %" PRId64 " was reset; start a new one", b.id);
		goto out;
	}
	if (finished(b.status) && b.result) {
		struct bisect_result r;
		char err[512];

		/* a damaged result is measured again: every run is stored */
		if (!bisect_result_load(&r, b.id, b.status, b.result, b.spec, err,
					sizeof(err))) {
			printf("bisection %" PRId64 " is finished; nothing to resume\n", b.id);
			ret = print_result(&r);
			bisect_result_release(&r);
			goto out;
		}
	}
	if (bisect_spec_from_json(b.spec, &spec)) {
		ret = failure("bisection %" PRId64 " has a damaged spec in the store", b.id);
		goto out;
	}
	prune_own_worktrees(spec.repo);
	ret = load_spec_job(&spec, &job);
	if (ret)
		goto out;
	store_bisect_update(s, b.id, "running", NULL);
	store_bisect_log_add(s, b.id, "resume");
	printf("bisect %" PRId64 ": resuming %.12s..%.12s of %s, %s\n", b.id, spec.good,
	       spec.bad, spec.repo, job->name);
	fflush(stdout);
	ret = run_session(s, b.id, &spec, job, fleet_box(s, &spec));
out:
	if (job)
		atomic_jobs_release(job, 1);
	bisect_spec_release(&spec);
	store_bisect_release(&b);
	store_close(s);
	return ret;
}

/* ---- status, log, reset ---- */

/* A string of the result, or what to say when the store does not know it. */
static const char *known(const char *s, const char *unknown)
{
	return s && *s ? s : unknown;
}

/* status of a bisection without a final result: where it stands, and why */
static void print_unfinished(const struct bisect_result *r)
{
	const struct bisect_end *good = &r->level.good, *bad = &r->level.bad;
	const char *message = r->level.message;
	int64_t id = r->id;

	printf("  good %s (%.12s), bad %s (%.12s)\n", known(good->given, "?"),
	       known(good->commit.sha, "unknown"), known(bad->given, "?"),
	       known(bad->commit.sha, "unknown"));
	printf("  repository %s\n", known(r->repo, "unknown"));
	printf("  job %s, metric %s\n", known(r->job_path, "unknown"),
	       known(r->metric, "the job's KPI"));
	switch (r->level.status) {
	case BISECT_STATUS_FAILED:
		printf("  why: %s\n", known(message, "no reason was stored"));
		printf("  'perfbot bisect resume %" PRId64 "' tries again from the stored runs\n", id);
		break;
	case BISECT_STATUS_RUNNING:
		printf("  running, or stopped before the end (^C, a crash):"
		       " 'perfbot bisect resume %" PRId64 "' goes on from the stored runs\n", id);
		break;
	case BISECT_STATUS_RESET:
		printf("  reset before a result: start a new bisection\n");
		break;
	default:
		if (message)
			printf("  %s\n", message);
	}
}

static int cmd_status(struct bisect_args *a, char **rest, int nrest)
{
	struct store_bisect b = { 0 };
	struct bisect_result r;
	struct store *s = NULL;
	char err[512], *text = NULL;
	int ret = refuse("status", a, true);

	bisect_result_init(&r);
	if (ret || (ret = open_store(STORE_READ, &s)) ||
	    (ret = find_bisection(s, rest, nrest, &b)))
		goto out;
	/* any state: running and failed ones are completed from the spec */
	ret = bisect_result_load(&r, b.id, b.status, b.result, b.spec, err, sizeof(err));
	if (ret) {
		ret = ret == -EINVAL ? failure("bisection %" PRId64 " is damaged in the store: %s",
					       b.id, err)
				     : failure("out of memory");
		goto out;
	}
	if (a->json) {
		ret = bisect_result_to_json(&r, BISECT_JSON_INDENT, &text, err, sizeof(err));
		if (ret || printf("%s\n", text) < 0 || fflush(stdout))
			ret = failure("cannot write the JSON result");
		goto out;
	}
	printf("bisection %" PRId64 ": ", b.id);
	quote_line_fputs(b.status, stdout);
	putchar('\n');
	if (finished(b.status) || r.level.have_culprit) {
		print_result(&r);
	} else {
		/* names, subjects and reasons reach the terminal quoted */
		struct bisect_result q;

		if (bisect_result_quoted(&r, &q)) {
			ret = failure("out of memory");
			goto out;
		}
		print_unfinished(&q);
		bisect_result_release(&q);
	}
	ret = EXIT_OK;
out:
	free(text);
	bisect_result_release(&r);
	store_bisect_release(&b);
	store_close(s);
	return ret;
}

static int cmd_log(struct bisect_args *a, char **rest, int nrest)
{
	struct store_bisect b = { 0 };
	struct store_bisect_line *lines = NULL;
	struct store *s = NULL;
	size_t nr = 0;
	int ret = refuse("log", a, false);

	if (ret || (ret = open_store(STORE_READ, &s)) ||
	    (ret = find_bisection(s, rest, nrest, &b)))
		goto out;
	if (store_bisect_log(s, b.id, &lines, &nr)) {
		ret = failure("%s", store_error(s));
		goto out;
	}
	for (size_t i = 0; i < nr; i++) {
		time_t t = (time_t)lines[i].time;
		char when[32];
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
		printf("%s  ", when);
		quote_line_fputs(lines[i].text, stdout);
		putchar('\n');
	}
	ret = EXIT_OK;
out:
	store_bisect_lines_release(lines, nr);
	store_bisect_release(&b);
	store_close(s);
	return ret;
}

static int cmd_reset(struct bisect_args *a, char **rest, int nrest)
{
	struct bisect_spec spec = { 0 };
	struct store_bisect b = { 0 };
	struct store *s = NULL;
	int ret = refuse("reset", a, false);

	if (ret || (ret = open_store(STORE_WRITE, &s)) ||
	    (ret = find_bisection(s, rest, nrest, &b)))
		goto out;
	if (store_bisect_update(s, b.id, "reset", NULL)) {
		ret = failure("%s", store_error(s));
		goto out;
	}
	store_bisect_log_add(s, b.id, "reset");
	if (!bisect_spec_from_json(b.spec, &spec))
		prune_own_worktrees(spec.repo);
	printf("bisection %" PRId64 " reset; its runs stay in the store\n", b.id);
	ret = EXIT_OK;
out:
	bisect_spec_release(&spec);
	store_bisect_release(&b);
	store_close(s);
	return ret;
}

/* ---- run-step ---- */

/*
 * Every failure is an abort for git bisect run: a usage error's 2 would
 * mark the commit bad.
 */
static int cmd_run_step(struct bisect_args *a, char **rest, int nrest)
{
	struct bisect_spec spec = { 0 };
	struct atomic_job *job = NULL;
	struct store *s = NULL;
	struct strbuf err = STRBUF_INIT;
	char *head = NULL;
	int64_t no_id = 0;
	struct bisect_hooks hooks = {
		.progress = hook_progress, .note = hook_note, .ctx = &no_id,
	};
	int verdict = STEP_SKIP, ret;

	if (!a->good || !a->bad || nrest != 1 || a->json) {
		fprintf(stderr, "perfbot: bisect: run-step needs --baseline-good G, --baseline-bad B and one job file%s\n",
			a->json ? " (and no --json)" : "");
		return STEP_ABORT;
	}
	if (a->on) {
		fprintf(stderr, "perfbot: bisect: run-step does not take --on (bisect start does)\n");
		return STEP_ABORT;
	}
	a->job_path = rest[0];
	ret = make_spec(a, STEP_ABORT, &spec, &job);
	if (ret) {
		ret = STEP_ABORT;
		goto out;
	}
	if (resolve(spec.repo, "HEAD", "HEAD", &head, STEP_ABORT)) {
		ret = STEP_ABORT;
		goto out;
	}
	if (open_store(STORE_WRITE, &s)) {
		ret = STEP_ABORT;
		goto out;
	}
	stderr_tty = isatty(STDERR_FILENO);
	interrupt_install();
	ret = bisect_session_classify(s, &spec, job, head, &hooks, &verdict, &err);
	if (ret == -EINTR) {
		ret = 128 + (interrupted ? interrupted : SIGINT);
		goto out;
	}
	if (ret) {
		fprintf(stderr, "perfbot: bisect: run-step: %s\n", err.buf);
		ret = STEP_ABORT;
		goto out;
	}
	printf("%.12s: %s\n", head, verdict == 0 ? "good" : verdict == 1 ? "bad" :
	       "skip (cannot tell)");
	ret = verdict;
out:
	if (job)
		atomic_jobs_release(job, 1);
	bisect_spec_release(&spec);
	store_close(s);
	free(head);
	strbuf_release(&err);
	return ret;
}

int cmd_bisect(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(struct bisect_args *a, char **rest, int nrest);
	} subs[] = {
		{ "start", cmd_start }, { "resume", cmd_resume }, { "status", cmd_status },
		{ "log", cmd_log }, { "reset", cmd_reset }, { "run-step", cmd_run_step },
	};
	struct bisect_args a = { 0 };
	char **rest = NULL;
	int nrest = 0, ret;

	if (argc < 2)
		return usage_error("needs a subcommand: start, status, log, resume, reset or run-step");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(bisect_usage, stdout);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		if (strcmp(argv[1], subs[i].name))
			continue;
		ret = parse_args(argc - 1, argv + 1, &a, &rest, &nrest);
		/* these check commits out, build and run: util/lifetime.h */
		if (!ret && (subs[i].fn == cmd_start || subs[i].fn == cmd_resume ||
			     subs[i].fn == cmd_run_step) &&
		    cmd_lifetime_start("bisect"))
			ret = subs[i].fn == cmd_run_step ? STEP_ABORT : EXIT_FAILED;
		else if (!ret)
			ret = subs[i].fn(&a, rest, nrest);
		else if (ret < 0)
			ret = EXIT_OK;
		else if (!strcmp(subs[i].name, "run-step"))
			ret = STEP_ABORT;
		free(a.sets);
		return ret;
	}
	return usage_error("unknown subcommand '%s': expected start, status, log, resume, reset or run-step",
			   argv[1]);
}
