/*
 * frame.c - frame.h's writer and incremental parser.
 */
#define _GNU_SOURCE
#include "boot/frame.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t crc_table[256];

static void crc_init(void)
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[n] = c;
	}
}

uint32_t frame_crc32(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	/* idempotent: every thread computes the same table */
	if (!crc_table[1])
		crc_init();
	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_encode(struct strbuf *out, const unsigned char *in, size_t n)
{
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		size_t left = n - i;

		if (left > 1)
			v |= (uint32_t)in[i + 1] << 8;
		if (left > 2)
			v |= in[i + 2];
		strbuf_addch(out, b64[(v >> 18) & 63]);
		strbuf_addch(out, b64[(v >> 12) & 63]);
		strbuf_addch(out, left > 1 ? b64[(v >> 6) & 63] : '=');
		strbuf_addch(out, left > 2 ? b64[v & 63] : '=');
	}
}

static int b64_value(char c)
{
	const char *p = c ? strchr(b64, c) : NULL;

	return p ? (int)(p - b64) : -1;
}

/* Decode n characters (a multiple of 4, padded); bytes written or -1. */
static long b64_decode(const char *in, size_t n, unsigned char *out, size_t outmax)
{
	size_t o = 0;

	if (n % 4)
		return -1;
	for (size_t i = 0; i < n; i += 4) {
		int a = b64_value(in[i]), b = b64_value(in[i + 1]);
		int c = in[i + 2] == '=' ? -2 : b64_value(in[i + 2]);
		int d = in[i + 3] == '=' ? -2 : b64_value(in[i + 3]);
		uint32_t v;

		if (a < 0 || b < 0 || c == -1 || d == -1 || (c == -2 && d != -2) ||
		    ((c == -2 || d == -2) && i + 4 != n))
			return -1;
		v = (uint32_t)a << 18 | (uint32_t)b << 12 |
		    (uint32_t)(c < 0 ? 0 : c) << 6 | (uint32_t)(d < 0 ? 0 : d);
		if (o + 1 + (c >= 0) + (d >= 0) > outmax)
			return -1;
		out[o++] = (unsigned char)(v >> 16);
		if (c >= 0)
			out[o++] = (unsigned char)(v >> 8);
		if (d >= 0)
			out[o++] = (unsigned char)v;
	}
	return (long)o;
}

/* "<body> <crc of body>\n" after the magic */
static void put_line(struct strbuf *out, const char *body, size_t len)
{
	strbuf_addstr(out, FRAME_MAGIC);
	strbuf_add(out, body, len);
	strbuf_addf(out, " %08" PRIx32 "\n", frame_crc32(0, body, len));
}

int frame_write(struct strbuf *out, const void *payload, size_t len)
{
	const unsigned char *p = payload;
	struct strbuf body = STRBUF_INIT;
	size_t n = (len + FRAME_CHUNK - 1) / FRAME_CHUNK;
	int err;

	strbuf_addf(&body, "BEGIN %zu %08" PRIx32, len, frame_crc32(0, p, len));
	put_line(out, body.buf, body.len);
	for (size_t i = 0; i < n; i++) {
		size_t k = len - i * FRAME_CHUNK < FRAME_CHUNK ? len - i * FRAME_CHUNK : FRAME_CHUNK;

		strbuf_reset(&body);
		strbuf_addf(&body, "%zu ", i);
		b64_encode(&body, p + i * FRAME_CHUNK, k);
		/* the data line's crc comes before its data */
		strbuf_addf(out, FRAME_MAGIC "%zu %08" PRIx32 " %s\n", i,
			    frame_crc32(0, body.buf, body.len),
			    body.buf + strcspn(body.buf, " ") + 1);
	}
	strbuf_reset(&body);
	strbuf_addf(&body, "END %zu", n);
	put_line(out, body.buf, body.len);
	err = strbuf_error(&body) ? strbuf_error(&body) : strbuf_error(out);
	strbuf_release(&body);
	return err;
}

void frame_parser_init(struct frame_parser *p, size_t cap)
{
	memset(p, 0, sizeof(*p));
	strbuf_init(&p->line);
	p->cap = cap ? cap : FRAME_PAYLOAD_MAX;
}

