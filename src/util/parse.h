/*
 * parse.h - command-line and job values: counts, task counts, durations.
 *
 * Every parser takes the whole string (no trailing junk, no leading
 * space), writes *out only on success and returns a parse_status, so the
 * caller can name the bad value in its own message.  No state.
 */
#ifndef PERFBOT_UTIL_PARSE_H
#define PERFBOT_UTIL_PARSE_H

#include <stddef.h>

enum parse_status {
	PARSE_OK = 0,
	PARSE_SYNTAX,		/* not a number of the expected form */
	PARSE_TOO_SMALL,	/* zero or negative where that makes no sense */
	PARSE_TOO_LARGE,	/* above the caller's maximum */
};

/* A finite decimal number, the whole string ("0.05", "-3", "1e-3"). */
enum parse_status parse_double(const char *s, double *out);

/* A decimal integer in [min, max]. */
enum parse_status parse_ulong(const char *s, unsigned long min,
			      unsigned long max, unsigned long *out);

/*
 * A task count: "N" (1..max) or "N%" of ncpus, rounded down and at least 1
 * ("P%" with P > 0, decimals allowed).  As LKP resolves nr_task.
 */
enum parse_status parse_task_count(const char *s, unsigned ncpus,
				   unsigned max, unsigned *out);

/*
 * A duration in seconds: a decimal number with an optional unit
 * ms, s, m or h ("0.3", "300ms", "5s", "2m").  Negative and zero values
 * parse (PARSE_OK); the caller decides which it accepts.
 */
enum parse_status parse_duration(const char *s, double *out);

/* Levenshtein distance between two strings (for "did you mean"). */
size_t edit_distance(const char *a, const char *b);

#endif
