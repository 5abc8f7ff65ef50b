/*
 * Unit tests: import (LKP matrix.json and long-form CSV into run
 * records): runs and holes, skipped keys, the testcase guess, and every
 * kind of bad input with its position.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "record/import.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int lkp(const char *text, struct import_data *d, struct strbuf *err)
{
	return import_lkp_matrix(text, strlen(text), d, err);
}

static int csv(const char *text, struct import_data *d, struct strbuf *err)
{
	return import_csv(text, strlen(text), d, err);
}

static double stat_of(const struct run_record *r, const char *name)
{
	const double *v = statmap_get(&r->stats, name);

	assert_non_null(v);
	return *v;
}

static void test_matrix_runs(void **state)
{
	struct import_data d;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(lkp("{\"dmesg.WARNING:x\": [1, null, 1],\n"
			     " \"stats_source\": \"/lkp/result/x\",\n"
			     " \"will-it-scale.per_thread_ops\": [6105969, 6265564.5],\n"
			     " \"tags\": [\"a\", \"b\"],\n"
			     " \"holes\": [null, null]}", &d, &err), 0);
	assert_int_equal(d.nr, 3);
	assert_int_equal(d.skipped, 3);
	assert_string_equal(d.testcase, "will-it-scale");
	assert_int_equal(d.runs[0].stats.n, 2);
	assert_true(stat_of(&d.runs[0], "will-it-scale.per_thread_ops") == 6105969);
	assert_true(stat_of(&d.runs[1], "will-it-scale.per_thread_ops") == 6265564.5);
	assert_null(statmap_get(&d.runs[1].stats, "dmesg.WARNING:x"));
	assert_int_equal(d.runs[2].stats.n, 1);
	assert_int_equal(d.runs[2].status, RUN_COMPLETE);
	assert_string_equal(strmap_get(&d.runs[2].env, "import_run"), "2");
	assert_null(d.runs[0].testbox);
	import_data_release(&d);
	strbuf_release(&err);
}

static void test_matrix_monitors_only(void **state)
{
	struct import_data d;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(lkp("{\"proc-vmstat.nr_free_pages\": [1],"
			     " \"time.elapsed_time\": [2]}", &d, &err), 0);
	assert_null(d.testcase);
	assert_int_equal(d.nr, 1);
	import_data_release(&d);
	strbuf_release(&err);
}

static void test_matrix_bad(void **state)
{
	struct import_data d;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(lkp("{\"a.b\": [1,\n  }", &d, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "2:3: "));
	assert_null(d.runs);
	assert_int_equal(lkp("[1, 2]", &d, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "not an LKP matrix"));
	assert_int_equal(lkp("{\"stats_source\": \"x\", \"t\": [\"a\"]}", &d, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "no numeric stat"));
	assert_int_equal(lkp("{\"a.x\": [1], \"a.x\": [2]}", &d, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "duplicate"));
	assert_int_equal(lkp("{\"a.x\": [1, null], \"a.y\": [2]}", &d, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "run 1 has no numeric stat"));
	assert_int_equal(lkp("", &d, &err), -EINVAL);
	strbuf_release(&err);
}

static void test_csv_runs(void **state)
{
	struct import_data d;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	/* no comment lines: the header must come first */
	assert_int_equal(csv("# results\n", &d, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "1: expected the header"));
	assert_int_equal(csv("\nRun, Stat , value\r\n"
			     "7,dmesg.x,1\r\n"
			     "3, hackbench.throughput ,12.5\n"
			     "\n"
			     "7,\"hackbench.throughput\",13\n"
			     "3,\"odd \"\"name\"\", with comma\",-1e3\n", &d, &err), 0);
	assert_int_equal(d.nr, 2);
	assert_string_equal(d.testcase, "hackbench");
	/* in run id order, not file order */
	assert_string_equal(strmap_get(&d.runs[0].env, "import_run"), "3");
	assert_true(stat_of(&d.runs[0], "hackbench.throughput") == 12.5);
	assert_true(stat_of(&d.runs[0], "odd \"name\", with comma") == -1000);
	assert_string_equal(strmap_get(&d.runs[1].env, "import_run"), "7");
	assert_int_equal(d.runs[1].stats.n, 2);
	assert_true(stat_of(&d.runs[1], "dmesg.x") == 1);
	import_data_release(&d);
	strbuf_release(&err);
}