static void drop_frame(struct frame_parser *p)
{
	free(p->payload);
	free(p->got);
	p->payload = p->got = NULL;
	p->begun = p->ended = p->done = false;
	p->len = p->nchunks = p->have = 0;
	p->crc = 0;
}

void frame_parser_release(struct frame_parser *p)
{
	drop_frame(p);
	strbuf_release(&p->line);
}

/* A hex crc of exactly 8 digits at s (len bytes). */
static bool parse_crc(const char *s, size_t len, uint32_t *out)
{
	uint32_t v = 0;

	if (len != 8)
		return false;
	for (size_t i = 0; i < 8; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			return false;
		v = v << 4 | (uint32_t)d;
	}
	*out = v;
	return true;
}

/* A decimal of at most 19 digits at s (len bytes). */
static bool parse_size(const char *s, size_t len, size_t *out)
{
	uint64_t v = 0;

	if (!len || len > 19)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > SIZE_MAX)
		return false;
	*out = (size_t)v;
	return true;
}

/* "<body> <crc>": the body's length when its crc matches, else -1. */
static long checked_body(const char *s, size_t len)
{
	const char *sp = len >= 9 ? s + len - 9 : NULL;
	uint32_t crc;

	if (!sp || *sp != ' ' || !parse_crc(sp + 1, 8, &crc) ||
	    frame_crc32(0, s, (size_t)(sp - s)) != crc)
		return -1;
	return (long)(sp - s);
}

static int check_whole(struct frame_parser *p)
{
	if (!p->begun || p->have < p->nchunks)
		return 0;
	if (frame_crc32(0, p->payload, p->len) != p->crc) {
		p->bad_payload++;
		drop_frame(p);
		return 0;
	}
	p->payload[p->len] = '\0';
	p->done = true;
	return 1;
}

static int on_begin(struct frame_parser *p, const char *s, size_t len)
{
	/* "BEGIN <len> <crc>" */
	const char *a = s + 6, *b = memchr(a, ' ', len - 6);
	size_t n;
	uint32_t crc;

	if (!b || !parse_size(a, (size_t)(b - a), &n) ||
	    !parse_crc(b + 1, len - (size_t)(b + 1 - s), &crc)) {
		p->rejected++;
		return 0;
	}
	if (p->begun && n == p->len && crc == p->crc)
		return 0;			/* a duplicate */
	drop_frame(p);
	if (n > p->cap) {
		p->too_large++;
		p->announced_too_large = n;
		return 0;
	}
	p->nchunks = (n + FRAME_CHUNK - 1) / FRAME_CHUNK;
	p->payload = malloc(n + 1);
	p->got = calloc(p->nchunks ? p->nchunks : 1, 1);
	if (!p->payload || !p->got) {
		drop_frame(p);
		return -ENOMEM;
	}
	p->begun = true;
	p->len = n;
	p->crc = crc;
	return check_whole(p);		/* an empty payload is whole at once */
}

static int on_data(struct frame_parser *p, const char *s, size_t len)
{
	/* "<seq> <crc> <base64>"; the crc covers "<seq> <base64>" */
	const char *sp1 = memchr(s, ' ', len), *sp2;
	unsigned char chunk[FRAME_CHUNK];
	size_t seq, want;
	uint32_t crc, c;
	long n;

	if (!sp1 || !(sp2 = memchr(sp1 + 1, ' ', len - (size_t)(sp1 + 1 - s))) ||
	    !parse_size(s, (size_t)(sp1 - s), &seq) ||
	    !parse_crc(sp1 + 1, (size_t)(sp2 - sp1 - 1), &crc)) {
		p->rejected++;
		return 0;
	}
	c = frame_crc32(0, s, (size_t)(sp1 - s) + 1);
	c = frame_crc32(c, sp2 + 1, len - (size_t)(sp2 + 1 - s));
	if (c != crc) {
		p->rejected++;
		return 0;
	}
	if (!p->begun || seq >= p->nchunks)
		return 0;			/* another frame's, or before ours */
	if (p->got[seq])
		return 0;			/* a duplicate */
	want = seq + 1 < p->nchunks ? FRAME_CHUNK : p->len - seq * FRAME_CHUNK;
	n = b64_decode(sp2 + 1, len - (size_t)(sp2 + 1 - s), chunk, sizeof(chunk));
	if (n < 0 || (size_t)n != want) {
		p->rejected++;
		return 0;
	}
	memcpy(p->payload + seq * FRAME_CHUNK, chunk, want);
	p->got[seq] = 1;
	p->have++;
	return check_whole(p);
}

