/*
 * Unit tests: record/bisect_result.h, the bisection result's one writer
 * and one reader.
 *
 *  - tests/fixtures/bisect-stored/: bisections in every state as the
 *    released perfbot stored them (STATE.status, .spec, .result) and as
 *    its `bisect status --json` printed them (.document).  The stored
 *    results write back byte for byte, and every stored row reads back to
 *    the same document, byte for byte: old databases read as they did.
 *  - every state: struct -> JSON -> struct -> JSON gives the same bytes.
 *  - tests/fixtures/bisect-result.json, the report's fixture: read and
 *    written again, the same document.
 *  - damaged and crafted documents: refused, the message naming the
 *    field.
 * Fixtures are found at the path of this source file (CMake compiles it
 * by its absolute path).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "record/bisect_result.h"
#include "util/strbuf.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char err[512];

/* The text of fixture `name` (relative to tests/fixtures), or NULL. */
static char *fixture(const char *name)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	const char *slash = strrchr(__FILE__, '/');

	assert_non_null(slash);
	strbuf_addf(&path, "%.*s/../fixtures/%s", (int)(slash - __FILE__), __FILE__, name);
	if (strbuf_read_file(&text, path.buf, 0)) {
		strbuf_release(&path);
		strbuf_release(&text);
		return NULL;
	}
	strbuf_release(&path);
	return strbuf_detach(&text, NULL);
}

/* A one-line fixture without its newline. */
static char *fixture_line(const char *name)
{
	char *s = fixture(name);

	if (s)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

static char *to_json(const struct bisect_result *r, enum bisect_json_style style)
{
	char *text = NULL;
	int ret = bisect_result_to_json(r, style, &text, err, sizeof(err));

	if (ret)
		fail_msg("cannot write the result: %s", err);
	return text;
}

static void read_ok(const char *text, struct bisect_result *r)
{
	if (bisect_result_from_json(text, strlen(text), r, err, sizeof(err)))
		fail_msg("cannot read %.200s: %s", text, err);
}

/* r -> JSON -> struct -> JSON: the same bytes, in both styles. */
static void round_trip(const struct bisect_result *r)
{
	for (int style = BISECT_JSON_COMPACT; style <= BISECT_JSON_INDENT; style++) {
		struct bisect_result back;
		char *one = to_json(r, style), *two;

		read_ok(one, &back);
		two = to_json(&back, style);
		assert_string_equal(one, two);
		bisect_result_release(&back);
		free(one);
		free(two);
	}
}

static const char *const stored[] = {
	"found", "found-range", "merge", "no-change", "undecided", "failed-build",
	"failed-job", "reset", "reset-failed", "running", "running-found",
};

static char *stored_file(const char *state, const char *ext, bool line)
{
	char name[128];

	snprintf(name, sizeof(name), "bisect-stored/%s.%s", state, ext);
	return line ? fixture_line(name) : fixture(name);
}

/* A stored result that is a whole document writes back byte for byte. */
static void stored_result_writes_back(const char *result)
{
	struct bisect_result r;
	char *again;

	read_ok(result, &r);
	again = to_json(&r, BISECT_JSON_COMPACT);
	assert_string_equal(again, result);
	free(again);
	bisect_result_release(&r);
}

static void test_stored_states(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(stored) / sizeof(stored[0]); i++) {
		char *status = stored_file(stored[i], "status", true);
		char *spec = stored_file(stored[i], "spec", true);
		char *result = stored_file(stored[i], "result", true);
		char *document = stored_file(stored[i], "document", false);
		struct bisect_result r;
		char *shown;

		assert_non_null(status);
		assert_non_null(spec);
		assert_non_null(document);
		/* a failure stores no level: not a document until completed */
		if (result && strncmp(stored[i], "failed", 6) && strcmp(stored[i], "reset-failed"))
			stored_result_writes_back(result);
		if (bisect_result_load(&r, 1, status, result, spec, err, sizeof(err)))
			fail_msg("%s: cannot load: %s", stored[i], err);
		shown = to_json(&r, BISECT_JSON_INDENT);
		/* what `bisect status --json` printed, newline aside */
		document[strlen(document) - 1] = '\0';
		if (strcmp(shown, document))
			fail_msg("%s: the document differs:\n%s\n---- was ----\n%s", stored[i],
				 shown, document);
		round_trip(&r);
		free(shown);
		bisect_result_release(&r);
		free(status);
		free(spec);
		free(result);
		free(document);
	}
}

