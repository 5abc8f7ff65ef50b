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
#include "util/quote.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	"                       created; a regular file of that name is replaced,\n"
	"                       a symlink or other file refused) and print their\n"
	"                       paths; default: print the jobs as one YAML\n"
	"                       stream, each document after a '--- # <name>' line\n"
	"  -h, --help           show this help\n"
	"\n"
	"The job file format is in docs/jobs.md. Exit status: 0 done, 1 a file\n"
	"could not be written, 2 bad usage or a bad job file (nothing written).\n";

#define usage_error(...) cmd_usage_error("job", __VA_ARGS__)

/*
 * Write DIR/<name>.yaml through the directory's descriptor: the name has
 * no '/' (job.c's name_part()), O_NOFOLLOW refuses a symlink planted
 * there and O_EXCL a file that appears between the unlink and the open.
 * A regular file of the same name is replaced (a split run again);
 * anything else there (a symlink, a directory, a fifo) is refused.
 */
static int write_file(int dirfd, const char *name, const char *text)
{
	struct stat st;
	FILE *f;
	int fd, ret = 0;

	if (!fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (!S_ISREG(st.st_mode))
			return -EEXIST;
		if (unlinkat(dirfd, name, 0) && errno != ENOENT)
			return -errno;
	}
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0666);
	if (fd < 0)
		return errno == ELOOP ? -EEXIST : -errno;
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (fputs(text, f) == EOF)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* A name that cannot be a file of its own under DIR, or NULL. */
static const char *bad_file_name(const char *name)
{
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return "is not a file name";
	if (strchr(name, '/'))
		return "contains '/'";
	if (strlen(name) + sizeof(".yaml") > NAME_MAX + 1)
		return "is too long for a file name";
	return NULL;
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
	int c, ret, dirfd = -1;

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
		job_error_release(&err);
		ret = ret == -ENOMEM ? EXIT_FAILED : EXIT_USAGE;
		goto out;
	}
	/* benchmark parameters too, before anything is printed or written */
	for (size_t i = 0; i < nr; i++)
		if (runner_check_job(&jobs[i], &err)) {
			cmd_print_job_error(&err);
			job_error_release(&err);
			ret = EXIT_USAGE;
			goto out;
		}
	if (!outdir) {
		for (size_t i = 0; i < nr; i++) {
			/* the name is one line (name_part()); quoted all the same */
			fputs("--- # ", stdout);
			quote_fputs(jobs[i].name, stdout);
			printf("\n%s", jobs[i].text);
		}
		ret = fflush(stdout) ? EXIT_FAILED : EXIT_OK;
		goto out;
	}
	/* every name is checked before the first file is written */
	for (size_t i = 0; i < nr; i++) {
		const char *why = bad_file_name(jobs[i].name);

		if (why) {
			char *q = quote_c(jobs[i].name, true);

			fprintf(stderr, "perfbot: %s: atomic job name %s %s\n", file,
				q ? q : "?", why);
			free(q);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	ret = make_dirs(outdir);
	if (ret) {
		ret = cmd_failure("job", "cannot create %s: %s", outdir, strerror(-ret));
		goto out;
	}
	dirfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		ret = cmd_failure("job", "cannot open %s: %s", outdir, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < nr; i++) {
		free(path);
		if (asprintf(&path, "%s/%s.yaml", outdir, jobs[i].name) < 0) {
			path = NULL;
			ret = usage_error("out of memory");
			goto out;
		}
		ret = write_file(dirfd, strrchr(path, '/') + 1, jobs[i].text);
		if (ret) {
			cmd_failure("job", "cannot write %s: %s", path,
				    ret == -EEXIST ? "it exists and is not a regular file"
						   : strerror(-ret));
			ret = EXIT_FAILED;
			goto out;
		}
		quote_fputs(path, stdout);
		putchar('\n');
	}
	ret = EXIT_OK;
out:
	if (dirfd >= 0)
		close(dirfd);
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
