/*
 * dmesg.c - dmesg.h: kernel log lines to LKP's dmesg.* names.
 *
 * A line is matched by the first rule that fits (the table in
 * dmesg_line_name()), which picks the part of the message that names the
 * failure; common_name() then does what LKP's common_error_id() does to
 * it: numbers and addresses to '#', function offsets out, blanks out or
 * '_', trailing punctuation off.
 */
#define _GNU_SOURCE
#include "boot/dmesg.h"
#include "util/vec.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_word(int c)
{
	return isalnum(c) || c == '_';
}

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

/* ".isra.0", ".constprop.0", ".part.0", ".cold": compiler clones */
static size_t clone_suffix(const char *s, size_t n)
{
	static const char *const sfx[] = { ".isra.", ".constprop.", ".part.", ".cold" };

	for (size_t k = 0; k < sizeof(sfx) / sizeof(sfx[0]); k++) {
		size_t l = strlen(sfx[k]), j;

		if (n < l || memcmp(s, sfx[k], l))
			continue;
		j = l;
		while (j < n && isdigit((unsigned char)s[j]))
			j++;
		if (sfx[k][l - 1] == '.' && j == l)
			continue;
		return j;
	}
	return 0;
}

/*
 * LKP's common_error_id() on s[0..n): into out (appended).  keep_bang:
 * a trailing '!' stays (the soft lockup's name has it).
 */
static void common_name(const char *s, size_t n, bool keep_bang, struct strbuf *out)
{
	struct strbuf t = STRBUF_INIT;
	size_t start = out->len;

	/* pass 1: words */
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t k;

		if ((k = clone_suffix(s + i, n - i))) {
			i += k;
			continue;
		}
		if ((c == '+' || c == '/') && i + 2 < n && s[i + 1] == '0' && s[i + 2] == 'x' &&
		    i + 3 < n && isxdigit((unsigned char)s[i + 3])) {
			/* a function offset or length: +0x1a/0x200 */
			i += 3;
			while (i < n && isxdigit((unsigned char)s[i]))
				i++;
			continue;
		}
		if (is_word(c) && (i == 0 || !is_word((unsigned char)s[i - 1]))) {
			size_t j = i;

			while (j < n && is_word((unsigned char)s[j]))
				j++;
			if ((j - i > 2 && s[i] == '0' && s[i + 1] == 'x' && all_hex(s + i + 2, j - i - 2)) ||
			    ((j - i == 8 || j - i == 16 || j - i == 40) && all_hex(s + i, j - i)) ||
			    (i && s[i - 1] == '=' && all_hex(s + i, j - i))) {
				strbuf_addch(&t, '#');
				i = j;
				continue;
			}
			if (isdigit(c)) {
				/* a number (with dots) becomes '#'; "22s" -> "#s" */
				strbuf_addch(&t, '#');
				while (i < n && (isdigit((unsigned char)s[i]) || s[i] == '.'))
					i++;
				continue;
			}
			strbuf_add(&t, s + i, j - i);
			i = j;
			continue;
		}
		if (c == '\\' || c == '"' || c == '$')
			c = '~';
		if (isspace(c) || !isprint(c))
			c = ' ';
		strbuf_addch(&t, (char)c);
		i++;
	}
	/* pass 2: blanks go after a non-alnum and before a non-letter, else '_' */
	for (size_t i = 0; i < t.len; i++) {
		char c = t.buf[i];

		if (c == ' ') {
			size_t j = i;
			char prev = out->len > start ? out->buf[out->len - 1] : 0;

			while (j + 1 < t.len && t.buf[j + 1] == ' ')
				j++;
			if (prev && isalnum((unsigned char)prev) && j + 1 < t.len &&
			    isalpha((unsigned char)t.buf[j + 1]))
				strbuf_addch(out, '_');
			i = j;
			continue;
		}
		strbuf_addch(out, c);
	}
	strbuf_release(&t);
	/* trailing punctuation, as LKP's [-_.,;:#!\[\(]+$ */
	while (out->len > start && strchr(keep_bang ? "-_.,;:#[(" : "-_.,;:#![(",
					 out->buf[out->len - 1]))
		strbuf_setlen(out, out->len - 1);
	if (out->len - start > DMESG_NAME_MAX)
		strbuf_setlen(out, start + DMESG_NAME_MAX);
}

static const char *find(const char *s, size_t n, const char *what)
{
	return memmem(s, n, what, strlen(what));
}

/* Skip "<4>", "[    1.234567] ", "[    T1] " and what LKP skips: non-letters. */
static const char *message(const char *s, size_t *n)
{
	const char *e = s + *n;

	while (s < e) {
		if (*s == '<' || *s == '[') {
			const char *c = memchr(s, *s == '<' ? '>' : ']', (size_t)(e - s));

			if (c && c - s < 24) {
				s = c + 1;
				continue;
			}
		}
		if (isalpha((unsigned char)*s))
			break;
		s++;
	}
	*n = (size_t)(e - s);
	return s;
}

/* "<head>: 0002 [#1]": the head's end, or NULL */
static const char *oops_head(const char *s, size_t n)
{
	for (const char *p = s; (p = memmem(p, n - (size_t)(p - s), ": ", 2)); p++) {
		const char *q = p + 2;
		size_t left = n - (size_t)(q - s);

		if (left >= 8 && all_hex(q, 4) && !memcmp(q + 4, " [#", 3) &&
		    isdigit((unsigned char)q[7]))
			return p;
	}
	return NULL;
}

