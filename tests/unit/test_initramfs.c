/*
 * Unit tests: boot/initramfs -- the libraries of /bin/true found as
 * Debian's ld.so finds them (its interpreter first, libc, each once),
 * the initramfs of /bin/true as "perfbot" listed back (init, job.yaml,
 * the binary, busybox and its applets, ld-linux, libc, /dev/console),
 * and every missing or wrong file named in the error.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "boot/cpio.h"
#include "boot/initramfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/perfbot-test-initramfs-XXXXXX";
static char out[128];

/* a static binary for busybox: the real one when installed */
#define BUSYBOX "/bin/busybox"

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(out, sizeof(out), "%s/i.cpio", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(out);
	return rmdir(dir);
}

static const struct initramfs_dep *dep_ending(const struct initramfs_deps *d, const char *end)
{
	for (size_t i = 0; i < d->n; i++) {
		size_t n = strlen(d->v[i].name), k = strlen(end);

		if (n >= k && !strcmp(d->v[i].name + n - k, end))
			return &d->v[i];
	}
	return NULL;
}

static void test_deps_of_true(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct initramfs_deps d;

	(void)state;
	assert_int_equal(initramfs_deps("/bin/true", NULL, &d, &err), 0);
	assert_true(d.n >= 2);
	/* the interpreter first, by the name PT_INTERP gives */
	assert_string_equal(d.v[0].name, "/lib64/ld-linux-x86-64.so.2");
	assert_non_null(dep_ending(&d, "/libc.so.6"));
	/* each once; every source a real file */
	for (size_t i = 0; i < d.n; i++) {
		struct stat st;

		for (size_t k = i + 1; k < d.n; k++)
			assert_string_not_equal(d.v[i].name, d.v[k].name);
		assert_int_equal(lstat(d.v[i].source, &st), 0);
		assert_true(S_ISREG(st.st_mode));
	}
	initramfs_deps_release(&d);

	/* a static binary needs nothing */
	if (access(BUSYBOX, R_OK) == 0) {
		assert_int_equal(initramfs_deps(BUSYBOX, NULL, &d, &err), 0);
		assert_int_equal(d.n, 0);
		initramfs_deps_release(&d);
	}
	strbuf_release(&err);
}

static const struct cpio_entry *entry(const struct cpio_listing *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

static void test_build_listing(void **state)
{
	struct initramfs_spec spec = {
		.perfbot = "/bin/true", .busybox = BUSYBOX,
		.job_text = "testcase: will-it-scale\nruntime: 1s\n",
	};
	struct strbuf err = STRBUF_INIT, data = STRBUF_INIT;
	const struct cpio_entry *e;
	struct cpio_listing l;
	struct stat st;

	(void)state;
	if (access(BUSYBOX, R_OK)) {
		skip();		/* busybox-static is not installed here */
		return;
	}
	assert_int_equal(initramfs_build(&spec, out, &err), 0);
	assert_int_equal(strbuf_read_file(&data, out, 0), 0);
	assert_int_equal(cpio_list(data.buf, data.len, &l, &err), 0);
	assert_true(l.trailer);

	assert_non_null(e = entry(&l, "init"));
	assert_int_equal(e->mode, S_IFREG | 0755);
	assert_memory_equal(data.buf + e->offset, initramfs_init_script(), e->size);
	assert_non_null(memmem(data.buf + e->offset, e->size, "guest-run /job.yaml", 19));
	assert_non_null(memmem(data.buf + e->offset, e->size, "reboot -f", 9));
	assert_non_null(memmem(data.buf + e->offset, e->size, "tmpfs /dev/shm", 14));

	assert_non_null(e = entry(&l, "job.yaml"));
	assert_int_equal(e->size, strlen(spec.job_text));
	assert_memory_equal(data.buf + e->offset, spec.job_text, e->size);

	assert_int_equal(stat("/bin/true", &st), 0);
	assert_non_null(e = entry(&l, "bin/perfbot"));
	assert_int_equal(e->size, st.st_size);
	assert_int_equal(e->mode, S_IFREG | 0755);
	assert_non_null(e = entry(&l, "bin/busybox"));
	assert_non_null(e = entry(&l, "bin/sh"));
	assert_int_equal(e->mode, S_IFLNK | 0777);
	assert_memory_equal(data.buf + e->offset, "busybox", 7);
	for (size_t i = 0; initramfs_applets[i]; i++) {
		char name[64];

		snprintf(name, sizeof(name), "bin/%s", initramfs_applets[i]);
		assert_non_null(entry(&l, name));
	}
	assert_non_null(e = entry(&l, "dev/console"));
	assert_int_equal(e->mode, S_IFCHR | 0600);
	assert_int_equal(e->rdevmajor, 5);
	assert_int_equal(e->rdevminor, 1);
	assert_non_null(e = entry(&l, "lib64/ld-linux-x86-64.so.2"));
	assert_int_equal(e->mode & S_IFMT, S_IFREG);
	assert_true(e->size > 10000);
	assert_non_null(entry(&l, "lib64"));
	assert_non_null(entry(&l, "proc"));
	assert_non_null(entry(&l, "sys"));
	assert_non_null(e = entry(&l, "tmp"));
	assert_int_equal(e->mode, S_IFDIR | 01777);
	{
		bool libc = false;

		for (size_t i = 0; i < l.n; i++)
			libc |= strstr(l.v[i].name, "/libc.so.6") != NULL && l.v[i].size > 100000;
		assert_true(libc);
	}
	cpio_listing_release(&l);
	strbuf_release(&data);
	strbuf_release(&err);
}

static void test_errors_named(void **state)
{
	static const char *const nowhere[] = { "/nonexistent-lib-dir", NULL };
	struct initramfs_spec spec = {
		.perfbot = "/nonexistent/perfbot", .busybox = BUSYBOX, .job_text = "x: 1\n",
	};
	struct strbuf err = STRBUF_INIT;
	struct initramfs_deps d;

	(void)state;
	unlink(out);		/* test_build_listing's */
	assert_int_equal(initramfs_build(&spec, out, &err), -ENOENT);
	assert_string_equal(err.buf, "perfbot binary /nonexistent/perfbot: No such file or directory");
	assert_int_equal(access(out, F_OK), -1);

	spec.perfbot = "/bin/true";
	spec.busybox = "/nonexistent/busybox";
	assert_int_equal(initramfs_build(&spec, out, &err), -ENOENT);
	assert_non_null(strstr(err.buf, "busybox /nonexistent/busybox: No such file"));

	/* a dynamic "busybox" */
	spec.busybox = "/bin/true";
	assert_int_equal(initramfs_build(&spec, out, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "busybox /bin/true is dynamically linked"));
	assert_int_equal(access(out, F_OK), -1);

	/* not an ELF file */
	assert_int_equal(initramfs_deps("/etc/hostname", NULL, &d, &err), -ENOEXEC);
	assert_string_equal(err.buf, "/etc/hostname: not an ELF file");

	/* a library not in the directories searched */
	assert_int_equal(initramfs_deps("/bin/true", nowhere, &d, &err), -ENOENT);
	assert_string_equal(err.buf, "library libc.so.6 (needed by /bin/true) not found in the loader's directories");
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deps_of_true),
		cmocka_unit_test(test_build_listing),
		cmocka_unit_test(test_errors_named),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