static void test_csv_bad(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "", "expected the header" },
		{ "stat,run1,run2\n", "1: expected the header" },
		{ "run,stat,value\n", "no numeric stat" },
		{ "run,stat,value\n1,a.b,1\n1,a.c\n", "3: expected 3 fields" },
		{ "run,stat,value\n1,a.b,1,2\n", "2: expected 3 fields" },
		{ "run,stat,value\nx,a.b,1\n", "2: run 'x' is not an integer" },
		{ "run,stat,value\n1.5,a.b,1\n", "2: run '1.5'" },
		{ "run,stat,value\n1,,1\n", "2: empty stat name" },
		{ "run,stat,value\n1,a.b,\n", "2: value '' of a.b" },
		{ "run,stat,value\n1,a.b,nan\n", "2: value 'nan'" },
		{ "run,stat,value\n1,a.b,1e999\n", "2: value '1e999'" },
		{ "run,stat,value\n1,\"a.b,1\n", "2: unbalanced double quote" },
		{ "run,stat,value\n1,\"a.b\"x,1\n", "2: unbalanced double quote" },
		{ "run,stat,value\n1,a.b,1\n2,a.b,1\n1,a.b,2\n", "4: a.b of run 1 given twice (first on line 2)" },
	};
	struct import_data d;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(csv(cases[i].text, &d, &err), -EINVAL);
		if (!strstr(err.buf, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.buf, cases[i].msg);
		assert_null(d.runs);
	}
	assert_int_equal(import_csv("run,stat,value\n1,a\0b,1\n", 23, &d, &err),
			 -EINVAL);
	assert_non_null(strstr(err.buf, "2: a NUL byte"));
	strbuf_release(&err);
}

/*
 * Values of 5,000 bytes are quoted whole (main cut the message at the
 * caller's 1,024 bytes); a stat name over the store's limit is shown by
 * its first 200 bytes, marked "..." (main cut it there unmarked).
 */
static void test_csv_long_values(void **state)
{
	struct strbuf text = STRBUF_INIT, want = STRBUF_INIT, value = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	struct import_data d;

	(void)state;
	strbuf_addchars(&value, '7', 4999);
	strbuf_addch(&value, 'x');
	strbuf_addf(&text, "run,stat,value\n1,a.b,%s\n", value.buf);
	assert_int_equal(csv(text.buf, &d, &err), -EINVAL);
	strbuf_addf(&want, "2: value '%s' of a.b is not a finite number", value.buf);
	assert_string_equal(err.buf, want.buf);

	strbuf_reset(&text);
	strbuf_addf(&text, "run,stat,value\n%s,a.b,1\n", value.buf);
	assert_int_equal(csv(text.buf, &d, &err), -EINVAL);
	strbuf_reset(&want);
	strbuf_addf(&want, "2: run '%s' is not an integer", value.buf);
	assert_string_equal(err.buf, want.buf);

	strbuf_reset(&text);
	strbuf_addstr(&text, "run,stat,value\n1,");
	strbuf_addchars(&text, 'a', 5000);
	strbuf_addstr(&text, ",1\n");
	assert_int_equal(csv(text.buf, &d, &err), -EINVAL);
	strbuf_reset(&want);
	strbuf_addstr(&want, "2: stat name \"");
	strbuf_addchars(&want, 'a', 199);
	strbuf_addstr(&want, "... is longer than 4096 bytes");
	assert_string_equal(err.buf, want.buf);

	strbuf_release(&text);
	strbuf_release(&want);
	strbuf_release(&value);
	strbuf_release(&err);
}

/*
 * One rule for the numbers of both formats: a subnormal is kept as it
 * is, a value that would be stored as 0 or that overflows is refused with
 * its position and text (CSV refused 4e-320; the matrix stored 1e-400 as 0).
 */
