/*
 * Unit tests: report/html.  Reports built by hand from compare_sets() over
 * small sample sets, written to a memstream; the structure a browser needs
 * (parsing itself is checked by the e2e test with python3's html.parser).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KPI "will-it-scale.per_thread_ops"
#define FAIL "dmesg.WARNING:at_<foo>"
#define ODD "a<b&c"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Write r as HTML; the caller frees the text. */
static char *render(const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_html(f, r), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	assert_int_equal(strlen(buf), len);
	return buf;
}

/* The common checks: a document, nothing fetched, nothing left unescaped. */
static void check_page(const char *html)
{
	assert_true(!strncmp(html, "<!DOCTYPE html>", 15));
	assert_non_null(strstr(html, "</html>"));
	assert_null(strstr(html, "http://"));
	assert_null(strstr(html, "https://"));
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, ODD));
	assert_null(strstr(html, "nan"));
	assert_null(strstr(html, "inf"));
	assert_int_equal(count(html, "<svg"), count(html, "</svg>"));
}

static const char *const kpis[] = { KPI, "kpi.other", NULL };

/*
 * Five runs a side.  The base has no failure, the others fail every run;
 * ODD changes by +50%; KPI moves by `kpi_step` per commit; kpi.other does
 * not move.
 */
struct fixture {
	char *names[4];
	double v[3][4][5];
	double *vp[3][4];
	size_t counts[3][4];
	struct sample_set sets[3];
	struct stat_row *rows;
	size_t nr_rows;
	struct report_commit commits[3];
	struct report_job job;
	struct strmap params;
	struct report r;
};

static void build(struct fixture *f, size_t ncommits, double kpi_step,
		  const char *job_kpi)
{
	static const char *ids[] = {
		"b121b341e5983bdc0123456789abcdef01234567",
		"492e639f0c222784aaaabbbbccccddddeeeeffff", "third",
	};
	struct compare_opts o;

	memset(f, 0, sizeof(*f));
	/* sorted by byte order, as the store gives them */
	f->names[0] = ODD;
	f->names[1] = FAIL;
	f->names[2] = "kpi.other";
	f->names[3] = KPI;
	for (size_t c = 0; c < ncommits; c++) {
		for (size_t k = 0; k < 5; k++) {
			f->v[c][0][k] = (c ? 150 : 100) + (double)k;
			f->v[c][1][k] = c ? 1 : 0;
			f->v[c][2][k] = 1000 + (double)(k % 2);
			f->v[c][3][k] = 6105969 + kpi_step * (double)c + 100 * (double)k;
		}
		for (size_t i = 0; i < 4; i++) {
			f->vp[c][i] = f->v[c][i];
			f->counts[c][i] = 5;
		}
		f->sets[c] = (struct sample_set){ ids[c], 4, f->names, f->vp[c],
						  f->counts[c], 5, NULL, NULL };
		f->commits[c].id = ids[c];
	}
	f->commits[1].subject = "mm: make \"malloc\" <faster> & 'better'";
	compare_opts_init(&o);
	o.kpis = kpis;
	assert_int_equal(compare_sets(f->sets, ncommits, &o, &f->rows, &f->nr_rows), 0);

	assert_int_equal(strmap_set(&f->params, "mode", "thread"), 0);
	assert_int_equal(strmap_set(&f->params, "nr_task", "100%"), 0);
	f->job = (struct report_job){
		.testbox = "lkp-box", .testcase = "will-it-scale",
		.job = "will-it-scale-100%-thread-malloc1", .params = &f->params,
		.kpi = job_kpi, .machine = "2 threads AMD EPYC with 23G memory",
		.job_text = "testcase: will-it-scale\n<&>\n", .sets = f->sets,
		.rows = f->rows, .nr_rows = f->nr_rows,
	};
	f->r = (struct report){ .commits = f->commits, .ncommits = ncommits,
				.jobs = &f->job, .njobs = 1 };
}

static void release(struct fixture *f)
{
	compare_release(f->rows, f->nr_rows);
	strmap_release(&f->params);
}

static void two_commits(void **state)
{
	struct fixture f;
	char *html;

	(void)state;
	build(&f, 2, 160000, KPI);
	html = render(&f.r);
	check_page(html);
	/* the changed KPI is the job's KPI: one plot, no trend for 2 commits */
	assert_int_equal(count(html, "<svg"), 1);
	assert_null(strstr(html, "class=\"trend\""));
	assert_int_equal(count(html, "class=\"run\""), 10);
	assert_int_equal(count(html, "class=\"ci\""), 2);
	/* the interval is stats/'s, at compare's level */
	assert_non_null(strstr(html, "its 95% interval (vertical line)"));
	assert_non_null(strstr(html, "mean changed"));
	/* escaped names, subject and job text */
	assert_non_null(strstr(html, "a&lt;b&amp;c"));
	assert_non_null(strstr(html, "dmesg.WARNING:at_&lt;foo&gt;"));
	assert_non_null(strstr(html, "mm: make &quot;malloc&quot; &lt;faster&gt; &amp; &#39;better&#39;"));
	assert_non_null(strstr(html, "testcase: will-it-scale\n&lt;&amp;&gt;"));
	assert_non_null(strstr(html, "nr_task=100%"));
	/* failure row: fails:runs per side and %reproduction */
	assert_non_null(strstr(html, ":5</td>"));
	assert_non_null(strstr(html, "5:5</td>"));
	/* %reproduction as LKP prints it: no sign */
	assert_non_null(strstr(html, ">100%</td>"));
	/* only changed rows: kpi.other is the same, so neither table nor plot */
	assert_null(strstr(html, "kpi.other"));
	assert_non_null(strstr(html, "+2.6%"));
	assert_non_null(strstr(html, "b121b341e598"));
	free(html);
	release(&f);
}

