/*
 * bisect_result_shape.c - the bisection result's document, written down
 * once (bisect_result_internal.h; docs/report.md, "The document"): each
 * key, the member it holds and what kind of value it is, in the order
 * perfbot has always stored them -- what a level found as it went (its
 * ends, baseline, search, verdict, evidence, a merge inside), then what
 * the whole bisection is, then its limits and costs.  The reader, the
 * writer and the rules walk these tables; none lists the keys again.
 */
#include "record/bisect_result_internal.h"

#include <stddef.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define FIELD(type, key_, kind_, member, ...)                                \
	{ .key = key_, .kind = kind_, .off = offsetof(type, member), __VA_ARGS__ }

static const struct field commit_fields[] = {
	FIELD(struct bisect_commit, "sha", FK_STRING, sha, .flags = F_REQUIRED),
	FIELD(struct bisect_commit, "subject", FK_STRING, subject),
	FIELD(struct bisect_commit, "author", FK_STRING, author),
	FIELD(struct bisect_commit, "date", FK_STRING, date),
};
static const struct shape commit_shape = { commit_fields, N(commit_fields), false };

static const struct field end_fields[] = {
	FIELD(struct bisect_end, NULL, FK_INLINE, commit, .sub = &commit_shape),
	FIELD(struct bisect_end, "given", FK_STRING, given),
};
static const struct shape end_shape = { end_fields, N(end_fields), true };

static const struct field sample_fields[] = {
	FIELD(struct bisect_sample, "sha", FK_STRING, sha),
	FIELD(struct bisect_sample, "n", FK_COUNT, n),
	FIELD(struct bisect_sample, "mean", FK_NUMBER, mean),
	FIELD(struct bisect_sample, "stddev", FK_NUMBER, stddev),
	FIELD(struct bisect_sample, "values", FK_VALUES, values),
	FIELD(struct bisect_sample, "others_cpu", FK_NUMBER, others_cpu),
	FIELD(struct bisect_sample, "steal", FK_NUMBER, steal),
};
static const struct shape sample_shape = { sample_fields, N(sample_fields), true };

static const struct field change_fields[] = {
	FIELD(struct bisect_change, "pct", FK_NUMBER, pct),
	FIELD(struct bisect_change, "low", FK_NUMBER, low),
	FIELD(struct bisect_change, "high", FK_NUMBER, high),
	FIELD(struct bisect_change, "p", FK_NUMBER, p),
	FIELD(struct bisect_change, "verdict", FK_STRING, verdict),
};
static const struct shape change_shape = { change_fields, N(change_fields), true };

static const struct field baseline_fields[] = {
	FIELD(struct bisect_baseline, "good", FK_OBJECT, good, .sub = &sample_shape),
	FIELD(struct bisect_baseline, "bad", FK_OBJECT, bad, .sub = &sample_shape),
	FIELD(struct bisect_baseline, "change", FK_OBJECT, change, .sub = &change_shape),
};
static const struct shape baseline_shape = { baseline_fields, N(baseline_fields), true };

static const struct field confirmation_fields[] = {
	FIELD(struct bisect_confirmation, NULL, FK_INLINE, change, .sub = &change_shape),
	FIELD(struct bisect_confirmation, "parent", FK_OBJECT, parent, .sub = &sample_shape),
	FIELD(struct bisect_confirmation, "culprit", FK_OBJECT, culprit, .sub = &sample_shape),
	FIELD(struct bisect_confirmation, "disturbed", FK_STRING, disturbed),
};
static const struct shape confirmation_shape = {
	confirmation_fields, N(confirmation_fields), true
};

static const struct field entry_fields[] = {
	FIELD(struct bisect_entry, NULL, FK_INLINE, commit, .sub = &commit_shape),
	FIELD(struct bisect_entry, "index", FK_COUNT, index),
	FIELD(struct bisect_entry, "state", FK_STATE, state),
	FIELD(struct bisect_entry, "skipped", FK_BOOL, skipped),
	FIELD(struct bisect_entry, "n", FK_COUNT, n),
	FIELD(struct bisect_entry, "p_bad", FK_NUMBER, p_bad),
	FIELD(struct bisect_entry, "mean", FK_NUMBER, mean),
	FIELD(struct bisect_entry, "stddev", FK_NUMBER, stddev),
	FIELD(struct bisect_entry, "values", FK_VALUES, values),
	FIELD(struct bisect_entry, "note", FK_STRING, note),
	FIELD(struct bisect_entry, "probability", FK_NUMBER, probability),
};
const struct shape entry_shape = { entry_fields, N(entry_fields), false };

/* the merge's own keys; "inner", a level, is FK_MERGE's */
static const struct field merge_fields[] = {
	FIELD(struct bisect_merge, NULL, FK_INLINE, commit, .sub = &commit_shape),
};
const struct shape merge_shape = { merge_fields, N(merge_fields), false };

/* ---- a level, in three runs the whole document places apart ---- */

