/* bug.c - see bug.h. */
#include "util/bug.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "perfbot: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