static void test_number_rule(void **state)
{
	static const struct {
		bool matrix;
		const char *text, *msg;
	} refused[] = {
		{ false, "run,stat,value\n1,a.b,1e-400\n",
		  "2: value '1e-400' of a.b is too small for a double: it would be stored as 0" },
		{ false, "run,stat,value\n1,a.b,-2.5e-330\n", "2: value '-2.5e-330' of a.b is too small" },
		{ false, "run,stat,value\n1,a.b,1e400\n",
		  "2: value '1e400' of a.b is too large for a double" },
		{ false, "run,stat,value\n1,a.b,-1e400\n", "2: value '-1e400' of a.b is too large" },
		{ false, "run,stat,value\n1,a.b,inf\n", "2: value 'inf' of a.b is not a finite number" },
		{ true, "{\"a.b\": [1, 1e-400]}",
		  "1:13: value '1e-400' of \"a.b\" (run 1) is too small for a double: it would be stored as 0" },
		{ true, "{\"x\": \"s\",\n \"a.b\": [\n  2,\n  null,\n  -1e400]}",
		  "5:3: value '-1e400' of \"a.b\" (run 2) is too large for a double" },
		{ true, "{\"a.b\": [1e400]}", "1:10: value '1e400' of \"a.b\" (run 0) is too large" },
		/* a string that looks like a number is no number */
		{ true, "{\"1e-400\": \"x\", \"é.b\": [5e-999]}", "1:25: value '5e-999' of \"é.b\" (run 0)" },
	};
	struct import_data d;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int ret = refused[i].matrix ? lkp(refused[i].text, &d, &err)
					    : csv(refused[i].text, &d, &err);

		assert_int_equal(ret, -EINVAL);
		if (!strstr(err.buf, refused[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.buf, refused[i].msg);
		assert_null(d.runs);
	}

	/* subnormals, the extremes and an exact zero are kept as they are */
	assert_int_equal(csv("run,stat,value\n1,a.sub,4e-320\n1,a.min,4.9e-324\n"
			     "1,a.max,1.7976931348623157e308\n1,a.zero,0e-400\n"
			     "1,a.neg,-4e-320\n", &d, &err), 0);
	assert_true(stat_of(&d.runs[0], "a.sub") == 4e-320);
	assert_true(stat_of(&d.runs[0], "a.sub") > 0);
	assert_true(stat_of(&d.runs[0], "a.min") == 4.9e-324);
	assert_true(stat_of(&d.runs[0], "a.max") == 1.7976931348623157e308);
	assert_true(stat_of(&d.runs[0], "a.zero") == 0);
	assert_true(stat_of(&d.runs[0], "a.neg") == -4e-320);
	import_data_release(&d);
	assert_int_equal(lkp("{\"a.sub\": [4e-320, 1e-310], \"a.zero\": [0.0, -0]}", &d, &err), 0);
	assert_int_equal(d.nr, 2);
	assert_true(stat_of(&d.runs[0], "a.sub") == 4e-320);
	assert_true(stat_of(&d.runs[1], "a.sub") == 1e-310);
	assert_true(stat_of(&d.runs[0], "a.zero") == 0);
	import_data_release(&d);
	strbuf_release(&err);
}

/* The content hash: SHA-256 as FIPS 180-4's examples give it. */
static void test_sha256(void **state)
{
	static const struct {
		const char *text, *hex;
	} known[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	char hex[IMPORT_HASH_LEN + 1], *million = malloc(1000000);

	(void)state;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		import_sha256(known[i].text, strlen(known[i].text), hex);
		assert_string_equal(hex, known[i].hex);
	}
	/* a million 'a': many blocks */
	assert_non_null(million);
	memset(million, 'a', 1000000);
	import_sha256(million, 1000000, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* lengths around the padding's boundary (55, 56, 64 bytes) differ */
	{
		char a[IMPORT_HASH_LEN + 1], b[IMPORT_HASH_LEN + 1];

		import_sha256(million, 55, a);
		import_sha256(million, 56, b);
		assert_string_not_equal(a, b);
		import_sha256(million, 64, a);
		assert_string_not_equal(a, b);
	}
	free(million);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix_runs),
		cmocka_unit_test(test_matrix_monitors_only),
		cmocka_unit_test(test_matrix_bad),
		cmocka_unit_test(test_csv_runs),
		cmocka_unit_test(test_csv_bad),
		cmocka_unit_test(test_csv_long_values),
		cmocka_unit_test(test_number_rule),
		cmocka_unit_test(test_sha256),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
