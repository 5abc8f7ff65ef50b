/*
 * Unit tests: boot/frame -- a payload framed over a console: parsed out
 * of a stream with printk lines interleaved, prefixes, CRLF, duplicated
 * lines, cut lines and flipped bytes (rejected), any chunking of the
 * input (1 byte at a time and all at once give the same), the cap.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "boot/frame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* a payload of n bytes, every byte value in it */
static unsigned char *payload(size_t n)
{
	unsigned char *p = malloc(n ? n : 1);

	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131 + 7);
	return p;
}

/* Feed `text` in pieces of `step` bytes (0: all at once); the payload or NULL. */
static unsigned char *parse(const char *text, size_t len, size_t step, size_t cap,
			    size_t *outlen, struct frame_parser *p)
{
	size_t off = 0;
	int ret = 0;

	frame_parser_init(p, cap);
	while (off < len && ret == 0) {
		size_t k = step && len - off > step ? step : len - off, used;

		ret = frame_parser_feed(p, text + off, k, &used);
		assert_true(ret >= 0);
		off += used;
	}
	if (ret == 0)
		ret = frame_parser_finish(p);
	return ret == 1 ? frame_parser_take(p, outlen) : NULL;
}

static void frame(struct strbuf *sb, const void *data, size_t n)
{
	assert_int_equal(frame_write(sb, data, n), 0);
}

