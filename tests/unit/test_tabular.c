/* Unit tests: report/tabular (CSV and Markdown escaping, numbers, shape). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/tabular.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct tabular_column cols[] = {
	{ "name", false }, { "mean", true }, { "note", false },
};

/* One table of the given rows (3 cells each, NULL-terminated), as a string. */
static char *table(enum tabular_format f, const char *const *cells, double number)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct tabular t;

	assert_non_null(out);
	tabular_begin(&t, out, f, cols, 3);
	for (size_t i = 0; cells[i]; i += 2) {
		tabular_cell(&t, cells[i]);
		tabular_number(&t, number);
		tabular_cell(&t, cells[i + 1]);
		tabular_end_row(&t);
	}
	assert_int_equal(tabular_finish(&t), 0);
	fclose(out);
	return buf;
}

static void csv_quoting(void **state)
{
	static const char *const cells[] = {
		"plain", "a,b",
		"say \"hi\"", "two\nlines",
		"cr\r", "", NULL,
	};
	char *s = table(TABULAR_CSV, cells, 0.1);

	(void)state;
	assert_string_equal(s,
		"name,mean,note\n"
		"plain,0.1,\"a,b\"\n"
		"\"say \"\"hi\"\"\",0.1,\"two\nlines\"\n"
		"\"cr\r\",0.1,\n");
	free(s);
}

static void csv_numbers(void **state)
{
	static const char *const cells[] = { "x", "y", NULL };
	char *s;

	(void)state;
	/* unrounded as the JSON writer's 10 digits, not the table's "%.2f" */
	s = table(TABULAR_CSV, cells, 1234567.891234);
	assert_string_equal(s, "name,mean,note\nx,1234567.891,y\n");
	free(s);
	s = table(TABULAR_CSV, cells, NAN);
	assert_string_equal(s, "name,mean,note\nx,,y\n");
	free(s);
	s = table(TABULAR_CSV, cells, -2.5e-12);
	assert_string_equal(s, "name,mean,note\nx,-2.5e-12,y\n");
	free(s);
}

static void markdown_shape(void **state)
{
	static const char *const cells[] = { "a", "b", NULL };
	char *s = table(TABULAR_MARKDOWN, cells, 3);

	(void)state;
	assert_string_equal(s,
		"| name | mean | note |\n"
		"| --- | ---: | --- |\n"
		"| a | 3 | b |\n");
	free(s);
}

static void markdown_escaping(void **state)
{
	static const char *const cells[] = {
		"a|b", "back\\slash",
		"<script>&", "two\nlines\r",
		"*em* _x_ `c` [l]", "\"q\" 'q' \033[31m", NULL,
	};
	char *s = table(TABULAR_MARKDOWN, cells, 1);

	(void)state;
	assert_string_equal(s,
		"| name | mean | note |\n"
		"| --- | ---: | --- |\n"
		"| a\\|b | 1 | back\\\\slash |\n"
		"| &lt;script&gt;&amp; | 1 | two<br>lines |\n"
		"| \\*em\\* \\_x\\_ \\`c\\` \\[l\\] | 1 |"
		" &quot;q&quot; &#39;q&#39; \xef\xbf\xbd\\[31m |\n");
	free(s);
}

static void short_rows_padded(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct tabular t;

	(void)state;
	tabular_begin(&t, out, TABULAR_MARKDOWN, cols, 3);
	tabular_cell(&t, "only");
	tabular_end_row(&t);
	assert_int_equal(t.rows, 1);
	fclose(out);
	assert_string_equal(buf, "| name | mean | note |\n| --- | ---: | --- |\n| only |  |  |\n");
	free(buf);
}

static void format_names(void **state)
{
	enum tabular_format f;

	(void)state;
	assert_true(tabular_format_parse("csv", &f));
	assert_int_equal(f, TABULAR_CSV);
	assert_true(tabular_format_parse("markdown", &f));
	assert_int_equal(f, TABULAR_MARKDOWN);
	assert_false(tabular_format_parse("CSV ", &f));
	assert_false(tabular_format_parse("", &f));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(csv_quoting),
		cmocka_unit_test(csv_numbers),
		cmocka_unit_test(markdown_shape),
		cmocka_unit_test(markdown_escaping),
		cmocka_unit_test(short_rows_padded),
		cmocka_unit_test(format_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
