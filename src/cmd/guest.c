/*
 * guest.c - the guest side of a kernel under test (docs/kernel-guest.md):
 *
 *   perfbot guest-run JOB.yaml [--commit C] [--no-monitors]
 *	runs the job's one atomic job (monitors on) and writes its run
 *	record, JSON framed (boot/frame.h), to stdout -- the guest's /init
 *	sends it to /dev/hvc0.  Exit 0 once a record is written, whatever
 *	the run's status; 1 when none could be; 2 bad usage or job.
 *   perfbot guest-initramfs OUT JOB.yaml [--busybox PATH] [--perfbot PATH]
 *	writes the initramfs (newc cpio) that runs JOB.yaml's one atomic job
 *	in a guest: this perfbot (or PATH), its libraries, busybox.
 */
#include "boot/frame.h"
#include "boot/initramfs.h"
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "job/job.h"
#include "record/record_json.h"
#include "run/runner.h"
#include "util/interrupt.h"

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char run_usage[] =
	"usage: perfbot guest-run JOB.yaml [--commit C] [--no-monitors]\n"
	"\n"
	"Run the job's one atomic job and write its run record to stdout as JSON\n"
	"framed for a console (docs/kernel-guest.md).  This is what a kernel\n"
	"under test runs inside its guest; it runs on any machine.\n"
	"\n"
	"      --commit C        the commit recorded (default: the kernel release)\n"
	"      --no-monitors     run without the system monitors\n"
	"\n"
	"Exit status: 0 a record was written (whatever the run's status), 1 none\n"
	"could be, 2 bad usage or a job that is not one valid atomic job.\n";

static const char initramfs_usage[] =
	"usage: perfbot guest-initramfs OUT JOB.yaml [--busybox PATH] [--perfbot PATH]\n"
	"\n"
	"Write the initramfs (an uncompressed newc cpio archive) of a guest that\n"
	"runs JOB.yaml's one atomic job: /init, /job.yaml, /bin/perfbot with the\n"
	"libraries its loader needs, /bin/busybox (static) and its applet links.\n"
	"\n"
	"      --busybox PATH    a static busybox (default /bin/busybox)\n"
	"      --perfbot PATH    the perfbot binary to copy (default: this one)\n"
	"\n"
	"Exit status: 0 written, 1 a file could not be read or written, 2 bad usage.\n";

/* The job's one atomic job, or the exit status (with *j untouched). */
static int load_one(const char *who, const char *path, struct atomic_job **jobs, size_t *nr)
{
	struct job_error jerr = { 0 };

	if (job_load(path, NULL, 0, jobs, nr, &jerr)) {
		cmd_print_job_error(&jerr);
		job_error_release(&jerr);
		return EXIT_USAGE;
	}
	if (*nr != 1) {
		cmd_usage_error(who, "%s: %zu atomic jobs; a guest runs one (perfbot job split)",
				path, *nr);
		atomic_jobs_release(*jobs, *nr);
		return EXIT_USAGE;
	}
	if (runner_check_job(&(*jobs)[0], &jerr)) {
		cmd_print_job_error(&jerr);
		job_error_release(&jerr);
		atomic_jobs_release(*jobs, *nr);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int guest_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "commit", required_argument, NULL, 'c' },
		{ "no-monitors", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct runner_opts ro = { .monitors = true, .warm_up = true, .stop = &interrupted };
	struct strbuf err = STRBUF_INIT, framed = STRBUF_INIT;
	struct atomic_job *jobs = NULL;
	struct run_record rec;
	size_t nr = 0;
	char *json = NULL;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			ro.commit = optarg;
			break;
		case 'M':
			ro.monitors = false;
			break;
		case 'h':
			fputs(run_usage, stdout);
			return EXIT_OK;
		case ':':
			return cmd_usage_error("guest-run", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cmd_usage_error("guest-run", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error("guest-run", "expected one JOB.yaml (see --help)");
	if ((ret = load_one("guest-run", argv[optind], &jobs, &nr)))
		return ret;
	if ((ret = cmd_lifetime_start("guest-run")))
		goto out;
	interrupt_install();
	if (runner_run(&jobs[0], &ro, &rec, &err)) {
		ret = cmd_failure("guest-run", "%s: %s", jobs[0].name, err.buf);
		goto out;
	}
	if (record_to_json(&rec, &json) || frame_write(&framed, json, strlen(json))) {
		ret = cmd_failure("guest-run", "out of memory");
	} else if (fwrite(framed.buf, 1, framed.len, stdout) != framed.len || fflush(stdout)) {
		ret = cmd_failure("guest-run", "cannot write the record to stdout");
	} else {
		fprintf(stderr, "perfbot: guest-run: %s: %s, record of %zu bytes written\n",
			jobs[0].name, run_status_name(rec.status), strlen(json));
		ret = EXIT_OK;
	}
	run_record_release(&rec);
out:
	free(json);
	strbuf_release(&framed);
	strbuf_release(&err);
	atomic_jobs_release(jobs, nr);
	return ret;
}

static int guest_initramfs(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "busybox", required_argument, NULL, 'b' },
		{ "perfbot", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct initramfs_spec spec = { .busybox = "/bin/busybox" };
	struct strbuf err = STRBUF_INIT;
	struct atomic_job *jobs = NULL;
	char self[PATH_MAX];
	size_t nr = 0;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			spec.busybox = optarg;
			break;
		case 'p':
			spec.perfbot = optarg;
			break;
		case 'h':
			fputs(initramfs_usage, stdout);
			return EXIT_OK;
		case ':':
			return cmd_usage_error("guest-initramfs", "option '%s' needs a value",
					       argv[optind - 1]);
		default:
			return cmd_usage_error("guest-initramfs", "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return cmd_usage_error("guest-initramfs", "expected OUT and JOB.yaml (see --help)");
	if (!spec.perfbot) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n < 0)
			return cmd_failure("guest-initramfs", "cannot find this perfbot (/proc/self/exe);"
					   " give --perfbot");
		self[n] = '\0';
		spec.perfbot = self;
	}
	if ((ret = load_one("guest-initramfs", argv[optind + 1], &jobs, &nr)))
		return ret;
	spec.job_text = jobs[0].text;
	if (initramfs_build(&spec, argv[optind], &err))
		ret = cmd_failure("guest-initramfs", "%s", err.buf);
	strbuf_release(&err);
	atomic_jobs_release(jobs, nr);
	return ret;
}

int cmd_guest(int argc, char **argv)
{
	if (!strcmp(argv[0], "guest-initramfs"))
		return guest_initramfs(argc, argv);
	return guest_run(argc, argv);
}
