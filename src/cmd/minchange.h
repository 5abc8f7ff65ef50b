/*
 * minchange.h - the --min-change value that perfbot compare and perfbot
 * report share: PCT sets both family floors, PATTERN=PCT adds a rule
 * (struct min_change_rule, stats/compare.h).  One parser, so that both
 * commands accept and refuse the same values.
 */
#ifndef PERFBOT_CMD_MINCHANGE_H
#define PERFBOT_CMD_MINCHANGE_H

#include "stats/compare.h"

/*
 * Parse one --min-change value.  PCT (a finite number of at least 0)
 * goes to *family_pct and returns 0; PATTERN=PCT fills *rule and returns
 * 1, rule->pattern then being the caller's to free.  The PCT follows the
 * last '=', so a pattern may hold one.  -EINVAL for anything else (empty
 * pattern or PCT, not a number, negative), -ENOMEM.
 */
int parse_min_change(const char *arg, struct min_change_rule *rule,
		     double *family_pct);

#endif
