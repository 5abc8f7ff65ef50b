/*
 * Unit tests: the table as LKP prints it (lib/compare.rb's number
 * formats, population "± N%", fail:runs columns), the words of issue 12
 * (small, new, gone, "unknown — N more runs", a disturbed column, a
 * verdict per column), the headline commit of base/culprit/tip, and the
 * name rule for undeclared stats.  Rows are made by hand, so that every
 * verdict and flag can be set whatever stats/ decides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/report.h"
#include "report/internal.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers ---- */

static void numbers(void **state)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{ 754.3, "754.30" },		/* below 1000: two decimals */
		{ 4.1, "4.10" },
		{ 4.05, "4.05" },
		{ 0, "0.00" },
		{ 0.001, "0.00" },
		{ -12.5, "-12.50" },
		{ 999.994, "999.99" },
		{ 1000, "1000" },		/* from 1000: %d */
		{ 1049.6, "1049" },		/* truncated, not rounded */
		{ 1036.8, "1036" },
		{ 6105969.9, "6105969" },
		{ -1049.6, "-1049" },		/* towards zero */
		{ 1e8, "100000000" },		/* %d up to 1e8 included */
		{ 100000001, "1e+08" },		/* above: %.4g */
		{ 1758519072, "1.759e+09" },
		{ 1804482432, "1.804e+09" },
		{ -2.5e9, "-2.5e+09" },
		{ NAN, "-" },
		{ INFINITY, "-" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		report_format_number(buf, sizeof(buf), cases[i].v);
		if (strcmp(buf, cases[i].want))
			fail_msg("%.17g: got %s, want %s", cases[i].v, buf, cases[i].want);
	}
}

