/*
 * job.c - perfbot job split: a job file's atomic jobs, printed as one
 * YAML stream or written one file each.
 */
#define _GNU_SOURCE
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "job/job.h"
#include "run/runner.h"
#include "util/fsutil.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char job_usage[] =
	"usage: perfbot job split JOB.yaml [-s KEY=VALUE ...] [-o DIR]\n"
	"\n"
	"Expand a job file's matrix into its atomic jobs, one per combination\n"
	"of the values of its lists, each named as LKP names it: the testcase,\n"
	"then the value of each parameter in file order, joined with '-'\n"
	"(will-it-scale-100%-thread-futex3).\n"
	"\n"
	"  -s, --set KEY=VALUE  set a parameter: a list narrows to VALUE, a\n"
	"                       value is replaced, a new key is added; repeatable\n"
	"  -o, --output DIR     write DIR/<name>.yaml for each atomic job (DIR is\n"
	"                       created; existing files are replaced) and print\n"
	"                       their paths; default: print the jobs as one YAML\n"
	"                       stream, each document after a '--- # <name>' line\n"
	"  -h, --help           show this help\n"
	"\n"
	"The job file format is in docs/jobs.md. Exit status: 0 done, 1 a file\n"
	"could not be written, 2 bad usage or a bad job file (nothing written).\n";

#define usage_error(...) cmd_usage_error("job", __VA_ARGS__)

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f)
		return -errno;
	if (fputs(text, f) == EOF)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

static int split(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct atomic_job *jobs = NULL;
	struct job_error err;
	char **sets = NULL, *path = NULL;
	const char *outdir = NULL, *file;
	size_t nr_sets = 0, nr = 0;
	int c, ret;

	sets = calloc(argc + 1, sizeof(*sets));
	if (!sets)
		return usage_error("out of memory");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":s:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			sets[nr_sets++] = optarg;
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'h':
			fputs(job_usage, stdout);
			ret = EXIT_OK;
			goto out;
		case ':':
			ret = usage_error("option '%s' needs a value", argv[optind - 1]);
			goto out;
		default:
			ret = usage_error("unknown option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	if (optind >= argc) {
		ret = usage_error("no job file: perfbot job split JOB.yaml");
		goto out;
	}
	if (argc - optind > 1) {
		ret = usage_error("unexpected argument '%s'", argv[optind + 1]);
		goto out;
	}
	file = argv[optind];
	ret = job_load(file, sets, nr_sets, &jobs, &nr, &err);
	if (ret) {
		cmd_print_job_error(&err);
		ret = ret == -ENOMEM ? EXIT_FAILED : EXIT_USAGE;
		goto out;
	}
	/* benchmark parameters too, before anything is printed or written */
	for (size_t i = 0; i < nr; i++)
		if (runner_check_job(&jobs[i], &err)) {
			cmd_print_job_error(&err);
			ret = EXIT_USAGE;
			goto out;
		}
	if (!outdir) {
		for (size_t i = 0; i < nr; i++)
			printf("--- # %s\n%s", jobs[i].name, jobs[i].text);
		ret = fflush(stdout) ? EXIT_FAILED : EXIT_OK;
		goto out;
	}
	ret = make_dirs(outdir);
	if (ret) {
		fprintf(stderr, "perfbot: cannot create %s: %s\n", outdir, strerror(-ret));
		ret = EXIT_FAILED;
		goto out;
	}
	for (size_t i = 0; i < nr; i++) {
		free(path);
		if (asprintf(&path, "%s/%s.yaml", outdir, jobs[i].name) < 0) {
			path = NULL;
			ret = usage_error("out of memory");
			goto out;
		}
		ret = write_file(path, jobs[i].text);
		if (ret) {
			fprintf(stderr, "perfbot: cannot write %s: %s\n", path,
				strerror(-ret));
			ret = EXIT_FAILED;
			goto out;
		}
		printf("%s\n", path);
	}
	ret = EXIT_OK;
out:
	free(path);
	atomic_jobs_release(jobs, nr);
	free(sets);
	return ret;
}

int cmd_job(int argc, char **argv)
{
	if (argc < 2) {
		fputs(job_usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(job_usage, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "split"))
		return split(argc - 1, argv + 1);
	return usage_error("unknown job command '%s' (expected split)", argv[1]);
}
