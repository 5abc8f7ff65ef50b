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
#include "run/runner.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "util/interrupt.h"
#include "util/quote.h"
#include "util/parse.h"
#include "util/words.h"
#include "vcs/bisect_session.h"
#include "vcs/git.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
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
	"                            [--max-runs N] [--db PATH] JOB.yaml\n"
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
	"      --max-runs N      at most N runs on the candidates (default 200)\n"
	CMD_DB_USAGE
	"      --json            status: the result document (docs/bisect.md)\n"
	"\n"
	"ID defaults to the latest bisection.  Exit status of start and resume:\n"
	"0 a culprit named, 1 no reproducible change, undecided or failed, 2 bad\n"
	"usage, 128 + N interrupted by signal N.  run-step exits 0 (good), 1\n"
	"(bad), 125 (skip: cannot tell or cannot build) or 128 and above (abort).\n";

struct bisect_args {
	const char *repo, *good, *bad, *metric, *build, *job_path;
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
	       OPT_MAX, OPT_JSON };
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
		{ "set", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

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
		case 's':
			if (!strchr(optarg, '=') || *optarg == '=')
				return usage_error("invalid -s '%s': expected KEY=VALUE", optarg);
			a->sets[a->nr_sets++] = optarg;
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
	if (a->repo || a->good || a->bad || a->metric || a->build || a->nr_sets ||
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

static const char *jstr(json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));

	return s ? s : "";
}

static double jnum(json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);

	return v ? json_number_value(v) : NAN;
}

static void print_evidence(json_t *lv, const char *metric)
{
	json_t *c = json_object_get(lv, "confirmation");

	if (!c)
		return;
	printf("confirmed: %s %+.2f%% [%+.2f%%, %+.2f%%], p = %.2g: %s, on %.0f runs of the"
	       " commit before and %.0f of the culprit\n", metric, jnum(c, "pct"),
	       jnum(c, "low"), jnum(c, "high"), jnum(c, "p"), jstr(c, "verdict"),
	       jnum(json_object_get(c, "parent"), "n"),
	       jnum(json_object_get(c, "culprit"), "n"));
}

static void print_culprit(json_t *lv)
{
	json_t *c = json_object_get(lv, "culprit");
	json_t *r = json_object_get(lv, "range");

	if (r) {
		size_t i;
		json_t *e;

		printf("first bad commit is one of:\n");
		json_array_foreach(r, i, e)
			printf("  %s %s%s\n", jstr(e, "sha"), jstr(e, "subject"),
			       json_is_true(json_object_get(e, "skipped")) ?
			       " (skipped: build failed)" : "");
		return;
	}
	printf("first bad commit: %s %s\n", jstr(c, "sha"), jstr(c, "subject"));
	printf("author: %s\ndate: %s\n", jstr(c, "author"), jstr(c, "date"));
}

/* What start, resume and a finished status print; returns the exit status. */
static int print_result_quoted(json_t *r);

/* What the result quotes (subjects, names) is printed escaped. */
static int print_result(json_t *r)
{
	json_t *q = json_quote_tree(r);
	int ret = q ? print_result_quoted(q) : failure("out of memory");

	json_decref(q);
	return ret;
}

static int print_result_quoted(json_t *r)
{
	const char *status = jstr(r, "status"), *metric = jstr(r, "metric");
	json_t *merge = json_object_get(r, "merge"), *lead = r;
	json_t *inner = json_object_get(merge, "inner");
	json_t *base = json_object_get(json_object_get(r, "baseline"), "change");

	if (!strcmp(status, "no-change")) {
		printf("no reproducible change between %.12s and %.12s: %s %+.2f%%, p = %.2g"
		       " (%s) after %.0f + %.0f runs\n",
		       jstr(json_object_get(r, "good"), "sha"),
		       jstr(json_object_get(r, "bad"), "sha"), metric, jnum(base, "pct"),
		       jnum(base, "p"), jstr(base, "verdict"),
		       jnum(json_object_get(json_object_get(r, "baseline"), "good"), "n"),
		       jnum(json_object_get(json_object_get(r, "baseline"), "bad"), "n"));
		return EXIT_FAILED;
	}
	if (!strcmp(status, "undecided")) {
		size_t i;
		json_t *e;

		printf("undecided after %.0f runs on the candidates; the most probable first bad commits:\n",
		       jnum(r, "runs_search"));
		json_array_foreach(json_object_get(r, "best"), i, e)
			printf("  %s %5.1f%%  %s\n", jstr(e, "sha"),
			       100 * jnum(e, "probability"), jstr(e, "subject"));
		return EXIT_FAILED;
	}
	if (strcmp(status, "found") && strcmp(status, "found-range")) {
		printf("bisection %s%s%s\n", status, json_object_get(r, "message") ? ": " : "",
		       jstr(r, "message"));
		return EXIT_FAILED;
	}
	/* a merge whose branch holds the change: the commit inside leads */
	if (inner && (!strcmp(jstr(inner, "status"), "found") ||
		      !strcmp(jstr(inner, "status"), "found-range")))
		lead = inner;
	print_culprit(lead);
	if (merge) {
		printf("merged by: %s %s\n", jstr(merge, "sha"), jstr(merge, "subject"));
		if (lead == r)
			printf("the merged branch alone shows no change: the merge itself does\n");
	}
	printf("probability %.1f%% (stops at %.0f%%)\n",
	       100 * jnum(json_object_get(lead, "culprit"), "probability"),
	       100 * jnum(r, "confidence"));
	print_evidence(lead, metric);
	printf("spent %.0f runs and %.0f builds (%.0f failed)\n", jnum(r, "runs"),
	       jnum(r, "builds"), jnum(r, "build_failures"));
	return EXIT_OK;
}

