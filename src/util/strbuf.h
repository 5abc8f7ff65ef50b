/*
 * strbuf.h - a growable, always NUL-terminated string (git's strbuf is the
 * model), with a sticky error (as SQLite's sqlite3_str): an allocation
 * that fails marks the buffer and every later add is a no-op, so a
 * builder adds freely and checks strbuf_error() once at the end.
 *
 *	struct strbuf sb = STRBUF_INIT;
 *	strbuf_addf(&sb, "%s: %d", name, n);
 *	if (strbuf_error(&sb)) ...;		-ENOMEM
 *	use(sb.buf, sb.len);
 *	strbuf_release(&sb);
 *
 * Contract: sb.buf is never NULL and always NUL-terminated (an empty
 * buffer points at a shared empty string that must not be written), also
 * after an error: what was added before it is kept.  sb.len excludes the
 * NUL.  Text with NULs inside is fine (strbuf_add); sb.len counts them.
 * Nothing is ever truncated silently: an add that cannot be done whole
 * is not done at all, and the error says so.
 *
 * Ownership: the buffer owns its memory; strbuf_detach() hands it over.
 * Threading: one owner at a time; no shared state but the empty string.
 */
#ifndef PERFBOT_UTIL_STRBUF_H
#define PERFBOT_UTIL_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

extern char strbuf_empty_[1];

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;		/* 0 while buf is strbuf_empty_ */
	int err;		/* 0, or the first failure (-ENOMEM, -EFBIG) */
};

#define STRBUF_INIT { .buf = strbuf_empty_ }

void strbuf_init(struct strbuf *sb);
/* Frees the memory; the buffer is empty and usable again (error cleared). */
void strbuf_release(struct strbuf *sb);
/*
 * The malloc'd string (the caller frees it) and its length (len may be
 * NULL); the buffer is left empty.  NULL, with the buffer released, when
 * the buffer is in error or the copy of an empty one fails.
 */
char *strbuf_detach(struct strbuf *sb, size_t *len);

/* Room for `extra` more bytes: 0, or the sticky error. */
int strbuf_grow(struct strbuf *sb, size_t extra);
/* 0, or the first error that hit this buffer. */
static inline int strbuf_error(const struct strbuf *sb)
{
	return sb->err;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/*
 * Replace the content with the formatted text: an error message set in
 * one step.  The arguments may point into sb itself ("%s: ...", sb->buf),
 * as the text is made aside first.  The buffer's error is this
 * formatting's (0 or -ENOMEM); on error the buffer is left empty.
 * sb may be NULL -- an error out-parameter whose caller has no use for
 * the message -- and then nothing is done.
 */
void strbuf_setf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vsetf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* `n` copies of c (padding). */
void strbuf_addchars(struct strbuf *sb, char c, size_t n);

/* Keep the first len bytes (len > sb->len is a BUG); the error stays. */
void strbuf_setlen(struct strbuf *sb, size_t len);
static inline void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}
/* Drop trailing blanks and newlines. */
void strbuf_rtrim(struct strbuf *sb);
bool strbuf_ends_with(const struct strbuf *sb, const char *suffix);

/*
 * Append everything read from fd until end of file (EINTR retried).
 * max (0: no limit) bounds what the buffer may hold in all: past it,
 * -EFBIG and nothing of this read is kept.  0 or a negative errno, which
 * is also the sticky error for -ENOMEM/-EFBIG (not for I/O errors: the
 * buffer stays usable).
 */
int strbuf_read_fd(struct strbuf *sb, int fd, size_t max);
/* The same for a file by path (opened O_RDONLY|O_CLOEXEC). */
int strbuf_read_file(struct strbuf *sb, const char *path, size_t max);

/*
 * Copy s into a fixed buffer of `len` bytes.  When it does not fit, the
 * copy ends in "..." so that a shortened message is never taken for a
 * whole one.  Returns buf.  For the few places a fixed buffer remains
 * (error fields of structs shared with signal-safe or child code).
 */
char *str_copy_marked(char *buf, size_t len, const char *s);
/* snprintf into a fixed buffer, ending in "..." when it was shortened. */
char *fmt_marked(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
char *vfmt_marked(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif
