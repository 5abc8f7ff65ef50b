/*
 * Unit tests: report/ text, email and json writers -- the one JSON schema
 * (docs/report.md, version 3), direction words from the rows, and jobs
 * that were unsupported here, written by every format.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/report.h"
#include "util/strbuf.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KPI "bench.time_ops"

typedef int (*writer)(FILE *, const struct report *);

static char *render(writer w, const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(w(f, r), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

/*
 * Two commits, four runs a side: KPI (declared better LOWER although its
 * name says "_ops") up 10%, a failure stat that never fails; and a second
 * job unsupported on `unsupported` (reasons per commit, may be NULL).
 */
struct fixture {
	char *names[2];
	double v[2][2][4];
	double *vp[2][2];
	size_t counts[2][2];
	struct stat_meta_list meta;
	struct sample_set sets[2], unsup_sets[2];
	struct stat_row *rows;
	size_t nr_rows;
	struct report_commit commits[2];
	struct report_job jobs[2];
	struct compare_opts opts;
	struct report r;
};

static void build_kpi(struct fixture *f, const char *const *unsupported,
		      const char *kpi)
{
	memset(f, 0, sizeof(*f));
	f->names[0] = (char *)kpi;
	f->names[1] = "bench.exit_fail";
	for (size_t c = 0; c < 2; c++) {
		for (size_t k = 0; k < 4; k++) {
			f->v[c][0][k] = (c ? 110 : 100) + (double)(k % 2);
			f->v[c][1][k] = 0;
		}
		for (size_t i = 0; i < 2; i++) {
			f->vp[c][i] = f->v[c][i];
			f->counts[c][i] = 4;
		}
		f->sets[c] = (struct sample_set){
			.commit = c ? "new" : "base", .nr = 2, .names = f->names,
			.values = f->vp[c], .counts = f->counts[c], .nr_runs = 4,
			.meta = c ? NULL : &f->meta,
		};
		f->unsup_sets[c] = (struct sample_set){ .commit = f->sets[c].commit };
		f->commits[c].id = f->sets[c].commit;
	}
	f->commits[1].given = "ne";
	assert_int_equal(stat_meta_set(&f->meta, kpi, "s", STAT_BETTER_LOWER, true), 0);
	compare_opts_init(&f->opts);
	assert_int_equal(compare_sets(f->sets, 2, &f->opts, &f->rows, &f->nr_rows), 0);
	f->jobs[0] = (struct report_job){
		.testbox = "box", .testcase = "bench", .job = "bench-1", .kpi = kpi,
		.sets = f->sets, .rows = f->rows, .nr_rows = f->nr_rows,
	};
	f->jobs[1] = (struct report_job){
		.testbox = "box", .testcase = "uring", .job = "uring-1",
		.sets = f->unsup_sets, .unsupported = unsupported,
	};
	f->r = (struct report){
		.commits = f->commits, .ncommits = 2, .jobs = f->jobs,
		.njobs = unsupported ? 2 : 1, .opts = &f->opts,
	};
}

static void build(struct fixture *f, const char *const *unsupported)
{
	build_kpi(f, unsupported, KPI);
}

static void release(struct fixture *f)
{
	compare_release(f->rows, f->nr_rows);
	stat_meta_release(&f->meta);
}

static void words(void **state)
{
	(void)state;
	assert_string_equal(report_better_word(STAT_BETTER_HIGHER, 2), "improvement");
	assert_string_equal(report_better_word(STAT_BETTER_HIGHER, -2), "regression");
	assert_string_equal(report_better_word(STAT_BETTER_LOWER, 2), "regression");
	assert_string_equal(report_better_word(STAT_BETTER_LOWER, -2), "improvement");
	assert_null(report_better_word(STAT_BETTER_NONE, 2));
	assert_null(report_better_word(STAT_BETTER_HIGHER, 0));
	assert_null(report_better_word(STAT_BETTER_HIGHER, NAN));
	/* a name alone (a bisection's metric): the rule */
	assert_string_equal(report_direction_word("x.per_thread_ops", 1), "improvement");
	assert_string_equal(report_direction_word("x.time.elapsed_time", 1), "regression");
	assert_null(report_direction_word("meminfo.Cached", 1));
}

