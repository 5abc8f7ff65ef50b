/*
 * Unit tests: the email as the seeds have it (issue 14, point 4) -- the
 * subject's [branch] [subsystem] prefix, the "kindly add following tags"
 * block, the headline (the largest significant KPI change), the
 * test-description lines, every identity parameter, the "How sure"
 * evidence, "To reproduce" with --repo/--commit, the URL line -- and
 * report_subsystem().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "record/bisect_result.h"
#include "report/report.h"
#include "util/strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCOMMITS 3	/* base, culprit, tip */
#define NROWS 2
#define NJOBS 3

struct hand {
	struct stat_vs vs[NJOBS][NROWS][NCOMMITS - 1];
	struct stat_row rows[NJOBS][NROWS];
	struct sample_set sets[NCOMMITS];
	struct report_commit commits[NCOMMITS];
	struct report_job jobs[NJOBS];
	struct report r;
};

static struct summary sum(double mean)
{
	return (struct summary){ .n = 5, .mean = mean, .median = mean };
}

/* Row k of job j in column c: verdict v, the change pct from a base of 100. */
static void col(struct hand *h, size_t j, size_t k, size_t c, enum verdict v, double pct)
{
	h->vs[j][k][c] = (struct stat_vs){
		.s = sum(100 + pct), .change = { .pct = pct, .low = pct - 1, .high = pct + 1 },
		.mean_pct = pct, .p = 0.001, .q = 0.001, .verdict = v, .runs = 5,
	};
}

/*
 * njobs jobs "bench<j>" (testcase `testcase`), each with two KPI rows
 * (bench.ops, the job's KPI, and bench.other_ops), all the same; the
 * caller sets the changes with col().
 */
static void hand_build(struct hand *h, size_t njobs, const char *testcase)
{
	static const char *const ids[NCOMMITS] = { "base", "culprit", "tip" };
	static const char *const names[NROWS] = { "bench.ops", "bench.other_ops" };
	static const char *const jobnames[NJOBS] = { "bench-a", "bench-b", "bench-c" };

	memset(h, 0, sizeof(*h));
	for (size_t c = 0; c < NCOMMITS; c++) {
		h->sets[c] = (struct sample_set){ .commit = ids[c], .nr_runs = 5 };
		h->commits[c].id = ids[c];
	}
	for (size_t j = 0; j < njobs; j++) {
		for (size_t k = 0; k < NROWS; k++) {
			h->rows[j][k] = (struct stat_row){
				.name = names[k], .family = FAMILY_KPI, .kpi = true,
				.better = STAT_BETTER_HIGHER, .base = sum(100),
				.vs = h->vs[j][k], .base_runs = 5,
			};
			for (size_t c = 0; c < NCOMMITS - 1; c++)
				col(h, j, k, c, VERDICT_SAME, 0);
		}
		h->jobs[j] = (struct report_job){
			.testbox = "box", .testcase = testcase, .job = jobnames[j],
			.kpi = "bench.ops", .sets = h->sets, .rows = h->rows[j], .nr_rows = NROWS,
			.job_text = "testcase: bench\n",
		};
	}
	h->r = (struct report){
		.commits = h->commits, .ncommits = NCOMMITS, .jobs = h->jobs, .njobs = njobs,
	};
}

