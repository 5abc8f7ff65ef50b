#define _GNU_SOURCE
#include "bench/parsers.h"
#include "util/quote.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * How much of a dropped name its warning quotes: a name may be megabytes
 * (that is one reason to drop it), and the warning is stored with the run.
 */
#define DROPPED_HEAD 200

struct pctx {
	const char *prefix;	/* NULL or "": names go unprefixed */
	struct statmap *out;
	struct strbuf *err;	/* NULL: no message wanted */
	size_t added;		/* stats added by this call */
	size_t dropped;		/* names the store would refuse, not added */
	struct strbuf first_dropped;
};

static int fail(struct pctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The message replaces any before it: the last failure is the one returned. */
static int fail(struct pctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->err) {
		strbuf_reset(c->err);
		va_start(ap, fmt);
		strbuf_vaddf(c->err, fmt, ap);
		va_end(ap);
	}
	return -EPROTO;
}

/* The head of s, cut between characters and marked "..." when cut. */
static void add_head(struct strbuf *sb, const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max) {
		strbuf_add(sb, s, n);
		return;
	}
	n = max;
	/* the warning is stored: half a UTF-8 character would get it refused */
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	strbuf_add(sb, s, n);
	strbuf_addstr(sb, "...");
}

/*
 * A copy of s[0..n) trimmed, each run of whitespace made one '_': stat
 * names end up in reports, URLs and `perfbot compare` arguments, where a
 * space would split them.  Everything else ('/', ':', '.') is kept, as LKP
 * names keep it.
 */
static char *stat_name(const char *s, size_t n)
{
	char *name = malloc(n + 1), *o = name;

	if (!name)
		return NULL;
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	for (size_t i = 0; i < n; i++) {
		if (!isspace((unsigned char)s[i]))
			*o++ = s[i];
		else if (!isspace((unsigned char)s[i - 1]))
			*o++ = '_';
	}
	*o = '\0';
	return name;
}

/*
 * A name the store would refuse (util/quote.h's rule) is dropped, not
 * fatal: one bad line of a benchmark's output must not cost the run its
 * other stats.  The first is kept, quoted, for the warning.
 */
static int add(struct pctx *c, const char *name, double v)
{
	char *full = NULL;
	const char *why;
	int err;

	if (c->prefix && *c->prefix) {
		if (asprintf(&full, "%s.%s", c->prefix, name) < 0)
			return -ENOMEM;
		name = full;
	}
	if ((why = name_problem(name))) {
		if (!c->dropped++) {
			char *q = quote_c(name, true);

			add_head(&c->first_dropped, q ? q : "?", DROPPED_HEAD);
			strbuf_addf(&c->first_dropped, " %s", why);
			free(q);
		}
		free(full);
		return 0;
	}
	err = statmap_add(c->out, name, v);
	free(full);
	if (!err)
		c->added++;
	return err;
}

/* "<a>.<b>" added through add(), for the two-level names of gbench/hyperfine. */
static int add2(struct pctx *c, const char *a, const char *b, double v)
{
	char *name;
	int err;

	if (asprintf(&name, "%s.%s", a, b) < 0)
		return -ENOMEM;
	err = add(c, name, v);
	free(name);
	return err;
}

/* ---- kv ---- */

/*
 * After the number: nothing, or one unit word ("ms", "ops/s", "%", "µs").
 * A unit must not start with a digit, '.', ':' or ',' so that versions
 * (3.2.1), clock times (12:30:01) and grouped numbers (1,234) are not
 * taken for their first component.
 */
static bool only_unit_follows(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return true;
	if (!isalpha((unsigned char)*s) && *s != '%' && *s != '/' &&
	    (unsigned char)*s < 0x80)
		return false;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	while (*s == ' ' || *s == '\t')
		s++;
	return !*s;
}

/* 1 if `line` (NUL-terminated, no newline) gave a stat, 0 if skipped. */
static int kv_line(struct pctx *c, char *line)
{
	char *colon = strchr(line, ':'), *val, *end, *key = NULL;
	double v;
	int ret = 0;

	if (!colon)
		goto out;
	val = colon + 1;
	while (isspace((unsigned char)*val))
		val++;
	/* strtod would skip the blanks itself and take "" for nothing */
	if (!*val)
		goto out;
	v = strtod(val, &end);
	if (end == val || !isfinite(v) || !only_unit_follows(end))
		goto out;
	key = stat_name(line, (size_t)(colon - line));
	if (!key) {
		ret = -ENOMEM;
		goto out;
	}
	if (!*key)
		goto out;
	ret = add(c, key, v);
	if (!ret)
		ret = 1;
out:
	free(key);
	return ret;
}