/* What `bisect start` stores when a bisection fails, as it always did. */
static void test_stored_failure(void **state)
{
	struct bisect_result r;
	char *text, *want = fixture_line("bisect-stored/failed-job.result");

	(void)state;
	bisect_result_init(&r);
	r.id = 1;
	r.level.status = BISECT_STATUS_FAILED;
	r.level.message = strdup("the good commit dc41e1adffb7 cannot be measured: "
				 "the benchmark failed (run 1: exit status 3)");
	text = to_json(&r, BISECT_JSON_COMPACT);
	assert_string_equal(text, want);
	bisect_result_release(&r);
	/* not a document: its ends come from the spec */
	assert_int_equal(bisect_result_from_json(text, strlen(text), &r, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "good: missing");
	free(text);
	free(want);
}

/* Each state, from the struct: the same bytes after a round trip. */
static void test_states_round_trip(void **state)
{
	static const enum bisect_status all[] = {
		BISECT_STATUS_FOUND, BISECT_STATUS_RANGE, BISECT_STATUS_NO_CHANGE,
		BISECT_STATUS_UNDECIDED, BISECT_STATUS_FAILED, BISECT_STATUS_RUNNING,
		BISECT_STATUS_RESET,
	};
	char *text = stored_file("merge", "result", true);
	struct bisect_result r;

	(void)state;
	read_ok(text, &r);
	/* merge: a found culprit with a found one inside its branch */
	assert_non_null(r.level.merge);
	assert_non_null(r.level.merge->inner);
	assert_int_equal(r.level.merge->inner->status, BISECT_STATUS_FOUND);
	round_trip(&r);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		r.level.status = all[i];
		if (all[i] == BISECT_STATUS_RANGE)
			r.level.range = r.level.best;	/* borrowed, given back below */
		round_trip(&r);
		if (all[i] == BISECT_STATUS_RANGE)
			r.level.range = (struct bisect_entries){ 0 };
	}
	bisect_result_release(&r);
	free(text);
}