static char *email(const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_email(f, r), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

static const char *has(const char *out, const char *want)
{
	const char *p = strstr(out, want);

	if (!p) {
		fprintf(stderr, "%s", out);
		fail_msg("missing '%s'", want);
	}
	return p;
}

static void hasnt(const char *out, const char *want)
{
	if (strstr(out, want)) {
		fprintf(stderr, "%s", out);
		fail_msg("unexpected '%s'", want);
	}
}

/* a before b, both present */
static void before(const char *out, const char *a, const char *b)
{
	if (has(out, a) >= has(out, b)) {
		fprintf(stderr, "%s", out);
		fail_msg("'%s' is not before '%s'", a, b);
	}
}

/* The culprit moved bench.ops -10% in job 0 (the tip -11%). */
static void regression(struct hand *h, size_t njobs)
{
	hand_build(h, njobs, "bench");
	col(h, 0, 0, 0, VERDICT_CHANGED, -10);
	col(h, 0, 0, 1, VERDICT_CHANGED, -11);
}

static void subject_prefixes(void **state)
{
	struct hand h;
	char *out;

	(void)state;
	regression(&h, 1);
	out = email(&h.r);
	has(out, "\nSubject: [perfbot] culprit: bench.ops -10.0% regression\n");
	free(out);

	h.r.branch = "main";
	out = email(&h.r);
	has(out, "\nSubject: [main] culprit: bench.ops -10.0% regression\n");
	hasnt(out, "[perfbot]");
	free(out);

	h.r.branch = "tip:timers/core";
	h.r.subsystem = "timers";
	out = email(&h.r);
	has(out, "\nSubject: [tip:timers/core] [timers] culprit: bench.ops -10.0% regression\n");
	free(out);

	h.r.branch = NULL;
	out = email(&h.r);
	has(out, "\nSubject: [timers] culprit: bench.ops -10.0% regression\n");
	free(out);

	/* empty strings are none */
	h.r.branch = "";
	h.r.subsystem = "";
	out = email(&h.r);
	has(out, "\nSubject: [perfbot] culprit: ");
	free(out);

	/* no change (--all): the prefix still leads */
	hand_build(&h, 1, "bench");
	h.r.branch = "main";
	out = email(&h.r);
	has(out, "\nSubject: [main] tip: no significant change\n");
	free(out);
}

/* LKP's tags block, near the top, for a regression; plain tags at the end else. */
static void tags_block(void **state)
{
	static const char block[] =
		"\nIf you fix the issue in a separate patch/commit (i.e. not just a new version of\n"
		"the same patch/commit), kindly add following tags\n"
		"| Reported-by: perfbot <bot@example.org>\n"
		"| Closes: https://example.org/r/1\n";
	struct hand h;
	char *out;

	(void)state;
	regression(&h, 1);
	h.r.reported_by = "perfbot <bot@example.org>";
	h.r.link = "https://example.org/r/1";
	out = email(&h.r);
	has(out, block);
	before(out, "test machine: box\n", block);
	before(out, block, "Details are as below:");
	/* once: not again at the end */
	hasnt(out, "\nReported-by: ");
	hasnt(out, "\nCloses: ");
	free(out);

	/* Closes only when there is a link */
	h.r.link = NULL;
	out = email(&h.r);
	has(out, "kindly add following tags\n| Reported-by: perfbot <bot@example.org>\n\n");
	hasnt(out, "Closes:");
	free(out);
	h.r.reported_by = NULL;
	out = email(&h.r);
	hasnt(out, "kindly add");
	free(out);

	/* an improvement has nothing to fix: the tags end the email */
	hand_build(&h, 1, "bench");
	col(&h, 0, 0, 0, VERDICT_CHANGED, 10);
	h.r.reported_by = "perfbot <bot@example.org>";
	h.r.link = "https://example.org/r/1";
	out = email(&h.r);
	hasnt(out, "kindly add");
	has(out, "testcase: bench\n\nReported-by: perfbot <bot@example.org>\n"
		 "Closes: https://example.org/r/1\n");
	free(out);
}

/* The largest significant change leads, not the first job in order. */
static void headline_largest(void **state)
{
	struct hand h;
	size_t job = 9, c = 9;
	const struct stat_row *row = NULL;
	char *out;

	(void)state;
	hand_build(&h, 3, "bench");
	col(&h, 0, 0, 0, VERDICT_CHANGED, -3);
	col(&h, 1, 0, 0, VERDICT_CHANGED, 8);
	col(&h, 2, 0, 0, VERDICT_CHANGED, -5);
	assert_true(report_headline(&h.r, &job, &c, &row));
	assert_int_equal(job, 1);
	assert_int_equal(c, 0);
	assert_string_equal(row->name, "bench.ops");
	out = email(&h.r);
	has(out, "\nSubject: [perfbot] culprit: bench.ops +8.0% improvement\n");
	/* the others are "In addition", the largest's job is not */
	has(out, "| testcase: change | bench: bench.ops 3.0% regression");
	has(out, "| testcase: change | bench: bench.ops 5.0% regression");
	hasnt(out, "| testcase: change | bench: bench.ops 8.0%");
	free(out);

	/* a larger change that is not significant (small, unknown) does not lead */
	col(&h, 1, 0, 0, VERDICT_SMALL, 8);
	col(&h, 2, 0, 0, VERDICT_UNKNOWN, 20);
	assert_true(report_headline(&h.r, &job, &c, &row));
	assert_int_equal(job, 0);

	/* nor one at the tip only: the first commit where a KPI changed leads */
	col(&h, 2, 0, 1, VERDICT_CHANGED, 30);
	assert_true(report_headline(&h.r, &job, &c, &row));
	assert_int_equal(job, 0);
	assert_int_equal(c, 0);

	/* a job without a KPI of its own: its KPI row with the largest change */
	hand_build(&h, 1, "bench");
	h.jobs[0].kpi = NULL;
	col(&h, 0, 0, 0, VERDICT_CHANGED, -2);
	col(&h, 0, 1, 0, VERDICT_CHANGED, -6);
	assert_true(report_headline(&h.r, &job, &c, &row));
	assert_string_equal(row->name, "bench.other_ops");
	/* with one, the job's own KPI stands for it */
	h.jobs[0].kpi = "bench.ops";
	assert_true(report_headline(&h.r, &job, &c, &row));
	assert_string_equal(row->name, "bench.ops");
	/* ...unless it did not change */
	col(&h, 0, 0, 0, VERDICT_SAME, 0);
	assert_true(report_headline(&h.r, &job, &c, &row));
	assert_string_equal(row->name, "bench.other_ops");
}

/*
 * Several test boxes (docs/report.md, "Several test boxes"): each row of
 * "In addition to that" names its own box's machine line; with
 * headline_testbox the headline is that box's, the larger change of
 * another box goes to the table; none there: no headline.
 */
static void headline_testbox(void **state)
{
	struct hand h;
	size_t job = 9, c = 9;
	char *out;

	(void)state;
	hand_build(&h, 3, "bench");
	h.jobs[0].testbox = "box1";
	h.jobs[0].machine = "112 threads Intel(R) Xeon(R) Platinum 8170 CPU @ 2.10GHz with 128G memory";
	h.jobs[1].testbox = "box2";
	h.jobs[1].machine = "88 threads Intel(R) Xeon(R) CPU E5-2699 v4 @ 2.20GHz with 64G memory";
	h.jobs[2].testbox = "box3";
	col(&h, 0, 0, 0, VERDICT_CHANGED, 10);
	col(&h, 1, 0, 0, VERDICT_CHANGED, 4);
	assert_true(report_headline(&h.r, &job, &c, NULL));
	assert_int_equal(job, 0);
	out = email(&h.r);
	has(out, "\ntest machine: 112 threads Intel(R) Xeon(R) Platinum 8170 CPU @ 2.10GHz with 128G memory\n");
	has(out, "| test machine     | 88 threads Intel(R) Xeon(R) CPU E5-2699 v4 @ 2.20GHz with 64G memory |");
	/* box 3 did not change: not a row (a machine-less job's row names its box) */
	hasnt(out, "| test machine     | box3");
	free(out);

	h.r.headline_testbox = "box2";
	assert_true(report_headline(&h.r, &job, &c, NULL));
	assert_int_equal(job, 1);
	out = email(&h.r);
	has(out, "\nSubject: [perfbot] culprit: bench.ops +4.0% improvement\n");
	has(out, "\ntest machine: 88 threads Intel(R) Xeon(R) CPU E5-2699 v4 @ 2.20GHz with 64G memory\n");
	has(out, "| testcase: change | bench: bench.ops 10.0% improvement");
	has(out, "| test machine     | 112 threads Intel(R) Xeon(R) Platinum 8170 CPU @ 2.10GHz with 128G memory |");
	free(out);

	h.r.headline_testbox = "box3";
	assert_false(report_headline(&h.r, &job, &c, NULL));
	assert_false(report_change_apart(&h.r, &job, &c, NULL));
}

static void test_description(void **state)
{
	const char *d = NULL, *u = NULL;
	struct hand h;
	char *out;

	(void)state;
	assert_true(report_test_description("will-it-scale", &d, &u));
	assert_string_equal(u, "https://github.com/antonblanchard/will-it-scale");
	assert_true(report_test_description("hackbench", &d, &u));
	assert_true(report_test_description("netperf", &d, &u));
	assert_false(report_test_description("exec", &d, &u));
	assert_false(report_test_description("bisect-demo", &d, &u));
	assert_false(report_test_description(NULL, &d, &u));

	hand_build(&h, 1, "will-it-scale");
	col(&h, 0, 0, 0, VERDICT_CHANGED, -10);
	out = email(&h.r);
	has(out, "\n\ntest-description: will-it-scale runs one operation");
	has(out, "\ntest-url: https://github.com/antonblanchard/will-it-scale\n");
	before(out, "in testcase: will-it-scale\n", "test-description: ");
	before(out, "test-url: ", "Details are as below:");
	free(out);

	/* an exec testcase: none, unless given */
	hand_build(&h, 1, "my-exec");
	col(&h, 0, 0, 0, VERDICT_CHANGED, -10);
	out = email(&h.r);
	hasnt(out, "test-description:");
	hasnt(out, "test-url:");
	free(out);
	h.jobs[0].test_description = "my program's startup time";
	h.jobs[0].test_url = "https://example.org/my";
	out = email(&h.r);
	has(out, "\ntest-description: my program's startup time\n"
		 "test-url: https://example.org/my\n");
	free(out);
}

/* The parameter block: the job's, then what it recorded and the machine's. */
static void identity_params(void **state)
{
	struct strmap params = { 0 }, env = { 0 }, env2 = { 0 };
	struct hand h;
	char *out;

	(void)state;
	assert_int_equal(strmap_set(&params, "nr_task", "100%"), 0);
	assert_int_equal(strmap_set(&params, "mode", "thread"), 0);
	assert_int_equal(strmap_set(&env, "job.kconfig", "x86_64-rhel-7.6"), 0);
	assert_int_equal(strmap_set(&env, "cpufreq_governor", "performance"), 0);
	assert_int_equal(strmap_set(&env, "microcode", "0xb00002e"), 0);
	assert_int_equal(strmap_set(&env, "compiler", "gcc 12.2.0"), 0);	/* perfbot's */
	hand_build(&h, 2, "will-it-scale");
	col(&h, 0, 0, 0, VERDICT_CHANGED, -10);
	col(&h, 1, 0, 0, VERDICT_CHANGED, -5);
	h.jobs[0].params = &params;
	h.jobs[0].env = &env;
	h.jobs[1].params = &params;
	h.jobs[1].env = &env;
	out = email(&h.r);
	has(out, "with following parameters:\n\n"
		 "\tnr_task: 100%\n\tmode: thread\n\tcpufreq_governor: performance\n"
		 "\tucode: 0xb00002e\n\tkconfig: x86_64-rhel-7.6\n\n");
	hasnt(out, "compiler");
	/* "In addition": sorted by key, as seed 000's */
	has(out, "| test parameters  | cpufreq_governor=performance ");
	before(out, "| test parameters  | cpufreq_governor=performance ",
	       "|                  | kconfig=x86_64-rhel-7.6 ");
	before(out, "|                  | kconfig=x86_64-rhel-7.6 ",
	       "|                  | mode=thread ");
	before(out, "|                  | mode=thread ", "|                  | nr_task=100% ");
	before(out, "|                  | nr_task=100% ", "|                  | ucode=0xb00002e ");
	free(out);

	/* what the job asked wins over the machine; unavailable is none */
	assert_int_equal(strmap_set(&env2, "job.cpufreq_governor", "powersave"), 0);
	assert_int_equal(strmap_set(&env2, "cpufreq_governor", "performance"), 0);
	assert_int_equal(strmap_set(&env2, "microcode", "unavailable: not in /proc/cpuinfo"), 0);
	h.jobs[0].env = &env2;
	h.r.njobs = 1;
	out = email(&h.r);
	has(out, "\tcpufreq_governor: powersave\n");
	hasnt(out, "performance");
	hasnt(out, "ucode");
	free(out);
	/* a parameter of the job is not repeated */
	assert_int_equal(strmap_set(&params, "cpufreq_governor", "ondemand"), 0);
	out = email(&h.r);
	has(out, "\tcpufreq_governor: ondemand\n");
	hasnt(out, "powersave");
	free(out);

	strmap_release(&params);
	strmap_release(&env);
	strmap_release(&env2);
}

static void evidence_section(void **state)
{
	static const char ev[] =
		"P(first bad) 99.8% after 42 runs on 6 of 11 commits\n"
		"confirmed against its parent: -10.0% [-11.2%, -8.9%], p=3.4e-11";
	struct hand h;
	char *out;

	(void)state;
	regression(&h, 1);
	out = email(&h.r);
	hasnt(out, "How sure");
	free(out);
	h.r.evidence = ev;
	out = email(&h.r);
	/* whole, ended by a newline, before the details */
	has(out, "\nHow sure:\n\nP(first bad) 99.8% after 42 runs on 6 of 11 commits\n"
		 "confirmed against its parent: -10.0% [-11.2%, -8.9%], p=3.4e-11\n\n"
		 "Details are as below:\n");
	free(out);
	h.r.evidence = "";
	out = email(&h.r);
	hasnt(out, "How sure");
	free(out);
}

static void reproduce_lines(void **state)
{
	struct hand h;
	char *out;

	(void)state;
	regression(&h, 1);
	out = email(&h.r);
	has(out, "\nTo reproduce:\n\n"
		 "        perfbot install job.yaml  # the job file is at the end of this email\n"
		 "        perfbot run job.yaml\n");
	hasnt(out, "--commit");
	free(out);

	h.r.repo = "/srv/src/demo";
	out = email(&h.r);
	has(out, "        perfbot run --repo /srv/src/demo --commit base job.yaml\n"
		 "        perfbot run --repo /srv/src/demo --commit culprit job.yaml\n"
		 "        perfbot compare base culprit\n");
	hasnt(out, "git clone");
	free(out);

	/* a URL: cloned, and the clone is the --repo */
	h.r.repo_url = "https://git.example.org/demo.git";
	out = email(&h.r);
	has(out, "\nTo reproduce:\n\n"
		 "        git clone https://git.example.org/demo.git repo\n"
		 "        perfbot install job.yaml  # the job file is at the end of this email\n"
		 "        perfbot run --repo repo --commit base job.yaml\n"
		 "        perfbot run --repo repo --commit culprit job.yaml\n");
	before(out, "Details are as below:", "To reproduce:");
	before(out, "To reproduce:", "\njob.yaml:\n\ntestcase: bench\n");
	free(out);
}

/* The seeds' commit line, then the URL and the branch. */
static void origin_line(void **state)
{
	struct hand h;
	char *out;

	(void)state;
	regression(&h, 1);
	h.commits[1].subject = "timers: Implement the hierarchical pull model";
	h.r.repo_url = "https://git.kernel.org/cgit/linux/kernel/git/tip/tip.git";
	h.r.branch = "timers/core";
	out = email(&h.r);
	has(out, "\n\ncommit: culprit (\"timers: Implement the hierarchical pull model\")\n"
		 "https://git.kernel.org/cgit/linux/kernel/git/tip/tip.git timers/core\n"
		 "later: tip ");
	free(out);
	/* the robot's "tree:branch": the subject has it whole, the line the branch */
	h.r.branch = "tip:timers/core";
	out = email(&h.r);
	has(out, "\nSubject: [tip:timers/core] culprit: ");
	has(out, "\")\nhttps://git.kernel.org/cgit/linux/kernel/git/tip/tip.git timers/core\n");
	free(out);
	h.r.branch = NULL;
	out = email(&h.r);
	has(out, "\")\nhttps://git.kernel.org/cgit/linux/kernel/git/tip/tip.git\nlater: ");
	free(out);
}

/* tests/fixtures/bisect-result.json, read as a stored result is. */
static int load_fixture(struct bisect_result *r, const char *drop)
{
	char path[4096], *slash, err[256];
	struct strbuf text = STRBUF_INIT;
	int ret;

	snprintf(path, sizeof(path), "%s", __FILE__);
	slash = strrchr(path, '/');
	assert_non_null(slash);
	snprintf(slash, sizeof(path) - (size_t)(slash - path), "/../fixtures/bisect-result.json");
	assert_int_equal(strbuf_read_file(&text, path, 1 << 24), 0);
	if (drop) {
		/* "status": "found" -> another status */
		char *at = strstr(text.buf, "\"found\"");

		assert_non_null(at);
		memcpy(at, drop, 7);
	}
	ret = bisect_result_from_json(text.buf, text.len, r, err, sizeof(err));
	strbuf_release(&text);
	return ret;
}

/* The robot's "How sure" lines from the bisection that found the commit. */
static void bisect_evidence(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct bisect_result r;
	struct hand h;
	char *out;

	(void)state;
	assert_int_equal(load_fixture(&r, NULL), 0);
	assert_int_equal(report_bisect_evidence(&sb, &r), 0);
	/* the fixture's numbers (tests/fixtures/bisect-result.json) */
	assert_string_equal(sb.buf,
		"P(first bad) 99.8% that ced4ba3a27a9 is the first bad commit (bisection 3: "
		"20 runs on 6 of the 40 candidate commits)\n"
		"next most likely: f096ea3ec76a at P(first bad) 0.09%\n"
		"confirmed against its parent 1898cf9aaa99: +5.0% [+4.3%, +5.6%] (95% interval), "
		"p=3.4e-11: changed (6 + 6 runs)\n"
		"good 24412ef5d15c .. bad 5735ed2be62f: +5.0% [+4.6%, +5.4%] (95% interval), "
		"p=1.2e-09: changed (5 + 5 runs)\n");
	assert_int_equal(sb.buf[sb.len - 1], '\n');
	/* into the email's section, whole */
	regression(&h, 1);
	h.r.evidence = sb.buf;
	out = email(&h.r);
	has(out, "\nHow sure:\n\nP(first bad) ");
	has(out, sb.buf);
	free(out);
	bisect_result_release(&r);

	/* a bisection that found no culprit says nothing */
	strbuf_reset(&sb);
	assert_int_equal(load_fixture(&r, "\"reset\""), 0);
	assert_int_equal(report_bisect_evidence(&sb, &r), -EINVAL);
	assert_int_equal(sb.len, 0);
	bisect_result_release(&r);
	strbuf_release(&sb);
}

static void subsystem_is(const char *subject, const char *const *paths, size_t n,
			 const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	bool got;

	strbuf_addstr(&sb, "<");	/* appended, not replaced */
	got = report_subsystem(&sb, subject, paths, n);
	if (!want) {
		if (got || strcmp(sb.buf, "<"))
			fail_msg("'%s': got '%s', want none", subject ? subject : "(null)",
				 sb.buf);
	} else if (!got || strcmp(sb.buf + 1, want) || sb.buf[0] != '<') {
		fail_msg("'%s': got '%s' (%d), want '%s'", subject ? subject : "(null)",
			 sb.buf, got, want);
	}
	strbuf_release(&sb);
}

static void subsystem(void **state)
{
	static const char *const mm[] = { "mm/slub.c", "mm/slab.h" };
	static const char *const time[] = { "kernel/time/timer.c", "kernel/time/tick-sched.c",
					    "kernel/time/timer_migration.c" };
	static const char *const deep[] = { "kernel/time/a/b.c", "kernel/time/c.c" };
	static const char *const split[] = { "kernel/sched/core.c", "kernel/time/timer.c" };
	static const char *const apart[] = { "mm/slub.c", "net/core/dev.c" };
	static const char *const prefix[] = { "ab/x.c", "a/y.c" };
	static const char *const partial[] = { "kernel/timex/a.c", "kernel/time/b.c" };
	static const char *const partial2[] = { "kernel/time/b.c", "kernel/timex/a.c" };
	static const char *const prefix2[] = { "a/y.c", "ab/x.c" };
	static const char *const top[] = { "Makefile" };
	static const char *const one[] = { "drivers/net/e1000/main.c" };
	static const char *const blank[] = { "my dir/a.c", "my dir/b.c" };
	static const char *const abs[] = { "/etc/a", "/etc/b" };

	(void)state;
	subsystem_is("mm/slub: fix a leak", NULL, 0, "mm/slub");
	subsystem_is("x86/mm: Flush the TLB", NULL, 0, "x86/mm");
	subsystem_is("net: add a socket option", NULL, 0, "net");
	subsystem_is("timers: Implement the hierarchical pull model", NULL, 0, "timers");
	subsystem_is("x86, retpolines: Raise limit", NULL, 0, "x86, retpolines");
	subsystem_is("bpf: Add bpf_seq_printf and bpf_seq_write helpers", NULL, 0, "bpf");
	/* the subject leads over the paths */
	subsystem_is("net: x", mm, 2, "net");
	/* no prefix: the sentence is not one */
	subsystem_is("Fix the build", NULL, 0, NULL);
	subsystem_is("main 7: more work", NULL, 0, NULL);
	subsystem_is("Revert \"net: add a socket option\"", NULL, 0, NULL);
	subsystem_is("Merge branch 'x86/urgent' of git://a", NULL, 0, NULL);
	subsystem_is("net:no blank", NULL, 0, NULL);
	subsystem_is(": empty", NULL, 0, NULL);
	subsystem_is("x86,: odd", NULL, 0, NULL);
	subsystem_is("a-very-long-name-that-is-no-subsystem-at-all-really: x", NULL, 0, NULL);
	subsystem_is("", NULL, 0, NULL);
	subsystem_is(NULL, NULL, 0, NULL);
	/* else the paths' common directory */
	subsystem_is("Fix the build", mm, 2, "mm");
	subsystem_is(NULL, time, 3, "kernel/time");
	subsystem_is(NULL, deep, 2, "kernel/time");
	subsystem_is(NULL, split, 2, "kernel");
	subsystem_is(NULL, one, 1, "drivers/net/e1000");
	subsystem_is(NULL, apart, 2, NULL);
	subsystem_is(NULL, prefix, 2, NULL);		/* "a" is no directory of "ab/x.c" */
	subsystem_is(NULL, prefix2, 2, NULL);
	subsystem_is(NULL, partial, 2, "kernel");	/* nor "kernel/time" of "kernel/timex/" */
	subsystem_is(NULL, partial2, 2, "kernel");
	subsystem_is(NULL, top, 1, NULL);
	subsystem_is(NULL, blank, 2, NULL);
	subsystem_is(NULL, abs, 2, NULL);
	subsystem_is(NULL, mm, 0, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(subject_prefixes),
		cmocka_unit_test(tags_block),
		cmocka_unit_test(headline_largest),
		cmocka_unit_test(headline_testbox),
		cmocka_unit_test(test_description),
		cmocka_unit_test(identity_params),
		cmocka_unit_test(evidence_section),
		cmocka_unit_test(reproduce_lines),
		cmocka_unit_test(origin_line),
		cmocka_unit_test(subsystem),
		cmocka_unit_test(bisect_evidence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
