/* Unit tests: util/quote (UTF-8 check, the store's name rule, quoting). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/quote.h"

#include <stdlib.h>
#include <string.h>

static void utf8(void **state)
{
	(void)state;
	assert_true(utf8_valid("plain", 5));
	assert_true(utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14));
	assert_false(utf8_valid("foo\xff", 4));
	assert_false(utf8_valid("\xc0\xaf", 2));		/* overlong '/' */
	assert_false(utf8_valid("\xe0\x80\xaf", 3));		/* overlong '/' */
	assert_false(utf8_valid("\xed\xa0\x80", 3));		/* a surrogate */
	assert_false(utf8_valid("\xf4\x90\x80\x80", 4));	/* > U+10FFFF */
	assert_false(utf8_valid("\xc3", 1));			/* truncated */
	assert_int_equal(utf8_char_len("\xe2\x82\xac", 3), 3);
	assert_int_equal(utf8_char_len("\xe2\x82\xac", 2), 0);
}

static void name_rule(void **state)
{
	char *big = malloc(NAME_MAX_BYTES + 2);

	(void)state;
	assert_null(name_problem("will-it-scale.per_thread_ops"));
	assert_null(name_problem("<script>/../caf\xc3\xa9"));
	assert_string_equal(name_problem("foo\xff"), "is not valid UTF-8");
	assert_string_equal(name_problem("a\033[31m"), "contains a control character");
	assert_string_equal(name_problem("a\x7f"), "contains a control character");
	assert_string_equal(name_problem("a\tb"), "contains a control character");
	memset(big, 'x', NAME_MAX_BYTES + 1);
	big[NAME_MAX_BYTES + 1] = '\0';
	assert_string_equal(name_problem(big), "is longer than 4096 bytes");
	assert_null(value_problem(big));
	big[NAME_MAX_BYTES] = '\0';
	assert_null(name_problem(big));
	free(big);
}

static void expect_quote(const char *in, bool always, const char *want)
{
	char *q = quote_c(in, always);

	assert_non_null(q);
	assert_string_equal(q, want);
	if (!always) {
		/* the width is the quoted form's characters: a table lines up */
		size_t chars = 0;

		for (const char *p = q; *p; p++)
			chars += ((unsigned char)*p & 0xc0) != 0x80;
		assert_int_equal(quote_width(in), chars);
	}
	free(q);
}

static void quoting(void **state)
{
	char *q;

	(void)state;
	expect_quote("plain.name", false, "plain.name");
	expect_quote("plain.name", true, "\"plain.name\"");
	expect_quote("caf\xc3\xa9", false, "caf\xc3\xa9");	/* valid UTF-8 as is */
	expect_quote("a\033]0;x\a\r\n\tb", false, "\"a\\033]0;x\\a\\r\\n\\tb\"");
	expect_quote("foo\xff", false, "\"foo\\377\"");
	expect_quote("a\x7f", false, "\"a\\177\"");
	expect_quote("say \"hi\"\\", false, "\"say \\\"hi\\\"\\\\\"");
	expect_quote("c1\xc2\x9b", false, "\"c1\\302\\233\"");	/* U+009B CSI */
	assert_int_equal(quote_width("caf\xc3\xa9"), 4);
	assert_int_equal(quote_width("a\033"), 7);		/* "a\033" */
	q = quote_line("line\nwith \"quotes\" \033 \xff");
	assert_string_equal(q, "line\\nwith \"quotes\" \\033 \\377");
	free(q);
}

static void lossy(void **state)
{
	char *s;
	json_t *j, *o;

	(void)state;
	s = utf8_lossy("a\xff" "b\xc3");
	assert_string_equal(s, "a\xef\xbf\xbd" "b\xef\xbf\xbd");
	free(s);
	j = json_str("bad\xff\033");
	assert_non_null(j);
	assert_string_equal(json_string_value(j), "bad\xef\xbf\xbd\033");
	json_decref(j);
	assert_true(json_is_null(j = json_str(NULL)));
	json_decref(j);
	o = json_object();
	assert_int_equal(json_object_set_lossy(o, "k\xfe", json_integer(1)), 0);
	assert_non_null(json_object_get(o, "k\xef\xbf\xbd"));
	json_decref(o);
	o = json_pack("{s:s, s:[s]}", "subject", "x\033[2Jy\nz", "list", "\a");
	j = json_quote_tree(o);
	assert_string_equal(json_string_value(json_object_get(j, "subject")),
			    "x\\033[2Jy\nz");		/* lines stay lines */
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "list"), 0)),
			    "\\a");
	json_decref(j);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(utf8),
		cmocka_unit_test(name_rule),
		cmocka_unit_test(quoting),
		cmocka_unit_test(lossy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
