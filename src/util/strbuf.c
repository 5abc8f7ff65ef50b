/* strbuf.c - see strbuf.h. */
#define _GNU_SOURCE
#include "util/strbuf.h"
#include "util/bug.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char strbuf_empty_[1];

void strbuf_init(struct strbuf *sb)
{
	*sb = (struct strbuf)STRBUF_INIT;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

static int fail(struct strbuf *sb, int err)
{
	if (!sb->err)
		sb->err = err;
	return sb->err;
}

int strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need, ncap;
	char *nb;

	if (sb->err)
		return sb->err;
	if (extra > SIZE_MAX - sb->len - 1)
		return fail(sb, -ENOMEM);
	need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return 0;
	ncap = sb->alloc ? sb->alloc : 64;
	while (ncap < need)
		ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
	nb = realloc(sb->alloc ? sb->buf : NULL, ncap);
	if (!nb)
		return fail(sb, -ENOMEM);
	if (!sb->alloc)
		nb[0] = '\0';
	sb->buf = nb;
	sb->alloc = ncap;
	return 0;
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *s;

	if (sb->err) {
		strbuf_release(sb);
		return NULL;
	}
	s = sb->alloc ? sb->buf : strdup("");
	if (len)
		*len = s ? sb->len : 0;
	strbuf_init(sb);
	return s;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (strbuf_grow(sb, len))
		return;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_addchars(struct strbuf *sb, char c, size_t n)
{
	if (strbuf_grow(sb, n))
		return;
	memset(sb->buf + sb->len, c, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	if (sb->err)
		return;
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc ? sb->alloc - sb->len : 0,
		      fmt, cp);
	va_end(cp);
	if (n < 0) {
		fail(sb, -EINVAL);
		if (sb->alloc)
			sb->buf[sb->len] = '\0';
		return;
	}
	if (sb->alloc && (size_t)n < sb->alloc - sb->len) {
		sb->len += (size_t)n;
		return;
	}
	if (strbuf_grow(sb, (size_t)n)) {
		if (sb->alloc)
			sb->buf[sb->len] = '\0';
		return;
	}
	vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_vsetf(struct strbuf *sb, const char *fmt, va_list ap)
{
	struct strbuf text = STRBUF_INIT;

	if (!sb)
		return;
	strbuf_vaddf(&text, fmt, ap);
	strbuf_release(sb);
	if (strbuf_error(&text)) {
		sb->err = text.err;
		strbuf_release(&text);
		return;
	}
	*sb = text;
}

void strbuf_setf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vsetf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	/* a longer length would expose bytes never written */
	BUG_ON(len > sb->len);
	if (!sb->alloc)
		return;
	sb->len = len;
	sb->buf[len] = '\0';
}

void strbuf_rtrim(struct strbuf *sb)
{
	size_t n = sb->len;

	while (n && (sb->buf[n - 1] == ' ' || sb->buf[n - 1] == '\t' ||
		     sb->buf[n - 1] == '\n' || sb->buf[n - 1] == '\r'))
		n--;
	strbuf_setlen(sb, n);
}

bool strbuf_ends_with(const struct strbuf *sb, const char *suffix)
{
	size_t m = strlen(suffix);

	return sb->len >= m && !memcmp(sb->buf + sb->len - m, suffix, m);
}

int strbuf_read_fd(struct strbuf *sb, int fd, size_t max)
{
	size_t start = sb->len;

	for (;;) {
		ssize_t got;

		if (strbuf_grow(sb, 8192))
			goto err;
		got = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = -errno;

			strbuf_setlen(sb, start);
			return e;
		}
		if (!got)
			break;
		sb->len += (size_t)got;
		sb->buf[sb->len] = '\0';
		if (max && sb->len > max) {
			fail(sb, -EFBIG);
			goto err;
		}
	}
	return 0;
err:
	strbuf_setlen(sb, start);
	return sb->err;
}

int strbuf_read_file(struct strbuf *sb, const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = strbuf_read_fd(sb, fd, max);
	close(fd);
	return ret;
}

/* End a full buffer in "...", cut at a UTF-8 character's start. */
static void mark_shortened(char *buf, size_t len)
{
	size_t at;

	if (len < 4) {
		if (len)
			buf[len - 1] = '\0';
		return;
	}
	at = len - 4;
	while (at && ((unsigned char)buf[at] & 0xc0) == 0x80)
		at--;
	memcpy(buf + at, "...", 4);
}

char *vfmt_marked(char *buf, size_t len, const char *fmt, va_list ap)
{
	int n;

	if (!len)
		return buf;
	n = vsnprintf(buf, len, fmt, ap);
	if (n < 0)
		str_copy_marked(buf, len, "(message could not be formatted)");
	else if ((size_t)n >= len)
		mark_shortened(buf, len);
	return buf;
}

char *fmt_marked(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfmt_marked(buf, len, fmt, ap);
	va_end(ap);
	return buf;
}

char *str_copy_marked(char *buf, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (!len)
		return buf;
	if (n < len) {
		memcpy(buf, s, n + 1);
		return buf;
	}
	memcpy(buf, s, len - 1);
	buf[len - 1] = '\0';
	mark_shortened(buf, len);
	return buf;
}
