/*
 * bug.h - invariants that hold unless perfbot itself is wrong.
 *
 * BUG(fmt, ...) and BUG_ON(cond) print "perfbot: BUG: file:line: ..." to
 * stderr and abort(), in every build (unlike assert(), which NDEBUG
 * removes from the optimised build that users run).  They are for
 * perfbot's own mistakes only: bad input, a full disk or a missing
 * syscall are errors the caller returns, never a BUG.
 * Async-signal-unsafe (stdio); never call from a signal handler or a
 * forked child before exec.
 */
#ifndef PERFBOT_UTIL_BUG_H
#define PERFBOT_UTIL_BUG_H

#include <stdnoreturn.h>

noreturn void bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), cold));

#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
#define BUG_ON(cond)                                                         \
	do {                                                                 \
		if (__builtin_expect(!!(cond), 0))                           \
			BUG("%s", #cond);                                    \
	} while (0)

#endif