static void changes(void **state)
{
	static const struct {
		struct pct_change c;
		const char *want;
	} cases[] = {
		{ { .pct = 2.6137 }, "+2.6%" },
		{ { .pct = 1196.5499 }, "+1196.5%" },
		{ { .pct = -1.2195 }, "-1.2%" },
		{ { .pct = -100 }, "-100.0%" },
		{ { .pct = 0 }, "+0.0%" },
		{ { .pct = 99999.9 }, "+99999.9%" },
		{ { .pct = 123456 }, "+1.2e+05%" },	/* from 100000: %.2g */
		{ { .pct = 3, .absolute = true }, "+3.0" },	/* a difference: no % */
		{ { .pct = NAN }, "-" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		report_format_change(buf, sizeof(buf), &cases[i].c);
		if (strcmp(buf, cases[i].want))
			fail_msg("%g: got %s, want %s", cases[i].c.pct, buf, cases[i].want);
	}
	report_format_reproduction(buf, sizeof(buf), -100);
	assert_string_equal(buf, "-100%");
	report_format_reproduction(buf, sizeof(buf), 30);
	assert_string_equal(buf, "30%");	/* LKP: no sign */
	report_format_reproduction(buf, sizeof(buf), 0);
	assert_string_equal(buf, "0%");
}

/* The population stddev over the mean, truncated; shown above 2 only. */
static void stddev(void **state)
{
	static const double rss[] = { 44200, 44200, 294925 };
	struct summary s;
	long long pct;

	(void)state;
	summarize(rss, 3, &s);
	assert_true(report_lkp_stddev(&s, &pct));
	assert_int_equal(pct, 92);	/* seed 001's "± 92%"; the sample one is 113 */
	assert_int_equal((long long)(100 * s.stddev / s.mean), 113);
	/* under 2% is not shown, 2.5% is (as "  2%") */
	s = (struct summary){ .n = 2, .mean = 100, .stddev = 1.9 * sqrt(2) };
	assert_false(report_lkp_stddev(&s, &pct));
	s.stddev = 2.5 * sqrt(2);
	assert_true(report_lkp_stddev(&s, &pct));
	assert_int_equal(pct, 2);
	/* one run: LKP's stddev is -1, never shown; a negative mean neither */
	s = (struct summary){ .n = 1, .mean = 100, .stddev = 50 };
	assert_false(report_lkp_stddev(&s, &pct));
	s = (struct summary){ .n = 3, .mean = -100, .stddev = 50 };
	assert_false(report_lkp_stddev(&s, &pct));
	/* a mean of 0: LKP compares the stddev itself */
	s = (struct summary){ .n = 2, .mean = 0, .stddev = 5 * sqrt(2) };
	assert_true(report_lkp_stddev(&s, &pct));
	assert_int_equal(pct, 5);
}

/* ---- hand-made rows ---- */

#define NCOMMITS 3
#define NROWS 9

struct hand {
	struct stat_vs vs[NROWS][NCOMMITS - 1];
	struct stat_row rows[NROWS];
	struct sample_set sets[NCOMMITS];
	struct report_commit commits[NCOMMITS];
	struct compare_disturbance dist[NCOMMITS - 1];
	struct report_job job;
	struct report r;
};

static struct summary sum(double mean, size_t n)
{
	return (struct summary){ .n = n, .mean = mean, .median = mean };
}

static void col(struct hand *h, size_t row, size_t c, enum verdict v, double mean,
		double pct)
{
	h->vs[row][c] = (struct stat_vs){
		.s = sum(mean, mean == 0 && v == VERDICT_GONE ? 0 : 5),
		.change = { .pct = pct, .low = pct - 1, .high = pct + 1 }, .mean_pct = pct,
		.p = 0.001, .q = 0.001, .verdict = v, .runs = 5,
	};
}

/*
 * Base, culprit, tip.  Rows: the KPI changed at the culprit and the tip;
 * a KPI changed only at the tip; a small change; new; gone; unknown with
 * more runs; a disturbed unknown; a failure stat; a same row.
 */
static void hand_build(struct hand *h, bool disturbed)
{
	static const char *const names[NROWS] = {
		"bench.ops", "bench.late_ops", "bench.small", "bench.new_stat",
		"bench.gone_stat", "bench.undecided", "bench.disturbed",
		"dmesg.WARNING:x", "bench.same",
	};
	static const char *const ids[NCOMMITS] = { "base", "culprit", "tip" };

	memset(h, 0, sizeof(*h));
	for (size_t c = 0; c < NCOMMITS; c++) {
		h->sets[c] = (struct sample_set){ .commit = ids[c], .nr_runs = 5 };
		h->commits[c].id = ids[c];
	}
	for (size_t i = 0; i < NROWS; i++) {
		h->rows[i] = (struct stat_row){
			.name = names[i], .family = i < 2 ? FAMILY_KPI : FAMILY_OTHER,
			.kpi = i < 2, .better = STAT_BETTER_HIGHER, .base = sum(100, 5),
			.vs = h->vs[i], .base_runs = 5,
		};
		for (size_t c = 0; c < NCOMMITS - 1; c++)
			col(h, i, c, VERDICT_SAME, 100, 0);
	}
	col(h, 0, 0, VERDICT_CHANGED, 90, -10);
	col(h, 0, 1, VERDICT_CHANGED, 89, -11);
	col(h, 1, 1, VERDICT_CHANGED, 95, -5);
	col(h, 2, 0, VERDICT_SMALL, 99, -1.2);
	col(h, 2, 1, VERDICT_SMALL, 99, -1.2);
	h->rows[3].base = sum(0, 0);
	col(h, 3, 0, VERDICT_NEW, 3, 3);
	h->vs[3][0].change.absolute = true;
	col(h, 3, 1, VERDICT_NEW, 3, 3);
	h->vs[3][1].change.absolute = true;
	col(h, 4, 0, VERDICT_GONE, 0, -100);
	col(h, 4, 1, VERDICT_GONE, 0, -100);
	col(h, 5, 0, VERDICT_UNKNOWN, 120, 20);
	h->vs[5][0].more_runs = 7;
	col(h, 5, 1, VERDICT_UNKNOWN, 130, 30);
	h->vs[5][1].more_runs = 1;
	col(h, 6, 1, VERDICT_UNKNOWN, 80, -20);
	h->vs[6][1].disturbed = disturbed;
	h->rows[7].family = FAMILY_FAILURE;
	h->rows[7].better = STAT_BETTER_LOWER;
	h->rows[7].base = sum(0, 5);
	for (size_t c = 0; c < NCOMMITS - 1; c++) {
		col(h, 7, c, VERDICT_UNKNOWN, 0.6, 60);
		h->vs[7][c].fails = 3;
		h->vs[7][c].reproduction = 60;
	}
	h->dist[1] = (struct compare_disturbance){
		.differs = disturbed, .what = disturbed ? "disturbance.others_cpu" : NULL,
		.base = 0.02, .other = 0.98, .limit = 0.25,
	};
	h->job = (struct report_job){
		.testbox = "box", .testcase = "bench", .job = "bench-1", .kpi = "bench.ops",
		.sets = h->sets, .rows = h->rows, .nr_rows = NROWS, .disturbance = h->dist,
	};
	h->r = (struct report){
		.commits = h->commits, .ncommits = NCOMMITS, .jobs = &h->job, .njobs = 1,
	};
}

typedef int (*writer)(FILE *, const struct report *);

static char *render(writer w, const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(w(f, r), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *words(const struct stat_row *row, size_t c, bool full)
{
	struct strbuf sb = STRBUF_INIT;

	report_verdict_words(&sb, row, c, full);
	return strbuf_detach(&sb, NULL);
}

static void assert_words(const struct stat_row *row, size_t c, bool full, const char *want)
{
	char *w = words(row, c, full);

	if (strcmp(w, want))
		fail_msg("%s column %zu: got '%s', want '%s'", row->name, c, w, want);
	free(w);
}

static void verdict_words(void **state)
{
	struct hand h;

	(void)state;
	hand_build(&h, true);
	assert_words(&h.rows[0], 0, false, "regression");
	assert_words(&h.rows[0], 0, true, "changed  regression");
	assert_words(&h.rows[2], 0, false, "small");		/* never "same" */
	assert_words(&h.rows[3], 0, false, "new");
	assert_words(&h.rows[4], 0, false, "gone");
	assert_words(&h.rows[5], 0, false, "unknown — 7 more runs");
	assert_words(&h.rows[5], 1, false, "unknown — 1 more run");
	assert_words(&h.rows[6], 1, false, "unknown — machine disturbed");
	assert_words(&h.rows[8], 0, false, "same");
	/* a change without a direction is still a change, not a blank */
	h.rows[0].better = STAT_BETTER_NONE;
	assert_words(&h.rows[0], 0, false, "changed");
	/* no direction word but on a change */
	for (size_t i = 2; i < NROWS; i++)
		for (size_t c = 0; c < 2; c++) {
			char *w = words(&h.rows[i], c, true);

			assert_null(strstr(w, "regression"));
			assert_null(strstr(w, "improvement"));
			free(w);
		}
}

static void has(const char *out, const char *want)
{
	if (!strstr(out, want)) {
		fprintf(stderr, "%s", out);
		fail_msg("missing '%s'", want);
	}
}

static void text_table(void **state)
{
	struct hand h;
	char *out;

	(void)state;
	hand_build(&h, true);
	out = render(report_text, &h.r);
	has(out, "            base                     culprit                         tip\n");
	/* each column its own verdict, the change in both */
	has(out, "    100.00           -10.0%      90.00           -11.0%      89.00        "
		 "bench.ops  regression  |  regression\n");
	/* a column that did not change says so: no blank */
	has(out, "bench.late_ops  same  |  regression\n");
	has(out, "bench.small  small  |  small\n");
	/* new: absolute values, the difference without % */
	has(out, "      0.00            +3.0        3.00            +3.0        3.00        "
		 "bench.new_stat  new  |  new\n");
	has(out, "    100.00          -100.0%       0.00          -100.0%       0.00        "
		 "bench.gone_stat  gone  |  gone\n");
	has(out, "bench.undecided  unknown — 7 more runs  |  unknown — 1 more run\n");
	has(out, "bench.disturbed  same  |  unknown — machine disturbed\n");
	/* fail:runs: base count 0 blank, 60% unsigned */
	has(out, "           :5           60%           3:5           60%           3:5     "
		 "dmesg.WARNING:x  unknown  |  unknown\n");
	/* the column says why */
	has(out, "commit tip: machine disturbed: disturbance.others_cpu 0.02 vs 0.98 CPUs, "
		 "limit 0.25 — no verdict\n");
	/* a row within LKP's floor and the same is not shown */
	assert_null(strstr(out, "bench.same"));
	free(out);

	hand_build(&h, false);
	out = render(report_text, &h.r);
	assert_null(strstr(out, "machine disturbed"));
	assert_null(strstr(out, "outlying runs"));
	free(out);

	/*
	 * outlying runs: the means moved +0.4% where the verdict's trimmed
	 * means moved -10%: the table shows LKP's +0.4% and says why the
	 * verdict is a regression
	 */
	hand_build(&h, false);
	h.vs[0][0].mean_pct = 0.4;
	out = render(report_text, &h.r);
	has(out, "+0.4%");
	has(out, "bench.ops  regression (trimmed means -10.0%: outlying runs)  |  regression\n");
	free(out);
	/* html shows the same %change and the same words */
	out = render(report_html, &h.r);
	has(out, "<td class=\"num\">+0.4%</td>");
	has(out, "regression (trimmed means -10.0%: outlying runs)");
	free(out);
}

/* base, culprit, tip: the report is about the culprit */
static void headline_culprit(void **state)
{
	struct hand h;
	size_t job = 9, c = 9;
	const struct stat_row *row = NULL;
	char *out;

	(void)state;
	hand_build(&h, false);
	assert_true(report_headline(&h.r, &job, &c, &row));
	assert_int_equal(job, 0);
	assert_int_equal(c, 0);
	assert_string_equal(row->name, "bench.ops");
	out = render(report_email, &h.r);
	has(out, "Subject: [perfbot] culprit: bench.ops -10.0% regression\n");
	has(out, "commit: culprit\n");
	has(out, "later: tip -11.0% against the base: regression\n");
	free(out);

	/* the job's KPI unchanged: the first KPI row that changed, where it did */
	col(&h, 0, 0, VERDICT_SAME, 100, 0);
	col(&h, 0, 1, VERDICT_SAME, 100, 0);
	assert_true(report_headline(&h.r, &job, &c, &row));
	assert_int_equal(c, 1);
	assert_string_equal(row->name, "bench.late_ops");

	/* a change in a disturbed column does not count */
	hand_build(&h, true);
	col(&h, 0, 0, VERDICT_SAME, 100, 0);
	assert_false(report_headline(&h.r, &job, &c, &row));
	/* nor small, unknown, new or gone */
	hand_build(&h, false);
	for (size_t i = 0; i < 2; i++)
		for (size_t k = 0; k < 2; k++)
			h.vs[i][k].verdict = VERDICT_SMALL;
	assert_false(report_headline(&h.r, &job, &c, &row));
}

static void html_and_json(void **state)
{
	struct hand h;
	json_t *j, *job, *rows, *d, *v;
	json_error_t e;
	char *out;

	(void)state;
	hand_build(&h, true);
	out = render(report_html, &h.r);
	has(out, "<td class=\"v-small\">small</td>");
	has(out, "<td class=\"v-new\">new</td>");
	has(out, "<td class=\"v-gone\">gone</td>");
	has(out, "<td class=\"v-unknown disturbed\">unknown — machine disturbed</td>");
	has(out, "<td class=\"v-unknown\">unknown — 7 more runs</td>");
	has(out, "<p class=\"disturbed\">commit tip: machine disturbed: "
		 "disturbance.others_cpu 0.02 vs 0.98 CPUs, limit 0.25 — no verdict</p>");
	has(out, ".v-small{");
	free(out);

	out = render(report_json, &h.r);
	j = json_loads(out, 0, &e);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "version")), 3);
	job = json_array_get(json_object_get(j, "jobs"), 0);
	d = json_object_get(job, "disturbance");
	assert_true(json_is_false(json_object_get(json_array_get(d, 0), "differs")));
	assert_true(json_is_true(json_object_get(json_array_get(d, 1), "differs")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(d, 1), "what")),
			    "disturbance.others_cpu");
	assert_true(json_real_value(json_object_get(json_array_get(d, 1), "limit")) == 0.25);
	rows = json_object_get(job, "rows");
	v = json_array_get(json_object_get(json_array_get(rows, 5), "vs"), 0);
	assert_int_equal(json_integer_value(json_object_get(v, "more_runs")), 7);
	assert_string_equal(json_string_value(json_object_get(v, "words")),
			    "unknown — 7 more runs");
	v = json_array_get(json_object_get(json_array_get(rows, 6), "vs"), 1);
	assert_true(json_is_true(json_object_get(v, "disturbed")));
	assert_true(json_is_null(json_object_get(v, "direction")));
	v = json_array_get(json_object_get(json_array_get(rows, 2), "vs"), 0);
	assert_string_equal(json_string_value(json_object_get(v, "verdict")), "small");
	assert_true(json_is_null(json_object_get(v, "direction")));
	assert_true(json_is_false(json_object_get(json_array_get(rows, 8), "shown")));
	assert_true(json_is_true(json_object_get(json_array_get(rows, 5), "shown")));
	json_decref(j);
	free(out);
}