static int parse_kv(struct pctx *c, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	struct strbuf line = STRBUF_INIT;
	int err = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n && p[n - 1] == '\r')
			n--;
		strbuf_reset(&line);
		strbuf_add(&line, p, n);
		if (strbuf_error(&line)) {
			err = -ENOMEM;
			goto out;
		}
		err = kv_line(c, line.buf);
		if (err < 0)
			goto out;
		err = 0;
		p = nl ? nl + 1 : end;
	}
	if (!c->added)
		err = fail(c, "kv: no 'key: value' line with a number");
out:
	strbuf_release(&line);
	return err;
}

/* ---- JSON documents ---- */

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isspace((unsigned char)s[i]))
			return false;
	return true;
}

/*
 * The whole output as one JSON value.  If that fails, the document may
 * follow a human-readable report (hyperfine --export-json /dev/stdout
 * prints its summary first): retry once from the first line that opens
 * an object or array.  The error reported is the first one, whose line
 * numbers match the output the user sees.
 */
static json_t *load_json(struct pctx *c, const char *what, const char *text,
			 size_t len)
{
	json_error_t e, e2;
	json_t *doc;

	if (blank(text, len)) {
		fail(c, "%s: empty output", what);
		return NULL;
	}
	doc = json_loadb(text, len, JSON_DECODE_ANY, &e);
	if (doc)
		return doc;
	for (size_t i = 1; i < len; i++) {
		if (text[i - 1] != '\n' || (text[i] != '{' && text[i] != '['))
			continue;
		doc = json_loadb(text + i, len - i, 0, &e2);
		if (doc)
			return doc;
		break;
	}
	fail(c, "%s: line %d column %d: %s", what, e.line, e.column, e.text);
	return NULL;
}

static const char *json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	default:
		return "a number";
	}
}

/* The value at a dotted path ("results.0.mean"); "" is the document. */
static json_t *json_at(json_t *doc, const char *path)
{
	json_t *cur = doc;
	const char *p = path;

	if (!*path)
		return doc;
	for (;;) {
		const char *end = strchrnul(p, '.');
		size_t n = (size_t)(end - p);

		if (json_is_object(cur)) {
			cur = json_object_getn(cur, p, n);
		} else if (json_is_array(cur)) {
			size_t idx = 0;

			/* digits only: strtoul would take "-1", " 1", "0x1" */
			if (!n || n > 9)
				return NULL;
			for (size_t i = 0; i < n; i++) {
				if (!isdigit((unsigned char)p[i]))
					return NULL;
				idx = idx * 10 + (size_t)(p[i] - '0');
			}
			cur = json_array_get(cur, idx);
		} else {
			return NULL;
		}
		if (!cur)
			return NULL;
		if (!*end)
			return cur;
		p = end + 1;
	}
}

static int json_paths(struct pctx *c, json_t *doc, const struct strmap *paths)
{
	for (size_t i = 0; i < paths->n; i++) {
		const char *stat = paths->v[i].key, *path = paths->v[i].value;
		json_t *v = json_at(doc, path);
		int err;

		if (!v)
			return fail(c, "json: no value at %s", path);
		if (!json_is_number(v))
			return fail(c, "json: value at %s is %s, not a number",
				    path, json_kind(v));
		err = add(c, stat, json_number_value(v));
		if (err)
			return err;
	}
	return 0;
}

/* Every numeric leaf under v, named by its path below the document. */
static int json_flatten(struct pctx *c, json_t *v, const char *path)
{
	const char *key;
	json_t *child;
	size_t i;
	int err = 0;

	if (json_is_number(v))
		return add(c, *path ? path : "value", json_number_value(v));
	if (json_is_object(v)) {
		json_object_foreach(v, key, child) {
			char *k = stat_name(key, strlen(key)), *sub = NULL;

			if (k && asprintf(&sub, "%s%s%s", path, *path ? "." : "", k) < 0)
				sub = NULL;
			err = sub ? json_flatten(c, child, sub) : -ENOMEM;
			free(sub);
			free(k);
			if (err)
				return err;
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, child) {
			char *sub;

			if (asprintf(&sub, "%s%s%zu", path, *path ? "." : "", i) < 0)
				return -ENOMEM;
			err = json_flatten(c, child, sub);
			free(sub);
			if (err)
				return err;
		}
	}
	return 0;
}

