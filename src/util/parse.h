/*
 * parse.h - command-line and job values: counts, task counts, durations.
 *
 * Every parser takes the whole string (no trailing junk, no leading
 * space), writes *out only on success and returns a parse_status, so the
 * caller can name the bad value in its own message.  No state.
 *
 * One grammar for every number perfbot reads from a job file or the
 * command line (docs/jobs.md, "Numbers"): an integer is decimal digits,
 * "0" or without a leading zero, no sign, no 0x; a decimal adds an
 * optional fraction (".5", "2.25"); only parse_double takes an exponent.
 * No hex, inf or nan.  PARSE_RULE_* say so in messages.
 */
#ifndef PERFBOT_UTIL_PARSE_H
#define PERFBOT_UTIL_PARSE_H

#include <stddef.h>

/* durations: 30 days; percentages of the CPUs: 1000% */
#define PARSE_MAX_DURATION_S (30 * 24 * 3600.0)
#define PARSE_MAX_PERCENT 1000

/* the rules, for "... is not a <kind> (<rule>)" messages */
#define PARSE_RULE_INTEGER "decimal digits, no sign or leading zero"
#define PARSE_RULE_DURATION "a decimal number of seconds, or with a unit ms, s, m or h"
#define PARSE_RULE_TASKS "a whole number, or a percentage of the CPUs such as 50%"

enum parse_status {
	PARSE_OK = 0,
	PARSE_SYNTAX,		/* not a number of the expected form */
	PARSE_TOO_SMALL,	/* zero or negative where that makes no sense */
	PARSE_TOO_LARGE,	/* above the caller's maximum */
};

/* A finite decimal number, the whole string ("0.05", "-3", "1e-3"). */
enum parse_status parse_double(const char *s, double *out);

/* A decimal integer in [min, max]; "-N" is PARSE_TOO_SMALL. */
enum parse_status parse_ulong(const char *s, unsigned long min,
			      unsigned long max, unsigned long *out);

/*
 * A task count: "N" (1..max) or "N%" of ncpus, rounded down and at least 1
 * ("P%" with 0 < P <= PARSE_MAX_PERCENT, decimals allowed).  As LKP
 * resolves nr_task.
 */
enum parse_status parse_task_count(const char *s, unsigned ncpus,
				   unsigned max, unsigned *out);

/*
 * A duration in seconds: a decimal number with an optional unit
 * ms, s, m or h ("0.3", "300ms", "5s", "2m"), no exponent; more than
 * PARSE_MAX_DURATION_S either way is PARSE_TOO_LARGE.  Negative and zero
 * values parse (PARSE_OK); the caller decides which it accepts.
 */
enum parse_status parse_duration(const char *s, double *out);

/* Levenshtein distance between two strings (for "did you mean"). */
size_t edit_distance(const char *a, const char *b);

/*
 * "Did you mean": the candidate nearest to `key` by edit distance, the
 * first of equals, or NULL when the nearest is more than half the key
 * away (a far suggestion only confuses).  Fed one candidate at a time,
 * so any table can be searched:
 *	struct suggest sg;
 *	suggest_init(&sg, key);
 *	for (...) suggest_add(&sg, name);
 *	near = suggest_result(&sg);
 * The strings must outlive the struct; nothing is allocated.
 */
struct suggest {
	const char *key;
	const char *best;
	size_t best_d;
};

void suggest_init(struct suggest *sg, const char *key);
void suggest_add(struct suggest *sg, const char *candidate);
const char *suggest_result(const struct suggest *sg);
/* The same over a NULL-terminated list. */
const char *suggest_nearest(const char *key, const char *const *names);

#endif