/* A result as the session makes it: in C, then the same bytes back. */
static void test_built_result(void **state)
{
	static const double good[] = { 1.002, 0.997, 1.0 }, bad[] = { 1.052, 1.047, 1.05 };
	struct bisect_result r, back;
	struct bisect_entry *e;
	char *text;

	(void)state;
	bisect_result_init(&r);
	r.id = 9;
	r.metric = strdup("demo.time.elapsed_time");
	r.higher_is_better = 0;
	r.level.status = BISECT_STATUS_UNDECIDED;
	r.level.good.present = r.level.bad.present = true;
	r.level.good.commit.sha = strdup("24412ef5d15c04ebcc948c60b21a19a54d9e061d");
	r.level.bad.commit.sha = strdup("5735ed2be62f8e2a38100fd83b167c3a8c6db0e7");
	r.level.baseline.present = r.level.baseline.good.present = true;
	r.level.baseline.good.n = 3;
	r.level.baseline.good.values.present = true;
	r.level.baseline.good.values.v = malloc(sizeof(good));
	memcpy(r.level.baseline.good.values.v, good, sizeof(good));
	r.level.baseline.good.values.n = r.level.baseline.good.values.cap = 3;
	r.level.best.present = true;
	r.level.best.v = e = calloc(1, sizeof(*e));
	r.level.best.n = r.level.best.cap = 1;
	bisect_entry_init(e);
	e->commit.sha = strdup("ced4ba3a27a96a09598b014649bc1668a00a7958");
	e->probability = 0.5;
	e->values.present = true;	/* an empty list stays one */
	text = to_json(&r, BISECT_JSON_COMPACT);
	assert_string_equal(text,
		"{\"good\":{\"sha\":\"24412ef5d15c04ebcc948c60b21a19a54d9e061d\"},"
		"\"bad\":{\"sha\":\"5735ed2be62f8e2a38100fd83b167c3a8c6db0e7\"},"
		"\"baseline\":{\"good\":{\"n\":3,\"values\":[1.002,0.997,1.0]}},"
		"\"best\":[{\"sha\":\"ced4ba3a27a96a09598b014649bc1668a00a7958\","
		"\"values\":[],\"probability\":0.5}],\"status\":\"undecided\",\"id\":9,"
		"\"metric\":\"demo.time.elapsed_time\",\"higher_is_better\":false}");
	read_ok(text, &back);
	assert_int_equal(back.id, 9);
	assert_int_equal(back.higher_is_better, 0);
	assert_true(back.level.best.v[0].values.present);
	assert_int_equal(back.level.best.v[0].values.n, 0);
	assert_true(isnan(back.level.baseline.good.mean));
	assert_int_equal(back.level.candidates, BISECT_UNKNOWN);
	assert_false(back.level.baseline.bad.present);
	round_trip(&r);
	free(text);
	bisect_result_release(&back);

	/* NaN is "unknown" where a number may be unknown, never in a list */
	r.level.baseline.good.values.v[1] = NAN;
	assert_int_equal(bisect_result_to_json(&r, BISECT_JSON_COMPACT, &text, err,
					       sizeof(err)), -EINVAL);
	assert_null(text);
	assert_string_equal(err, "baseline.good.values[1]: not a finite number");
	r.level.baseline.good.values.v[1] = bad[1];
	r.level.baseline.good.stddev = INFINITY;
	assert_int_equal(bisect_result_to_json(&r, BISECT_JSON_COMPACT, &text, err,
					       sizeof(err)), -EINVAL);
	assert_string_equal(err, "baseline.good.stddev: not a finite number");
	r.level.baseline.good.stddev = NAN;
	r.level.best.v[0].n = -7;
	assert_int_equal(bisect_result_to_json(&r, BISECT_JSON_COMPACT, &text, err,
					       sizeof(err)), -EINVAL);
	assert_string_equal(err, "best[0].n: negative");
	bisect_result_release(&r);
}

static void test_fixture(void **state)
{
	char *text = fixture("bisect-result.json"), *again;
	struct bisect_result r;
	json_t *want, *got;

	(void)state;
	assert_non_null(text);
	read_ok(text, &r);
	assert_int_equal(r.id, 3);
	assert_int_equal(r.level.status, BISECT_STATUS_FOUND);
	assert_string_equal(r.level.culprit.commit.sha, "ced4ba3a27a96a09598b014649bc1668a00a7958");
	assert_int_equal(r.level.commits.n, 7);
	assert_int_equal(r.level.commits.v[2].state, BISECT_STATE_SKIPPED);
	assert_int_equal(r.level.confirmation.parent.values.n, 6);
	assert_string_equal(r.origin_url, "https://git.example.org/demo.git");
	assert_int_equal(r.level.runs_confirm, 12);
	again = to_json(&r, BISECT_JSON_INDENT);
	want = json_loads(text, 0, NULL);
	got = json_loads(again, 0, NULL);
	assert_non_null(want);
	assert_non_null(got);
	assert_true(json_equal(want, got));
	round_trip(&r);
	json_decref(want);
	json_decref(got);
	free(again);
	free(text);
	bisect_result_release(&r);
}

/* ---- refused ---- */

/* The fixture with path ("a.b.3.c") set to value, or removed (NULL). */
static char *variant(const char *path, json_t *value)
{
	char *text = fixture("bisect-result.json"), *copy = strdup(path), *key = copy;
	char *dot, *out;
	json_t *doc = json_loads(text, 0, NULL), *o = doc;

	assert_non_null(doc);
	while ((dot = strchr(key, '.'))) {
		*dot = '\0';
		o = json_is_array(o) ? json_array_get(o, strtoul(key, NULL, 10))
				     : json_object_get(o, key);
		assert_non_null(o);
		key = dot + 1;
	}
	if (json_is_array(o))
		assert_int_equal(value ? json_array_set_new(o, strtoul(key, NULL, 10), value)
				       : json_array_remove(o, strtoul(key, NULL, 10)), 0);
	else if (value)
		assert_int_equal(json_object_set_new(o, key, value), 0);
	else
		assert_int_equal(json_object_del(o, key), 0);
	out = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	free(copy);
	free(text);
	return out;
}