/* ---- start and resume ---- */

/* A SIGKILLed perfbot's worktrees leave the user's repository (git.h). */
static void prune_own_worktrees(const char *repo)
{
	if (repo && git_worktree_prune_own(repo) < 0)
		fprintf(stderr, "perfbot: bisect: warning: cannot look for perfbot's stale worktrees in %s\n",
			repo);
}

static int run_session(struct store *s, int64_t id, const struct bisect_spec *spec,
		       const struct atomic_job *job)
{
	struct bisect_hooks hooks = {
		.progress = hook_progress, .note = hook_note, .ctx = &id,
	};
	char err[2048];
	json_t *result = NULL;
	int ret;

	stderr_tty = isatty(STDERR_FILENO);
	interrupt_install();
	ret = bisect_session_run(s, id, spec, job, &hooks, &result, err, sizeof(err));
	if (stderr_tty)
		fputs("\r\033[K", stderr);
	if (ret == -EINTR) {
		fprintf(stderr, "perfbot: bisect: %" PRId64 " interrupted; 'perfbot bisect resume %"
			PRId64 "' goes on from here\n", id, id);
		return 128 + (interrupted ? interrupted : SIGINT);
	}
	if (ret) {
		json_t *f = json_pack("{s:I, s:s, s:o}", "id", (json_int_t)id,
				      "status", "failed", "message", json_str(err));
		char *text = f ? json_dumps(f, JSON_COMPACT) : NULL;

		/* failed, not lost: resume tries again from the stored runs */
		store_bisect_update(s, id, "failed", text);
		store_bisect_log_add(s, id, err);
		free(text);
		json_decref(f);
		return failure("%s", err);
	}
	ret = print_result(result);
	json_decref(result);
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
		atomic_jobs_release(jobs, nr);
		return EXIT_USAGE;
	}
	*job = jobs;
	return 0;
}

/* A stored spec's job: its text, loaded back through a private file. */
static int load_spec_job(const struct bisect_spec *spec, struct atomic_job **job)
{
	char *dir = NULL, path[PATH_MAX];
	FILE *f;
	int ret = make_temp_dir(NULL, "perfbot-bisect-job", &dir);

	if (ret)
		return failure("cannot make a temporary directory: %s", strerror(-ret));
	snprintf(path, sizeof(path), "%s/job.yaml", dir);
	f = fopen(path, "w");
	if (!f || fputs(spec->job_text, f) == EOF || fclose(f)) {
		if (f)
			fclose(f);
		ret = failure("cannot write %s: %s", path, strerror(errno));
	} else {
		ret = load_one_job(path, NULL, 0, job);
	}
	remove_tree(dir);
	free(dir);
	return ret;
}

/* rev of repo to a full sha; exit status or 0.  `what`: the option, for messages. */
static int resolve(const char *repo, const char *rev, const char *what, char **sha,
		   int usage_status)
{
	char err[512];
	int ret = git_resolve(repo, rev, sha, err, sizeof(err));

	if (!ret)
		return 0;
	fprintf(stderr, "perfbot: bisect: %s: %s\n", what, err);
	return ret == -ENOENT || ret == -EINVAL ? usage_status : EXIT_FAILED;
}

/*
 * The spec of a new bisection from the command line, checked before
 * anything is stored; exit status or 0.  *job is the atomic job.
 */
