/*
 * cmdutil.h - what every command prints the same way.
 *
 * cmd_usage_error() prints "perfbot: <who>: <message>" to stderr and
 * returns EXIT_USAGE, so a command writes `return usage_error(...)` with
 * `#define usage_error(...) cmd_usage_error("run", __VA_ARGS__)`.
 * cmd_print_job_error() prints a job file error as
 * "perfbot: file:line:column: message" (no position when it has none).
 */
#ifndef PERFBOT_CMD_CMDUTIL_H
#define PERFBOT_CMD_CMDUTIL_H

#include "job/job.h"

int cmd_usage_error(const char *who, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cmd_print_job_error(const struct job_error *e);

#endif