/* One console line (without its newline). */
static int parse_line(struct frame_parser *p, const char *s, size_t len)
{
	const char *m = NULL;
	long body;

	if (len && s[len - 1] == '\r')
		len--;
	/* the last "PBF1 " in the line: a frame line ends the line */
	for (const char *q = s; (q = memmem(q, len - (size_t)(q - s), FRAME_MAGIC, 5)); q++)
		m = q;
	if (!m)
		return 0;
	len -= (size_t)(m + 5 - s);
	s = m + 5;
	if (len >= 6 && !memcmp(s, "BEGIN ", 6)) {
		if ((body = checked_body(s, len)) < 0) {
			p->rejected++;
			return 0;
		}
		return on_begin(p, s, (size_t)body);
	}
	if (len >= 4 && !memcmp(s, "END ", 4)) {
		size_t n;

		if ((body = checked_body(s, len)) < 0 ||
		    !parse_size(s + 4, (size_t)body - 4, &n)) {
			p->rejected++;
			return 0;
		}
		if (p->begun && n == p->nchunks)
			p->ended = true;
		return 0;
	}
	return on_data(p, s, len);
}

int frame_parser_feed(struct frame_parser *p, const void *buf, size_t len,
		      size_t *used)
{
	const char *s = buf, *end = s + len;
	int ret = 0;

	while (s < end && !ret) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t k = (size_t)((nl ? nl : end) - s);

		strbuf_add(&p->line, s, k);
		if (strbuf_error(&p->line)) {
			ret = -ENOMEM;
			break;
		}
		if (p->line.len > FRAME_LINE_MAX) {
			/* keep the tail: a frame line is at a line's end */
			size_t keep = FRAME_LINE_MAX / 2;

			memmove(p->line.buf, p->line.buf + p->line.len - keep, keep);
			strbuf_setlen(&p->line, keep);
		}
		s += k;
		if (!nl)
			break;
		s++;
		if (p->done)
			drop_frame(p);		/* not taken: the next frame */
		ret = parse_line(p, p->line.buf, p->line.len);
		strbuf_reset(&p->line);
	}
	if (used)
		*used = (size_t)(s - (const char *)buf);
	return ret;
}

int frame_parser_finish(struct frame_parser *p)
{
	int ret = 0;

	if (p->line.len)
		ret = parse_line(p, p->line.buf, p->line.len);
	strbuf_reset(&p->line);
	return ret;
}

unsigned char *frame_parser_take(struct frame_parser *p, size_t *len)
{
	unsigned char *out;

	if (!p->done)
		return NULL;
	out = p->payload;
	*len = p->len;
	p->payload = NULL;
	drop_frame(p);
	return out;
}

void frame_parser_status(const struct frame_parser *p, struct strbuf *why)
{
	strbuf_reset(why);
	if (p->begun)
		strbuf_addf(why, "frame of %zu bytes: %zu of %zu chunks missing%s",
			    p->len, p->nchunks - p->have, p->nchunks,
			    p->ended ? "" : ", no END line");
	else if (p->bad_payload)
		strbuf_addf(why, "a frame came whole but its payload's crc did not match");
	else if (p->too_large)
		strbuf_addf(why, "a frame announced %zu bytes, over the cap of %zu",
			    p->announced_too_large, p->cap);
	else
		strbuf_addstr(why, "no frame found");
	if (p->rejected)
		strbuf_addf(why, " (%zu damaged frame line%s)", p->rejected,
			    p->rejected == 1 ? "" : "s");
}