/* text refused, the message as given */
static void refused_text(const char *text, size_t len, const char *message)
{
	struct bisect_result r;

	assert_int_equal(bisect_result_from_json(text, len, &r, err, sizeof(err)), -EINVAL);
	if (strcmp(err, message))
		fail_msg("message '%s', not '%s'", err, message);
}

/* The fixture with path set to value (NULL: removed) is refused so. */
static void refused(const char *path, json_t *value, const char *message)
{
	char *text = variant(path, value);

	refused_text(text, strlen(text), message);
	free(text);
}

static void test_wrong_types(void **state)
{
	(void)state;
	refused("candidates", json_string("40"), "candidates: expected an integer from 0 to 2147483647");
	refused("good", json_integer(1), "good: expected an object");
	refused("good.given", json_integer(1), "good.given: expected a string");
	refused("higher_is_better", json_integer(0), "higher_is_better: expected true or false");
	refused("best", json_object(), "best: expected an array");
	refused("best.1", json_string("x"), "best[1]: expected an object");
	refused("commits.3.values.1", json_string("1.0"),
		"commits[3].values[1]: expected a number");
	refused("commits.2.state", json_string("built"),
		"commits[2].state: neither measured nor skipped");
	refused("confirmation.parent.mean", json_true(), "confirmation.parent.mean: expected a number");
	refused("baseline.change", json_array(), "baseline.change: expected an object");
	refused("params.size", json_pack("[i]", 1), "params.size: neither a string nor a number");
	refused("merge", json_pack("{s:i}", "sha", 5), "merge.sha: expected a string");
	refused("status", json_string("bogus"), "status: not a status of a bisection");
	refused("id", json_integer(-1), "id: expected a non-negative integer");
	refused("spec", json_pack("{s:s}", "repo", "/x"), "spec: not the spec of a bisection");
	refused_text("[1]", 3, "not a JSON object");
	refused_text("{\"status\": ", 11, "unexpected token near end of file (line 1, column 11)");
}

/*
 * Issue 13 (c): the metric's unit.  Every result stored before it has
 * none (NULL: the report prints no unit) and still writes back to the
 * byte; a result with one stores it after higher_is_better, reads it
 * back, keeps it through bisect_result_load(), and a unit that is not a
 * string is refused by name.
 */
static void test_unit(void **state)
{
	struct bisect_result r, back;
	char *result, *spec, *status, *text, *want;
	const char *tail = "\"higher_is_better\":false}";

	(void)state;
	for (size_t i = 0; i < sizeof(stored) / sizeof(stored[0]); i++) {
		result = stored_file(stored[i], "result", true);
		if (result && !strncmp(stored[i], "failed", 6))
			result[0] = '\0';
		if (result && *result && strcmp(stored[i], "reset-failed")) {
			read_ok(result, &r);
			assert_null(r.unit);
			bisect_result_release(&r);
		}
		free(result);
	}
	result = stored_file("merge", "result", true);
	assert_non_null(result);
	read_ok(result, &r);
	r.unit = strdup("ms");
	assert_non_null(r.unit);
	text = to_json(&r, BISECT_JSON_COMPACT);
	/* the old document, the unit added at its end */
	assert_true(strlen(result) > strlen(tail));
	assert_string_equal(result + strlen(result) - strlen(tail), tail);
	want = malloc(strlen(result) + 32);
	assert_non_null(want);
	sprintf(want, "%.*s,\"unit\":\"ms\"}", (int)(strlen(result) - 1), result);
	assert_string_equal(text, want);
	round_trip(&r);
	bisect_result_release(&r);

	status = stored_file("merge", "status", true);
	spec = stored_file("merge", "spec", true);
	if (bisect_result_load(&back, 1, status, text, spec, err, sizeof(err)))
		fail_msg("cannot load: %s", err);
	assert_non_null(back.unit);
	assert_string_equal(back.unit, "ms");
	bisect_result_release(&back);

	refused("unit", json_integer(5), "unit: expected a string");
	free(status);
	free(spec);
	free(want);
	free(text);
	free(result);
}