/* The declared direction decides the word, not the name. */
static void text_declared_direction(void **state)
{
	struct fixture f;
	char *out;

	(void)state;
	build(&f, NULL);
	out = render(report_text, &f.r);
	assert_non_null(strstr(out, KPI "  regression\n"));
	assert_null(strstr(out, "unsupported"));
	free(out);
	release(&f);
}

static json_t *load(const char *text)
{
	json_error_t err;
	json_t *j = json_loads(text, 0, &err);

	if (!j)
		fail_msg("invalid JSON: %s", err.text);
	return j;
}

static void json_schema(void **state)
{
	struct fixture f;
	json_t *j, *job, *row, *vs, *o;
	char *out;

	(void)state;
	build(&f, NULL);
	out = render(report_json, &f.r);
	j = load(out);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), "perfbot-compare");
	assert_int_equal(json_integer_value(json_object_get(j, "version")), 3);
	o = json_object_get(j, "opts");
	assert_true(json_real_value(json_object_get(o, "alpha")) == COMPARE_ALPHA);
	assert_true(json_real_value(json_object_get(o, "kpi_min_pct")) == COMPARE_KPI_MIN_PCT);
	assert_int_equal(json_integer_value(json_object_get(o, "min_runs")), COMPARE_MIN_RUNS);
	/* given: as named, else the id */
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(json_object_get(j, "commits"), 0), "given")), "base");
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(json_object_get(j, "commits"), 1), "given")), "ne");
	job = json_array_get(json_object_get(j, "jobs"), 0);
	assert_true(json_is_null(json_array_get(json_object_get(job, "unsupported"), 0)));
	assert_int_equal(json_integer_value(json_array_get(json_object_get(job, "runs"), 1)), 4);
	row = json_array_get(json_object_get(job, "rows"), 0);
	assert_string_equal(json_string_value(json_object_get(row, "name")), KPI);
	assert_true(json_is_true(json_object_get(row, "kpi")));
	assert_string_equal(json_string_value(json_object_get(row, "better")), "lower");
	assert_string_equal(json_string_value(json_object_get(row, "unit")), "s");
	assert_true(json_is_true(json_object_get(row, "changed")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(row, "base"), "runs")), 4);
	vs = json_array_get(json_object_get(row, "vs"), 0);
	assert_string_equal(json_string_value(json_object_get(vs, "verdict")), "changed");
	assert_string_equal(json_string_value(json_object_get(vs, "direction")), "regression");
	assert_true(fabs(json_real_value(json_object_get(json_object_get(vs, "summary"), "mean")) -
			 110.5) < 1e-9);
	assert_non_null(json_object_get(json_object_get(vs, "summary"), "stddev_pct"));
	/* failure row: mwu_p null, fails and runs */
	row = json_array_get(json_object_get(job, "rows"), 1);
	assert_string_equal(json_string_value(json_object_get(row, "family")), "failure");
	vs = json_array_get(json_object_get(row, "vs"), 0);
	assert_true(json_is_null(json_object_get(vs, "mwu_p")));
	assert_true(json_is_null(json_object_get(vs, "direction")));
	assert_int_equal(json_integer_value(json_object_get(vs, "runs")), 4);
	json_decref(j);
	free(out);
	release(&f);
}

