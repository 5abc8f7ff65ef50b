/*
 * import.c - LKP matrix.json and long-form CSV into run records (see
 * import.h and docs/import.md).
 */
#define _GNU_SOURCE
#include "record/import.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * Stat prefixes of LKP's monitors (and perfbot's): a matrix holds them
 * beside the benchmark's own stats, and they must not name the testcase.
 */
static const char *const monitor_prefixes[] = {
	"boot-time", "buddyinfo", "cpuidle", "diskstats", "dmesg", "energy",
	"ftrace", "interrupts", "iostat", "kernel-size", "kmsg", "last_state",
	"latency_stats", "lock_stat", "meminfo", "mpstat", "numa-meminfo",
	"numa-numastat", "numa-vmstat", "perf-c2c", "perf-profile",
	"perf-sched", "perf-stat", "pmeter", "proc-stat", "proc-vmstat",
	"sar", "sched_debug", "slabinfo", "softirqs", "stderr", "time",
	"turbostat", "uptime", "vmstat",
};

static int fail(struct strbuf *err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct strbuf *err, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		strbuf_vsetf(err, fmt, ap);
		va_end(ap);
		if (strbuf_error(err))
			strbuf_setf(err, "out of memory");
	}
	return ret;
}

static int no_memory(struct strbuf *err)
{
	return fail(err, -ENOMEM, "out of memory");
}

/* ---- numbers: one rule for both formats ---- */

enum number_status {
	NUMBER_OK,
	NUMBER_SYNTAX,		/* not a number, or inf/nan */
	NUMBER_UNDERFLOW,	/* not zero, yet below the smallest double */
	NUMBER_OVERFLOW,	/* beyond the largest double */
};

/*
 * The whole of s as strtod reads it, by the one rule of docs/import.md:
 * a subnormal (4e-320) is kept as it is; a value that is not zero yet
 * would be stored as 0 (1e-400), or that exceeds the largest double
 * (1e400), is refused, never rounded to a different number.
 */
static enum number_status read_number(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || isnan(v))
		return NUMBER_SYNTAX;
	if (isinf(v))
		/* "inf" is no number; 1e400 is one, too large */
		return errno == ERANGE ? NUMBER_OVERFLOW : NUMBER_SYNTAX;
	/*
	 * ERANGE with a non-zero result is a subnormal, which is kept; with
	 * zero the text named a number the double cannot hold.
	 */
	if (errno == ERANGE && v == 0)
		return NUMBER_UNDERFLOW;
	*out = v;
	return NUMBER_OK;
}

/* Why a value is refused, after "value 'TEXT' of STAT ". */
static const char *number_problem(enum number_status st)
{
	switch (st) {
	case NUMBER_UNDERFLOW:
		return "is too small for a double: it would be stored as 0 "
		       "(the smallest is about 4.9e-324)";
	case NUMBER_OVERFLOW:
		return "is too large for a double (the largest is about 1.8e308)";
	default:
		return "is not a finite number";
	}
}

/* ---- SHA-256 (FIPS 180-4), of a whole imported file ---- */

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror32(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a[8];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(a, h, sizeof(a));
	for (int i = 0; i < 64; i++) {
		uint32_t s1 = ror32(a[4], 6) ^ ror32(a[4], 11) ^ ror32(a[4], 25);
		uint32_t ch = (a[4] & a[5]) ^ (~a[4] & a[6]);
		uint32_t t1 = a[7] + s1 + ch + sha256_k[i] + w[i];
		uint32_t s0 = ror32(a[0], 2) ^ ror32(a[0], 13) ^ ror32(a[0], 22);
		uint32_t maj = (a[0] & a[1]) ^ (a[0] & a[2]) ^ (a[1] & a[2]);

		memmove(a + 1, a, 7 * sizeof(a[0]));
		a[4] += t1;
		a[0] = t1 + s0 + maj;
	}
	for (int i = 0; i < 8; i++)
		h[i] += a[i];
}

