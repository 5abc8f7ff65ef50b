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

/* Write r with writer (report_html, report_email); the caller frees the text. */
static char *render_with(int (*writer)(FILE *, const struct report *), const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(writer(f, r), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	assert_int_equal(strlen(buf), len);
	return buf;
}

static char *render(const struct report *r)
{
	return render_with(report_html, r);
}

static void has(const char *hay, const char *needle)
{
	if (!strstr(hay, needle)) {
		fprintf(stderr, "missing \"%s\" in:\n%s\n", needle, hay);
		fail();
	}
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
	/* axes named: x the commits, y the stat (no unit declared) */
	has(html, "<text class=\"axis\" x=\"355.0\" y=\"288\">commit</text>");
	has(html, "transform=\"rotate(-90 14 135.0)\">will-it-scale.per_thread_ops</text>");
	/* an improvement is not drawn or written as a regression */
	has(html, "<line class=\"mean changed improvement\"");
	has(html, "<td class=\"v-changed improvement\">changed  improvement</td>");
	/* the failure that came (0:5 to 5:5) is the regression */
	assert_int_equal(count(html, "<td class=\"v-changed improvement\">"), 1);
	assert_int_equal(count(html, "<td class=\"v-changed regression\">changed  regression"),
			 1);
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

/* compare_sets() of sets (the fixture's KPIs) into job: its rows, to compare_release(). */
static struct stat_row *compare_job(struct sample_set *sets, size_t nsets,
				    struct report_job *job)
{
	struct compare_opts o;
	struct stat_row *rows;
	size_t n;

	compare_opts_init(&o);
	o.kpis = kpis;
	assert_int_equal(compare_sets(sets, nsets, &o, &rows, &n), 0);
	job->rows = rows;
	job->nr_rows = n;
	return rows;
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
	struct stat_row *rows;
	char *html;

	(void)state;
	rows = compare_job(sets, 2, &job);
	html = render(&r);
	check_page(html);
	assert_int_equal(count(html, "<svg"), 1);
	assert_null(strstr(html, "class=\"ci\""));
	assert_int_equal(count(html, "class=\"run\""), 2);
	/* the padded range has tick labels around 42 */
	assert_non_null(strstr(html, ">42</text>"));
	free(html);
	compare_release(rows, job.nr_rows);
}

/* A unit declared in the stat's meta names the y axis: "name (unit)". */
static void axis_unit(void **state)
{
	struct fixture f;
	char *html;

	(void)state;
	build(&f, 2, 160000, KPI);
	for (size_t i = 0; i < f.nr_rows; i++)
		if (!strcmp(f.rows[i].name, KPI))
			f.rows[i].unit = "ops/s";
	html = render(&f.r);
	check_page(html);
	has(html, ">will-it-scale.per_thread_ops (ops/s)</text>");
	has(html, "<figcaption>will-it-scale.per_thread_ops in ops/s: ");
	free(html);
	release(&f);
}

/*
 * Colours by direction: a regression red, an improvement green, a change
 * no direction is better for neutral -- the word beside it every time.
 */
static void directions(void **state)
{
	struct fixture f;
	char *html;

	(void)state;
	build(&f, 2, -160000, KPI);
	html = render(&f.r);
	has(html, "<td class=\"v-changed regression\">changed  regression</td>");
	has(html, "<line class=\"mean changed regression\"");
	/* ODD (a<b&c) moved +50% and has no better direction */
	has(html, "<td class=\"v-changed\">changed</td>");
	/* the style sheet: regression red, improvement green, neither blue */
	has(html, ".v-changed{color:#06c;");
	has(html, ".v-changed.regression,.lead .regression{color:#b00;");
	has(html, ".v-changed.improvement,.lead .improvement{color:#070;");
	has(html, "svg .mean.changed.improvement{stroke:#070}");
	free(html);
	release(&f);
}

/*
 * The email's head: its first sentence word for word, the commit, the
 * test machine and parameters, and the "In addition to that" table with
 * the other box's job (its machine line and sorted parameters).
 */
static void lead_and_impact(void **state)
{
	struct fixture a, b;
	struct report_job jobs[2];
	struct report r;
	char *html, *email, *first, *end;

	(void)state;
	build(&a, 2, 160000, KPI);
	build(&b, 2, -120000, KPI);
	assert_int_equal(strmap_set(&b.params, "test", "malloc2"), 0);
	b.job.testbox = "lkp-box2";
	b.job.machine = "112 threads Intel(R) Xeon(R) Platinum 8170 CPU @ 2.10GHz with 128G memory";
	jobs[0] = b.job;
	jobs[1] = a.job;
	r = a.r;
	r.jobs = jobs;
	r.njobs = 2;
	r.evidence = "P(first bad) 99.8% <sure>";
	html = render(&r);
	check_page(html);
	email = render_with(report_email, &r);
	first = strstr(email, "perfbot noticed a ");
	assert_non_null(first);
	end = strchr(first, '\n');
	assert_non_null(end);
	*end = '\0';
	/* the largest change leads, as in the email, and says the same */
	assert_string_equal(first, "perfbot noticed a 2.6% improvement of "
			    "will-it-scale.per_thread_ops on:");
	has(html, "<p class=\"headline improvement\">perfbot noticed a 2.6% improvement of "
		  "will-it-scale.per_thread_ops on:</p>");
	has(html, "<dt>commit</dt><dd><span class=\"name\">"
		  "492e639f0c222784aaaabbbbccccddddeeeeffff</span> (&quot;mm: make "
		  "&quot;malloc&quot; &lt;faster&gt; &amp; &#39;better&#39;&quot;)</dd>");
	has(html, "<dt>test machine</dt><dd>2 threads AMD EPYC with 23G memory</dd>");
	has(html, "<dt>parameters</dt><dd class=\"name\">mode: thread<br>nr_task: 100%</dd>");
	has(html, "<p class=\"order\">The order of the runs is not known");
	has(html, "In addition to that, the commit also has significant impact on the "
		  "following tests:");
	has(html, "<tr><th>testcase: change</th><td class=\"regression\">will-it-scale: "
		  "will-it-scale.per_thread_ops 2.0% regression</td></tr>");
	has(html, "<tr><th>test machine</th><td>112 threads Intel(R) Xeon(R) Platinum 8170 "
		  "CPU @ 2.10GHz with 128G memory</td></tr>");
	has(html, "<tr><th>test parameters</th><td class=\"name\">mode=thread<br>"
		  "nr_task=100%<br>test=malloc2</td></tr>");
	/* the headline's own job is not "in addition" */
	assert_int_equal(count(html, "<th>testcase: change</th>"), 1);
	has(html, "<h3>How sure</h3>\n<pre>P(first bad) 99.8% &lt;sure&gt;</pre>");
	/* the lead comes before the tables */
	assert_true(strstr(html, "class=\"headline") < strstr(html, "<table class=\"cmp\">"));
	free(email);
	free(html);

	/* nothing changed anywhere: the email's "no significant change" sentence */
	r.njobs = 1;
	r.jobs = &jobs[0];
	for (size_t i = 0; i < b.nr_rows; i++)
		b.rows[i].vs[0].verdict = VERDICT_SAME;
	html = render(&r);
	has(html, "<p class=\"headline none\">perfbot noticed no significant change of "
		  "will-it-scale.per_thread_ops on:</p>");
	assert_null(strstr(html, "In addition to that"));
	free(html);
	release(&a);
	release(&b);
}

/*
 * Seed 001's second job: its only change is a failure stat (dmesg
 * WARNINGs 2:2 on the base, :2 after), two runs a side as the seed's.
 * Its rows are in the page as in the text -- every row, since a verdict
 * needs 3 runs -- with the text's "verdicts need" lines; never "no stat
 * changed".  With 3 runs a side (0:3 against 3:3, t2200's) the row is
 * there too.
 */
static void failure_only(void **state)
{
	char *names[] = { "dmesg.WARNING:at#for_ip_swapgs_restore_regs_and_return_to_usermode/0x",
			  "dmesg.WARNING:stack_recursion", KPI };
	double fa[] = { 1, 1, 1 }, ka[] = { 500, 501, 500 }, kb[] = { 500, 501, 500 };
	double *va[] = { fa, fa, ka }, *vb[] = { kb };
	size_t ca[] = { 2, 2, 2 }, cb[] = { 2 };
	struct sample_set sets[] = {
		{ "base", 3, names, va, ca, 2, NULL, NULL },
		{ "new", 1, names + 2, vb, cb, 2, NULL, NULL },
	};
	struct report_commit commits[] = { { .id = "base" }, { .id = "new" } };
	struct report_job job = { .testbox = "lkp-knm01", .testcase = "will-it-scale",
				  .job = "context_switch1", .kpi = KPI, .sets = sets };
	struct report r = { .commits = commits, .ncommits = 2, .jobs = &job, .njobs = 1 };
	struct stat_row *rows;
	char *html, *text;

	(void)state;
	rows = compare_job(sets, 2, &job);
	html = render(&r);
	check_page(html);
	text = render_with(report_text, &r);
	has(text, "dmesg.WARNING:stack_recursion");
	has(html, "<tr><td class=\"name\">dmesg.WARNING:at#for_ip_swapgs_restore_regs_and_"
		  "return_to_usermode/0x</td><td class=\"num\">2:2</td><td class=\"num\">-100%"
		  "</td><td class=\"num\">:2</td>");
	has(html, "<tr><td class=\"name\">dmesg.WARNING:stack_recursion</td><td class=\"num\">"
		  "2:2</td>");
	/* as the text: every row when a side has too few runs, the KPI too */
	has(html, "<tr class=\"kpi\"><td class=\"name\">will-it-scale.per_thread_ops</td>");
	has(html, "<p class=\"few-runs\">verdicts need 3 runs a side: commit base has 2 "
		  "(1 more needed)</p>");
	assert_null(strstr(html, "no stat changed"));
	free(text);
	free(html);
	compare_release(rows, job.nr_rows);

	/* three runs a side, 0:3 against 3:3 */
	for (size_t i = 0; i < 3; i++)
		ca[i] = 3;
	cb[0] = 3;
	sets[0].nr_runs = sets[1].nr_runs = 3;
	sets[0] = (struct sample_set){ "base", 1, names + 2, va + 2, ca + 2, 3, NULL, NULL };
	sets[1] = (struct sample_set){ "new", 3, names, va, ca, 3, NULL, NULL };
	rows = compare_job(sets, 2, &job);
	html = render(&r);
	has(html, "<tr><td class=\"name\">dmesg.WARNING:stack_recursion</td><td class=\"num\">"
		  ":3</td><td class=\"num\">100%</td><td class=\"num\">3:3</td>");
	assert_null(strstr(html, "no stat changed"));
	assert_null(strstr(html, "<p class=\"few-runs\">"));
	free(html);
	compare_release(rows, job.nr_rows);
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
		cmocka_unit_test(axis_unit),
		cmocka_unit_test(directions),
		cmocka_unit_test(lead_and_impact),
		cmocka_unit_test(failure_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
