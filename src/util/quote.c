#define _GNU_SOURCE
#include "util/quote.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_char_len(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;
	unsigned cp;

	if (!len)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;	/* continuation byte, C0/C1 overlong lead, > U+10FFFF */
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

bool utf8_valid(const char *s, size_t len)
{
	for (size_t i = 0, n; i < len; i += n)
		if (!(n = utf8_char_len(s + i, len - i)))
			return false;
	return true;
}

static const char *problem(const char *s, size_t max, const char *too_long)
{
	size_t len = strlen(s);

	if (len > max)
		return too_long;
	if (!utf8_valid(s, len))
		return "is not valid UTF-8";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return "contains a control character";
	return NULL;
}

const char *name_problem(const char *s)
{
	return problem(s, NAME_MAX_BYTES, "is longer than 4096 bytes");
}

const char *value_problem(const char *s)
{
	return problem(s, VALUE_MAX_BYTES, "is longer than 65536 bytes");
}

char *utf8_lossy(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = strlen(s), start = 0, n;

	/* valid runs copied whole, each invalid byte replaced */
	for (size_t i = 0; i < len; i += n ? n : 1) {
		if ((n = utf8_char_len(s + i, len - i)))
			continue;
		strbuf_add(&sb, s + start, i - start);
		strbuf_addstr(&sb, "\xef\xbf\xbd");
		start = i + 1;
	}
	strbuf_add(&sb, s + start, len - start);
	return strbuf_detach(&sb, NULL);
}

json_t *json_str(const char *s)
{
	json_t *j;
	char *fixed;

	if (!s)
		return json_null();
	if (utf8_valid(s, strlen(s)))
		return json_string(s);
	if (!(fixed = utf8_lossy(s)))
		return NULL;
	j = json_string(fixed);
	free(fixed);
	return j;
}

int json_object_set_lossy(json_t *obj, const char *key, json_t *value)
{
	char *fixed;
	int ret;

	if (utf8_valid(key, strlen(key)))
		return json_object_set_new(obj, key, value);
	if (!(fixed = utf8_lossy(key))) {
		json_decref(value);
		return -1;
	}
	ret = json_object_set_new(obj, fixed, value);
	free(fixed);
	return ret;
}

/*
 * The escape of the byte or character at s, into buf (at most 16 bytes
 * with its NUL); *n is the input it covers.  Empty when it is printed as
 * it is.  `quoting` escapes '"' and '\' too (inside quotes they must be).
 */
static const char *escape_at(const char *s, size_t len, bool quoting,
			     size_t *n, char buf[static 16])
{
	static const char cesc[] = "\a\b\t\n\v\f\r";
	static const char cname[] = "abtnvfr";
	unsigned char c = (unsigned char)*s;
	const char *e;

	buf[0] = '\0';
	*n = 1;
	if (c >= 0x20 && c < 0x7f) {
		if (quoting && (c == '"' || c == '\\'))
			buf[0] = '\\', buf[1] = (char)c, buf[2] = '\0';
		return buf;
	}
	if (c && (e = strchr(cesc, c))) {
		buf[0] = '\\', buf[1] = cname[e - cesc], buf[2] = '\0';
		return buf;
	}
	if (c >= 0x80 && (*n = utf8_char_len(s, len))) {
		/* C1 controls (U+0080..U+009F): some terminals obey them too */
		if (c == 0xc2 && (unsigned char)s[1] < 0xa0)
			snprintf(buf, 16, "\\%03o\\%03o", c, (unsigned char)s[1]);
		return buf;
	}
	*n = 1;
	snprintf(buf, 16, "\\%03o", c);
	return buf;
}

static bool needs_quoting(const char *s)
{
	size_t len = strlen(s), n;
	char buf[16];

	for (size_t i = 0; i < len; i += n)
		if (*escape_at(s + i, len - i, true, &n, buf))
			return true;
	return false;
}

/*
 * The quoted form of s onto sb: in double quotes when `quotes`, with '"'
 * and '\\' escaped when `quoting`, '\n' and '\t' left as they are when
 * `keep_lines` (the lines of a text stay lines).
 */