void import_sha256(const void *data, size_t len, char hex[IMPORT_HASH_LEN + 1])
{
	uint32_t h[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	const unsigned char *p = data;
	unsigned char tail[128] = { 0 };
	uint64_t bits = (uint64_t)len * 8;
	size_t full = len / 64 * 64, rest = len - full, tail_len;

	for (size_t off = 0; off < full; off += 64)
		sha256_block(h, p + off);
	if (rest)
		memcpy(tail, p + full, rest);
	tail[rest] = 0x80;
	tail_len = rest < 56 ? 64 : 128;
	for (int i = 0; i < 8; i++)
		tail[tail_len - 1 - i] = (unsigned char)(bits >> (8 * i));
	for (size_t off = 0; off < tail_len; off += 64)
		sha256_block(h, tail + off);
	for (int i = 0; i < 8; i++)
		snprintf(hex + 8 * i, 9, "%08x", (unsigned)h[i]);
}

/*
 * The bytes of a refused name shown: a name over the store's limit runs
 * to 4 KiB and more, and the message needs only its start.
 */
#define NAME_SHOWN 200

/*
 * A stat name the store would refuse (store.h), said where it is (line
 * lineno, or 0: none).  A long name is shown by its start, marked "...".
 */
static int bad_name(const char *name, unsigned lineno, struct strbuf *err)
{
	const char *why = name_problem(name);
	size_t shown;
	char *q;

	if (!why)
		return 0;
	q = quote_c(name, true);
	if (!q)
		return no_memory(err);
	shown = strlen(q);
	if (shown > NAME_SHOWN) {
		/* cut at a character's start: what quote_c() made is UTF-8 */
		for (shown = NAME_SHOWN; shown && ((unsigned char)q[shown] & 0xc0) == 0x80;)
			shown--;
	}
	if (lineno)
		fail(err, -EINVAL, "%u: stat name %.*s%s %s", lineno, (int)shown, q,
		     shown < strlen(q) ? "..." : "", why);
	else
		fail(err, -EINVAL, "stat name %.*s%s %s", (int)shown, q,
		     shown < strlen(q) ? "..." : "", why);
	free(q);
	return -EINVAL;
}

void import_data_release(struct import_data *d)
{
	if (!d)
		return;
	for (size_t i = 0; d->runs && i < d->nr; i++)
		run_record_release(&d->runs[i]);
	free(d->runs);
	for (size_t i = 0; d->sources && i < d->nr; i++)
		free(d->sources[i]);
	free(d->sources);
	free(d->testcase);
	memset(d, 0, sizeof(*d));
}

static bool is_monitor_prefix(const char *name, size_t len)
{
	size_t n = sizeof(monitor_prefixes) / sizeof(monitor_prefixes[0]);

	for (size_t i = 0; i < n; i++)
		if (strlen(monitor_prefixes[i]) == len &&
		    !strncmp(monitor_prefixes[i], name, len))
			return true;
	return false;
}

/* Take `name`'s prefix as the testcase if none was found yet; 0 or -ENOMEM. */
static int guess_testcase(struct import_data *d, const char *name)
{
	const char *dot = strchr(name, '.');

	if (d->testcase || !dot || dot == name || is_monitor_prefix(name, dot - name))
		return 0;
	d->testcase = strndup(name, dot - name);
	return d->testcase ? 0 : -ENOMEM;
}

static int alloc_runs(struct import_data *d, size_t nr)
{
	d->runs = calloc(nr, sizeof(*d->runs));
	if (!d->runs)
		return -ENOMEM;
	d->nr = nr;
	for (size_t i = 0; i < nr; i++)
		d->runs[i].status = RUN_COMPLETE;
	return 0;
}

/* ---- LKP matrix.json ---- */

/* An array of numbers, where null marks a run without the stat. */
static bool is_stat_array(const json_t *v)
{
	bool any = false;
	size_t i;
	json_t *e;

	if (!json_is_array(v))
		return false;
	json_array_foreach(v, i, e) {
		if (json_is_number(e))
			any = true;
		else if (!json_is_null(e))
			return false;
	}
	return any;
}

static int matrix_runs(json_t *root, struct import_data *d, struct strbuf *err)
{
	const char *key;
	size_t nstats = 0, nr = 0;
	json_t *v;

	/* Jansson keeps an object's keys in file order: "first stat" is well defined. */
	json_object_foreach(root, key, v) {
		if (!is_stat_array(v)) {
			d->skipped++;
			continue;
		}
		if (!*key)
			return fail(err, -EINVAL, "a stat with an empty name");
		if (bad_name(key, 0, err))
			return -EINVAL;
		if (guess_testcase(d, key))
			return no_memory(err);
		nstats++;
		if (json_array_size(v) > nr)
			nr = json_array_size(v);
	}
	if (!nstats)
		return fail(err, -EINVAL,
			    "no numeric stat: none of its %zu keys is an array of numbers",
			    json_object_size(root));
	if (alloc_runs(d, nr))
		return no_memory(err);
	json_object_foreach(root, key, v) {
		if (!is_stat_array(v))
			continue;
		for (size_t i = 0; i < json_array_size(v); i++) {
			json_t *e = json_array_get(v, i);

			if (json_is_number(e) &&
			    statmap_add(&d->runs[i].stats, key, json_number_value(e)))
				return no_memory(err);
		}
	}
	/* LKP's commit-level matrix names each column's run: stats_source */
	v = json_object_get(root, "stats_source");
	if (json_is_array(v) && json_array_size(v) == nr) {
		d->sources = calloc(nr, sizeof(*d->sources));
		if (!d->sources)
			return no_memory(err);
		for (size_t i = 0; i < nr; i++) {
			const char *src = json_string_value(json_array_get(v, i));

			if (src && !(d->sources[i] = strdup(src)))
				return no_memory(err);
		}
	}
	for (size_t i = 0; i < nr; i++) {
		/* a run nothing was measured in is a hole in the file, not a result */
		if (!d->runs[i].stats.n)
			return fail(err, -EINVAL,
				    "run %zu has no numeric stat (every value is null)", i);
		statmap_finish(&d->runs[i].stats);
		if (strmap_setf(&d->runs[i].env, "import_run", "%zu", i))
			return no_memory(err);
	}
	return 0;
}

/*
 * Every number of the JSON text by read_number()'s rule, before jansson
 * reads it (a matrix's shape, or stats.json's: stat -> number): jansson would store 1e-400 as 0, and refuses 1e400 with a
 * message of its own.  A refused number is named by its position (line,
 * and column in characters as jansson counts them), its text, and, in a
 * matrix's shape, its stat and run.  Text that is not JSON is left for
 * jansson to refuse.
 */
static int json_numbers(const char *text, size_t len, bool matrix, struct strbuf *err)
{
	const char *key = NULL;		/* the last string at depth 1: a stat */
	size_t key_len = 0, index = 0;	/* the element's index at depth 2 */
	unsigned line = 1, col = 1;
	int depth = 0;

	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)text[i];

		if (c == '"') {
			size_t j = i + 1;

			for (; j < len && text[j] != '"'; j++)
				if (text[j] == '\\' && j + 1 < len)
					j++;
			if (depth == 1) {
				key = text + i + 1;
				key_len = j - (i + 1);
			}
			for (; i <= j && i < len; i++)
				if (((unsigned char)text[i] & 0xc0) != 0x80)
					col++;
			continue;
		}
		if (c == '-' || (c >= '0' && c <= '9')) {
			size_t j = i;
			enum number_status st;
			char *num;
			double v;

			while (j < len && text[j] && strchr("+-.eE0123456789", text[j]))
				j++;
			num = strndup(text + i, j - i);
			if (!num)
				return no_memory(err);
			st = read_number(num, &v);
			if (st == NUMBER_UNDERFLOW || st == NUMBER_OVERFLOW) {
				/* a matrix's values are in arrays, stats.json's beside their key */
				char *k = key && depth == (matrix ? 2 : 1) ? strndup(key, key_len) : NULL;
				char *q = k ? quote_c(k, true) : NULL;

				if (q && !matrix)
					fail(err, -EINVAL, "%u:%u: value '%s' of %s %s",
					     line, col, num, q, number_problem(st));
				else if (q)
					fail(err, -EINVAL, "%u:%u: value '%s' of %s (run %zu) %s",
					     line, col, num, q, index, number_problem(st));
				else
					fail(err, -EINVAL, "%u:%u: value '%s' %s", line, col, num,
					     number_problem(st));
				free(q);
				free(k);
				free(num);
				return -EINVAL;
			}
			free(num);
			col += (unsigned)(j - i);
			i = j;
			continue;
		}
		if (c == '{' || c == '[') {
			if (++depth == 2)
				index = 0;
		} else if (c == '}' || c == ']') {
			depth--;
		} else if (c == ',' && depth == 2) {
			index++;
		}
		if (c == '\n') {
			line++;
			col = 1;
		} else if ((c & 0xc0) != 0x80) {
			col++;
		}
		i++;
	}
	return 0;
}

