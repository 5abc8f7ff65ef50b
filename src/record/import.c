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

int import_lkp_matrix(const char *text, size_t len, struct import_data *out,
		      struct strbuf *err)
{
	json_error_t jerr;
	json_t *root;
	int ret;

	memset(out, 0, sizeof(*out));
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
	errno = 0;
	row->value = strtod(f[2], &end);
	if (!*f[2] || *end || errno || !isfinite(row->value))
		return fail(err, -EINVAL,
			    "%u: value '%s' of %s is not a finite number", lineno,
			    f[2], f[1]);
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
