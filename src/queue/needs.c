/*
 * needs.c - `--needs` read into struct store_needs (needs.h).
 */
#define _GNU_SOURCE
#include "queue/needs.h"
#include "util/parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NEEDS_KNOWN "cpus>=N, mem>=SIZE, arch=NAME, tag=NAME, testbox=NAME, class=NAME"
/* at most a word this long: a tag, a box, an arch */
#define NEEDS_WORD_MAX 128

const char *needs_word_problem(const char *name)
{
	size_t n = strlen(name);

	if (!n)
		return "empty";
	if (n > NEEDS_WORD_MAX)
		return "longer than 128 characters";
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			return "not a word (letters, digits, '.', '_', '-')";
	return NULL;
}

static int term_error(struct strbuf *err, const char *term, size_t len, const char *why)
{
	strbuf_setf(err, "--needs: '%.*s': %s", (int)len, term, why);
	return -EINVAL;
}

/* "64G" in MiB; a bare number is MiB. */
static int mem_mib(const char *v, int64_t *out)
{
	static const struct { char unit; int64_t mib; } units[] = {
		{ 'M', 1 }, { 'G', 1024 }, { 'T', 1024 * 1024 },
	};
	size_t n = strlen(v);
	int64_t scale = 1;
	unsigned long num;
	char digits[32];

	if (n && isalpha((unsigned char)v[n - 1])) {
		size_t i;

		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (toupper((unsigned char)v[n - 1]) == units[i].unit)
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		scale = units[i].mib;
		n--;
	}
	if (!n || n >= sizeof(digits))
		return -EINVAL;
	memcpy(digits, v, n);
	digits[n] = '\0';
	if (parse_ulong(digits, 1, 1UL << 40, &num) != PARSE_OK)
		return -EINVAL;
	*out = (int64_t)num * scale;
	return 0;
}

static int set_word(char **slot, const char *term, size_t len, const char *value,
		    const char *key, struct strbuf *err)
{
	const char *why = needs_word_problem(value);

	if (why)
		return term_error(err, term, len, why);
	if (*slot) {
		strbuf_setf(err, "--needs: '%.*s': %s given twice", (int)len, term, key);
		return -EINVAL;
	}
	*slot = strdup(value);
	return *slot ? 0 : -ENOMEM;
}

static int add_tag(struct store_needs *n, const char *tag)
{
	size_t k = 0;
	char **v;

	while (n->tags && n->tags[k])
		k++;
	v = realloc(n->tags, (k + 2) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	n->tags = v;
	v[k + 1] = NULL;
	v[k] = strdup(tag);
	return v[k] ? 0 : -ENOMEM;
}

/* One term (term[0..len), a copy in t with '\0' at the end). */
static int parse_term(char *t, size_t len, struct store_needs *out, struct strbuf *err)
{
	const char *term = t;
	char *op = strpbrk(t, "<>=!");
	char *value, *key;
	unsigned long num;
	int ret;

	if (!op)
		return term_error(err, term, len, "expected NAME>=N or NAME=VALUE (" NEEDS_KNOWN ")");
	value = op + (op[0] == '>' && op[1] == '=' ? 2 : 1);
	if (op == t)
		return term_error(err, term, len, "no name before the operator");
	if (!strncmp(t, "cpus", op - t) && op - t == 4) {
		if (value - op != 2)
			return term_error(err, term, len, "cpus takes >= (at least N CPUs)");
		if (out->min_cpus)
			return term_error(err, term, len, "cpus given twice");
		switch (parse_ulong(value, 1, 1 << 20, &num)) {
		case PARSE_OK:
			out->min_cpus = (int)num;
			return 0;
		case PARSE_SYNTAX:
			return term_error(err, term, len, "not a number");
		default:
			return term_error(err, term, len, "out of range (1 to 1048576)");
		}
	}
	if (!strncmp(t, "mem", op - t) && op - t == 3) {
		if (value - op != 2)
			return term_error(err, term, len, "mem takes >= (at least SIZE)");
		if (out->min_mem_mb)
			return term_error(err, term, len, "mem given twice");
		if (mem_mib(value, &out->min_mem_mb))
			return term_error(err, term, len,
					  "not a size (a number with M, G or T; a bare number is MiB)");
		return 0;
	}
	key = strndup(t, op - t);
	if (!key) {
		strbuf_setf(err, "out of memory");
		return -ENOMEM;
	}
	if (strcmp(key, "arch") && strcmp(key, "tag") && strcmp(key, "testbox") &&
	    strcmp(key, "class"))
		ret = term_error(err, term, len, "unknown need (" NEEDS_KNOWN ")");
	else if (value - op != 1 || *op != '=')
		ret = term_error(err, term, len, "takes = (NAME=VALUE)");
	else if (!strcmp(key, "arch"))
		ret = set_word(&out->arch, term, len, value, "arch", err);
	else if (!strcmp(key, "testbox"))
		ret = set_word(&out->testbox, term, len, value, "testbox", err);
	else if (!strcmp(key, "class"))
		ret = set_word(&out->class, term, len, value, "class", err);
	else {
		const char *why = needs_word_problem(value);

		ret = why ? term_error(err, term, len, why) : add_tag(out, value);
	}
	free(key);
	if (ret == -ENOMEM)
		strbuf_setf(err, "out of memory");
	return ret;
}

int needs_parse(const char *text, struct store_needs *out, struct strbuf *err)
{
	const char *p = text;

	memset(out, 0, sizeof(*out));
	if (!text || !*text)
		return 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		char *t = strndup(p, len);
		int ret;

		if (!t) {
			strbuf_setf(err, "out of memory");
			return -ENOMEM;
		}
		/* blanks around a term are the shell's, not the term's */
		ret = len ? parse_term(t, len, out, err)
			  : term_error(err, p, 0, "an empty term (two commas, or one at an end)");
		free(t);
		if (ret)
			return ret;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

int needs_split_words(const char *what, const char *list, char ***out, struct strbuf *err)
{
	size_t n = 1, k = 0;
	char **v;
	const char *p = list;

	*out = NULL;
	if (!*list)
		return 0;
	for (const char *q = list; *q; q++)
		n += *q == ',';
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		goto oom;
	for (;;) {
		size_t len = strcspn(p, ",");
		const char *why;

		if (!(v[k] = strndup(p, len)))
			goto oom;
		why = needs_word_problem(v[k++]);
		if (why) {
			strbuf_setf(err, "%s: '%.*s': %s", what, (int)len, p, why);
			for (size_t i = 0; i < k; i++)
				free(v[i]);
			free(v);
			return -EINVAL;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	*out = v;
	return 0;
oom:
	for (size_t i = 0; v && i < k; i++)
		free(v[i]);
	free(v);
	strbuf_setf(err, "out of memory");
	return -ENOMEM;
}