static int parse_json(struct pctx *c, json_t *doc, const struct strmap *paths)
{
	int err;

	if (paths && paths->n)
		return json_paths(c, doc, paths);
	err = json_flatten(c, doc, "");
	if (!err && !c->added)
		err = fail(c, "json: no number in the document");
	return err;
}

/* ---- Google Benchmark ---- */

/* Numeric fields that describe the run rather than measure it. */
static bool gbench_not_a_stat(const char *key)
{
	static const char *const keys[] = {
		"family_index", "per_family_instance_index", "repetitions",
		"repetition_index", "threads",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

/* Fields given in the entry's time_unit (the *_coefficient of BigO rows too). */
static bool gbench_is_time(const char *key)
{
	return !strcmp(key, "real_time") || !strcmp(key, "cpu_time") ||
	       !strcmp(key, "real_coefficient") || !strcmp(key, "cpu_coefficient");
}

static int gbench_scale(const char *unit, double *ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(unit, units[i].unit)) {
			*ns = units[i].ns;
			return 0;
		}
	}
	return -1;
}

static const char *str_field(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static int gbench_entry(struct pctx *c, json_t *b, size_t idx)
{
	const char *raw = str_field(b, "name"), *run_type, *unit, *key, *msg, *agg;
	json_t *v, *reps = json_object_get(b, "repetitions");
	char *name = NULL, *k = NULL;
	double scale = 1;
	bool ratio;
	int err = 0;

	if (!json_is_object(b))
		return fail(c, "gbench: benchmarks.%zu is not an object", idx);
	if (!raw || !*raw)
		return fail(c, "gbench: benchmarks.%zu has no name", idx);
	name = stat_name(raw, strlen(raw));
	if (!name)
		return -ENOMEM;
	if (json_is_true(json_object_get(b, "error_occurred"))) {
		msg = str_field(b, "error_message");
		err = fail(c, "gbench: %s: error: %s", raw, msg ? msg : "(no message)");
		goto out;
	}
	/* SkipWithMessage(): deliberately not run, nothing measured */
	if (json_is_true(json_object_get(b, "skipped")))
		goto out;
	/*
	 * With --benchmark_repetitions=N every repetition repeats the same
	 * name; one of them would win at random.  Their aggregates
	 * (<name>_mean, _median, _stddev, _cv), always reported then, carry
	 * them.
	 */
	run_type = str_field(b, "run_type");
	if ((!run_type || strcmp(run_type, "aggregate")) &&
	    json_is_integer(reps) && json_integer_value(reps) > 1)
		goto out;
	unit = str_field(b, "time_unit");
	if (unit && gbench_scale(unit, &scale)) {
		err = fail(c, "gbench: %s: unknown time_unit '%s'", raw, unit);
		goto out;
	}
	/* the _cv aggregate's "times" are ratios (stddev/mean), not times */
	agg = str_field(b, "aggregate_unit");
	ratio = agg && !strcmp(agg, "percentage");
	json_object_foreach(b, key, v) {
		double x;

		if (!json_is_number(v) || gbench_not_a_stat(key))
			continue;
		x = json_number_value(v);
		if (gbench_is_time(key) && !ratio)
			x *= scale;
		k = stat_name(key, strlen(key));
		if (!k) {
			err = -ENOMEM;
			goto out;
		}
		err = add2(c, name, k, x);
		free(k);
		k = NULL;
		if (err)
			goto out;
	}
out:
	free(name);
	return err;
}

static int parse_gbench(struct pctx *c, json_t *doc)
{
	json_t *arr = json_object_get(doc, "benchmarks"), *b;
	size_t i;
	int err;

	if (!json_is_array(arr))
		return fail(c, "gbench: no \"benchmarks\" array");
	json_array_foreach(arr, i, b) {
		err = gbench_entry(c, b, i);
		if (err)
			return err;
	}
	if (!c->added)
		return fail(c, "gbench: no benchmark result in the output");
	return 0;
}

/* ---- hyperfine ---- */

static int hyperfine_result(struct pctx *c, json_t *r, size_t idx)
{
	static const char *const fields[] = {
		"mean", "stddev", "median", "user", "system", "min", "max",
	};
	const char *cmd = str_field(r, "command");
	json_t *times = json_object_get(r, "times");
	char *name = NULL;
	int err = 0;

	if (!json_is_object(r))
		return fail(c, "hyperfine: results.%zu is not an object", idx);
	if (!cmd || !*cmd)
		return fail(c, "hyperfine: results.%zu has no command", idx);
	name = stat_name(cmd, strlen(cmd));
	if (!name)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		json_t *v = json_object_get(r, fields[i]);

		/*
		 * stddev is null for a single run; median and the others are
		 * missing in older hyperfines.  Without a mean there is no
		 * result at all.
		 */
		if (!v || json_is_null(v)) {
			if (i == 0) {
				err = fail(c, "hyperfine: results.%zu ('%s'): no mean",
					   idx, cmd);
				goto out;
			}
			continue;
		}
		if (!json_is_number(v)) {
			err = fail(c, "hyperfine: results.%zu.%s is %s, not a number",
				   idx, fields[i], json_kind(v));
			goto out;
		}
		err = add2(c, name, fields[i], json_number_value(v));
		if (err)
			goto out;
	}
	if (json_is_array(times))
		err = add2(c, name, "runs", (double)json_array_size(times));
out:
	free(name);
	return err;
}