static void three_commits(void **state)
{
	struct fixture f;
	char *html;

	(void)state;
	/* no job KPI: a plot only for the changed KPI row */
	build(&f, 3, 160000, NULL);
	html = render(&f.r);
	check_page(html);
	assert_int_equal(count(html, "<svg"), 1);
	assert_int_equal(count(html, "class=\"trend\""), 1);
	assert_int_equal(count(html, "class=\"run\""), 15);
	assert_non_null(strstr(html, ">third</text>"));
	free(html);
	release(&f);

	/* the job's KPI is plotted even when it did not change */
	build(&f, 3, 160000, "kpi.other");
	html = render(&f.r);
	check_page(html);
	assert_int_equal(count(html, "<svg"), 2);
	free(html);
	release(&f);
}

static void nothing_changed(void **state)
{
	struct fixture f;
	char *html;

	(void)state;
	build(&f, 2, 0, NULL);
	/* only the failure and ODD changed; hide them by making them same */
	for (size_t k = 0; k < 5; k++) {
		f.v[1][0][k] = f.v[0][0][k];
		f.v[1][1][k] = 0;
	}
	compare_release(f.rows, f.nr_rows);
	{
		struct compare_opts o;

		compare_opts_init(&o);
		o.kpis = kpis;
		assert_int_equal(compare_sets(f.sets, 2, &o, &f.rows, &f.nr_rows), 0);
		f.job.rows = f.rows;
		f.job.nr_rows = f.nr_rows;
	}
	html = render(&f.r);
	check_page(html);
	assert_int_equal(count(html, "<svg"), 0);
	assert_non_null(strstr(html, "no stat changed (4 compared)"));
	free(html);

	/* --all: every row in the tables, still no plot */
	f.r.show_all = 1;
	html = render(&f.r);
	check_page(html);
	assert_int_equal(count(html, "<svg"), 0);
	assert_non_null(strstr(html, "kpi.other"));
	assert_non_null(strstr(html, "a&lt;b&amp;c"));
	assert_null(strstr(html, "no stat changed"));
	free(html);
	release(&f);
}

/* One run a side has no interval; a constant stat has no range. */
static void one_run_constant(void **state)
{
	char *names[] = { KPI };
	double a[] = { 42 }, b[] = { 42 };
	double *va[] = { a }, *vb[] = { b };
	size_t ca[] = { 1 }, cb[] = { 1 };
	struct sample_set sets[] = {
		{ "base", 1, names, va, ca, 1, NULL, NULL },
		{ "new", 1, names, vb, cb, 1, NULL, NULL },
	};
	struct report_commit commits[] = { { .id = "base" }, { .id = "new" } };
	struct report_job job = { .testbox = "t", .job = "j", .kpi = KPI, .sets = sets };
	struct report r = { .commits = commits, .ncommits = 2, .jobs = &job, .njobs = 1 };
	struct compare_opts o;
	struct stat_row *rows;
	size_t n;
	char *html;

	(void)state;
	compare_opts_init(&o);
	o.kpis = kpis;
	assert_int_equal(compare_sets(sets, 2, &o, &rows, &n), 0);
	job.rows = rows;
	job.nr_rows = n;
	html = render(&r);
	check_page(html);
	assert_int_equal(count(html, "<svg"), 1);
	assert_null(strstr(html, "class=\"ci\""));
	assert_int_equal(count(html, "class=\"run\""), 2);
	/* the padded range has tick labels around 42 */
	assert_non_null(strstr(html, ">42</text>"));
	free(html);
	compare_release(rows, n);
}

/* URLs in the input are text, shown escaped, never a reference. */
static void input_urls(void **state)
{
	struct report_commit commits[] = { { .id = "base", .subject = "see https://x/?a=1&b=2" } };
	struct report r = { .commits = commits, .ncommits = 1,
			    .repo_url = "https://git.example/linux.git" };
	char *html;

	(void)state;
	html = render(&r);
	assert_int_equal(count(html, "https://"), 2);
	assert_non_null(strstr(html, "see https://x/?a=1&amp;b=2"));
	assert_null(strstr(html, "href="));
	assert_null(strstr(html, "src="));
	assert_non_null(strstr(html, "no job ran on every commit"));
	free(html);
	assert_int_equal(report_html(stdout, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_commits),
		cmocka_unit_test(three_commits),
		cmocka_unit_test(nothing_changed),
		cmocka_unit_test(one_run_constant),
		cmocka_unit_test(input_urls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