/* Unsupported on every commit alike: one line; on one commit: named. */
static void unsupported(void **state)
{
	static const char *const both[] = { "needs io_uring", "needs io_uring" };
	static const char *const one[] = { NULL, "no \033[31mcolour" };
	static const char *const bare[] = { "", "" };
	struct fixture f;
	json_t *j, *u;
	char *out;

	(void)state;
	build(&f, both);
	out = render(report_text, &f.r);
	assert_non_null(strstr(out, "job: uring-1\n\nunsupported here: needs io_uring\n"));
	assert_null(strstr(out, "commit base: unsupported"));
	/* no "verdicts need 3 runs" line for it: it has no verdict to give */
	assert_null(strstr(out, "verdicts need"));
	free(out);
	out = render(report_email, &f.r);
	assert_non_null(strstr(out, "unsupported here: needs io_uring"));
	free(out);
	out = render(report_html, &f.r);
	assert_non_null(strstr(out, "<p class=\"unsupported\">unsupported here: needs io_uring</p>"));
	free(out);
	out = render(report_json, &f.r);
	j = load(out);
	u = json_object_get(json_array_get(json_object_get(j, "jobs"), 1), "unsupported");
	assert_string_equal(json_string_value(json_array_get(u, 0)), "needs io_uring");
	assert_int_equal(json_array_size(json_object_get(
		json_array_get(json_object_get(j, "jobs"), 1), "rows")), 0);
	json_decref(j);
	free(out);
	release(&f);

	build(&f, one);
	out = render(report_text, &f.r);
	/* the reason is quoted for the terminal: no raw ESC */
	assert_non_null(strstr(out, "commit new: unsupported here: no \\033[31mcolour\n"));
	assert_null(strchr(out, '\033'));
	free(out);
	out = render(report_json, &f.r);
	j = load(out);
	u = json_object_get(json_array_get(json_object_get(j, "jobs"), 1), "unsupported");
	assert_true(json_is_null(json_array_get(u, 0)));
	assert_string_equal(json_string_value(json_array_get(u, 1)), "no \033[31mcolour");
	json_decref(j);
	free(out);
	release(&f);

	build(&f, bare);
	out = render(report_text, &f.r);
	assert_non_null(strstr(out, "\nunsupported here\n"));
	free(out);
	release(&f);
}

/* The email's text with the body's line breaks (RFC 5322's 998) undone. */
static char *unfolded(char *out)
{
	char *o = out;

	for (const char *p = out; *p; p++)
		if (*p != '\n')
			*o++ = *p;
	*o = '\0';
	return out;
}

/*
 * A 2,000-byte KPI name and a 1,500-byte parameter value: the email's
 * impact block shows both whole (a 1024-byte buffer cut them), and the
 * subject holds what a header line can, ending in "..." (it was cut at
 * 511 bytes without a mark).
 */
static void email_long_names_whole(void **state)
{
	struct strbuf kpi = STRBUF_INIT, want = STRBUF_INIT, value = STRBUF_INIT;
	struct fixture f, g;
	struct report_job jobs[2];
	struct strmap params = { 0 };
	struct report r;
	char *out, *subj, *eol;

	(void)state;
	strbuf_addstr(&kpi, "bench.");
	strbuf_addchars(&kpi, 'k', 2000);
	strbuf_addchars(&value, 'v', 1500);
	assert_int_equal(strmap_set(&params, "param", value.buf), 0);
	build(&f, NULL);
	build_kpi(&g, NULL, kpi.buf);
	g.jobs[0].testcase = "bench2";
	g.jobs[0].params = &params;
	jobs[0] = f.jobs[0];
	jobs[1] = g.jobs[0];
	r = f.r;
	r.jobs = jobs;
	r.njobs = 2;

	out = unfolded(render(report_email, &r));
	strbuf_addf(&want, "| testcase: change | bench2: %s 10.0%% regression |", kpi.buf);
	assert_non_null(strstr(out, want.buf));
	strbuf_reset(&want);
	strbuf_addf(&want, "| test parameters  | param=%s ", value.buf);	/* padded */
	assert_non_null(strstr(out, want.buf));
	free(out);

	/* the long KPI leads: the subject is one header line, marked */
	jobs[0] = g.jobs[0];
	jobs[1] = f.jobs[0];
	out = render(report_email, &r);
	subj = strstr(out, "\nSubject: [perfbot] new: bench.kkk");
	assert_non_null(subj);
	subj++;
	eol = strchr(subj, '\n');
	assert_int_equal(eol - subj, 998);
	assert_memory_equal(eol - 5, "kk...", 5);
	free(out);

	strmap_release(&params);
	strbuf_release(&kpi);
	strbuf_release(&want);
	strbuf_release(&value);
	release(&f);
	release(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(words),
		cmocka_unit_test(text_declared_direction),
		cmocka_unit_test(json_schema),
		cmocka_unit_test(unsupported),
		cmocka_unit_test(email_long_names_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
