/* perfbot.c - main: the subcommand table, nothing else. */
#include "bench/bench.h"
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "util/strbuf.h"
#include "version.h"

#include <stdio.h>
#include <string.h>

char **perfbot_argv;

/* What main() sets up before a command runs (git's RUN_SETUP). */
enum {
	CMD_STORE = 1 << 0,	/* takes --db: cmdutil.h's cmd_store_*() */
};

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	unsigned flags;
};

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct subcommand subcommands[] = {
	{ "bench", cmd_bench, "run a built-in microbenchmark, or sweep 1..N tasks", 0 },
	{ "run", cmd_run, "run a job file's atomic jobs and store the results", CMD_STORE },
	{ "install", cmd_install, "install the Debian packages a job file needs", 0 },
	{ "job", cmd_job, "split a job file into its atomic jobs", 0 },
	{ "results", cmd_results, "list stored results, or show one run", CMD_STORE },
	{ "compare", cmd_compare, "what changed between commits, with statistics", CMD_STORE },
	{ "bisect", cmd_bisect, "find the commit that changed a metric, under noise", CMD_STORE },
	{ "report", cmd_report, "write the report: text, email, html or json", CMD_STORE },
	{ "import", cmd_import, "load LKP matrix.json or CSV results into the store", CMD_STORE },
	{ "cache", cmd_cache, "list or clean the persistent build cache", 0 },
	{ "watch", cmd_watch, "the robot: watch trees, bisect changes, report culprits", CMD_STORE },
	{ "history", cmd_history, "a metric over a branch's history: points, change points, alerts", CMD_STORE },
	{ "alerts", cmd_alerts, "the changes the robot found: list, show, ignore, invalid", CMD_STORE },
	{ "publish", cmd_publish, "write the static site: histories, change points, alerts, runs", CMD_STORE },
	{ "guest-run", cmd_guest, "run one atomic job in a kernel's guest; the framed record to stdout", 0 },
	{ "guest-initramfs", cmd_guest, "write the initramfs of a guest that runs one atomic job", 0 },
	{ "kernel", cmd_kernel, "build the kernel of a commit with a job's kernel: section", 0 },
	{ "kexec", cmd_kexec, "boot: kexec: resume the job after a kexec boot, status, abort", CMD_STORE },
	{ "db", cmd_db, "copy a history between stores (SQLite, PostgreSQL)", 0 },
	{ "submit", cmd_submit, "queue a job file's runs for the fleet's workers (PostgreSQL)", CMD_STORE },
	{ "queue", cmd_queue, "the fleet's queue: list, show, cancel, retry, boxes, release, class", CMD_STORE },
	{ "worker", cmd_worker, "a test box of the fleet: claim queued items, run and store them", CMD_STORE },
	{ "stat", cmd_stat, "time any command over repeated runs, compare variants", 0 },
	{ "help", cmd_help, "show this help, or a command's (perfbot help bench)", 0 },
	{ "version", cmd_version, "print perfbot's version", 0 },
};

#define NR_SUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

static const struct subcommand *find_subcommand(const char *name)
{
	for (size_t i = 0; i < NR_SUBCOMMANDS; i++)
		if (!strcmp(subcommands[i].name, name))
			return &subcommands[i];
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: perfbot [--version] [--help] <command> [<args>]\n\n"
		     "commands:\n");
	for (size_t i = 0; i < NR_SUBCOMMANDS; i++)
		fprintf(out, "   %-10s %s\n", subcommands[i].name,
			subcommands[i].summary);
	fprintf(out, "\n'perfbot <command> --help' tells more about a command; 'perfbot help\n"
		     "benchmarks' gives every benchmark's parameters and stats.\n");
}

/*
 * perfbot help benchmarks [--markdown]: the reference built from the
 * benchmarks' tables; --markdown is docs/benchmarks.md, byte for byte.
 */
static int help_benchmarks(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT;
	bool markdown = false;
	int ret = EXIT_OK;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--markdown"))
			markdown = true;
		else
			return cmd_usage_error("help", "unknown option '%s' (help benchmarks takes --markdown)",
					       argv[i]);
	}
	bench_reference(&sb, markdown);
	if (strbuf_error(&sb))
		ret = cmd_failure("help", "out of memory");
	else if (fputs(sb.buf, stdout) == EOF || fflush(stdout))
		ret = cmd_failure("help", "cannot write the reference");
	strbuf_release(&sb);
	return ret;
}

static int cmd_help(int argc, char **argv)
{
	const struct subcommand *sc;
	char help_opt[] = "--help";

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "benchmarks"))
		return help_benchmarks(argc - 1, argv + 1);
	sc = find_subcommand(argv[1]);
	if (!sc || sc->fn == cmd_help || sc->fn == cmd_version) {
		if (!sc) {
			fprintf(stderr, "perfbot: help: unknown command '%s'\n",
				argv[1]);
			return EXIT_USAGE;
		}
		usage(stdout);
		return EXIT_OK;
	}
	return sc->fn(2, (char *[]){ argv[1], help_opt, NULL });
}

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("perfbot %s\n", PERFBOT_VERSION);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct subcommand *sc;

	perfbot_argv = argv;
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-v"))
		return cmd_version(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv + 1);
	sc = find_subcommand(argv[1]);
	if (!sc) {
		fprintf(stderr, "perfbot: '%s' is not a perfbot command; see 'perfbot help'\n",
			argv[1]);
		return EXIT_USAGE;
	}
	argc--;
	argv++;
	if (sc->flags & CMD_STORE) {
		int ret = cmd_store_take_option(sc->name, &argc, argv);

		if (ret)
			return ret;
	}
	return sc->fn(argc, argv);
}
