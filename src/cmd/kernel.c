/*
 * kernel.c - perfbot kernel build: the kernel of a commit built with a
 * job's kernel: section (boot/kbuild.h, docs/kernel.md), for a person or
 * a test to see the bzImage, the build time and whether it was
 * incremental.
 */
#define _GNU_SOURCE
#include "boot/kbuild.h"
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "util/interrupt.h"
#include "util/parse.h"
#include "util/strbuf.h"
#include "vcs/git.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char kernel_usage[] =
	"usage: perfbot kernel build --repo DIR [--commit REV] [-j N] [-s KEY=VALUE ...] JOB.yaml\n"
	"\n"
	"Build the kernel of a commit of the kernel repository DIR with the\n"
	"job's kernel: section (config, fragments, and the options perfbot's\n"
	"guest needs), in the kept worktree and the build directory of that\n"
	"configuration under the build cache's directory, so that the next\n"
	"commit rebuilds only what changed (docs/kernel.md).  Prints the\n"
	"bzImage's path, the final .config's, the build log's, the build time\n"
	"and how it was built: full, incremental (an earlier build was in the\n"
	"build directory) or reused (this commit's kernel was already built).\n"
	"\n"
	"  --repo DIR     the kernel repository\n"
	"  --commit REV   the commit (default HEAD)\n"
	"  -j N           make -j N (default: the online CPUs)\n"
	"  --timeout DUR  give up on a build that takes longer (default 2h)\n"
	"  -s KEY=VALUE   override a job key, as perfbot run -s\n"
	"  -h, --help     show this help\n"
	"\n"
	"Exit status: 0 built, 1 the kernel does not build (the log's last\n"
	"lines are printed) or perfbot failed, 2 bad usage, a bad job or one\n"
	"without a kernel: section, 128+N interrupted by signal N.\n";

#define usage_error(...) cmd_usage_error("kernel", __VA_ARGS__)

static int kernel_build(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "repo", required_argument, NULL, 'r' },
		{ "commit", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *repo = NULL, *commit = "HEAD";
	char **overrides = NULL, *sha = NULL;
	size_t nr_overrides = 0, nr = 0;
	struct atomic_job *jobs = NULL;
	struct job_error jerr = { 0 };
	struct kbuild_opts ko = { 0 };
	struct kbuild_result r = { 0 };
	struct strbuf err = STRBUF_INIT;
	unsigned long jobs_n = 0;
	double timeout = 0;
	int c, ret;

	overrides = calloc((size_t)argc + 1, sizeof(*overrides));
	if (!overrides)
		return cmd_failure("kernel", "out of memory");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+hj:s:", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			repo = optarg;
			break;
		case 'c':
			commit = optarg;
			break;
		case 'j':
			if (parse_ulong(optarg, 1, 4096, &jobs_n) != PARSE_OK) {
				ret = usage_error("-j '%s' is not a whole number from 1 to 4096",
						  optarg);
				goto out;
			}
			break;
		case 't':
			if ((ret = cmd_parse_duration("kernel", "--timeout", optarg, &timeout)))
				goto out;
			break;
		case 's':
			overrides[nr_overrides++] = optarg;
			break;
		case 'h':
			fputs(kernel_usage, stdout);
			ret = EXIT_OK;
			goto out;
		default:
			ret = usage_error("unknown or incomplete option '%s' (see perfbot kernel --help)",
					  argv[optind - 1]);
			goto out;
		}
	}
	if (optind + 1 != argc) {
		ret = usage_error(optind == argc ? "kernel build needs a job file" :
				  "kernel build takes one job file, not '%s'", argv[argc - 1]);
		goto out;
	}
	if (!repo) {
		ret = usage_error("kernel build needs --repo DIR (the kernel repository)");
		goto out;
	}
	if (job_load(argv[optind], overrides, nr_overrides, &jobs, &nr, &jerr)) {
		cmd_print_job_error(&jerr);
		job_error_release(&jerr);
		ret = EXIT_USAGE;
		goto out;
	}
	/* the kernel: section is no matrix dimension: every atomic job has the same */
	if (!jobs[0].kernel.present) {
		ret = usage_error("%s has no kernel: section (docs/kernel.md)", argv[optind]);
		goto out;
	}
	if (git_resolve(repo, commit, &sha, &err)) {
		ret = usage_error("%s", err.buf);
		goto out;
	}
	ret = cmd_lifetime_start("kernel");
	if (ret)
		goto out;
	interrupt_install();
	ko = (struct kbuild_opts){ .repo = repo, .sha = sha, .kernel = &jobs[0].kernel,
				   .jobs = (unsigned)jobs_n, .timeout_s = timeout,
				   .stop = &interrupted };
	ret = kbuild_build(&ko, &r, &err);
	if (ret) {
		fprintf(stderr, "perfbot: kernel: %s\n", err.buf);
		ret = interrupted ? 128 + interrupted : EXIT_FAILED;
		goto out;
	}
	for (const char *p = r.notes.buf; *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		fprintf(stderr, "perfbot: kernel config: %.*s\n", len, p);
		p += len + (nl != NULL);
	}
	printf("commit: %s\n", sha);
	printf("bzImage: %s\n", r.bzimage);
	printf("config: %s\n", r.config);
	printf("log: %s\n", r.log);
	printf("build directory: %s\n", r.build_dir);
	printf("build: %s\n", r.reused ? "reused" : r.incremental ? "incremental" : "full");
	printf("build time: %.1f s\n", r.build_s);
	ret = fflush(stdout) ? cmd_failure("kernel", "cannot write the result") : EXIT_OK;
out:
	kbuild_result_release(&r);
	atomic_jobs_release(jobs, nr);
	strbuf_release(&err);
	free(sha);
	free(overrides);
	return ret;
}

int cmd_kernel(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("kernel needs a command: build (see perfbot kernel --help)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(kernel_usage, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "build"))
		return kernel_build(argc - 1, argv + 1);
	return usage_error("unknown kernel command '%s' (expected build)", argv[1]);
}