int import_lkp_matrix(const char *text, size_t len, struct import_data *out,
		      struct strbuf *err)
{
	json_error_t jerr;
	json_t *root;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = json_numbers(text, len, true, err);
	if (ret)
		return ret;
	/* a key given twice would silently drop one run's worth of values */
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return fail(err, -EINVAL, "%d:%d: %s", jerr.line,
			    jerr.column, jerr.text);
	if (!json_is_object(root)) {
		json_decref(root);
		return fail(err, -EINVAL,
			    "not an LKP matrix: expected a JSON object of stat name -> per-run values");
	}
	ret = matrix_runs(root, out, err);
	json_decref(root);
	if (ret)
		import_data_release(out);
	return ret;
}

int import_lkp_stats(const char *text, size_t len, struct import_data *out,
		     struct strbuf *err)
{
	json_error_t jerr;
	const char *key;
	json_t *root, *v;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = json_numbers(text, len, false, err);
	if (ret)
		return ret;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return fail(err, -EINVAL, "%d:%d: %s", jerr.line, jerr.column, jerr.text);
	if (!json_is_object(root)) {
		json_decref(root);
		return fail(err, -EINVAL,
			    "not LKP's stats.json: expected a JSON object of stat name -> value");
	}
	if (alloc_runs(out, 1)) {
		json_decref(root);
		return no_memory(err);
	}
	json_object_foreach(root, key, v) {
		if (!json_is_number(v)) {
			out->skipped++;
			continue;
		}
		if (!*key)
			ret = fail(err, -EINVAL, "a stat with an empty name");
		else if (bad_name(key, 0, err))
			ret = -EINVAL;
		else if (guess_testcase(out, key) ||
			 statmap_add(&out->runs[0].stats, key, json_number_value(v)))
			ret = no_memory(err);
		if (ret)
			break;
	}
	if (!ret && !out->runs[0].stats.n)
		ret = fail(err, -EINVAL, "no numeric stat: none of its %zu keys is a number",
			   json_object_size(root));
	json_decref(root);
	if (ret) {
		import_data_release(out);
		return ret;
	}
	statmap_finish(&out->runs[0].stats);
	return 0;
}

