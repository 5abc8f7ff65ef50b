#include "cmd/minchange.h"
#include "util/parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool parse_pct(const char *s, double *out)
{
	return parse_double(s, out) == PARSE_OK && *out >= 0;
}

int parse_min_change(const char *arg, struct min_change_rule *rule,
		     double *family_pct)
{
	const char *eq = strrchr(arg, '=');
	double pct;
	char *pattern;

	if (!eq)
		return parse_pct(arg, family_pct) ? 0 : -EINVAL;
	if (eq == arg || !parse_pct(eq + 1, &pct))
		return -EINVAL;
	pattern = strndup(arg, eq - arg);
	if (!pattern)
		return -ENOMEM;
	rule->pattern = pattern;
	rule->pct = pct;
	return 1;
}
