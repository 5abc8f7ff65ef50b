/*
 * bisect_spec.c - a bisection's spec and its stored JSON
 * (bisect_result.h).  The spec is written once, by `bisect start`, and
 * read by resume, reset and every status document.
 */
#include "record/bisect_result.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int dup_opt(char **dst, const char *src)
{
	*dst = NULL;
	return src && !(*dst = strdup(src)) ? -ENOMEM : 0;
}

int bisect_spec_to_json(const struct bisect_spec *sp, char **text)
{
	/* absent, not null, when unset: the reader unpacks them as optional */
	json_t *j = json_pack("{s:s, s:s, s:s, s:s*, s:s*, s:s*, s:s, s:s, s:s*,"
			      " s:s, s:f, s:I}",
			      "repo", sp->repo, "good", sp->good, "bad", sp->bad,
			      "good_given", sp->good_given, "bad_given", sp->bad_given,
			      "metric", sp->metric, "job_path", sp->job_path,
			      "job_text", sp->job_text, "build", sp->build,
			      "testbox", sp->testbox, "confidence", sp->confidence,
			      "max_runs", (json_int_t)sp->max_runs);

	*text = NULL;
	if (!j)
		return -EINVAL;
	*text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return *text ? 0 : -ENOMEM;
}

int bisect_spec_copy(struct bisect_spec *dst, const struct bisect_spec *src)
{
	int ret = 0;

	memset(dst, 0, sizeof(*dst));
	dst->confidence = src->confidence;
	dst->max_runs = src->max_runs;
	ret |= dup_opt(&dst->repo, src->repo);
	ret |= dup_opt(&dst->good, src->good);
	ret |= dup_opt(&dst->bad, src->bad);
	ret |= dup_opt(&dst->good_given, src->good_given);
	ret |= dup_opt(&dst->bad_given, src->bad_given);
	ret |= dup_opt(&dst->metric, src->metric);
	ret |= dup_opt(&dst->job_path, src->job_path);
	ret |= dup_opt(&dst->job_text, src->job_text);
	ret |= dup_opt(&dst->build, src->build);
	ret |= dup_opt(&dst->testbox, src->testbox);
	if (ret) {
		bisect_spec_release(dst);
		return -ENOMEM;
	}
	return 0;
}

int bisect_spec_from_json(const char *text, struct bisect_spec *out)
{
	struct bisect_spec view = { 0 };
	json_int_t max_runs;
	json_t *j = json_loads(text, 0, NULL);
	int ret = -EINVAL;

	memset(out, 0, sizeof(*out));
	if (!j)
		return -EINVAL;
	/* view borrows j's strings; the copy owns its own */
	if (json_unpack(j, "{s:s, s:s, s:s, s?s, s?s, s?s, s:s, s:s, s?s, s:s,"
			" s:F, s:I}",
			"repo", &view.repo, "good", &view.good, "bad", &view.bad,
			"good_given", &view.good_given, "bad_given", &view.bad_given,
			"metric", &view.metric, "job_path", &view.job_path,
			"job_text", &view.job_text, "build", &view.build,
			"testbox", &view.testbox, "confidence", &view.confidence,
			"max_runs", &max_runs) ||
	    !(view.confidence > 0.5 && view.confidence < 1) || max_runs < 1 ||
	    max_runs > UINT32_MAX)
		goto out;
	view.max_runs = (unsigned)max_runs;
	ret = bisect_spec_copy(out, &view);
out:
	json_decref(j);
	return ret;
}

void bisect_spec_release(struct bisect_spec *sp)
{
	free(sp->repo);
	free(sp->good);
	free(sp->bad);
	free(sp->good_given);
	free(sp->bad_given);
	free(sp->metric);
	free(sp->job_path);
	free(sp->job_text);
	free(sp->build);
	free(sp->testbox);
	memset(sp, 0, sizeof(*sp));
}