int dmesg_line_name(const char *line, size_t len, struct strbuf *out)
{
	const char *s, *p, *q, *e;
	size_t n = len;

	strbuf_reset(out);
	s = message(line, &n);
	e = s + n;
	while (e > s && (e[-1] == '\n' || e[-1] == '\r'))
		e--;
	n = (size_t)(e - s);
	if ((p = find(s, n, "WARNING: stack recursion"))) {
		strbuf_addstr(out, "WARNING:stack_recursion");
	} else if ((p = find(s, n, "WARNING: can't dereference registers at ")) &&
		   (q = find(p, (size_t)(e - p), " for ip "))) {
		/* LKP's name for the ORC unwinder's warning (seed 001) */
		const char *f = q + 8, *end = f;

		while (end < e && (is_word((unsigned char)*end) || *end == '.'))
			end++;
		strbuf_addstr(out, "WARNING:at#for_ip_");
		common_name(f, (size_t)(end - f), false, out);
		strbuf_addstr(out, "/0x");
	} else if ((p = find(s, n, "WARNING:")) && (q = find(p, (size_t)(e - p), " at ")) &&
		   find(q, (size_t)(e - q), "+0x")) {
		/* "WARNING: CPU: n PID: n at <where> <func>+0x../0x.." */
		strbuf_addstr(out, "WARNING:");
		common_name(q + 1, (size_t)(e - q - 1), false, out);
	} else if ((p = find(s, n, "BUG: soft lockup")) &&
		   (q = find(p, (size_t)(e - p), "s!"))) {
		common_name(p, (size_t)(q + 2 - p), true, out);
	} else if ((p = find(s, n, "INFO: task ")) &&
		   (q = find(p, (size_t)(e - p), "blocked for more than"))) {
		const char *end = find(q, (size_t)(e - q), "seconds");

		strbuf_addstr(out, "INFO:task_");
		common_name(q, end ? (size_t)(end + 7 - q) : (size_t)(e - q), false, out);
	} else if ((p = find(s, n, "RIP: ")) && (q = memchr(p, ':', (size_t)(e - p))) &&
		   (q = memchr(q + 1, ':', (size_t)(e - q - 1)))) {
		/* "RIP: 0010:func+0x1a/0x200"; user code (0033) is no kernel failure */
		const char *f = q + 1, *end = f;

		if (find(p, (size_t)(q - p), "0033"))
			return 0;
		while (end < e && (is_word((unsigned char)*end) || *end == '.'))
			end++;
		if (end == f)
			return 0;
		strbuf_addstr(out, "RIP:");
		common_name(f, (size_t)(end - f), false, out);
	} else if ((q = oops_head(s, n))) {
		/* "Oops: 0002 [#1]", "general protection fault, ...: 0000 [#1]" */
		common_name(s, (size_t)(q - s), false, out);
	} else if ((p = find(s, n, "BUG: KASAN: ")) && (q = find(p, (size_t)(e - p), " in "))) {
		common_name(p, (size_t)(q - p), false, out);
	} else if ((p = find(s, n, "kernel BUG at ")) || (p = find(s, n, "BUG: ")) ||
		   (p = find(s, n, "WARNING: ")) || (p = find(s, n, "Kernel panic - not syncing"))) {
		common_name(p, (size_t)(e - p), false, out);
	} else if ((p = find(s, n, "Out of memory: Kill")) &&
		   (q = find(p, (size_t)(e - p), "process"))) {
		common_name(p, (size_t)(q + 7 - p), false, out);
	} else if (find(s, n, "hard LOCKUP")) {
		common_name(s, n, false, out);
	}
	if (strbuf_error(out))
		return -ENOMEM;
	return out->len > 0;
}

int dmesg_scan(const char *text, size_t len, struct dmesg_stats *out)
{
	struct strbuf name = STRBUF_INIT;
	const char *s = text, *e = text + len;
	int ret = 0;

	while (s < e && !ret) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		size_t k = (size_t)((nl ? nl : e) - s);
		size_t i;

		ret = dmesg_line_name(s, k, &name);
		s += k + (nl != NULL);
		if (ret <= 0)
			continue;
		ret = 0;
		for (i = 0; i < out->n; i++)
			if (!strcmp(out->v[i].name + strlen(DMESG_PREFIX), name.buf))
				break;
		if (i < out->n) {
			out->v[i].count++;
			continue;
		}
		{
			struct dmesg_stat st = { .count = 1 };

			if (asprintf(&st.name, DMESG_PREFIX "%s", name.buf) < 0)
				ret = -ENOMEM;
			else if (vec_push(out, st)) {
				free(st.name);
				ret = -ENOMEM;
			}
		}
	}
	strbuf_release(&name);
	return ret < 0 ? ret : 0;
}

int dmesg_stats_add(const struct dmesg_stats *s, struct statmap *stats)
{
	for (size_t i = 0; i < s->n; i++)
		if (statmap_add(stats, s->v[i].name, s->v[i].count))
			return -ENOMEM;
	return 0;
}

int dmesg_stats_replace(const struct dmesg_stats *s, struct statmap *stats)
{
	struct statmap m = { 0 };

	for (size_t i = 0; i < stats->n; i++)
		if (strncmp(stats->v[i].name, DMESG_PREFIX, strlen(DMESG_PREFIX)) &&
		    statmap_add(&m, stats->v[i].name, stats->v[i].value))
			goto nomem;
	if (dmesg_stats_add(s, &m))
		goto nomem;
	statmap_finish(&m);
	statmap_release(stats);
	*stats = m;
	return 0;
nomem:
	statmap_release(&m);
	return -ENOMEM;
}

void dmesg_stats_release(struct dmesg_stats *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	vec_free(s);
}