static void test_crc32_known(void **state)
{
	(void)state;
	/* zlib.crc32(b"123456789") */
	assert_int_equal(frame_crc32(0, "123456789", 9), 0xcbf43926u);
	assert_int_equal(frame_crc32(0, "", 0), 0);
	/* incremental */
	assert_int_equal(frame_crc32(frame_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);
}

static void test_format(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	frame(&sb, "hello", 5);
	/* crc32("hello") = 3610a686; "BEGIN 5 3610a686" and "0 aGVsbG8=" lines */
	assert_non_null(strstr(sb.buf, "PBF1 BEGIN 5 3610a686 "));
	assert_non_null(strstr(sb.buf, " aGVsbG8=\n"));
	assert_non_null(strstr(sb.buf, "PBF1 END 1 "));
	assert_int_equal(sb.buf[sb.len - 1], '\n');
	strbuf_release(&sb);
}

static void roundtrip(size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned char *in = payload(n), *out;
	struct frame_parser p;
	size_t len = 12345;

	frame(&sb, in, n);
	out = parse(sb.buf, sb.len, 0, 0, &len, &p);
	assert_non_null(out);
	assert_int_equal(len, n);
	if (n)
		assert_memory_equal(out, in, n);
	assert_int_equal(out[len], 0);
	free(out);
	frame_parser_release(&p);
	free(in);
	strbuf_release(&sb);
}

static void test_roundtrip_sizes(void **state)
{
	(void)state;
	/* empty, under a chunk, exactly one, one more, base64 padding cases */
	static const size_t sizes[] = { 0, 1, 2, 3, 47, 48, 49, 95, 96, 97, 1000, 65536 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		roundtrip(sizes[i]);
}

/* A console: printk lines between the frame's, prefixes on frame lines. */
static void console(struct strbuf *out, const char *framed, bool dup, bool crlf)
{
	const char *s = framed;
	unsigned i = 0;

	strbuf_addstr(out, "[    0.000000] Linux version 6.1.0 (gcc 12)\n");
	strbuf_addstr(out, "partial line without newline, then ");
	while (*s) {
		size_t k = strcspn(s, "\n");

		if (i % 3 == 1)
			strbuf_addf(out, "[    1.%06u] random: crng init done\n", i);
		/* some frame lines behind a printk-like prefix */
		if (i % 4 == 2)
			strbuf_addstr(out, "[    2.000000] hvc0: ");
		strbuf_add(out, s, k);
		strbuf_addstr(out, crlf ? "\r\n" : "\n");
		if (dup && i % 2)
			strbuf_add(out, s, k + 1);
		s += k + (s[k] == '\n');
		i++;
	}
	strbuf_addstr(out, "[    9.000000] reboot: Restarting system\n");
}

static void test_interleaved_any_chunking(void **state)
{
	struct strbuf framed = STRBUF_INIT, con = STRBUF_INIT;
	unsigned char *in = payload(1000);
	static const size_t steps[] = { 0, 1, 2, 3, 7, 64, 4096 };

	(void)state;
	frame(&framed, in, 1000);
	for (int variant = 0; variant < 3; variant++) {
		strbuf_reset(&con);
		console(&con, framed.buf, variant == 1, variant == 2);
		for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
			struct frame_parser p;
			size_t len = 0;
			unsigned char *out = parse(con.buf, con.len, steps[i], 0, &len, &p);

			assert_non_null(out);
			assert_int_equal(len, 1000);
			assert_memory_equal(out, in, 1000);
			assert_int_equal(p.rejected, 0);
			free(out);
			frame_parser_release(&p);
		}
	}
	free(in);
	strbuf_release(&framed);
	strbuf_release(&con);
}

/* the i-th line of text (0-based) starts at; its length */
static char *line_at(char *text, unsigned i, size_t *len)
{
	char *s = text;

	while (i--)
		s = strchr(s, '\n') + 1;
	*len = strcspn(s, "\n");
	return s;
}

static void test_flipped_byte_rejected(void **state)
{
	struct strbuf framed = STRBUF_INIT, twice = STRBUF_INIT;
	unsigned char *in = payload(200), *out;
	struct frame_parser p;
	size_t len, ll;
	char *l;

	(void)state;
	frame(&framed, in, 200);
	/* a byte of data line 2 (chunk 1) flipped: that chunk is missing */
	l = line_at(framed.buf, 2, &ll);
	l[ll - 3] ^= 0x01;
	out = parse(framed.buf, framed.len, 1, 0, &len, &p);
	assert_null(out);
	assert_int_equal(p.rejected, 1);
	{
		struct strbuf why = STRBUF_INIT;

		frame_parser_status(&p, &why);
		assert_string_equal(why.buf, "frame of 200 bytes: 1 of 5 chunks missing (1 damaged frame line)");
		strbuf_release(&why);
	}
	frame_parser_release(&p);
	/* the same frame sent again after the damaged one: whole */
	l[ll - 3] ^= 0x01;
	strbuf_addstr(&twice, framed.buf);
	l[ll - 3] ^= 0x01;
	{
		struct strbuf all = STRBUF_INIT;

		strbuf_addstr(&all, framed.buf);	/* damaged */
		strbuf_addstr(&all, twice.buf);		/* clean: duplicates accepted */
		out = parse(all.buf, all.len, 0, 0, &len, &p);
		assert_non_null(out);
		assert_memory_equal(out, in, 200);
		free(out);
		frame_parser_release(&p);
		strbuf_release(&all);
	}
	free(in);
	strbuf_release(&framed);
	strbuf_release(&twice);
}

static void test_cut_line_rejected(void **state)
{
	struct strbuf framed = STRBUF_INIT, con = STRBUF_INIT;
	unsigned char *in = payload(150);
	struct frame_parser p;
	size_t len, ll, k = 0;
	char *l;

	(void)state;
	frame(&framed, in, 150);
	/* a kernel message cuts into data line 1: its rest comes later */
	l = line_at(framed.buf, 1, &ll);
	strbuf_add(&con, framed.buf, (size_t)(l - framed.buf) + 20);
	strbuf_addstr(&con, "[   3.1] BUG: kernel NULL pointer dereference\n");
	strbuf_addstr(&con, l + 20);
	assert_null(parse(con.buf, con.len, 0, 0, &len, &p));
	assert_int_equal(p.rejected, 1);
	frame_parser_release(&p);
	/* a BEGIN with a flipped byte: nothing is taken for a frame */
	strbuf_reset(&con);
	strbuf_addstr(&con, framed.buf);
	con.buf[12] ^= 0x04;
	assert_null(parse(con.buf, con.len, 0, 0, &len, &p));
	assert_int_equal(p.rejected, 1);
	assert_false(p.begun);
	frame_parser_release(&p);
	/* the END missing does not matter once every chunk came */
	strbuf_reset(&con);
	l = strstr(framed.buf, "PBF1 END");
	strbuf_add(&con, framed.buf, (size_t)(l - framed.buf));
	{
		unsigned char *out = parse(con.buf, con.len, 0, 0, &k, &p);

		assert_non_null(out);
		assert_int_equal(k, 150);
		free(out);
	}
	frame_parser_release(&p);
	free(in);
	strbuf_release(&framed);
	strbuf_release(&con);
}

static void test_cap_and_status(void **state)
{
	struct strbuf framed = STRBUF_INIT, why = STRBUF_INIT;
	unsigned char *in = payload(100);
	struct frame_parser p;
	size_t len;

	(void)state;
	frame(&framed, in, 100);
	assert_null(parse(framed.buf, framed.len, 0, 99, &len, &p));
	frame_parser_status(&p, &why);
	assert_string_equal(why.buf, "a frame announced 100 bytes, over the cap of 99");
	frame_parser_release(&p);
	assert_null(parse("no frame here\n[ 1.0] PBF1 nonsense\n", 35, 0, 0, &len, &p));
	frame_parser_status(&p, &why);
	assert_string_equal(why.buf, "no frame found (1 damaged frame line)");
	frame_parser_release(&p);
	/* a huge line without a newline stays bounded */
	{
		char *big = malloc(1 << 20);

		assert_non_null(big);
		memset(big, 'x', 1 << 20);
		frame_parser_init(&p, 0);
		assert_int_equal(frame_parser_feed(&p, big, 1 << 20, NULL), 0);
		assert_true(p.line.len <= FRAME_LINE_MAX);
		assert_int_equal(frame_parser_feed(&p, framed.buf, framed.len, NULL), 1);
		free(big);
		big = (char *)frame_parser_take(&p, &len);
		assert_int_equal(len, 100);
		free(big);
		frame_parser_release(&p);
	}
	free(in);
	strbuf_release(&framed);
	strbuf_release(&why);
}

static void test_two_frames(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct frame_parser p;
	unsigned char *out;
	size_t len, used, off;

	(void)state;
	frame(&sb, "first", 5);
	frame(&sb, "second", 6);
	frame_parser_init(&p, 0);
	assert_int_equal(frame_parser_feed(&p, sb.buf, sb.len, &used), 1);
	out = frame_parser_take(&p, &len);
	assert_string_equal((char *)out, "first");
	free(out);
	off = used;
	assert_int_equal(frame_parser_feed(&p, sb.buf + off, sb.len - off, &used), 1);
	out = frame_parser_take(&p, &len);
	assert_string_equal((char *)out, "second");
	free(out);
	frame_parser_release(&p);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32_known),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_roundtrip_sizes),
		cmocka_unit_test(test_interleaved_any_chunking),
		cmocka_unit_test(test_flipped_byte_rejected),
		cmocka_unit_test(test_cut_line_rejected),
		cmocka_unit_test(test_cap_and_status),
		cmocka_unit_test(test_two_frames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
