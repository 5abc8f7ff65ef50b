/*
 * install.c - perfbot install: the Debian packages a job lists under
 * `packages:`, so LKP's "lkp install job.yaml; lkp run job.yaml" has its
 * perfbot twin.
 */
#include "bench/exec.h"
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "job/job.h"
#include "util/interrupt.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_OVERRIDES 64

static const char install_usage[] =
	"usage: perfbot install JOB.yaml [-s KEY=VALUE ...]\n"
	"\n"
	"Install the Debian packages the job lists under packages: with\n"
	"`apt-get install -y`, after printing them.  Without root, print the\n"
	"command to run instead (exit 1: nothing was installed).\n";

/* Every package of every atomic job, once, in first-seen order. */
static char **collect_packages(const struct atomic_job *jobs, size_t nr,
			       size_t *count)
{
	size_t cap = 3 + 1, n = 3;
	char **argv;

	for (size_t i = 0; i < nr; i++)
		for (char **p = jobs[i].packages; p && *p; p++)
			cap++;
	argv = calloc(cap, sizeof(*argv));
	if (!argv)
		return NULL;
	argv[0] = "apt-get";
	argv[1] = "install";
	argv[2] = "-y";
	for (size_t i = 0; i < nr; i++)
		for (char **p = jobs[i].packages; p && *p; p++) {
			bool seen = false;

			for (size_t k = 3; k < n && !seen; k++)
				seen = !strcmp(argv[k], *p);
			if (!seen)
				argv[n++] = *p;
		}
	*count = n - 3;
	return argv;
}

#define usage_error(...) cmd_usage_error("install", __VA_ARGS__)

int cmd_install(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *overrides[MAX_OVERRIDES];
	size_t nr_overrides = 0, nr = 0, count = 0;
	struct atomic_job *jobs = NULL;
	struct job_error jerr = { 0 };
	char **apt = NULL;
	int c, err, ret = EXIT_OK;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(install_usage, stdout);
			return EXIT_OK;
		case 's':
			if ((err = cmd_take_set("install", optarg, overrides, &nr_overrides,
						 MAX_OVERRIDES)))
				return err;
			break;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		return usage_error("expected one job file: perfbot install JOB.yaml");
	if (job_load(argv[optind], overrides, nr_overrides, &jobs, &nr, &jerr)) {
		cmd_print_job_error(&jerr);
		job_error_release(&jerr);
		return EXIT_USAGE;
	}
	apt = collect_packages(jobs, nr, &count);
	if (!apt) {
		fprintf(stderr, "perfbot: install: out of memory\n");
		ret = EXIT_FAILED;
		goto out;
	}
	if (!count) {
		printf("%s needs no package\n", argv[optind]);
		goto out;
	}
	printf("packages:");
	for (size_t i = 0; i < count; i++)
		printf(" %s", apt[3 + i]);
	putchar('\n');
	if (geteuid() != 0) {
		printf("not root; install them with:\n  apt-get install -y");
		for (size_t i = 0; i < count; i++)
			printf(" %s", apt[3 + i]);
		putchar('\n');
		ret = EXIT_FAILED;
		goto out;
	}
	fflush(stdout);
	{
		struct exec_opts eo = { .show_output = true };
		struct exec_run r;
		int err;

		setenv("DEBIAN_FRONTEND", "noninteractive", 1);
		interrupt_install();
		eo.stop = &interrupted;
		err = exec_run_once(apt, &eo, &r);
		if (err) {
			fprintf(stderr, "perfbot: install: cannot run apt-get: %s\n",
				strerror(-err));
			ret = EXIT_FAILED;
		} else if (!exec_run_ok(&r)) {
			fprintf(stderr, "perfbot: install: apt-get failed\n");
			ret = interrupted ? 128 + interrupted : EXIT_FAILED;
		}
	}
out:
	free(apt);
	atomic_jobs_release(jobs, nr);
	return ret;
}
