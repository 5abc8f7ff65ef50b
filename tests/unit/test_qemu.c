/*
 * test_qemu.c - boot/qemu.c without QEMU: its command line, and a boot
 * run against stand-in "qemu" scripts that write the two streams, exit,
 * hang, or stay silent (the KVM probe falls back to TCG).
 */
#define _GNU_SOURCE
#include "boot/qemu.h"
#include "util/fsutil.h"
#include "util/words.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

static char *dir;

static int setup(void **state)
{
	(void)state;
	return make_temp_dir(NULL, "perfbot-test-qemu", &dir);
}

static int teardown(void **state)
{
	(void)state;
	remove_tree(dir);
	free(dir);
	return 0;
}

static size_t find(char **argv, const char *word)
{
	for (size_t i = 0; argv[i]; i++)
		if (!strcmp(argv[i], word))
			return i;
	return (size_t)-1;
}

static void argv_tcg_and_kvm(void **state)
{
	char *const extra[] = { "-rtc", "base=utc", NULL };
	struct qemu_opts o = { .cpus = 4, .memory_mb = 512, .extra_args = extra,
			       .cmdline = "quiet" };
	char **argv = NULL;
	size_t i;

	(void)state;
	assert_int_equal(qemu_argv(&o, QEMU_ACCEL_TCG, "/k/bzImage", "/k/initrd", "/w/c.log",
				   "/w/r.out", &argv), 0);
	assert_string_equal(argv[0], "qemu-system-x86_64");
	i = find(argv, "-accel");
	assert_true(i != (size_t)-1);
	assert_string_equal(argv[i + 1], "tcg");
	assert_string_equal(argv[find(argv, "-cpu") + 1], "max");
	assert_string_equal(argv[find(argv, "-smp") + 1], "4");
	assert_string_equal(argv[find(argv, "-m") + 1], "512M");
	assert_string_equal(argv[find(argv, "-kernel") + 1], "/k/bzImage");
	assert_string_equal(argv[find(argv, "-initrd") + 1], "/k/initrd");
	assert_string_equal(argv[find(argv, "-serial") + 1], "file:/w/c.log");
	assert_string_equal(argv[find(argv, "-chardev") + 1], "file,id=record,path=/w/r.out");
	assert_true(find(argv, "-no-reboot") != (size_t)-1);
	assert_non_null(strstr(argv[find(argv, "-append") + 1], "console=ttyS0"));
	assert_non_null(strstr(argv[find(argv, "-append") + 1], " quiet"));
	/* the caller's arguments last, as given */
	i = find(argv, "-rtc");
	assert_string_equal(argv[i + 1], "base=utc");
	assert_null(argv[i + 2]);
	free_words(argv);
	assert_int_equal(qemu_argv(&o, QEMU_ACCEL_KVM, "/k", "/i", "/c", "/r", &argv), 0);
	assert_string_equal(argv[find(argv, "-accel") + 1], "kvm");
	assert_string_equal(argv[find(argv, "-cpu") + 1], "host");
	free_words(argv);
	/* AUTO is decided before, and a ',' would split QEMU's option */
	assert_int_equal(qemu_argv(&o, QEMU_ACCEL_AUTO, "/k", "/i", "/c", "/r", &argv), -EINVAL);
	assert_int_equal(qemu_argv(&o, QEMU_ACCEL_TCG, "/k", "/i", "/c,x", "/r", &argv), -EINVAL);
}

static void accel_words(void **state)
{
	enum qemu_accel a = QEMU_ACCEL_TCG;

	(void)state;
	assert_int_equal(qemu_accel_parse("kvm", &a), 0);
	assert_int_equal(a, QEMU_ACCEL_KVM);
	assert_int_equal(qemu_accel_parse("auto", &a), 0);
	assert_int_equal(a, QEMU_ACCEL_AUTO);
	assert_int_equal(qemu_accel_parse("KVM", &a), -EINVAL);
	assert_int_equal(qemu_accel_parse(NULL, &a), -EINVAL);
	assert_string_equal(qemu_accel_name(QEMU_ACCEL_TCG), "tcg");
}

/* A stand-in QEMU: a shell script; body sees $console and $record. */
static char *fake_qemu(const char *name, const char *body)
{
	char *path = NULL;
	FILE *f;

	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n"
		"for a; do case $a in file:*) console=${a#file:} ;;"
		" file,id=record,path=*) record=${a#file,id=record,path=} ;; esac; done\n"
		"%s\n", body);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	return path;
}

static void boot_writes_both_streams(void **state)
{
	char *q = fake_qemu("qemu-ok", "printf 'Linux version 6.1\\nok\\n' > \"$console\"\n"
			    "printf 'PBF1 BEGIN' > \"$record\"\nexit 0");
	struct qemu_opts o = { .binary = q, .accel = QEMU_ACCEL_TCG, .timeout_s = 20 };
	struct qemu_result r;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(qemu_run(&o, "/k", "/i", dir, NULL, &r, &err), 0);
	assert_false(r.timed_out);
	assert_int_equal(r.accel, QEMU_ACCEL_TCG);
	assert_string_equal(r.console.buf, "Linux version 6.1\nok\n");
	assert_string_equal(r.record.buf, "PBF1 BEGIN");
	/* the stream files are gone with the boot */
	{
		char *c = NULL;

		assert_true(asprintf(&c, "%s/console.log", dir) > 0);
		assert_int_equal(access(c, F_OK), -1);
		free(c);
	}
	qemu_result_release(&r);
	strbuf_release(&err);
	free(q);
}

static void boot_that_hangs_is_killed(void **state)
{
	char *q = fake_qemu("qemu-hang", "printf 'Linux version\\n' > \"$console\"\n"
			    "sleep 30 & sleep 30; wait");
	struct qemu_opts o = { .binary = q, .accel = QEMU_ACCEL_TCG, .timeout_s = 1 };
	struct qemu_result r;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(qemu_run(&o, "/k", "/i", dir, NULL, &r, &err), 0);
	assert_true(r.timed_out);
	assert_true(r.elapsed_s < 10);
	assert_string_equal(r.console.buf, "Linux version\n");
	qemu_result_release(&r);
	strbuf_release(&err);
	free(q);
}

static void no_qemu_installed(void **state)
{
	struct qemu_opts o = { .binary = "/nonexistent/qemu", .accel = QEMU_ACCEL_TCG };
	struct qemu_result r;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(qemu_run(&o, "/k", "/i", dir, NULL, &r, &err), -ENOENT);
	assert_non_null(strstr(err.buf, "/nonexistent/qemu"));
	qemu_result_release(&r);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(argv_tcg_and_kvm),
		cmocka_unit_test(accel_words),
		cmocka_unit_test(boot_writes_both_streams),
		cmocka_unit_test(boot_that_hangs_is_killed),
		cmocka_unit_test(no_qemu_installed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
