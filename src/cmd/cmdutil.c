#include "cmd/cmdutil.h"
#include "cmd/cmds.h"

#include <stdarg.h>
#include <stdio.h>

int cmd_usage_error(const char *who, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "perfbot: %s: ", who);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

void cmd_print_job_error(const struct job_error *e)
{
	if (e->line)
		fprintf(stderr, "perfbot: %s:%u:%u: %s\n", e->file, e->line,
			e->column, e->msg);
	else if (e->file[0])
		fprintf(stderr, "perfbot: %s: %s\n", e->file, e->msg);
	else
		fprintf(stderr, "perfbot: %s\n", e->msg);
}

int cmd_print_json(const char *who, json_t *j)
{
	int err = !j || json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));

	json_decref(j);
	if (err) {
		fprintf(stderr, "perfbot: %s: cannot write the JSON result\n", who);
		return -1;
	}
	putchar('\n');
	return 0;
}
