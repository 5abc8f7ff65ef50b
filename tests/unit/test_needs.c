/* Unit tests: queue/needs (what `perfbot submit --needs` asks of a box). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "queue/needs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void all_terms(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct store_needs n;

	(void)state;
	assert_int_equal(needs_parse("cpus>=88,arch=x86_64,mem>=64G,tag=big,testbox=lkp-1,tag=ssd,"
				     "class=skl-2s", &n, &err), 0);
	assert_int_equal(n.min_cpus, 88);
	assert_int_equal(n.min_mem_mb, 64 * 1024);
	assert_string_equal(n.arch, "x86_64");
	assert_string_equal(n.testbox, "lkp-1");
	assert_string_equal(n.class, "skl-2s");
	assert_non_null(n.tags);
	assert_string_equal(n.tags[0], "big");
	assert_string_equal(n.tags[1], "ssd");
	assert_null(n.tags[2]);
	store_needs_release(&n);

	assert_int_equal(needs_parse("mem>=512", &n, &err), 0);
	assert_int_equal(n.min_mem_mb, 512);	/* a bare number is MiB */
	assert_int_equal(n.min_cpus, 0);
	assert_null(n.arch);
	assert_null(n.class);
	assert_null(n.tags);
	store_needs_release(&n);
	assert_int_equal(needs_parse("mem>=2t", &n, &err), 0);
	assert_int_equal(n.min_mem_mb, 2 * 1024 * 1024);
	store_needs_release(&n);

	/* nothing needed */
	assert_int_equal(needs_parse("", &n, &err), 0);
	assert_int_equal(n.min_cpus, 0);
	assert_null(n.tags);
	store_needs_release(&n);
	strbuf_release(&err);
}

static void expect_error(const char *text, const char *msg)
{
	struct strbuf err = STRBUF_INIT;
	struct store_needs n;

	assert_int_equal(needs_parse(text, &n, &err), -EINVAL);
	assert_string_equal(err.buf, msg);
	store_needs_release(&n);
	strbuf_release(&err);
}

static void errors_name_the_term(void **state)
{
	(void)state;
	expect_error("cpus>=x", "--needs: 'cpus>=x': not a number");
	expect_error("arch=x86_64,cpus>=4x", "--needs: 'cpus>=4x': not a number");
	expect_error("cpus>=0", "--needs: 'cpus>=0': out of range (1 to 1048576)");
	expect_error("cpus=4", "--needs: 'cpus=4': cpus takes >= (at least N CPUs)");
	expect_error("cpus>=4,cpus>=8", "--needs: 'cpus>=8': cpus given twice");
	expect_error("mem>=64Q", "--needs: 'mem>=64Q': not a size (a number with M, G or T;"
		     " a bare number is MiB)");
	expect_error("mem>=G", "--needs: 'mem>=G': not a size (a number with M, G or T;"
		     " a bare number is MiB)");
	expect_error("gpu=1", "--needs: 'gpu=1': unknown need (cpus>=N, mem>=SIZE, arch=NAME,"
		     " tag=NAME, testbox=NAME, class=NAME)");
	expect_error("bigbox", "--needs: 'bigbox': expected NAME>=N or NAME=VALUE (cpus>=N,"
		     " mem>=SIZE, arch=NAME, tag=NAME, testbox=NAME, class=NAME)");
	expect_error("arch>=x86", "--needs: 'arch>=x86': takes = (NAME=VALUE)");
	expect_error("tag=a b", "--needs: 'tag=a b': not a word (letters, digits, '.', '_', '-')");
	expect_error("tag=", "--needs: 'tag=': empty");
	expect_error("arch=x86_64,arch=arm64", "--needs: 'arch=arm64': arch given twice");
	expect_error("class=a,class=b", "--needs: 'class=b': class given twice");
	expect_error("class>=a", "--needs: 'class>=a': takes = (NAME=VALUE)");
	expect_error("class=a:b", "--needs: 'class=a:b': not a word (letters, digits, '.', '_',"
		     " '-')");
	expect_error("cpus>=4,,tag=a", "--needs: '': an empty term (two commas, or one at an end)");
	expect_error("cpus>=4,", "--needs: '': an empty term (two commas, or one at an end)");
	expect_error("=4", "--needs: '=4': no name before the operator");
}

static void word_lists(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char **v;

	(void)state;
	assert_int_equal(needs_split_words("--tags", "big,ssd", &v, &err), 0);
	assert_string_equal(v[0], "big");
	assert_string_equal(v[1], "ssd");
	assert_null(v[2]);
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
	assert_int_equal(needs_split_words("--tags", "", &v, &err), 0);
	assert_null(v);
	assert_int_equal(needs_split_words("--tags", "big,,ssd", &v, &err), -EINVAL);
	assert_string_equal(err.buf, "--tags: '': empty");
	assert_int_equal(needs_split_words("--testcases", "exec,will it", &v, &err), -EINVAL);
	assert_string_equal(err.buf, "--testcases: 'will it': not a word (letters, digits, '.',"
			    " '_', '-')");
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(all_terms),
		cmocka_unit_test(errors_name_the_term),
		cmocka_unit_test(word_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