static void quote_to(struct strbuf *sb, const char *s, bool quotes, bool quoting,
		     bool keep_lines)
{
	size_t len = strlen(s), start = 0, n;
	char buf[16];

	if (quotes)
		strbuf_addch(sb, '"');
	/* what needs no escape is copied a run at a time */
	for (size_t i = 0; i < len; i += n) {
		const char *e = escape_at(s + i, len - i, quoting, &n, buf);

		if (!*e || (keep_lines && (s[i] == '\n' || s[i] == '\t')))
			continue;
		strbuf_add(sb, s + start, i - start);
		strbuf_addstr(sb, e);
		start = i + n;
	}
	strbuf_add(sb, s + start, len - start);
	if (quotes)
		strbuf_addch(sb, '"');
}

/* quote_line() but keeping '\n' and '\t': the lines of a text stay lines. */
static char *quote_text(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	quote_to(&sb, s, false, false, true);
	return strbuf_detach(&sb, NULL);
}

json_t *json_quote_tree(const json_t *j)
{
	json_t *copy = NULL, *v;
	const char *key;
	char *q;
	size_t i;

	if (!j)
		return NULL;
	switch (json_typeof(j)) {
	case JSON_STRING:
		if (!(q = quote_text(json_string_value(j))))
			return NULL;
		copy = json_string(q);
		free(q);
		return copy;
	case JSON_ARRAY:
		if (!(copy = json_array()))
			return NULL;
		json_array_foreach((json_t *)j, i, v)
			if (json_array_append_new(copy, json_quote_tree(v)))
				goto fail;
		return copy;
	case JSON_OBJECT:
		if (!(copy = json_object()))
			return NULL;
		json_object_foreach((json_t *)j, key, v) {
			if (!(q = quote_text(key)))
				goto fail;
			if (json_object_set_new(copy, q, json_quote_tree(v))) {
				free(q);
				goto fail;
			}
			free(q);
		}
		return copy;
	default:
		return json_deep_copy(j);
	}
fail:
	json_decref(copy);
	return NULL;
}

char *quote_c(const char *s, bool always)
{
	struct strbuf sb = STRBUF_INIT;
	bool q = always || needs_quoting(s);

	quote_to(&sb, s, q, q, false);
	return strbuf_detach(&sb, NULL);
}

size_t quote_width(const char *s)
{
	bool q = needs_quoting(s);
	size_t len = strlen(s), w = q ? 2 : 0, n;
	char buf[16];

	/* a character takes one column whatever its bytes (no wide CJK here) */
	for (size_t i = 0; i < len; i += n) {
		const char *e = escape_at(s + i, len - i, q, &n, buf);

		w += *e ? strlen(e) : 1;
	}
	return w;
}

static int put_escaped(const char *s, FILE *f, bool quoting)
{
	size_t len = strlen(s), n;
	char buf[16];

	for (size_t i = 0; i < len; i += n) {
		const char *e = escape_at(s + i, len - i, quoting, &n, buf);

		if (*e ? fputs(e, f) == EOF : fwrite(s + i, 1, n, f) != n)
			return EOF;
	}
	return 0;
}

int quote_fputs(const char *s, FILE *f)
{
	bool q = needs_quoting(s);

	if (q && fputc('"', f) == EOF)
		return EOF;
	if (put_escaped(s, f, q))
		return EOF;
	return q && fputc('"', f) == EOF ? EOF : 0;
}

int quote_fpad(const char *s, size_t width, FILE *f)
{
	if (quote_fputs(s, f))
		return EOF;
	for (size_t w = quote_width(s); w < width; w++)
		if (fputc(' ', f) == EOF)
			return EOF;
	return 0;
}

int quote_line_fputs(const char *s, FILE *f)
{
	return put_escaped(s, f, false);
}

char *quote_line(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	quote_to(&sb, s, false, false, false);
	return strbuf_detach(&sb, NULL);
}