/* ---- long-form CSV: run,stat,value ---- */

struct csv_row {
	long long run;
	char *stat;
	double value;
	unsigned line;
};

struct csv_rows {
	struct csv_row *v;
	size_t n, cap;
};

static void csv_rows_release(struct csv_rows *rows)
{
	for (size_t i = 0; i < rows->n; i++)
		free(rows->v[i].stat);
	free(rows->v);
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return s;
}

/*
 * Split `line` (modified in place) into at most `max` fields.  A field
 * may be in double quotes, with "" for a quote inside; spaces around a
 * field are dropped.  The number of fields, or -1 for a quote left open
 * or text after a closing quote.
 */
static int split_fields(char *line, char **fields, int max)
{
	char *p = line;
	int n = 0;

	for (;;) {
		bool quoted = false;
		char *start;

		if (n == max)
			return max + 1;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '"') {
			char *w = ++p;

			quoted = true;
			start = w;
			while (*p != '"' || p[1] == '"') {
				if (!*p)
					return -1;
				if (*p == '"')
					p++;
				*w++ = *p++;
			}
			p++;
			*w = '\0';
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p && *p != ',')
				return -1;
		} else {
			start = p;
			p += strcspn(p, ",");
		}
		fields[n++] = start;
		if (!*p) {
			if (!quoted)
				trim(start);
			return n;
		}
		*p++ = '\0';
		if (!quoted)
			trim(start);
	}
}

static int parse_csv_row(char *line, unsigned lineno, struct csv_row *row,
			 struct strbuf *err)
{
	char *f[3], *end;
	int n = split_fields(line, f, 3);
	enum number_status st;