static void test_missing(void **state)
{
	(void)state;
	refused("status", NULL, "status: missing");
	refused("metric", NULL, "metric: missing (the status is found)");
	refused("good.sha", NULL, "good.sha: missing");
	refused("bad", NULL, "bad: missing");
	refused("culprit", NULL, "culprit: missing (the status is found)");
	refused("status", json_string("found-range"),
		"range: missing or empty (the status is found-range)");
	refused("commits.4.sha", NULL, "commits[4].sha: missing");
	refused("merge", json_pack("{s:s}", "subject", "no sha"), "merge.sha: missing");
	refused("merge", json_pack("{s:s, s:{s:s, s:{s:s}}}", "sha", "3333", "inner",
				   "status", "found", "good", "sha", "5555"),
		"merge.inner.bad: missing");
}

static void test_negative_counts(void **state)
{
	(void)state;
	refused("runs", json_integer(-1), "runs: expected an integer from 0 to 2147483647");
	refused("baseline.good.n", json_integer(-3),
		"baseline.good.n: expected an integer from 0 to 2147483647");
	refused("culprit.index", json_real(-1.0),
		"culprit.index: expected an integer from 0 to 2147483647");
	refused("max_runs", json_real(2.5), "max_runs: expected an integer from 0 to 2147483647");
	refused("builds", json_integer(1LL << 40),
		"builds: expected an integer from 0 to 2147483647");
}

static void test_huge(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *text = fixture("bisect-result.json"), *at;

	(void)state;
	/* one value more than an array may hold */
	at = strstr(text, "\"values\": [");
	assert_non_null(at);
	strbuf_add(&sb, text, (size_t)(at - text));
	strbuf_addstr(&sb, "\"values\": [");
	for (int i = 0; i <= BISECT_MAX_ENTRIES; i++)
		strbuf_addstr(&sb, i ? ",1" : "1");
	strbuf_addstr(&sb, "], \"unused\": [");
	strbuf_addstr(&sb, at + strlen("\"values\": ["));
	assert_int_equal(strbuf_error(&sb), 0);
	refused_text(sb.buf, sb.len, "baseline.good.values: more than 1000000 entries");
	strbuf_release(&sb);
	free(text);

	/* merges inside merges, deeper than a document may nest them */
	sb = (struct strbuf)STRBUF_INIT;
	strbuf_addstr(&sb, "{\"status\": \"found\", \"metric\": \"m\", \"good\": {\"sha\": \"g\"},"
		      " \"bad\": {\"sha\": \"b\"}, \"culprit\": {\"sha\": \"c\"}");
	for (int i = 0; i <= BISECT_MAX_DEPTH; i++)
		strbuf_addstr(&sb, ", \"merge\": {\"sha\": \"m\", \"inner\": {\"status\": \"failed\","
			      " \"good\": {\"sha\": \"g\"}, \"bad\": {\"sha\": \"b\"}");
	for (int i = 0; i <= BISECT_MAX_DEPTH; i++)
		strbuf_addstr(&sb, "}}");
	strbuf_addch(&sb, '}');
	refused_text(sb.buf, sb.len,
		     "merge.inner.merge.inner.merge.inner.merge.inner.merge.inner.merge.inner."
		     "merge.inner.merge.inner.merge.inner: merges nested deeper than 8");
	strbuf_release(&sb);
}

static void test_not_numbers(void **state)
{
	char *text = fixture("bisect-result.json"), *at;

	(void)state;
	/* JSON has no NaN or infinity: the text itself is refused */
	at = strstr(text, "\"mean\": 1.0,");
	assert_non_null(at);
	memcpy(at, "\"mean\": NaN,", 12);
	refused_text(text, strlen(text), "invalid token near 'NaN' (line 30, column 17)");
	memcpy(at, "\"mean\": 1e999", 13);
	refused_text(text, strlen(text), "real number overflow near '1e999' (line 30, column 19)");
	free(text);
	/* a number 10 digits cannot write without overflowing */
	refused("confirmation.pct", json_real(1.7976931348623157e308),
		"confirmation.pct: not a finite number");
}

