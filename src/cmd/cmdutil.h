/*
 * cmdutil.h - what every command prints the same way.
 *
 * cmd_usage_error() prints "perfbot: <who>: <message>" to stderr and
 * returns EXIT_USAGE, so a command writes `return usage_error(...)` with
 * `#define usage_error(...) cmd_usage_error("run", __VA_ARGS__)`.
 * cmd_print_job_error() prints a job file error as
 * "perfbot: file:line:column: message" (no position when it has none).
 * cmd_print_json() writes a JSON result to stdout as every command does
 * (indented, 10 significant digits) and takes the reference it is given;
 * NULL (the result could not be built) or a write error prints
 * "perfbot: <who>: cannot write the JSON result" and returns -1.
 */
#ifndef PERFBOT_CMD_CMDUTIL_H
#define PERFBOT_CMD_CMDUTIL_H

#include "job/job.h"
#include "store/store.h"
#include "util/colour.h"

#include <jansson.h>
#include <stdbool.h>

int cmd_usage_error(const char *who, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same, for a failure that is not the user's input: EXIT_FAILED. */
int cmd_failure(const char *who, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cmd_print_job_error(const struct job_error *e);
/*
 * What perfbot run checks of an atomic job before it measures: a testcase
 * name the store takes, and the runner's own check (runner_check_job()).
 * 0, or the error printed and EXIT_USAGE.
 */
int cmd_check_runnable_job(const struct atomic_job *job);
/*
 * lifetime_start() (util/lifetime.h) for a command that starts processes
 * or temp files: 0, or EXIT_FAILED after saying why.  Before any thread.
 */
int cmd_lifetime_start(const char *who);
/*
 * A duration option by util/parse.h's grammar and bound: 0, or the usage
 * error "invalid <what> '<arg>': ..." printed and EXIT_USAGE.  Zero and
 * negative values are the caller's to refuse.
 */
int cmd_parse_duration(const char *who, const char *what, const char *arg,
		       double *out);
/*
 * --format of a command that writes text, json, csv or markdown: *json
 * set for json, *tabular an enum tabular_format (report/tabular.h) for
 * csv and markdown, else -1 (text).  0, or the usage error naming arg and
 * the accepted values printed and EXIT_USAGE.
 */
int cmd_parse_format(const char *who, const char *arg, bool *json, int *tabular);
/*
 * -s KEY=VALUE, a job parameter set on the command line (job_load()'s
 * overrides): 0, or the usage error "invalid -s '<arg>': expected
 * KEY=VALUE" printed and EXIT_USAGE when there is no '=' or nothing
 * before it.  Every command that takes -s says it the same way.
 */
int cmd_check_set(const char *who, const char *arg);
/*
 * cmd_check_set(), then arg appended to sets[*nr] (borrowed: argv's
 * string), at most max of them ("at most <max> -s" otherwise).
 */
int cmd_take_set(const char *who, char *arg, char **sets, size_t *nr, size_t max);
/*
 * --color WHEN (util/colour.h): 0, or the usage error "invalid --color
 * '<arg>': expected auto, always or never" printed and EXIT_USAGE.
 */
int cmd_colour_option(const char *who, const char *arg, enum colour_when *out);
/* The --color line of every command's help that has it. */
#define CMD_COLOR_USAGE \
	"      --color WHEN      colour verdicts: auto (a terminal, unless NO_COLOR\n" \
	"                        is set or TERM=dumb; the default), always, never\n"
int cmd_print_json(const char *who, json_t *j);
/*
 * Unix time t as every command prints a time: "2026-12-02 15:50:01 UTC"
 * ("%.3f" of t when it cannot be).
 */
void cmd_format_utc(char *buf, size_t len, double t);
/* The robot's log prefix for now: "2026-12-02T15:50:01Z perfbot watch: ". */
void cmd_robot_stamp(char *buf, size_t len);
/*
 * msg written to the standard input of argv (a mail transfer agent:
 * `sendmail -t`), which must exit 0: EXIT_OK, or EXIT_FAILED after
 * saying why.  SIGPIPE of a command that exits early is no death.
 */
int cmd_pipe_message(const char *who, char *const *argv, const char *msg, size_t len);

/*
 * --db, for the commands perfbot.c's table marks CMD_STORE (git's
 * RUN_SETUP is the model): main() takes `--db PATH` or `--db=PATH` out of
 * argv wherever it stands before a `--`, so the command's own parser never
 * sees it, and the command opens the store with cmd_store_open().
 * cmd_store_take_option() returns 0, or EXIT_USAGE after printing "--db
 * needs a path" (an empty or missing value); the last --db given wins.
 * cmd_store_location() is --db, else store_default_location(); NULL with
 * "no database location: ..." printed when there is neither.
 * cmd_store_open() opens it in `mode`: 0, or EXIT_FAILED after printing
 * the store's message.  CMD_DB_USAGE is the line every usage shows.
 * Main thread only.
 */
int cmd_store_take_option(const char *who, int *argc, char **argv);
const char *cmd_store_location(const char *who);
int cmd_store_open(const char *who, enum store_mode mode, struct store **s);

#define CMD_DB_USAGE \
	"      --db PATH         the results database (default: $PERFBOT_DB, else\n" \
	"                        $XDG_DATA_HOME/perfbot/results.db, else\n" \
	"                        ~/.local/share/perfbot/results.db)\n"

/*
 * Whether jobs[nr] measure what repo's commit sha (given as rev) is: a
 * Linux kernel tree needs every job to have a kernel: section (without
 * one, the runs would measure the running kernel and be filed under the
 * commit: a result that lies); a kernel: section needs a kernel tree;
 * boot: kexec only when kexec is true (a command that can come back
 * after the reboot).  0; -EINVAL with why set (a sentence, no "perfbot:"
 * prefix); another negative errno when the tree cannot be read (why set).
 */
int cmd_kernel_jobs_fit(const char *repo, const char *rev, const char *sha,
			const struct atomic_job *jobs, size_t nr, bool kexec, struct strbuf *why);

#endif