	if (n < 0)
		return fail(err, -EINVAL, "%u: unbalanced double quote", lineno);
	if (n != 3)
		return fail(err, -EINVAL,
			    "%u: expected 3 fields (run,stat,value), got %d", lineno, n);
	errno = 0;
	row->run = strtoll(f[0], &end, 10);
	if (!*f[0] || *end || errno)
		return fail(err, -EINVAL,
			    "%u: run '%s' is not an integer", lineno, f[0]);
	if (!*f[1])
		return fail(err, -EINVAL, "%u: empty stat name", lineno);
	if (bad_name(f[1], lineno, err))
		return -EINVAL;
	st = read_number(f[2], &row->value);
	if (st != NUMBER_OK)
		return fail(err, -EINVAL, "%u: value '%s' of %s %s", lineno, f[2], f[1],
			    number_problem(st));
	row->stat = strdup(f[1]);
	row->line = lineno;
	return row->stat ? 0 : no_memory(err);
}

static bool is_header(char *line)
{
	static const char *const want[] = { "run", "stat", "value" };
	char *f[3];

	if (split_fields(line, f, 3) != 3)
		return false;
	for (int i = 0; i < 3; i++)
		if (strcasecmp(f[i], want[i]))
			return false;
	return true;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct csv_row *x = a, *y = b;
	int c;

	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	c = strcmp(x->stat, y->stat);
	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int read_rows(const char *text, size_t len, struct csv_rows *rows,
		     struct import_data *d, struct strbuf *err)
{
	bool header = false;
	unsigned lineno = 0;
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		char *line = strndup(text + pos, n), *t;
		int ret;

		pos += n + 1;
		lineno++;
		if (!line)
			return no_memory(err);
		if (strlen(line) != n) {
			free(line);
			return fail(err, -EINVAL, "%u: a NUL byte: not a text file", lineno);
		}
		line[strcspn(line, "\r")] = '\0';
		t = trim(line);
		if (!*t) {
			free(line);
			continue;
		}
		if (!header) {
			header = is_header(t);
			free(line);
			if (!header)
				return fail(err, -EINVAL,
					    "%u: expected the header line 'run,stat,value'", lineno);
			continue;
		}
		if (vec_reserve(rows, rows->n + 1)) {
			free(line);
			return no_memory(err);
		}
		ret = parse_csv_row(t, lineno, &rows->v[rows->n], err);
		free(line);
		if (ret)
			return ret;
		if (guess_testcase(d, rows->v[rows->n++].stat))
			return no_memory(err);
	}
	if (!header)
		return fail(err, -EINVAL,
			    "empty: expected the header line 'run,stat,value'");
	if (!rows->n)
		return fail(err, -EINVAL, "no numeric stat: no row after the header");
	return 0;
}

static int csv_runs(struct csv_rows *rows, struct import_data *d, struct strbuf *err)
{
	size_t nr = 1, r = 0;

	/* by run id, then stat: runs come out in id order, twins side by side */
	qsort(rows->v, rows->n, sizeof(*rows->v), cmp_rows);
	for (size_t i = 1; i < rows->n; i++) {
		const struct csv_row *a = &rows->v[i - 1], *b = &rows->v[i];

		if (a->run != b->run)
			nr++;
		else if (!strcmp(a->stat, b->stat))
			return fail(err, -EINVAL,
				    "%u: %s of run %lld given twice (first on line %u)",
				    b->line, b->stat, b->run, a->line);
	}
	if (alloc_runs(d, nr))
		return no_memory(err);
	for (size_t i = 0; i < rows->n; i++) {
		if (i && rows->v[i].run != rows->v[i - 1].run)
			r++;
		if (!d->runs[r].env.n &&
		    strmap_setf(&d->runs[r].env, "import_run", "%lld", rows->v[i].run))
			return no_memory(err);
		if (statmap_add(&d->runs[r].stats, rows->v[i].stat, rows->v[i].value))
			return no_memory(err);
	}
	for (size_t i = 0; i < nr; i++)
		statmap_finish(&d->runs[i].stats);
	return 0;
}

int import_csv(const char *text, size_t len, struct import_data *out,
	       struct strbuf *err)
{
	struct csv_rows rows = { 0 };
	int ret;

	memset(out, 0, sizeof(*out));
	ret = read_rows(text, len, &rows, out, err);
	if (!ret)
		ret = csv_runs(&rows, out, err);
	csv_rows_release(&rows);
	if (ret)
		import_data_release(out);
	return ret;
}
