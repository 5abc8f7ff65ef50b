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
	EXIT_SUSPECT = 3,	/* bisect: a culprit its confirmation did not show */
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
int cmd_publish(int argc, char **argv);
int cmd_guest(int argc, char **argv);	/* guest-run, guest-initramfs */
int cmd_kernel(int argc, char **argv);
int cmd_kexec(int argc, char **argv);	/* resume, status, abort */
int cmd_db(int argc, char **argv);	/* copy */
int cmd_submit(int argc, char **argv);
int cmd_queue(int argc, char **argv);
int cmd_worker(int argc, char **argv);

/*
 * boot: kexec's commands and places (boot/kexec.h) as every command that
 * kexecs takes them (cmd/kexec.c): PERFBOT_KEXEC, PERFBOT_SYSTEMCTL,
 * PERFBOT_SYSTEMD_DIR, PERFBOT_OSRELEASE, PERFBOT_KEXEC_DIR,
 * PERFBOT_KEXEC_INITRD, this perfbot's and the store's absolute paths for
 * the unit (after cmd_store_open(): the store must exist).  0, or an exit
 * status after saying why; cmd_kexec_release() after 0.
 */
#include "boot/kexec.h"

struct cmd_kexec {
	struct kexec_cmds c;
	char *perfbot, *db;
	char *env[8];		/* the unit's Environment=, NULL-terminated */
};

int cmd_kexec_setup(const char *who, struct cmd_kexec *k);
void cmd_kexec_release(struct cmd_kexec *k);

#endif