static void test_load(void **state)
{
	char *spec = stored_file("found", "spec", true);
	char *result = stored_file("found", "result", true);
	struct bisect_result r;

	(void)state;
	assert_int_equal(bisect_result_load(&r, 4, "weird", result, spec, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "status: not a status of a bisection");
	assert_int_equal(bisect_result_load(&r, 4, "found", result, "{}", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "spec: not the spec of a bisection");
	assert_int_equal(bisect_result_load(&r, 4, "found", "{", spec, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "result: string or '}' expected near end of file (line 1, column 1)");
	assert_int_equal(bisect_result_load(&r, 4, "found", "[]", spec, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "result: not a JSON object");
	assert_int_equal(bisect_result_load(&r, 4, "found", "{\"runs\": -2}", spec, err,
					    sizeof(err)), -EINVAL);
	assert_string_equal(err, "runs: expected an integer from 0 to 2147483647");
	/* found needs its culprit, whatever the spec completes */
	assert_int_equal(bisect_result_load(&r, 4, "found", "{}", spec, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "culprit: missing (the status is found)");
	/* the store's id and status word, over the stored ones */
	assert_int_equal(bisect_result_load(&r, 4, "reset", result, spec, err, sizeof(err)), 0);
	assert_int_equal(r.id, 4);
	assert_int_equal(r.level.status, BISECT_STATUS_RESET);
	assert_non_null(r.spec);
	assert_string_equal(r.job_path, r.spec->job_path);
	bisect_result_release(&r);
	free(spec);
	free(result);
}

static void test_quoted(void **state)
{
	char *text = variant("culprit.subject", json_string("a\033[2Jb\rc")), *j;
	struct bisect_result r, q;

	(void)state;
	read_ok(text, &r);
	free(text);
	assert_int_equal(bisect_result_quoted(&r, &q), 0);
	assert_string_equal(q.level.culprit.commit.subject, "a\\033[2Jb\\rc");
	/* the lines of a text stay lines */
	assert_string_equal(q.job_text, r.job_text);
	assert_non_null(strchr(q.job_text, '\n'));
	j = to_json(&q, BISECT_JSON_COMPACT);
	free(j);
	bisect_result_release(&q);
	bisect_result_release(&r);
}

/* A culprit is confirmed by "changed" the baseline's way, and only so. */
static void test_level_confirmed(void **state)
{
	struct bisect_level lv;
	char changed[] = "changed", unknown[] = "unknown";

	(void)state;
	bisect_level_init(&lv);
	assert_false(bisect_level_confirmed(&lv));	/* not measured */
	lv.confirmation.present = true;
	assert_false(bisect_level_confirmed(&lv));	/* no verdict */
	lv.confirmation.change.verdict = changed;
	lv.confirmation.change.pct = 4.8;
	assert_true(bisect_level_confirmed(&lv));	/* baseline unknown */
	lv.baseline.change.pct = 5.1;
	assert_true(bisect_level_confirmed(&lv));
	lv.confirmation.change.pct = -3.0;		/* the other way */
	assert_false(bisect_level_confirmed(&lv));
	lv.baseline.change.pct = -40.0;
	assert_true(bisect_level_confirmed(&lv));
	lv.confirmation.change.verdict = unknown;	/* undecided, or disturbed */
	assert_false(bisect_level_confirmed(&lv));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stored_states),
		cmocka_unit_test(test_stored_failure),
		cmocka_unit_test(test_states_round_trip),
		cmocka_unit_test(test_built_result),
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_negative_counts),
		cmocka_unit_test(test_huge),
		cmocka_unit_test(test_not_numbers),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_quoted),
		cmocka_unit_test(test_unit),
		cmocka_unit_test(test_level_confirmed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
