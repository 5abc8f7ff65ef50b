#include "util/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* strtod without locale surprises: require a digit first (or sign+digit). */
static int parse_number(const char *s, double *out, const char **end)
{
	char *e;
	const char *p = s;

	if (*p == '+' || *p == '-')
		p++;
	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
		return -1;
	errno = 0;
	*out = strtod(s, &e);
	if (errno || !isfinite(*out))
		return -1;
	*end = e;
	return 0;
}

enum parse_status parse_double(const char *s, double *out)
{
	const char *end;
	double v;

	if (parse_number(s, &v, &end) || *end)
		return PARSE_SYNTAX;
	*out = v;
	return PARSE_OK;
}

enum parse_status parse_ulong(const char *s, unsigned long min,
			      unsigned long max, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (*s == '-')
		return isdigit((unsigned char)s[1]) ? PARSE_TOO_SMALL : PARSE_SYNTAX;
	if (!isdigit((unsigned char)*s))
		return PARSE_SYNTAX;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end)
		return PARSE_SYNTAX;
	if (errno == ERANGE || v > max)
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
	if (parse_number(s, &pct, &end) || end != s + len - 1)
		return PARSE_SYNTAX;
	if (pct <= 0)
		return PARSE_TOO_SMALL;
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

	if (parse_number(s, &v, &end))
		return PARSE_SYNTAX;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].suffix)) {
			*out = v * units[i].scale;
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