static int make_spec(const struct bisect_args *a, int usage_status,
		     struct bisect_spec *spec, struct atomic_job **job)
{
	char real[PATH_MAX], host[256], err[512];
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
	if (git_cmd(spec->repo, NULL, err, sizeof(err), "merge-base", "--is-ancestor",
		    spec->good, spec->bad, NULL)) {
		fprintf(stderr, "perfbot: bisect: --good %s is not an ancestor of --bad %s\n",
			a->good, a->bad);
		return usage_status;
	}
	ret = load_one_job(a->job_path, a->sets, a->nr_sets, job);
	if (ret)
		return ret == EXIT_USAGE ? usage_status : ret;
	if (!a->build && !(*job)->build && !(*job)->exec.argv) {
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
	spec->testbox = strdup(host);
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
	if (bisect_spec_to_json(&spec, &text)) {
		ret = failure("out of memory");
		goto out;
	}
	ret = cmd_store_open("bisect", STORE_WRITE, &s);
	if (ret)
		goto out;
	if (store_bisect_add(s, "running", text, &id)) {
		ret = failure("%s", store_error(s));
		goto out;
	}
	printf("bisect %" PRId64 ": %s..%s of %s, %s\n", id, a->good, a->bad, spec.repo,
	       job->name);
	fflush(stdout);
	store_bisect_log_add(s, id, "start");
	ret = run_session(s, id, &spec, job);
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
	return !strcmp(status, "found") || !strcmp(status, "found-range") ||
	       !strcmp(status, "no-change") || !strcmp(status, "undecided");
}

static int open_store(enum store_mode mode, struct store **s)
{
	return cmd_store_open("bisect", mode, s);
}

static int cmd_resume(struct bisect_args *a, char **rest, int nrest)
{
	struct store_bisect b = { 0 };
	struct bisect_spec spec = { 0 };
	struct atomic_job *job = NULL;
	struct store *s = NULL;
	json_t *r;
	int ret = refuse("resume", a, false);

	if (ret || (ret = open_store(STORE_WRITE, &s)) ||
	    (ret = find_bisection(s, rest, nrest, &b)))
		goto out;
	if (!strcmp(b.status, "reset")) {
		ret = failure("bisection %" PRId64 " was reset; start a new one", b.id);
		goto out;
	}
	if (finished(b.status) && b.result && (r = json_loads(b.result, 0, NULL))) {
		printf("bisection %" PRId64 " is finished; nothing to resume\n", b.id);
		ret = print_result(r);
		json_decref(r);
		goto out;
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
	ret = run_session(s, b.id, &spec, job);
out:
	if (job)
		atomic_jobs_release(job, 1);
	bisect_spec_release(&spec);
	store_bisect_release(&b);
	store_close(s);
	return ret;
}

/* ---- status, log, reset ---- */

/* A document's string, or what to say when the store does not know it. */
static const char *known(json_t *o, const char *key, const char *unknown)
{
	const char *s = jstr(o, key);

	return *s ? s : unknown;
}

/* status of a bisection without a final result: where it stands, and why */
static void print_unfinished(json_t *r, int64_t id, const char *status)
{
	json_t *good = json_object_get(r, "good"), *bad = json_object_get(r, "bad");

	printf("  good %s (%.12s), bad %s (%.12s)\n", known(good, "given", "?"),
	       known(good, "sha", "unknown"), known(bad, "given", "?"),
	       known(bad, "sha", "unknown"));
	printf("  repository %s\n", known(r, "repo", "unknown"));
	printf("  job %s, metric %s\n", known(r, "job_path", "unknown"),
	       known(r, "metric", "the job's KPI"));
	if (!strcmp(status, "failed")) {
		printf("  why: %s\n", known(r, "message", "no reason was stored"));
		printf("  'perfbot bisect resume %" PRId64 "' tries again from the stored runs\n", id);
	} else if (!strcmp(status, "running")) {
		printf("  running, or stopped before the end (^C, a crash):"
		       " 'perfbot bisect resume %" PRId64 "' goes on from the stored runs\n", id);
	} else if (!strcmp(status, "reset")) {
		printf("  reset before a result: start a new bisection\n");
	} else if (json_object_get(r, "message")) {
		printf("  %s\n", jstr(r, "message"));
	}
}

static int cmd_status(struct bisect_args *a, char **rest, int nrest)
{
	struct store_bisect b = { 0 };
	struct store *s = NULL;
	json_t *r = NULL;
	int ret = refuse("status", a, true);

	if (ret || (ret = open_store(STORE_READ, &s)) ||
	    (ret = find_bisection(s, rest, nrest, &b)))
		goto out;
	/* any state: running and failed ones are completed from the spec */
	ret = bisect_document(&b, &r);
	if (ret) {
		ret = ret == -EINVAL ? failure("bisection %" PRId64 " is damaged in the store", b.id)
				     : failure("out of memory");
		goto out;
	}
	if (a->json) {
		ret = cmd_print_json("bisect", json_incref(r)) ? EXIT_FAILED : EXIT_OK;
		goto out;
	}
	printf("bisection %" PRId64 ": ", b.id);
	quote_line_fputs(b.status, stdout);
	putchar('\n');
	if (finished(b.status) || json_object_get(r, "culprit"))
		print_result(r);
	else {
		/* names, subjects and reasons reach the terminal quoted */
		json_t *q = json_quote_tree(r);

		print_unfinished(q ? q : r, b.id, b.status);
		json_decref(q);
	}
	ret = EXIT_OK;
out:
	json_decref(r);
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
	char *head = NULL, err[2048];
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
	ret = bisect_session_classify(s, &spec, job, head, &hooks, &verdict, err,
				      sizeof(err));
	if (ret == -EINTR) {
		ret = 128 + (interrupted ? interrupted : SIGINT);
		goto out;
	}
	if (ret) {
		fprintf(stderr, "perfbot: bisect: run-step: %s\n", err);
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
