#include "util/parse.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The one number grammar (docs/jobs.md, "Numbers"): an integer is "0" or
 * a digit 1-9 then digits -- no sign, no leading zero (is 010 ten or
 * eight?), no 0x; a decimal is an integer, optionally "." and digits, or
 * "." and digits; a real may add an exponent e[+-]digits.  A leading '-'
 * is read only so that "-3" can be called too small rather than garbage.
 * strtod is called only on text that has passed this grammar, so hex
 * floats, inf, nan and locale forms never get through.
 */

/* The length of the integer at s, 0 if there is none or it has a leading 0. */
static size_t scan_int(const char *s)
{
	size_t n = 0;

	while (isdigit((unsigned char)s[n]))
		n++;
	if (n > 1 && s[0] == '0')
		return 0;
	return n;
}

/* The length of the decimal (with an exponent if allowed) at s, or 0. */
static size_t scan_decimal(const char *s, bool exponent)
{
	size_t n = scan_int(s), f = 0;

	if (!n && isdigit((unsigned char)*s))
		return 0;	/* leading zero */
	if (s[n] == '.') {
		while (isdigit((unsigned char)s[n + 1 + f]))
			f++;
		if (!f)
			return 0;
		n += 1 + f;
	}
	if (!n)
		return 0;
	if (exponent && (s[n] == 'e' || s[n] == 'E')) {
		size_t e = n + 1;

		if (s[e] == '+' || s[e] == '-')
			e++;
		if (!isdigit((unsigned char)s[e]))
			return 0;
		while (isdigit((unsigned char)s[e]))
			e++;
		n = e;
	}
	return n;
}

/*
 * A signed decimal at s ('-' only); *end past it.  -1: no number; -2: a
 * number, but not a finite double.
 */
static int read_decimal(const char *s, bool exponent, double *out, const char **end)
{
	const char *p = s + (*s == '-');
	size_t n = scan_decimal(p, exponent);
	char *e;

	if (!n)
		return -1;
	errno = 0;
	*out = strtod(s, &e);
	if (e != p + n)
		return -1;	/* cannot happen after the grammar; be safe */
	if (errno == ERANGE && isinf(*out))
		return -2;
	*end = e;
	return 0;
}

enum parse_status parse_double(const char *s, double *out)
{
	const char *end;
	double v;

	if (read_decimal(s, true, &v, &end) || *end)
		return PARSE_SYNTAX;
	*out = v;
	return PARSE_OK;
}

enum parse_status parse_ulong(const char *s, unsigned long min,
			      unsigned long max, unsigned long *out)
{
	unsigned long v = 0;
	bool neg = *s == '-';
	size_t n = scan_int(s + neg);

	if (!n || s[neg + n])
		return PARSE_SYNTAX;
	if (neg)
		return PARSE_TOO_SMALL;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[neg + i] - '0');

		if (v > (ULONG_MAX - d) / 10)
			return PARSE_TOO_LARGE;
		v = v * 10 + d;
	}
	if (v > max)
		return PARSE_TOO_LARGE;
	if (v < min)
		return PARSE_TOO_SMALL;
	*out = v;
	return PARSE_OK;
}

enum parse_status parse_task_count(const char *s, unsigned ncpus,
				   unsigned max, unsigned *out)
{
	size_t len = strlen(s);
	double pct, n;
	const char *end;

	if (!len || s[len - 1] != '%') {
		unsigned long v;
		enum parse_status st = parse_ulong(s, 1, max, &v);

		if (st == PARSE_OK)
			*out = (unsigned)v;
		return st;
	}
	if (read_decimal(s, false, &pct, &end) || end != s + len - 1)
		return PARSE_SYNTAX;
	if (pct <= 0)
		return PARSE_TOO_SMALL;
	if (pct > PARSE_MAX_PERCENT)
		return PARSE_TOO_LARGE;
	n = floor(pct * ncpus / 100.0);
	if (n < 1)
		n = 1;
	if (n > max)
		return PARSE_TOO_LARGE;
	*out = (unsigned)n;
	return PARSE_OK;
}

enum parse_status parse_duration(const char *s, double *out)
{
	static const struct {
		const char *suffix;
		double scale;
	} units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "m", 60 }, { "h", 3600 },
	};
	const char *end;
	double v;

	if (read_decimal(s, false, &v, &end))
		return PARSE_SYNTAX;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].suffix)) {
			v *= units[i].scale;
			if (fabs(v) > PARSE_MAX_DURATION_S)
				return PARSE_TOO_LARGE;
			*out = v;
			return PARSE_OK;
		}
	}
	return PARSE_SYNTAX;
}

size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *prev = calloc(lb + 1, sizeof(*prev));
	size_t *cur = calloc(lb + 1, sizeof(*cur));
	size_t d = (size_t)-1;

	if (!prev || !cur)
		goto out;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *tmp;

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			size_t best = sub < del ? sub : del;

			cur[j] = best < ins ? best : ins;
		}
		tmp = prev;
		prev = cur;
		cur = tmp;
	}
	d = prev[lb];
out:
	free(prev);
	free(cur);
	return d;
}

void suggest_init(struct suggest *sg, const char *key)
{
	*sg = (struct suggest){ .key = key, .best_d = (size_t)-1 };
}

void suggest_add(struct suggest *sg, const char *candidate)
{
	size_t d = edit_distance(sg->key, candidate);

	if (d < sg->best_d) {
		sg->best_d = d;
		sg->best = candidate;
	}
}

const char *suggest_result(const struct suggest *sg)
{
	return sg->best && sg->best_d <= (strlen(sg->key) + 1) / 2 + 1 ? sg->best
								     : NULL;
}

const char *suggest_nearest(const char *key, const char *const *names)
{
	struct suggest sg;

	suggest_init(&sg, key);
	for (; names && *names; names++)
		suggest_add(&sg, *names);
	return suggest_result(&sg);
}
