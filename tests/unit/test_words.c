/* Unit tests: util/words (command lines split like a shell, no expansion). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/words.h"

#include <errno.h>

static void plain_and_quoted(void **state)
{
	char **argv;

	(void)state;
	assert_int_equal(split_words("  sleep   0.05 ", &argv), 2);
	assert_string_equal(argv[0], "sleep");
	assert_string_equal(argv[1], "0.05");
	assert_null(argv[2]);
	free_words(argv);

	assert_int_equal(split_words("sh -c 'echo $HOME; ls' \"a \\\"b\\\" $x\" c\\ d", &argv), 5);
	assert_string_equal(argv[2], "echo $HOME; ls");	/* literal */
	assert_string_equal(argv[3], "a \"b\" $x");		/* no expansion */
	assert_string_equal(argv[4], "c d");
	free_words(argv);

	assert_int_equal(split_words("a'b'\"c\"d ''", &argv), 2);
	assert_string_equal(argv[0], "abcd");
	assert_string_equal(argv[1], "");			/* an empty word */
	free_words(argv);

	assert_int_equal(split_words("   ", &argv), 0);
	assert_null(argv[0]);
	free_words(argv);
}

static void errors(void **state)
{
	char **argv = (char **)1;

	(void)state;
	assert_int_equal(split_words("echo 'open", &argv), -EINVAL);
	assert_null(argv);
	assert_int_equal(split_words("echo \"open", &argv), -EINVAL);
	assert_int_equal(split_words("echo trailing\\", &argv), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_and_quoted),
		cmocka_unit_test(errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
