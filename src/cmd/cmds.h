/*
 * cmds.h - the subcommands and the exit statuses they choose.
 *
 * Each cmd_<name>() gets argv with argv[0] = "<name>", prints its own
 * output and errors ("perfbot: <what failed>: <subject>") and returns the
 * process exit status.  Only these functions and main() pick exit codes.
 */
#ifndef PERFBOT_CMD_CMDS_H
#define PERFBOT_CMD_CMDS_H

enum perfbot_exit {
	EXIT_OK = 0,
	EXIT_FAILED = 1,	/* the benchmark ran and failed, or perfbot did */
	EXIT_USAGE = 2,		/* bad command line; nothing was started */
	EXIT_UNSUPPORTED = 77,	/* cannot run on this machine (as automake's SKIP) */
	/* interrupted by signal S: 128 + S, as a shell reports it */
};

/* main()'s argv, for commands that re-execute perfbot (ASLR off). */
extern char **perfbot_argv;

int cmd_bench(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_job(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_install(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_alerts(int argc, char **argv);
int cmd_guest(int argc, char **argv);	/* guest-run, guest-initramfs */
int cmd_kernel(int argc, char **argv);

#endif
