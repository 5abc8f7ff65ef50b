/*
 * bisect_json.c - a bisection's report as its JSON document
 * (bisect_report.h; docs/report.md, "json"): the one serializer,
 * record/bisect_result.h's, indented as perfbot prints JSON.
 */
#include "report/bisect_report.h"

#include <errno.h>
#include <stdlib.h>

int report_bisect_json(FILE *out, const struct bisect_result *r)
{
	char err[256], *text = NULL;
	int ret;

	if (!r)
		return -EINVAL;
	ret = bisect_result_to_json(r, BISECT_JSON_INDENT, &text, err, sizeof(err));
	if (ret)
		return ret;
	if (fputs(text, out) == EOF || fputc('\n', out) == EOF)
		ret = -EIO;
	free(text);
	return ret;
}
