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
#include "boot/boot.h"
#include "boot/kbuild.h"
#include "run/env.h"
#include "vcs/builds.h"
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
	"      --repo DIR        the git repository of the commit; a job's build:\n"
	"                        needs it.  A Linux kernel tree needs a job with a\n"
	"                        kernel: section: its kernel is built and booted in\n"
	"                        QEMU for each run (docs/kernel.md); without one the\n"
	"                        runs would measure the running kernel: refused\n"
	CMD_DB_USAGE
	"      --kernel BZIMAGE  boot that kernel in QEMU for each run and run the\n"
	"                        job inside it (docs/kernel.md); the runs are\n"
	"                        recorded with boot.* in their environment and\n"
	"                        the kernel's dmesg.* failure stats.  --commit\n"
	"                        labels them (default: the image's release)\n"
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
	const char *commit, *repo, *kernel;
	bool monitors, dry_run;
	char *overrides[MAX_OVERRIDES];
	size_t nr_overrides;
};

#define usage_error(...) cmd_usage_error("run", __VA_ARGS__)

static int parse_args(int argc, char **argv, struct run_opts *o)
{
	enum { OPT_COMMIT = 256, OPT_REPO, OPT_NO_MON, OPT_DRY, OPT_KERNEL };
	static const struct option longopts[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "commit", required_argument, NULL, OPT_COMMIT },
		{ "repo", required_argument, NULL, OPT_REPO },
		{ "no-monitors", no_argument, NULL, OPT_NO_MON },
		{ "dry-run", no_argument, NULL, OPT_DRY },
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, err;

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
			if ((err = cmd_take_set("run", optarg, o->overrides, &o->nr_overrides,
						 MAX_OVERRIDES)))
				return err;
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
		case OPT_KERNEL:
			if (access(optarg, R_OK))
				return usage_error("--kernel '%s': %s", optarg, strerror(errno));
			o->kernel = optarg;
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

/*
 * How long one run of j takes, in seconds, or -1 when nothing says.  A
 * benchmark told how long to measure (its table takes the generic key
 * `runtime`: will-it-scale, netperf) takes about that, plus warm-up and
 * start-up.  Others (an exec: command, hackbench's fixed work) say
 * nothing of their length: it is unknown until a run of the job has been
 * measured, and never BENCH_DEFAULT_RUNTIME_S, which they do not run for
 * (an exec run of 0.46 s was announced as taking 15.5 s).
 */
static double nominal_run_s(const struct atomic_job *j)
{
	const struct bench_type *t = bench_type_find(j->testcase, j->exec.argv != NULL);
	bool timed = false;
	double rt;

	/* bench_param_find() looks at job keys only, not the generic ones */
	for (size_t i = 0; t && i < t->nr_params; i++)
		timed |= (t->params[i].flags & BENCH_GENERIC) &&
			 !strcmp(t->params[i].key, "runtime");
	if (!timed)
		return -1;
	rt = j->runtime_s > 0 ? j->runtime_s : BENCH_DEFAULT_RUNTIME_S;
	return rt * 1.5 + 0.5;
}

/* The runs of one atomic job measured so far: wall time, whatever their status. */
struct job_clock {
	double spent_s;
	unsigned runs;
};

/* A run of j: as measured when it has run, else nominal_run_s(). */
static double expected_run_s(const struct atomic_job *j, const struct job_clock *c)
{
	if (c && c->runs)
		return c->spent_s / c->runs;
	return nominal_run_s(j);
}

/* What is left: the known part in seconds, and how many runs are of unknown length. */
struct time_left {
	double known_s;
	size_t unknown_runs;
};

static void add_runs(struct time_left *t, const struct atomic_job *j,
		     const struct job_clock *c, unsigned runs)
{
	double each = expected_run_s(j, c);

	if (each < 0)
		t->unknown_runs += runs;
	else
		t->known_s += each * runs;
}

/* "about 1m18s", "at least 12s" (some runs unknown) or "?" (all unknown). */
static void format_estimate(const struct time_left *t, char *buf, size_t len)
{
	char left[32];

	format_left(t->known_s, left, sizeof(left));
	if (!t->unknown_runs)
		snprintf(buf, len, "about %s", left);
	else if (t->known_s > 0)
		snprintf(buf, len, "at least %s", left);
	else
		snprintf(buf, len, "about ?");
}

static void print_plan(const struct run_opts *o, const struct atomic_job *jobs,
		       size_t n, const char *commit, const char *db)
{
	struct time_left t = { 0 };
	char est[64];

	printf("would run %zu atomic job%s of %s at commit %s into %s:\n", n,
	       n == 1 ? "" : "s", o->job_path, commit, db);
	for (size_t i = 0; i < n; i++) {
		unsigned r = repeat_of(o, &jobs[i]);

		add_runs(&t, &jobs[i], NULL, r);
		printf("  %s  x%u%s\n", jobs[i].name, r,
		       o->monitors ? "" : "  (no monitors)");
	}
	format_estimate(&t, est, sizeof(est));
	if (!t.unknown_runs)
		printf("%s\n", est);
	else
		printf("%s: %zu run%s of jobs that do not say how long they take"
		       " (no runtime: an exec: command, hackbench), unknown until one has"
		       " run; perfbot run estimates them from their first run\n",
		       est, t.unknown_runs, t.unknown_runs == 1 ? "" : "s");
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

/*
 * The kernel of sha in repo for job's kernel: section (boot/kbuild.h):
 * built, or taken from the kernels built before; *bzimage its path.
 * Exit status: 0, EXIT_FAILED (the kernel did not build: said, with the
 * log's end), or 128 + signal.
 */
static int build_kernel(const struct run_opts *o, const char *sha, const struct atomic_job *job,
			char **bzimage, struct strbuf *err)
{
	struct kbuild_opts ko = {
		.repo = o->repo, .sha = sha, .kernel = &job->kernel, .stop = &interrupted,
	};
	struct kbuild_result kr = { 0 };
	int ret;

	fprintf(stderr, "perfbot: run: building the kernel of %.12s (%s)\n", sha,
		job->kernel.config ? job->kernel.config : "?");
	ret = kbuild_build(&ko, &kr, err);
	if (ret) {
		fprintf(stderr, "perfbot: run: the kernel of %.12s: %s\n", sha, err->buf);
		ret = interrupted ? 128 + interrupted : EXIT_FAILED;
	} else {
		fprintf(stderr, "perfbot: run: kernel %s (%s%.1f s)\n", kr.bzimage,
			kr.reused ? "built before, " : kr.incremental ? "incremental, " : "",
			kr.build_s);
		*bzimage = kr.bzimage;
		kr.bzimage = NULL;
	}
	kbuild_result_release(&kr);
	return ret;
}

/*
 * boot: kexec (boot/kexec.h): the kernel (built from --repo, or
 * --kernel's), the boot arranged in the store and started.  The job runs
 * after the boot (`perfbot kexec resume`, from the unit), not here.
 */
static int run_kexec(const struct run_opts *o, const struct atomic_job *job, const char *sha,
		     const char *commit, struct store *store)
{
	struct kexec_spec spec = {
		.repo = o->repo, .sha = commit, .job_file = o->job_path,
		.sets = o->overrides, .nr_sets = o->nr_overrides, .job = job->name,
		.runs = repeat_of(o, job), .cmdline = job->kernel.cmdline,
	};
	struct strbuf err = STRBUF_INIT;
	struct cmd_kexec k;
	char *bz = NULL, release[256];
	int64_t id = 0;
	int ret;

	if (o->repo) {
		ret = build_kernel(o, sha, job, &bz, &err);
		strbuf_release(&err);
		if (ret)
			return ret;
	}
	spec.bzimage = bz ? bz : o->kernel;
	ret = boot_kernel_release(spec.bzimage, release, sizeof(release));
	if (ret) {
		fprintf(stderr, "perfbot: run: %s: %s\n", spec.bzimage,
			ret == -EINVAL ? "no bzImage with a version string: kexec could not tell"
					 " whether it booted" : strerror(-ret));
		free(bz);
		return ret == -EINVAL && !bz ? EXIT_USAGE : EXIT_FAILED;
	}
	spec.release = release;
	ret = cmd_kexec_setup("run", &k);
	if (ret) {
		free(bz);
		return ret;
	}
	ret = kexec_arrange(store, &k.c, &spec, &id, &err);
	if (ret) {
		if (id)
			fprintf(stderr, "perfbot: run: kexec boot %" PRId64 ": %s\n", id, err.buf);
		else
			fprintf(stderr, "perfbot: run: kexec: %s\n", err.buf);
		ret = ret == -EEXIST ? EXIT_USAGE : EXIT_FAILED;
	} else {
		fprintf(stderr, "perfbot: run: rebooting into %s (%.12s); the job runs after the"
			" boot (perfbot kexec status)\n", release, commit);
		ret = EXIT_OK;
	}
	cmd_kexec_release(&k);
	strbuf_release(&err);
	free(bz);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { .monitors = true };
	struct atomic_job *jobs = NULL;
	struct job_error jerr = { 0 };
	struct store *store = NULL;
	const char *db;
	char *sha = NULL;
	const char *worktree = NULL;
	struct commit_builds builds = { 0 };
	struct strmap host = { 0 };	/* --kernel: the host's environment, for its machine line */
	size_t kernel_jobs = 0;		/* atomic jobs with a kernel: section */
	size_t kexec = 0;		/* of them, boot: kexec */
	char **bzimage = NULL;		/* [nr]: each kernel job's kernel, built from --repo */
	struct strbuf err = STRBUF_INIT;
	char label[256];
	size_t nr = 0, total_runs = 0, done = 0, unsupported = 0;
	bool any_failed = false;
	struct job_clock *clocks = NULL;
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
		ret = cmd_check_runnable_job(&jobs[i]);
		if (ret)
			goto out;
		total_runs += repeat_of(&o, &jobs[i]);
		kernel_jobs += jobs[i].kernel.present;
		kexec += jobs[i].kernel.present && jobs[i].kernel.boot == JOB_BOOT_KEXEC;
	}
	if (kexec && nr > 1) {
		fprintf(stderr, "perfbot: run: %s:%u:%u: boot: kexec boots one atomic job at a"
			" time and %s has %zu (%s, %s%s): narrow it with -s KEY=VALUE\n",
			o.job_path, jobs[0].kernel.line, jobs[0].kernel.column, o.job_path, nr,
			jobs[0].name, jobs[1].name, nr > 2 ? ", ..." : "");
		ret = EXIT_USAGE;
		goto out;
	}
	if (kernel_jobs && kernel_jobs != nr) {
		fprintf(stderr, "perfbot: run: %s: some atomic jobs have a kernel: section and"
			" some do not: run them from two job files\n", o.job_path);
		ret = EXIT_USAGE;
		goto out;
	}

	if (!o.repo && jobs[0].build) {
		/* build: is the job's, the same in every atomic job */
		job_error_set(&jerr, jobs[0].file, jobs[0].build_line, jobs[0].build_column,
			      "build: needs --repo: without a repository nothing is built, and"
			      " the runs would measure what is installed here under the commit's"
			      " name; give --repo DIR (and --commit REV), or drop build:");
		cmd_print_job_error(&jerr);
		job_error_release(&jerr);
		ret = EXIT_USAGE;
		goto out;
	}
	if (o.repo) {
		bool kernel = false;

		if (git_resolve(o.repo, o.commit ? o.commit : "HEAD", &sha, &err)) {
			fprintf(stderr, "perfbot: run: %s\n", err.buf);
			ret = EXIT_USAGE;
			goto out;
		}
		commit = sha;
		if (git_is_kernel_tree(o.repo, sha, &kernel, &err)) {
			fprintf(stderr, "perfbot: run: cannot read the tree of %s in %s: %s\n",
				o.commit ? o.commit : "HEAD", o.repo, err.buf);
			ret = EXIT_FAILED;
			goto out;
		}
		if (kernel && !kernel_jobs) {
			/*
			 * A job without a kernel: section would measure the
			 * running kernel and file it under the commit, a result
			 * that lies.
			 */
			if (kernel_release(label, sizeof(label)))
				snprintf(label, sizeof(label), "?");
			fprintf(stderr,
				"perfbot: run: %s at %s is a Linux kernel tree, and the job has no"
				" kernel: section (docs/kernel.md) to build and boot it: the"
				" runs would measure the running kernel (%s) and be stored under"
				" %s (%.12s); nothing run (to measure the running kernel, leave out"
				" --repo: its runs are labelled with its release)\n",
				o.repo, o.commit ? o.commit : "HEAD", label,
				o.commit ? o.commit : "HEAD", sha);
			ret = EXIT_USAGE;
			goto out;
		}
	} else if (o.commit) {
		commit = o.commit;
	} else if (o.kernel) {
		commit = boot_kernel_release(o.kernel, label, sizeof(label)) ? "unknown" : label;
	} else {
		commit = kernel_release(label, sizeof(label)) ? "local" : label;
	}
	if (kernel_jobs && !o.repo && !o.kernel) {
		fprintf(stderr, "perfbot: run: %s: a job with a kernel: section runs in the kernel"
			" it names: give --repo (the kernel tree; --commit the commit) or --kernel"
			" BZIMAGE\n", o.job_path);
		ret = EXIT_USAGE;
		goto out;
	}
	if (o.kernel && o.repo) {
		fprintf(stderr, "perfbot: run: --kernel with --repo: a kernel tree's commit is built"
			" and booted by a job's kernel: section; --kernel boots an image as it is\n");
		ret = EXIT_USAGE;
		goto out;
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
	if (o.kernel || kernel_jobs)
		env_capture(&host, NULL);
	if (o.repo && !kernel_jobs && needs_worktree(jobs, nr)) {
		bool fresh;

		if (commit_builds_open(&builds, o.repo, build_of(jobs, nr), &err) ||
		    commit_builds_get(&builds, sha, &interrupted, &worktree, &fresh, &err)) {
			fprintf(stderr, "perfbot: run: %s\n", err.buf);
			ret = interrupted ? 128 + interrupted : EXIT_FAILED;
			goto out;
		}
	}

	if (kexec) {
		ret = run_kexec(&o, &jobs[0], sha, commit, store);
		goto out;
	}
	bzimage = calloc(nr, sizeof(*bzimage));
	clocks = calloc(nr, sizeof(*clocks));
	if (!clocks || !bzimage) {
		fprintf(stderr, "perfbot: run: out of memory\n");
		ret = EXIT_FAILED;
		goto out;
	}
	for (size_t i = 0; i < nr && !interrupted; i++) {
		unsigned reps = repeat_of(&o, &jobs[i]);
		/*
		 * An exec job's warm-up (warmup:) runs once per atomic job, before
		 * its first measured repeat: a cold first run is what it is for.
		 * Until a run has completed it runs again before the next one, so
		 * a warm-up that fails makes each repeat a failed run with why.
		 */
		bool warm = false;

		for (unsigned r = 1; r <= reps && !interrupted; r++) {
			struct runner_opts ro = {
				.commit = commit, .src_dir = worktree,
				.monitors = o.monitors, .stop = &interrupted,
				.warm_up = !warm,
			};
			struct run_record rec;
			struct time_left t = { 0 };
			int64_t id = 0;
			char est[64];
			double t0;

			/* this job's runs left, then every later job's, each by its own clock */
			add_runs(&t, &jobs[i], &clocks[i], reps - r + 1);
			for (size_t k = i + 1; k < nr; k++)
				add_runs(&t, &jobs[k], &clocks[k], repeat_of(&o, &jobs[k]));
			format_estimate(&t, est, sizeof(est));
			if (t.unknown_runs && !t.known_s)
				fprintf(stderr, "[%zu/%zu] %s: repeat %u/%u, time left unknown until"
					" a run has been measured\n", i + 1, nr, jobs[i].name, r, reps);
			else
				fprintf(stderr, "[%zu/%zu] %s: repeat %u/%u, %s left\n",
					i + 1, nr, jobs[i].name, r, reps, est);
			t0 = mono_now();
			if (kernel_jobs && o.repo && !bzimage[i]) {
				ret = build_kernel(&o, sha, &jobs[i], &bzimage[i], &err);
				if (ret == EXIT_FAILED) {
					/* stored: the history shows the commit, and why nothing ran */
					struct boot_opts bo = { .commit = commit };

					if (!boot_record_unbuilt(&jobs[i], &bo, err.buf, &rec)) {
						if (store_put_run(store, &rec, &id))
							fprintf(stderr, "perfbot: run: cannot store the run: %s\n",
								store_error(store));
						else
							print_run(id, &rec);
						run_record_release(&rec);
					}
				}
				if (ret) {
					any_failed = true;
					done += reps - r + 1;
					break;
				}
			}
			if (o.kernel || kernel_jobs) {
				struct boot_opts bo = {
					.commit = commit, .host_machine = strmap_get(&host, "machine"),
					.qemu = { .accel = QEMU_ACCEL_AUTO },
				};

				if (jobs[i].kernel.present)
					boot_opts_from_kernel(&jobs[i].kernel, &bo);
				ret = boot_run(&jobs[i], bzimage && bzimage[i] ? bzimage[i] : o.kernel,
					       &bo, &interrupted, &rec, &err);
			} else {
				ret = runner_run(&jobs[i], &ro, &rec, &err);
			}
			clocks[i].spent_s += mono_now() - t0;
			clocks[i].runs++;
			if (ret) {
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
			warm |= rec.status == RUN_COMPLETE;
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
	commit_builds_close(&builds);
	strmap_release(&host);
	for (size_t i = 0; bzimage && i < nr; i++)
		free(bzimage[i]);
	free(bzimage);
	if (store)
		store_close(store);
	free(clocks);
	free(sha);
	atomic_jobs_release(jobs, nr);
	strbuf_release(&err);
	return ret;
}
