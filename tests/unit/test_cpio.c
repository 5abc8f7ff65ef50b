/*
 * Unit tests: boot/cpio -- a newc archive written and listed back:
 * names, modes, sizes, device numbers, the data, the trailer, 4-byte
 * alignment of headers and data; archives cut short or with a bad
 * magic refused; a missing source file named.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "boot/cpio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/perfbot-test-cpio-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char p[128];

	(void)state;
	snprintf(p, sizeof(p), "%s/a.cpio", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/src", dir);
	unlink(p);
	return rmdir(dir);
}

static void test_write_and_list(void **state)
{
	struct strbuf err = STRBUF_INIT, data = STRBUF_INIT;
	struct cpio_listing l;
	struct cpio_writer w;
	char path[128], src[128];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/a.cpio", dir);
	snprintf(src, sizeof(src), "%s/src", dir);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs("12345", f);		/* 5 bytes: data padding needed */
	fclose(f);
	assert_int_equal(cpio_writer_open(&w, path, &err), 0);
	assert_int_equal(cpio_add_dir(&w, "/dev", 0755, &err), 0);
	assert_int_equal(cpio_add_chardev(&w, "/dev/console", 0600, 5, 1, &err), 0);
	assert_int_equal(cpio_add_data(&w, "/init", 0755, "#!/bin/sh\n", 10, &err), 0);
	assert_int_equal(cpio_add_file(&w, "bin/file", 0644, src, &err), 0);
	assert_int_equal(cpio_add_symlink(&w, "/bin/sh", "busybox", &err), 0);
	assert_int_equal(cpio_add_data(&w, "/empty", 0600, "", 0, &err), 0);
	assert_int_equal(cpio_writer_close(&w, &err), 0);

	assert_int_equal(strbuf_read_file(&data, path, 0), 0);
	assert_int_equal(data.len % 4, 0);
	assert_int_equal(cpio_list(data.buf, data.len, &l, &err), 0);
	assert_true(l.trailer);
	assert_int_equal(l.n, 6);
	assert_string_equal(l.v[0].name, "dev");
	assert_int_equal(l.v[0].mode, S_IFDIR | 0755);
	assert_string_equal(l.v[1].name, "dev/console");
	assert_int_equal(l.v[1].mode, S_IFCHR | 0600);
	assert_int_equal(l.v[1].rdevmajor, 5);
	assert_int_equal(l.v[1].rdevminor, 1);
	assert_string_equal(l.v[2].name, "init");
	assert_int_equal(l.v[2].mode, S_IFREG | 0755);
	assert_int_equal(l.v[2].size, 10);
	assert_memory_equal(data.buf + l.v[2].offset, "#!/bin/sh\n", 10);
	assert_string_equal(l.v[3].name, "bin/file");
	assert_int_equal(l.v[3].mode, S_IFREG | 0644);
	assert_int_equal(l.v[3].size, 5);
	assert_memory_equal(data.buf + l.v[3].offset, "12345", 5);
	assert_string_equal(l.v[4].name, "bin/sh");
	assert_int_equal(l.v[4].mode, S_IFLNK | 0777);
	assert_int_equal(l.v[4].size, 7);
	assert_memory_equal(data.buf + l.v[4].offset, "busybox", 7);
	assert_string_equal(l.v[5].name, "empty");
	assert_int_equal(l.v[5].size, 0);
	for (size_t i = 0; i < l.n; i++)
		assert_int_equal(l.v[i].offset % 4, 0);
	/* the first header, field by field: magic, ino 1, mode, uid 0, ..., namesize 4 */
	assert_memory_equal(data.buf, "070701" "00000001" "000041ED" "00000000" "00000000"
			    "00000002" "00000000" "00000000", 62);
	assert_memory_equal(data.buf + 94, "00000004" "00000000" "dev", 19);
	/* the trailer ends it */
	assert_non_null(memmem(data.buf + data.len - 124, 124, "TRAILER!!!", 11));
	cpio_listing_release(&l);

	/* cut short, a bad magic */
	assert_int_equal(cpio_list(data.buf, data.len - 8, &l, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "cut short"));
	cpio_listing_release(&l);
	data.buf[0] = '1';
	assert_int_equal(cpio_list(data.buf, data.len, &l, &err), -EINVAL);
	assert_string_equal(err.buf, "cpio: bad magic at offset 0");
	cpio_listing_release(&l);
	strbuf_release(&data);
	strbuf_release(&err);
}

static void test_errors_named(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct cpio_writer w;
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/a.cpio", dir);
	assert_int_equal(cpio_writer_open(&w, "/nonexistent-dir/x.cpio", &err), -ENOENT);
	assert_string_equal(err.buf, "cannot create /nonexistent-dir/x.cpio: No such file or directory");
	assert_int_equal(cpio_writer_open(&w, path, &err), 0);
	assert_int_equal(cpio_add_file(&w, "x", 0644, "/nonexistent-file", &err), -ENOENT);
	assert_string_equal(err.buf, "cannot read /nonexistent-file: No such file or directory");
	cpio_writer_abort(&w);
	assert_int_equal(access(path, F_OK), -1);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_and_list),
		cmocka_unit_test(test_errors_named),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