static const struct field found_fields[] = {
	FIELD(struct bisect_level, "good", FK_OBJECT, good, .sub = &end_shape,
	      .flags = F_REQUIRED),
	FIELD(struct bisect_level, "bad", FK_OBJECT, bad, .sub = &end_shape,
	      .flags = F_REQUIRED),
	FIELD(struct bisect_level, "candidates", FK_COUNT, candidates),
	FIELD(struct bisect_level, "baseline", FK_OBJECT, baseline, .sub = &baseline_shape),
	FIELD(struct bisect_level, "runs_search", FK_COUNT, runs_search),
	FIELD(struct bisect_level, "best", FK_ENTRIES, best),
	FIELD(struct bisect_level, "commits", FK_ENTRIES, commits),
	FIELD(struct bisect_level, "status", FK_STATUS, status),
	FIELD(struct bisect_level, "culprit", FK_ENTRY, culprit,
	      .have = offsetof(struct bisect_level, have_culprit)),
	FIELD(struct bisect_level, "range", FK_ENTRIES, range),
	FIELD(struct bisect_level, "confirmation", FK_OBJECT, confirmation,
	      .sub = &confirmation_shape),
	FIELD(struct bisect_level, "merge", FK_MERGE, merge),
};
static const struct shape found_shape = { found_fields, N(found_fields), false };

static const struct field limits_fields[] = {
	FIELD(struct bisect_level, "confidence", FK_NUMBER, confidence),
	FIELD(struct bisect_level, "max_runs", FK_COUNT, max_runs),
	FIELD(struct bisect_level, "runs", FK_COUNT, runs),
	FIELD(struct bisect_level, "builds", FK_COUNT, builds),
	FIELD(struct bisect_level, "build_failures", FK_COUNT, build_failures),
};
static const struct shape limits_shape = { limits_fields, N(limits_fields), false };

static const struct field more_fields[] = {
	FIELD(struct bisect_level, "runs_baseline", FK_COUNT, runs_baseline),
	FIELD(struct bisect_level, "runs_confirm", FK_COUNT, runs_confirm),
	FIELD(struct bisect_level, "message", FK_STRING, message),
};
static const struct shape more_shape = { more_fields, N(more_fields), false };

static const struct field level_fields[] = {
	{ NULL, FK_INLINE, 0, &found_shape, 0, 0 },
	{ NULL, FK_INLINE, 0, &limits_shape, 0, 0 },
	{ NULL, FK_INLINE, 0, &more_shape, 0, 0 },
};
const struct shape level_shape = { level_fields, N(level_fields), false };

/* ---- the whole ---- */

#define RESULT(key, kind, member, ...) FIELD(struct bisect_result, key, kind, member, __VA_ARGS__)
#define LEVEL(shape) RESULT(NULL, FK_INLINE, level, .sub = &(shape))

static const struct field result_fields[] = {
	RESULT("params", FK_PARAMS, params),
	LEVEL(found_shape),
	RESULT("id", FK_ID, id),
	RESULT("repo", FK_STRING, repo),
	RESULT("job", FK_STRING, job),
	RESULT("testcase", FK_STRING, testcase),
	RESULT("testbox", FK_STRING, testbox),
	RESULT("machine", FK_STRING, machine),
	RESULT("job_text", FK_STRING, job_text),
	RESULT("metric", FK_STRING, metric),
	LEVEL(limits_shape),
	RESULT("higher_is_better", FK_BOOL, higher_is_better),
	RESULT("unit", FK_STRING, unit),
	LEVEL(more_shape),
	RESULT("origin_url", FK_STRING, origin_url),
	RESULT("job_path", FK_STRING, job_path),
	RESULT("spec", FK_SPEC, spec),
};
const struct shape result_shape = { result_fields, N(result_fields), false };

/*
 * What `bisect start` stores when a bisection fails (id, status,
 * message), then what its spec completes in a status document, then
 * anything else, in the order of a whole one.
 */
static const struct field bare_fields[] = {
	RESULT("id", FK_ID, id),
	RESULT("status", FK_STATUS, level.status),
	RESULT("message", FK_STRING, level.message),
	RESULT("good", FK_OBJECT, level.good, .sub = &end_shape),
	RESULT("bad", FK_OBJECT, level.bad, .sub = &end_shape),
	RESULT("repo", FK_STRING, repo),
	RESULT("job_path", FK_STRING, job_path),
	RESULT("job_text", FK_STRING, job_text),
	RESULT("metric", FK_STRING, metric),
	RESULT("testbox", FK_STRING, testbox),
	RESULT("confidence", FK_NUMBER, level.confidence),
	RESULT("max_runs", FK_COUNT, level.max_runs),
	RESULT("params", FK_PARAMS, params),
	RESULT("job", FK_STRING, job),
	RESULT("testcase", FK_STRING, testcase),
	RESULT("machine", FK_STRING, machine),
	RESULT("runs", FK_COUNT, level.runs),
	RESULT("builds", FK_COUNT, level.builds),
	RESULT("build_failures", FK_COUNT, level.build_failures),
	RESULT("higher_is_better", FK_BOOL, higher_is_better),
	RESULT("unit", FK_STRING, unit),
	RESULT("runs_baseline", FK_COUNT, level.runs_baseline),
	RESULT("runs_confirm", FK_COUNT, level.runs_confirm),
	RESULT("origin_url", FK_STRING, origin_url),
	RESULT("spec", FK_SPEC, spec),
};
const struct shape bare_shape = { bare_fields, N(bare_fields), false };