static int parse_hyperfine(struct pctx *c, json_t *doc)
{
	json_t *arr = json_object_get(doc, "results"), *r;
	size_t i;
	int err;

	if (!json_is_array(arr))
		return fail(c, "hyperfine: no \"results\" array");
	if (!json_array_size(arr))
		return fail(c, "hyperfine: no result in \"results\"");
	json_array_foreach(arr, i, r) {
		err = hyperfine_result(c, r, i);
		if (err)
			return err;
	}
	return 0;
}

/* ---- entry points ---- */

static const char *const kinds[] = { "kv", "json", "gbench", "hyperfine", "time" };

bool exec_parse_kind_known(const char *kind)
{
	if (!kind)
		return false;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i]))
			return true;
	return false;
}

int exec_parse_output(const char *kind, const char *text, size_t len,
		      const struct strmap *paths, const char *prefix,
		      struct statmap *out, struct strbuf *err)
{
	struct pctx c = {
		.prefix = prefix, .out = out, .err = err,
		.first_dropped = STRBUF_INIT,
	};
	size_t n0 = out->n;
	int sorted0 = out->sorted, ret;
	json_t *doc = NULL;

	if (err && strbuf_error(err))
		strbuf_release(err);
	else if (err)
		strbuf_reset(err);
	if (!text)
		len = 0;
	if (!exec_parse_kind_known(kind)) {
		fail(&c, "unknown parse kind '%s' (kv, json, gbench, hyperfine, time)",
		     kind ? kind : "(null)");
		return -EINVAL;
	}
	if (!strcmp(kind, "time"))
		return 0;
	if (!strcmp(kind, "kv")) {
		ret = parse_kv(&c, text ? text : "", len);
		goto out;
	}
	doc = load_json(&c, kind, text ? text : "", len);
	if (!doc) {
		ret = -EPROTO;
		goto out;
	}
	if (!strcmp(kind, "json"))
		ret = parse_json(&c, doc, paths);
	else if (!strcmp(kind, "gbench"))
		ret = parse_gbench(&c, doc);
	else
		ret = parse_hyperfine(&c, doc);
out:
	json_decref(doc);
	if (!ret && c.dropped && err)
		strbuf_addf(err, "%s: dropped %zu stat%s with a bad name, the first: %s",
			    kind, c.dropped, c.dropped == 1 ? "" : "s",
			    strbuf_error(&c.first_dropped) ? "?" : c.first_dropped.buf);
	strbuf_release(&c.first_dropped);
	if (ret) {
		/* all or nothing: a half-parsed output must not look like a result */
		for (size_t i = n0; i < out->n; i++)
			free(out->v[i].name);
		out->n = n0;
		out->sorted = sorted0;
		if (ret == -ENOMEM)
			fail(&c, "%s: out of memory", kind);
	}
	return ret;
}