/* ---- the rule for undeclared stats: time, elapsed, latency as words ---- */

static void name_rule(void **state)
{
	static const struct {
		const char *name;
		int better;
	} cases[] = {
		/* will-it-scale */
		{ "will-it-scale.per_thread_ops", STAT_BETTER_HIGHER },
		{ "will-it-scale.per_process_ops", STAT_BETTER_HIGHER },
		{ "will-it-scale.workload", STAT_BETTER_HIGHER },
		{ "will-it-scale.time.elapsed_time", STAT_BETTER_LOWER },
		{ "will-it-scale.time.elapsed_time.max", STAT_BETTER_LOWER },
		{ "will-it-scale.time.user_time", STAT_BETTER_LOWER },
		{ "will-it-scale.time.maximum_resident_set_size", STAT_BETTER_LOWER },
		/* netperf */
		{ "netperf.Throughput_Mbps", STAT_BETTER_HIGHER },
		{ "netperf.ThroughputBoth_total_Mbps", STAT_BETTER_HIGHER },
		{ "netperf.Throughput_tps", STAT_BETTER_HIGHER },
		/* hackbench */
		{ "hackbench.throughput", STAT_BETTER_HIGHER },
		{ "hackbench.time", STAT_BETTER_LOWER },
		/* LKP's monitors: "time" inside a word is no time */
		{ "interrupts.LOC:Local_timer_interrupts", STAT_BETTER_NONE },
		{ "softirqs.CPU0.TIMER", STAT_BETTER_NONE },
		{ "uptime.idle", STAT_BETTER_NONE },
		{ "sched_debug.cfs_rq:/.runtime.avg", STAT_BETTER_NONE },
		{ "proc-vmstat.pgsteal_timestamp", STAT_BETTER_NONE },
		{ "perf-stat.i.cpu-clock", STAT_BETTER_NONE },
		{ "meminfo.Cached", STAT_BETTER_NONE },
		{ "vmstat.system.cs", STAT_BETTER_NONE },
		/* ... and as a word it is */
		{ "schbench.latency_90%_us", STAT_BETTER_LOWER },
		{ "redis.latency_p99", STAT_BETTER_LOWER },
		{ "fio.write_clat_mean_us.latency", STAT_BETTER_LOWER },
		{ "sysbench-cpu.total_time", STAT_BETTER_LOWER },
		{ "unixbench.Elapsed", STAT_BETTER_LOWER },
		{ "kbuild.buildtime_per_iteration", STAT_BETTER_NONE },
		{ "boot-time.dhcp", STAT_BETTER_LOWER },
		/* failures */
		{ "dmesg.WARNING:stack_recursion", STAT_BETTER_LOWER },
		{ "last_state.is_incomplete_run", STAT_BETTER_LOWER },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (stat_rule_better(cases[i].name) != cases[i].better)
			fail_msg("%s: got %d, want %d", cases[i].name,
				 stat_rule_better(cases[i].name), cases[i].better);
	/* the word follows: a timer interrupt count dropping is no improvement */
	assert_null(report_direction_word("interrupts.LOC:Local_timer_interrupts", -10));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers),
		cmocka_unit_test(changes),
		cmocka_unit_test(stddev),
		cmocka_unit_test(verdict_words),
		cmocka_unit_test(text_table),
		cmocka_unit_test(headline_culprit),
		cmocka_unit_test(html_and_json),
		cmocka_unit_test(name_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
