/*
 * bisect.c - the report of one bisection (docs/design.md §8, §9), from the JSON
 * document perfbot bisect stores (docs/report.md, "Bisection reports").
 *
 * The document is read once into struct bisection (every field checked
 * for its type, absent and null alike meaning "not known"), so a writer
 * either fails with -EINVAL before writing anything or writes the whole
 * report.  What the report must answer is the maintainer's question of
 * seed 001, "is this commit really the cause?": so next to the culprit it
 * always shows the posterior probability, the confirmation (culprit
 * against its parent, runs of their own, %change with its interval and
 * p) and the good/bad baseline it explains.
 */
#define _GNU_SOURCE
#include "report/report.h"
#include "report/internal.h"
#include "util/quote.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A merge inside a merged branch is bisected again: not forever. */
#define MAX_DEPTH 8

enum bstatus {
	ST_FOUND,
	ST_RANGE,
	ST_NO_CHANGE,
	ST_UNDECIDED,
	ST_FAILED,
	ST_RUNNING,
	ST_RESET,
};

static const char *const status_names[] = {
	[ST_FOUND] = "found",
	[ST_RANGE] = "found-range",
	[ST_NO_CHANGE] = "no-change",
	[ST_UNDECIDED] = "undecided",
	[ST_FAILED] = "failed",
	[ST_RUNNING] = "running",
	[ST_RESET] = "reset",
};

/* A set of runs of one commit: a baseline side or a confirmation side. */
struct side {
	const char *sha, *given;
	long n;				/* -1: not known */
	double mean, stddev;		/* NaN: not known */
	const json_t *values;		/* array of numbers, or NULL */
};

struct change {
	bool have;
	double pct, low, high, p;
	const char *verdict;
};

/* One commit of culprit, range, best or commits. */
struct item {
	const char *sha, *subject, *author, *date, *state, *note;
	long index, n;
	double mean, stddev, probability, p_bad;
	bool skipped;
	const json_t *values;
};

struct bisection {
	enum bstatus status;
	struct side good, bad;		/* good.sha, bad.sha; baseline numbers */
	struct change base_change;
	long candidates;
	bool have_culprit, have_confirm;
	struct item culprit;
	struct item *range, *best, *commits;
	size_t nrange, nbest, ncommits;
	struct side parent, culp;	/* the confirmation */
	struct change confirm;
	const char *merge_sha, *merge_subject;
	struct bisection *inner;	/* the bisection inside the merged branch */
	long runs, runs_search, runs_baseline, runs_confirm, builds, build_failures;
	long max_runs;
	double confidence;
	const char *message;
};

struct doc {
	long id;
	const char *repo, *origin_url, *job, *testcase, *testbox, *machine;
	const char *job_text, *metric;
	const json_t *params;		/* object of strings (or numbers) */
	int higher_is_better;		/* -1: not known */
	int decimals;			/* of every mean and stddev shown */
	struct bisection b;
};

/* ---- reading the document ---- */

/* null is "not known", as absent: report_json writes uncomputed numbers so. */
static const json_t *get(const json_t *o, const char *key)
{
	const json_t *v = o ? json_object_get(o, key) : NULL;

	return json_is_null(v) ? NULL : v;
}

static const char *opt_str(int *err, const json_t *o, const char *key)
{
	const json_t *v = get(o, key);

	if (!v)
		return NULL;
	if (!json_is_string(v)) {
		*err = -EINVAL;
		return NULL;
	}
	return json_string_value(v);
}

static const char *req_str(int *err, const json_t *o, const char *key)
{
	const char *s = opt_str(err, o, key);

	if (!s)
		*err = -EINVAL;
	return s;
}

static double opt_num(int *err, const json_t *o, const char *key)
{
	const json_t *v = get(o, key);

	if (!v)
		return NAN;
	if (!json_is_number(v)) {
		*err = -EINVAL;
		return NAN;
	}
	return json_number_value(v);
}

/* A count or an index: a non-negative integer (1.0 is taken as 1). */
static long opt_count(int *err, const json_t *o, const char *key)
{
	const json_t *v = get(o, key);
	double d;

	if (!v)
		return -1;
	if (json_is_integer(v) && json_integer_value(v) >= 0 &&
	    json_integer_value(v) <= 0x7fffffffL)
		return (long)json_integer_value(v);
	d = json_is_real(v) ? json_real_value(v) : -1;
	if (d >= 0 && d <= 0x7fffffffL && d == floor(d))
		return (long)d;
	*err = -EINVAL;
	return -1;
}

static int opt_bool(int *err, const json_t *o, const char *key)
{
	const json_t *v = get(o, key);

	if (!v)
		return -1;
	if (!json_is_boolean(v)) {
		*err = -EINVAL;
		return -1;
	}
	return json_is_true(v);
}

static const json_t *opt_type(int *err, const json_t *o, const char *key,
			      json_type type)
{
	const json_t *v = get(o, key);

	if (v && json_typeof(v) != type) {
		*err = -EINVAL;
		return NULL;
	}
	return v;
}

static const json_t *opt_values(int *err, const json_t *o)
{
	const json_t *v = opt_type(err, o, "values", JSON_ARRAY), *x;
	size_t i;

	json_array_foreach(v, i, x)
		if (!json_is_number(x))
			*err = -EINVAL;
	return v;
}

static void read_side(int *err, const json_t *o, struct side *s, bool sha_required)
{
	s->sha = sha_required ? req_str(err, o, "sha") : opt_str(err, o, "sha");
	s->given = opt_str(err, o, "given");
	s->n = opt_count(err, o, "n");
	s->mean = opt_num(err, o, "mean");
	s->stddev = opt_num(err, o, "stddev");
	s->values = opt_values(err, o);
}

/* pct, low, high, p and verdict of o; have when pct is known. */
static void read_change(int *err, const json_t *o, struct change *c)
{
	c->pct = opt_num(err, o, "pct");
	c->low = opt_num(err, o, "low");
	c->high = opt_num(err, o, "high");
	c->p = opt_num(err, o, "p");
	c->verdict = opt_str(err, o, "verdict");
	c->have = isfinite(c->pct);
}

static void read_item(int *err, const json_t *o, struct item *it)
{
	int skipped;

	if (!json_is_object(o)) {
		*err = -EINVAL;
		return;
	}
	it->sha = req_str(err, o, "sha");
	it->subject = opt_str(err, o, "subject");
	it->author = opt_str(err, o, "author");
	it->date = opt_str(err, o, "date");
	it->state = opt_str(err, o, "state");
	it->note = opt_str(err, o, "note");
	it->index = opt_count(err, o, "index");
	it->n = opt_count(err, o, "n");
	it->mean = opt_num(err, o, "mean");
	it->stddev = opt_num(err, o, "stddev");
	it->probability = opt_num(err, o, "probability");
	it->p_bad = opt_num(err, o, "p_bad");
	it->values = opt_values(err, o);
	skipped = opt_bool(err, o, "skipped");
	it->skipped = skipped > 0 || (it->state && !strcmp(it->state, "skipped"));
}

static struct item *read_items(int *err, const json_t *o, const char *key,
			       size_t *n)
{
	const json_t *a = opt_type(err, o, key, JSON_ARRAY);
	struct item *v;

	*n = a ? json_array_size(a) : 0;
	if (!*n)
		return NULL;
	v = calloc(*n, sizeof(*v));
	if (!v) {
		*err = -ENOMEM;
		*n = 0;
		return NULL;
	}
	for (size_t i = 0; i < *n; i++)
		read_item(err, json_array_get(a, i), &v[i]);
	return v;
}

static void bisection_free(struct bisection *b)
{
	if (b->inner) {
		bisection_free(b->inner);
		free(b->inner);
	}
	free(b->range);
	free(b->best);
	free(b->commits);
}

/*
 * Required: status (one of status_names), good.sha, bad.sha; culprit.sha
 * when found; a non-empty range when found-range; merge.sha when there is
 * a merge.  Everything else may be absent; present, it has its type.
 */
static int read_bisection(const json_t *o, struct bisection *b,
			  const struct bisection *outer, int depth)
{
	const json_t *base, *conf, *merge, *culprit;
	const char *status;
	int err = 0;

	memset(b, 0, sizeof(*b));
	if (!json_is_object(o) || depth > MAX_DEPTH)
		return -EINVAL;
	status = req_str(&err, o, "status");
	b->status = ST_FOUND;
	if (status) {
		size_t i;

		for (i = 0; i < sizeof(status_names) / sizeof(*status_names); i++)
			if (!strcmp(status, status_names[i]))
				break;
		if (i == sizeof(status_names) / sizeof(*status_names))
			return -EINVAL;
		b->status = (enum bstatus)i;
	}
	if (!json_is_object(get(o, "good")) || !json_is_object(get(o, "bad")))
		return -EINVAL;
	read_side(&err, get(o, "good"), &b->good, true);
	read_side(&err, get(o, "bad"), &b->bad, true);
	b->candidates = opt_count(&err, o, "candidates");

	base = opt_type(&err, o, "baseline", JSON_OBJECT);
	if (base) {
		const json_t *g = opt_type(&err, base, "good", JSON_OBJECT),
			     *k = opt_type(&err, base, "bad", JSON_OBJECT);
		int e2 = 0;

		/* the numbers join good/bad's sha and given */
		b->good.n = opt_count(&e2, g, "n");
		b->good.mean = opt_num(&e2, g, "mean");
		b->good.stddev = opt_num(&e2, g, "stddev");
		b->good.values = opt_values(&e2, g);
		b->bad.n = opt_count(&e2, k, "n");
		b->bad.mean = opt_num(&e2, k, "mean");
		b->bad.stddev = opt_num(&e2, k, "stddev");
		b->bad.values = opt_values(&e2, k);
		read_change(&e2, opt_type(&e2, base, "change", JSON_OBJECT),
			    &b->base_change);
		if (e2)
			err = e2;
	} else {
		read_change(&err, NULL, &b->base_change);	/* all unknown */
	}

	culprit = opt_type(&err, o, "culprit", JSON_OBJECT);
	if (culprit) {
		read_item(&err, culprit, &b->culprit);
		b->have_culprit = true;
	} else if (b->status == ST_FOUND) {
		err = -EINVAL;
	}
	b->range = read_items(&err, o, "range", &b->nrange);
	if (b->status == ST_RANGE && !b->nrange && !err)
		err = -EINVAL;
	b->best = read_items(&err, o, "best", &b->nbest);
	b->commits = read_items(&err, o, "commits", &b->ncommits);

	conf = opt_type(&err, o, "confirmation", JSON_OBJECT);
	b->parent.n = b->culp.n = -1;
	b->parent.mean = b->parent.stddev = b->culp.mean = b->culp.stddev = NAN;
	b->confirm.pct = NAN;
	if (conf) {
		read_side(&err, opt_type(&err, conf, "parent", JSON_OBJECT), &b->parent, false);
		read_side(&err, opt_type(&err, conf, "culprit", JSON_OBJECT), &b->culp, false);
		read_change(&err, conf, &b->confirm);
		b->have_confirm = true;
	}

	b->runs = opt_count(&err, o, "runs");
	b->runs_search = opt_count(&err, o, "runs_search");
	b->runs_baseline = opt_count(&err, o, "runs_baseline");
	b->runs_confirm = opt_count(&err, o, "runs_confirm");
	b->builds = opt_count(&err, o, "builds");
	b->build_failures = opt_count(&err, o, "build_failures");
	b->max_runs = opt_count(&err, o, "max_runs");
	b->confidence = opt_num(&err, o, "confidence");
	b->message = opt_str(&err, o, "message");
	/* the bisection inside a merged branch runs under the same limits */
	if (outer) {
		if (b->max_runs < 0)
			b->max_runs = outer->max_runs;
		if (!isfinite(b->confidence))
			b->confidence = outer->confidence;
	}

	merge = opt_type(&err, o, "merge", JSON_OBJECT);
	if (merge && !err) {
		const json_t *inner = opt_type(&err, merge, "inner", JSON_OBJECT);

		b->merge_sha = req_str(&err, merge, "sha");
		b->merge_subject = opt_str(&err, merge, "subject");
		if (inner && !err) {
			b->inner = malloc(sizeof(*b->inner));
			if (!b->inner)
				err = -ENOMEM;
			else
				err = read_bisection(inner, b->inner, b, depth + 1);
		}
	}
	return err;
}

/* Decimals that show a step of the size good -> bad with 3 digits. */
static int pick_decimals(const struct bisection *b)
{
	double step = fabs(b->bad.mean - b->good.mean), m;

	if (!isfinite(step) || step == 0)
		step = fabs(b->culp.mean - b->parent.mean);
	if (isfinite(step) && step > 0)
		return (int)fmin(9, fmax(0, 2 - floor(log10(step))));
	m = fabs(isfinite(b->good.mean) ? b->good.mean : b->bad.mean);
	if (isfinite(m) && m > 0)
		return (int)fmin(9, fmax(0, 4 - floor(log10(m))));
	return 2;
}

static int read_doc(const json_t *r, struct doc *d)
{
	int err = 0;

	memset(d, 0, sizeof(*d));
	if (!json_is_object(r))
		return -EINVAL;
	err = read_bisection(r, &d->b, NULL, 0);
	d->id = opt_count(&err, r, "id");
	d->repo = opt_str(&err, r, "repo");
	d->origin_url = opt_str(&err, r, "origin_url");
	d->job = opt_str(&err, r, "job");
	/* a bisection that stopped before its job was loaded: the file */
	if (!d->job)
		d->job = opt_str(&err, r, "job_path");
	d->testcase = opt_str(&err, r, "testcase");
	d->testbox = opt_str(&err, r, "testbox");
	d->machine = opt_str(&err, r, "machine");
	d->job_text = opt_str(&err, r, "job_text");
	/*
	 * A finished bisection names its metric; one that failed or was
	 * stopped before the first run may not know it yet.
	 */
	d->metric = d->b.status == ST_FAILED || d->b.status == ST_RUNNING ||
		    d->b.status == ST_RESET ? opt_str(&err, r, "metric")
					    : req_str(&err, r, "metric");
	if (!d->metric)
		d->metric = "the job's KPI";
	d->params = opt_type(&err, r, "params", JSON_OBJECT);
	d->higher_is_better = opt_bool(&err, r, "higher_is_better");
	if (d->params) {
		const char *k;
		const json_t *v;

		json_object_foreach((json_t *)d->params, k, v)
			if (!json_is_string(v) && !json_is_number(v))
				err = -EINVAL;
	}
	if (err) {
		bisection_free(&d->b);
		return err;
	}
	d->decimals = pick_decimals(&d->b);
	return 0;
}

/* ---- words and numbers ---- */

/*
 * "improvement" or "regression": by higher_is_better when the bisection
 * says, else by the metric's name as every other report decides it.
 */
static const char *direction(const struct doc *d, double pct)
{
	if (!isfinite(pct) || pct == 0)
		return NULL;
	if (d->higher_is_better >= 0)
		return (d->higher_is_better > 0) == (pct > 0) ? "improvement" : "regression";
	return report_direction_word(d->metric, pct);
}

static const char *change_word(const struct doc *d, double pct)
{
	const char *w = direction(d, pct);

	return w ? w : "change";
}

/*
 * A probability with the decimals it needs: 99.8%, 99.94%, 12.5%, 0.09%,
 * 0.0002%: near 1 until it does not read as 100%, below 1% one
 * significant digit.
 */
static const char *fmt_prob(char *buf, size_t len, double p)
{
	double v = 100 * p;

	if (!isfinite(p))
		snprintf(buf, len, "-");
	else if (p >= 1 || p <= 0)
		snprintf(buf, len, "%s", p >= 1 ? "100%" : "0%");
	else if (v < 1 && ceil(-log10(v)) > 4)
		snprintf(buf, len, "<0.0001%%");
	else if (v < 1)
		snprintf(buf, len, "%.*f%%", (int)fmax(1, ceil(-log10(v))), v);
	else {
		for (int dec = 1; dec <= 4; dec++) {
			snprintf(buf, len, "%.*f%%", dec, v);
			if (strncmp(buf, "100.", 4))
				return buf;
		}
		snprintf(buf, len, ">99.9999%%");
	}
	return buf;
}

static const char *fmt_num(char *buf, size_t len, const struct doc *d, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1e12)
		snprintf(buf, len, "%.4g", v);
	else
		snprintf(buf, len, "%.*f", d->decimals, v);
	return buf;
}

/* "+5.0% [+4.3%, +5.6%], p=3.4e-11: changed" as far as known. */
static void put_change(FILE *out, const struct change *c, bool interval_words)
{
	fprintf(out, "%+.1f%%", c->pct);
	if (isfinite(c->low) && isfinite(c->high))
		fprintf(out, " [%+.1f%%, %+.1f%%]%s", c->low, c->high,
			interval_words ? " (95% interval)" : "");
	if (isfinite(c->p))
		fprintf(out, ", p=%.2g", c->p);
	if (c->verdict)
		fprintf(out, ": %s", c->verdict);
}

/* "1.0010 ± 0.0028 (6 runs)" */
static void put_side(FILE *out, const struct doc *d, const struct side *s)
{
	char a[64], b[64];

	fputs(fmt_num(a, sizeof(a), d, s->mean), out);
	if (isfinite(s->stddev))
		fprintf(out, " ± %s", fmt_num(b, sizeof(b), d, s->stddev));
	if (s->n >= 0)
		fprintf(out, " (%ld run%s)", s->n, s->n == 1 ? "" : "s");
}

static const char *subject_of(const struct item *it)
{
	return it->subject ? it->subject : "";
}

/* sha ("subject") */
static void put_commit(FILE *out, const char *sha, const char *subject)
{
	fputs(sha, out);
	if (subject)
		fprintf(out, " (\"%s\")", subject);
}

/* The bisection whose culprit the report blames: inside a merge when known. */
static const struct bisection *blamed(const struct bisection *b)
{
	while (b->inner && b->inner->status == ST_FOUND && b->inner->have_culprit)
		b = b->inner;
	return b;
}

/* The change the report is about: the confirmation's, else the baseline's. */
static const struct change *headline_change(const struct doc *d,
					    const struct bisection *b)
{
	if (b->status == ST_FOUND && b->have_confirm && b->confirm.have)
		return &b->confirm;
	if (d->b.have_confirm && d->b.confirm.have && d->b.status == ST_FOUND)
		return &d->b.confirm;
	return d->b.base_change.have ? &d->b.base_change : NULL;
}

static const struct item *best_other(const struct bisection *b, const char *sha)
{
	for (size_t i = 0; i < b->nbest; i++)
		if (!sha || strcmp(b->best[i].sha, sha))
			return &b->best[i];
	return NULL;
}

static void put_runs_spent(FILE *out, const struct bisection *b, const char *what)
{
	bool paren = false;

	if (b->runs < 0 && b->builds < 0)
		return;
	fprintf(out, "%s: ", what);
	if (b->runs >= 0) {
		fprintf(out, "%ld runs", b->runs);
		if (b->runs_search >= 0) {
			fprintf(out, " (%ld searching", b->runs_search);
			paren = true;
		}
		if (b->runs_baseline >= 0) {
			fprintf(out, "%s%ld on good and bad", paren ? ", " : " (",
				b->runs_baseline);
			paren = true;
		}
		if (b->runs_confirm >= 0) {
			fprintf(out, "%s%ld confirming", paren ? ", " : " (", b->runs_confirm);
			paren = true;
		}
		if (paren)
			fputc(')', out);
	}
	if (b->builds >= 0) {
		fprintf(out, "%s%ld build%s", b->runs >= 0 ? ", " : "", b->builds,
			b->builds == 1 ? "" : "s");
		if (b->build_failures > 0)
			fprintf(out, " (%ld failed)", b->build_failures);
	}
	fputc('\n', out);
}

static void put_stop(FILE *out, const struct bisection *b)
{
	if (isfinite(b->confidence))
		fprintf(out, "stop at %.10g%%", 100 * b->confidence);
	if (b->max_runs >= 0)
		fprintf(out, "%sat most %ld runs", isfinite(b->confidence) ? ", " : "",
			b->max_runs);
}

/* The candidates with their probabilities, one a line. */
static void put_items(FILE *out, const char *indent, const struct item *v, size_t n)
{
	char p[32];

	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s%-9s %.12s %s", indent,
			fmt_prob(p, sizeof(p), v[i].probability), v[i].sha,
			subject_of(&v[i]));
		if (v[i].skipped)
			fputs(" [skipped: could not be built]", out);
		fputc('\n', out);
	}
}

/* index, commit, state, runs, mean, P(bad): every commit measured or skipped. */
static void put_commit_table(FILE *out, const struct doc *d, const struct bisection *b)
{
	const char *culprit = b->have_culprit && b->status == ST_FOUND ? b->culprit.sha : NULL;
	char m[64], p[32], n[32];

	if (!b->ncommits) {
		fputs("no commit measured\n", out);
		return;
	}
	fputs("index  commit        state       runs         mean    P(bad)  subject\n", out);
	for (size_t i = 0; i < b->ncommits; i++) {
		const struct item *it = &b->commits[i];
		char idx[32];

		if (it->index >= 0)
			snprintf(idx, sizeof(idx), "%ld", it->index);
		else
			snprintf(idx, sizeof(idx), "-");
		if (it->n >= 0)
			snprintf(n, sizeof(n), "%ld", it->n);
		else
			snprintf(n, sizeof(n), "-");
		fprintf(out, "%5s  %-12.12s  %-10s %5s %12s %9s  %s", idx, it->sha,
			it->state ? it->state : it->skipped ? "skipped" : "-", n,
			fmt_num(m, sizeof(m), d, it->mean),
			fmt_prob(p, sizeof(p), it->p_bad), subject_of(it));
		if (it->note)
			fprintf(out, "%s[%s]", it->subject ? " " : "", it->note);
		if (culprit && !strcmp(culprit, it->sha))
			fputs("  <= first bad commit", out);
		fputc('\n', out);
	}
}

/* Confirmation and baseline, indented, for text and email alike. */
static void put_confirmation(FILE *out, const struct doc *d, const struct bisection *b,
			     const char *indent)
{
	char s1[16], s2[16];

	snprintf(s1, sizeof(s1), "%.12s", b->parent.sha ? b->parent.sha : "");
	snprintf(s2, sizeof(s2), "%.12s", b->culp.sha ? b->culp.sha :
		 b->have_culprit ? b->culprit.sha : "");
	fprintf(out, "%sparent   %-12s  ", indent, s1);
	put_side(out, d, &b->parent);
	fprintf(out, "\n%sculprit  %-12s  ", indent, s2);
	put_side(out, d, &b->culp);
	fprintf(out, "\n%schange   ", indent);
	if (b->confirm.have) {
		const char *w = direction(d, b->confirm.pct);

		put_change(out, &b->confirm, true);
		if (w && b->confirm.verdict && !strcmp(b->confirm.verdict, "changed"))
			fprintf(out, " (%s)", w);
	} else {
		fputs("not computed", out);
	}
	fputc('\n', out);
}

static void put_baseline(FILE *out, const struct doc *d, const struct bisection *b,
			 const char *indent)
{
	char s[16];

	snprintf(s, sizeof(s), "%.12s", b->good.sha);
	fprintf(out, "%sgood     %-12s  ", indent, s);
	put_side(out, d, &b->good);
	if (b->good.given)
		fprintf(out, "  [%s]", b->good.given);
	snprintf(s, sizeof(s), "%.12s", b->bad.sha);
	fprintf(out, "\n%sbad      %-12s  ", indent, s);
	put_side(out, d, &b->bad);
	if (b->bad.given)
		fprintf(out, "  [%s]", b->bad.given);
	fputc('\n', out);
	if (b->base_change.have) {
		fprintf(out, "%schange   ", indent);
		put_change(out, &b->base_change, true);
		fputc('\n', out);
	}
}

static bool confirmed(const struct bisection *b)
{
	return b->have_confirm && b->confirm.verdict &&
	       !strcmp(b->confirm.verdict, "changed");
}

/* ---- text ---- */

static const char *status_line(enum bstatus s)
{
	switch (s) {
	case ST_FOUND:
		return "found the first bad commit";
	case ST_RANGE:
		return "found a range: the first bad commit is one of these";
	case ST_NO_CHANGE:
		return "no reproducible change between good and bad";
	case ST_UNDECIDED:
		return "undecided";
	case ST_FAILED:
		return "failed";
	case ST_RUNNING:
		return "running";
	case ST_RESET:
		return "reset";
	}
	return "?";
}

static void text_bisection(FILE *out, const struct doc *d, const struct bisection *b);

static void text_found(FILE *out, const struct doc *d, const struct bisection *b)
{
	const struct item *c = &b->culprit, *next = best_other(b, c->sha);
	char p[32];

	fprintf(out, "first bad commit: %s %s\n", c->sha, subject_of(c));
	if (c->author)
		fprintf(out, "author: %s\n", c->author);
	if (c->date)
		fprintf(out, "date:   %s\n", c->date);
	if (isfinite(c->probability)) {
		fprintf(out, "probability %s", fmt_prob(p, sizeof(p), c->probability));
		if (isfinite(b->confidence) || b->max_runs >= 0) {
			fputs(" (", out);
			put_stop(out, b);
			fputc(')', out);
		}
		if (next && isfinite(next->probability))
			fprintf(out, "; next most likely %.12s at %s", next->sha,
				fmt_prob(p, sizeof(p), next->probability));
		fputc('\n', out);
	}
	if (b->merge_sha) {
		const struct bisection *in = b->inner;

		fprintf(out, "it is a merge: %s %s\n", b->merge_sha,
			b->merge_subject ? b->merge_subject : "");
		if (in && in->status == ST_FOUND && in->have_culprit) {
			fprintf(out, "inside the merged branch, the first bad commit is %s %s",
				in->culprit.sha, subject_of(&in->culprit));
			if (isfinite(in->culprit.probability))
				fprintf(out, " (probability %s)",
					fmt_prob(p, sizeof(p), in->culprit.probability));
			fputc('\n', out);
		} else if (in) {
			fprintf(out, "inside the merged branch: %s\n", status_line(in->status));
		} else {
			fputs("not bisected inside the merged branch\n", out);
		}
	}
	if (b->have_confirm) {
		fputs("confirmation, the culprit against its parent:\n", out);
		put_confirmation(out, d, b, "  ");
		if (!confirmed(b))
			fputs("  the confirmation did not show the change: treat this commit as a suspect\n",
			      out);
	} else {
		fputs("not confirmed against its parent\n", out);
	}
}

static void text_bisection(FILE *out, const struct doc *d, const struct bisection *b)
{
	fprintf(out, "good: %s%s%s\n", b->good.sha, b->good.given ? " " : "",
		b->good.given ? b->good.given : "");
	fprintf(out, "bad:  %s%s%s\n", b->bad.sha, b->bad.given ? " " : "",
		b->bad.given ? b->bad.given : "");
	if (b->candidates >= 0)
		fprintf(out, "%ld candidate commits\n", b->candidates);
	fputc('\n', out);

	switch (b->status) {
	case ST_FOUND:
		text_found(out, d, b);
		break;
	case ST_RANGE:
		fprintf(out, "the first bad commit is one of these %zu (skipped: could not be built, so not told apart):\n",
			b->nrange);
		put_items(out, "  ", b->range, b->nrange);
		break;
	case ST_UNDECIDED:
	case ST_RUNNING:
		fprintf(out, "%s after %ld runs", b->status == ST_UNDECIDED ?
			"not decided" : "still running", b->runs >= 0 ? b->runs :
			b->runs_search >= 0 ? b->runs_search : 0);
		if (isfinite(b->confidence) || b->max_runs >= 0) {
			fputs(" (", out);
			put_stop(out, b);
			fputc(')', out);
		}
		fputs(b->nbest ? "; the most likely first bad commits:\n" : "\n", out);
		put_items(out, "  ", b->best, b->nbest);
		break;
	case ST_NO_CHANGE:
	case ST_FAILED:
	case ST_RESET:
		break;
	}
	if (b->status == ST_FAILED)
		fprintf(out, "why: %s\n", b->message ? b->message : "no reason was stored");
	else if (b->message)
		fprintf(out, "%s\n", b->message);
	if (b->good.n >= 0 || isfinite(b->good.mean) || b->base_change.have) {
		fputs("baseline, the good and bad commits:\n", out);
		put_baseline(out, d, b, "  ");
	}
	put_runs_spent(out, b, "spent");
	fputs("\ncommits measured:\n", out);
	put_commit_table(out, d, b);
	if (b->merge_sha && b->inner) {
		fprintf(out, "\n--- inside the branch merged by %.12s: %s ---\n",
			b->merge_sha, status_line(b->inner->status));
		text_bisection(out, d, b->inner);
	}
}

static int bisect_text(FILE *out, const json_t *r)
{
	struct doc d;
	int err = read_doc(r, &d);

	if (err)
		return err;
	if (d.id >= 0)
		fprintf(out, "bisection %ld: %s\n", d.id, status_line(d.b.status));
	else
		fprintf(out, "bisection: %s\n", status_line(d.b.status));
	fprintf(out, "metric: %s", d.metric);
	if (d.higher_is_better >= 0)
		fprintf(out, " (%s is better)", d.higher_is_better ? "higher" : "lower");
	fputc('\n', out);
	if (d.job || d.testcase || d.testbox) {
		fprintf(out, "job: %s", d.job ? d.job : "-");
		if (d.testcase)
			fprintf(out, " (testcase %s)", d.testcase);
		if (d.testbox)
			fprintf(out, " on %s", d.testbox);
		if (d.machine)
			fprintf(out, ": %s", d.machine);
		fputc('\n', out);
	}
	if (d.params && json_object_size(d.params)) {
		const char *k;
		const json_t *v;

		fputs("params:", out);
		json_object_foreach((json_t *)d.params, k, v) {
			if (json_is_string(v))
				fprintf(out, " %s=%s", k, json_string_value(v));
			else
				fprintf(out, " %s=%.10g", k, json_number_value(v));
		}
		fputc('\n', out);
	}
	if (d.repo)
		fprintf(out, "repository: %s%s%s%s\n", d.repo, d.origin_url ? " (" : "",
			d.origin_url ? d.origin_url : "", d.origin_url ? ")" : "");
	text_bisection(out, &d, &d.b);
	bisection_free(&d.b);
	return ferror(out) ? -EIO : 0;
}

/*
 * The text formats render a copy with control characters escaped: a
 * commit subject or stat name holding ESC or CR must not drive the
 * terminal or forge lines (util/quote.h).
 */
int report_bisect_text(FILE *out, const json_t *r)
{
	json_t *safe = r ? json_quote_tree(r) : NULL;
	int err = r && !safe ? -ENOMEM : bisect_text(out, safe);

	json_decref(safe);
	return err;
}

/* ---- email ---- */

static void put_param_value(FILE *out, const json_t *v)
{
	if (json_is_string(v))
		fputs(json_string_value(v), out);
	else
		fprintf(out, "%.10g", json_number_value(v));
}

static void email_where(FILE *out, const struct doc *d)
{
	fprintf(out, "in testcase: %s\n", d->testcase ? d->testcase : d->job ? d->job : "-");
	if (d->machine || d->testbox)
		fprintf(out, "test machine: %s\n", d->machine ? d->machine : d->testbox);
	if (d->params && json_object_size(d->params)) {
		const char *k;
		const json_t *v;

		fputs("with following parameters:\n\n", out);
		json_object_foreach((json_t *)d->params, k, v) {
			fprintf(out, "\t%s: ", k);
			put_param_value(out, v);
			fputc('\n', out);
		}
	}
}

static void email_range_line(FILE *out, const struct bisection *b)
{
	fputs("bisected: ", out);
	if (b->good.given)
		fprintf(out, "%s (%.10s)", b->good.given, b->good.sha);
	else
		fprintf(out, "%.12s", b->good.sha);
	fputs(" .. ", out);
	if (b->bad.given)
		fprintf(out, "%s (%.10s)", b->bad.given, b->bad.sha);
	else
		fprintf(out, "%.12s", b->bad.sha);
	if (b->candidates >= 0)
		fprintf(out, ", %ld candidate commits", b->candidates);
	fputc('\n', out);
}

static long commits_measured(const struct bisection *b)
{
	long n = 0;

	for (size_t i = 0; i < b->ncommits; i++)
		n += !b->commits[i].skipped && b->commits[i].n != 0;
	return n;
}

/* How sure: the probability, the confirmation, the baseline it explains. */
static void email_how_sure(FILE *out, const struct doc *d, const struct bisection *top,
			   const struct bisection *b)
{
	const struct item *c = &b->culprit, *next = best_other(b, c->sha);
	char p[32];

	fputs("\nHow sure:\n\n", out);
	if (b != top) {
		fprintf(out, "On the first-parent line, the first bad commit is the merge\n%.12s",
			top->merge_sha);
		if (isfinite(top->culprit.probability))
			fprintf(out, " (probability %s)",
				fmt_prob(p, sizeof(p), top->culprit.probability));
		fputs(";\nthe bisection inside the merged branch then found this commit.\n\n",
		      out);
	}
	if (isfinite(c->probability)) {
		fputs("Given every run of the bisection", out);
		if (b->runs_search >= 0 || b->runs >= 0) {
			fprintf(out, " (%ld runs on %ld", b->runs_search >= 0 ?
				b->runs_search : b->runs, commits_measured(b));
			if (b->candidates >= 0)
				fprintf(out, " of the %ld candidate", b->candidates);
			fputs(" commits)", out);
		}
		fprintf(out, ",\nthe probability that %.12s is the first bad commit is %s",
			c->sha, fmt_prob(p, sizeof(p), c->probability));
		if (isfinite(b->confidence))
			fprintf(out, "\n(the search stops at %.10g%%)", 100 * b->confidence);
		fputs(".\n", out);
		if (next && isfinite(next->probability)) {
			fprintf(out, "The next most likely, %.12s", next->sha);
			if (next->subject)
				fprintf(out, " (\"%s\")", next->subject);
			fprintf(out, ", has %s.\n", fmt_prob(p, sizeof(p), next->probability));
		}
		fputc('\n', out);
	}
	if (b->have_confirm) {
		fputs("Double-checked: the commit against its parent, compared directly\n"
		      "(not through the bisection's model):\n\n", out);
		put_confirmation(out, d, b, "  ");
		if (!confirmed(b))
			fputs("\nThe confirmation did NOT show the change: treat this commit as a\n"
			      "suspect, not as the cause.\n", out);
		fputc('\n', out);
	} else {
		fputs("Not double-checked: the commit was not measured again against its\n"
		      "parent.\n\n", out);
	}
	if (top->good.n >= 0 || isfinite(top->good.mean) || top->base_change.have) {
		fputs("The good and bad commits the bisection started from:\n\n", out);
		put_baseline(out, d, top, "  ");
		if (b->confirm.have && top->base_change.have && top->base_change.pct != 0 &&
		    (b->confirm.pct > 0) == (top->base_change.pct > 0))
			fprintf(out, "\nThis commit accounts for about %.0f%% of the change from good to bad.\n",
				100 * b->confirm.pct / top->base_change.pct);
		else if (b->confirm.have && top->base_change.have)
			fputs("\nThis commit's change goes the other way from the change from good to bad.\n",
			      out);
		fputc('\n', out);
	}
	put_runs_spent(out, top, "spent");
	if (b != top)
		put_runs_spent(out, b, "spent inside the merged branch");
}

static void email_tags(FILE *out, const struct report_bisect_opts *o, bool fix)
{
	if (!o || (!o->reported_by && !o->link))
		return;
	if (fix) {
		fputs("\nIf you fix the issue in a separate patch/commit (i.e. not just a new version of\n"
		      "the same patch/commit), kindly add following tags\n", out);
		if (o->reported_by)
			fprintf(out, "| Reported-by: %s\n", o->reported_by);
		if (o->link)
			fprintf(out, "| Closes: %s\n", o->link);
	} else {
		fputc('\n', out);
		if (o->reported_by)
			fprintf(out, "Reported-by: %s\n", o->reported_by);
		if (o->link)
			fprintf(out, "Closes: %s\n", o->link);
	}
}

static void email_reproduce(FILE *out, const struct doc *d, const struct bisection *b)
{
	const char *repo = d->repo ? d->repo : "REPO";

	fputs("\nTo reproduce:\n\n", out);
	if (d->origin_url)
		fprintf(out, "        git clone %s repo\n", d->origin_url);
	fputs("        perfbot install job.yaml  # the job file is below\n", out);
	if (b->status == ST_FOUND && b->have_culprit) {
		if (b->parent.sha)
			fprintf(out, "        perfbot run --repo %s --commit %s job.yaml\n",
				d->origin_url ? "repo" : repo, b->parent.sha);
		fprintf(out, "        perfbot run --repo %s --commit %s job.yaml\n",
			d->origin_url ? "repo" : repo, b->culprit.sha);
		if (b->parent.sha)
			fprintf(out, "        perfbot compare %.12s %.12s\n", b->parent.sha,
				b->culprit.sha);
	} else {
		fprintf(out, "        perfbot run --repo %s --commit %s job.yaml\n",
			d->origin_url ? "repo" : repo, d->b.good.sha);
		fprintf(out, "        perfbot run --repo %s --commit %s job.yaml\n",
			d->origin_url ? "repo" : repo, d->b.bad.sha);
		fprintf(out, "        perfbot compare %.12s %.12s\n", d->b.good.sha,
			d->b.bad.sha);
	}
	if (d->job_text) {
		size_t n = strlen(d->job_text);

		fputs("\njob.yaml:\n\n", out);
		fputs(d->job_text, out);
		if (n && d->job_text[n - 1] != '\n')
			fputc('\n', out);
	}
}

static const char dashes[] =
	"-------------------------------------------------------------------------------------------------->\n";

static void email_details(FILE *out, const struct doc *d, const struct bisection *top)
{
	fputs("\nDetails are as below:\n", out);
	fputs(dashes, out);
	fputc('\n', out);
	fprintf(out, "metric: %s", d->metric);
	if (d->higher_is_better >= 0)
		fprintf(out, " (%s is better)", d->higher_is_better ? "higher" : "lower");
	fputc('\n', out);
	if (d->job)
		fprintf(out, "job: %s\n", d->job);
	if (d->testbox)
		fprintf(out, "testbox: %s\n", d->testbox);
	if (d->repo)
		fprintf(out, "repository: %s\n", d->repo);
	fputs("\ncommits measured", out);
	if (top->candidates >= 0)
		fprintf(out, " (index: position among the %ld candidates, oldest first)",
			top->candidates);
	fputs(":\n\n", out);
	put_commit_table(out, d, top);
	if (top->inner) {
		fprintf(out, "\ncommits measured inside the branch merged by %.12s:\n\n",
			top->merge_sha);
		put_commit_table(out, d, top->inner);
	}
}

static void email_found(FILE *out, const struct doc *d, const struct report_bisect_opts *o)
{
	const struct bisection *top = &d->b, *b = blamed(top);
	const struct change *ch = headline_change(d, b);
	const struct item *c = &b->culprit;
	const char *w = ch ? direction(d, ch->pct) : NULL;
	bool fix;

	if (ch)
		fprintf(out, "perfbot bisected a %.1f%% %s of %s to:\n\n", fabs(ch->pct),
			change_word(d, ch->pct), d->metric);
	else
		fprintf(out, "perfbot bisected a change of %s to:\n\n", d->metric);
	fputs("commit: ", out);
	put_commit(out, c->sha, c->subject);
	fputc('\n', out);
	if (c->author)
		fprintf(out, "author: %s\n", c->author);
	if (c->date)
		fprintf(out, "date: %s\n", c->date);
	if (b != top) {
		fputs("merged by: ", out);
		put_commit(out, top->merge_sha, top->merge_subject);
		fputc('\n', out);
	}
	if (d->origin_url || d->repo)
		fprintf(out, "%s\n", d->origin_url ? d->origin_url : d->repo);
	fputc('\n', out);
	email_where(out, d);
	fputc('\n', out);
	email_range_line(out, top);
	if (top->merge_sha && b == top) {
		fputs("\nThe commit is a merge; ", out);
		if (top->inner) {
			fprintf(out, "inside the merged branch the bisection is %s", status_names[top->inner->status]);
			if (top->inner->message)
				fprintf(out, ": %s", top->inner->message);
			fputs(".\n", out);
			if (top->inner->nbest) {
				fputs("The most likely first bad commits inside the branch:\n", out);
				put_items(out, "  ", top->inner->best, top->inner->nbest);
			}
			if (top->inner->status == ST_RANGE) {
				fputs("The first bad commit inside the branch is one of:\n", out);
				put_items(out, "  ", top->inner->range, top->inner->nrange);
			}
		} else {
			fputs("it was not bisected inside the merged branch.\n", out);
		}
	}
	fix = w && !strcmp(w, "regression");
	if (fix)
		email_tags(out, o, true);
	email_how_sure(out, d, top, b);
	email_details(out, d, top);
	email_reproduce(out, d, b);
	if (!fix)
		email_tags(out, o, false);
}

static void email_other(FILE *out, const struct doc *d, const struct report_bisect_opts *o)
{
	const struct bisection *b = &d->b;
	const struct change *ch = b->base_change.have ? &b->base_change : NULL;
	const char *w = ch ? direction(d, ch->pct) : NULL;
	char pct[32] = "";
	bool fix;

	if (ch)
		snprintf(pct, sizeof(pct), "%.1f%% ", fabs(ch->pct));
	switch (b->status) {
	case ST_RANGE:
		fprintf(out, "perfbot bisected a %s%s of %s to one of these %zu commits:\n\n",
			pct, ch ? change_word(d, ch->pct) : "change", d->metric, b->nrange);
		put_items(out, "  ", b->range, b->nrange);
		fputs("\nThe commits marked skipped could not be built, so the bisection cannot\n"
		      "tell them apart from the first one after them that could.\n", out);
		break;
	case ST_UNDECIDED:
		fprintf(out, "perfbot could not decide which commit caused the %s%s of %s:\n"
			"not decided after %ld runs", pct, ch ? change_word(d, ch->pct) : "change",
			d->metric, b->runs >= 0 ? b->runs : b->runs_search);
		if (isfinite(b->confidence) || b->max_runs >= 0) {
			fputs(" (", out);
			put_stop(out, b);
			fputc(')', out);
		}
		fputs(".\n", out);
		if (b->nbest) {
			fputs("\nThe most likely first bad commits so far:\n\n", out);
			put_items(out, "  ", b->best, b->nbest);
		}
		break;
	case ST_NO_CHANGE:
		fprintf(out, "perfbot found no reproducible change of %s between the good and\n"
			"bad commits, so there is nothing to bisect:\n", d->metric);
		break;
	case ST_FAILED:
		fprintf(out, "perfbot's bisection of %s failed.\n", d->metric);
		break;
	case ST_RUNNING:
		fprintf(out, "perfbot is still bisecting %s (%ld runs so far).\n", d->metric,
			b->runs >= 0 ? b->runs : 0);
		if (b->nbest) {
			fputs("\nThe most likely first bad commits so far:\n\n", out);
			put_items(out, "  ", b->best, b->nbest);
		}
		break;
	case ST_RESET:
		fprintf(out, "perfbot's bisection of %s was reset.\n", d->metric);
		break;
	case ST_FOUND:
		break;
	}
	if (b->message)
		fprintf(out, "\n%s\n", b->message);
	fputc('\n', out);
	email_where(out, d);
	fputc('\n', out);
	email_range_line(out, b);
	if (d->origin_url || d->repo)
		fprintf(out, "%s\n", d->origin_url ? d->origin_url : d->repo);
	fix = b->status == ST_RANGE && w && !strcmp(w, "regression");
	if (fix)
		email_tags(out, o, true);
	if (b->good.n >= 0 || isfinite(b->good.mean) || ch) {
		fputs("\nThe good and bad commits:\n\n", out);
		put_baseline(out, d, b, "  ");
	}
	fputc('\n', out);
	put_runs_spent(out, b, "spent");
	email_details(out, d, b);
	email_reproduce(out, d, b);
	if (!fix)
		email_tags(out, o, false);
}

static void email_subject(char *buf, size_t len, const struct doc *d)
{
	const struct bisection *top = &d->b, *b = blamed(top);
	const struct change *ch = headline_change(d, b);

	if (top->status == ST_FOUND) {
		if (ch)
			snprintf(buf, len, "[perfbot] %.10s: %s %+.1f%% %s", b->culprit.sha,
				 d->metric, ch->pct, change_word(d, ch->pct));
		else
			snprintf(buf, len, "[perfbot] %.10s: %s first bad commit",
				 b->culprit.sha, d->metric);
		return;
	}
	ch = top->base_change.have ? &top->base_change : NULL;
	if (top->status == ST_RANGE && ch)
		snprintf(buf, len, "[perfbot] bisect %.10s..%.10s: %s %+.1f%% %s in one of %zu commits",
			 top->good.sha, top->bad.sha, d->metric, ch->pct,
			 change_word(d, ch->pct), top->nrange);
	else if (top->status == ST_RANGE)
		snprintf(buf, len, "[perfbot] bisect %.10s..%.10s: %s: one of %zu commits",
			 top->good.sha, top->bad.sha, d->metric, top->nrange);
	else
		snprintf(buf, len, "[perfbot] bisect %.10s..%.10s: %s: %s", top->good.sha,
			 top->bad.sha, d->metric,
			 top->status == ST_NO_CHANGE ? "no reproducible change" :
			 status_names[top->status]);
}

static int bisect_email(FILE *out, const json_t *r, const struct report_bisect_opts *o)
{
	struct doc d;
	char subj[512];
	char *body = NULL;
	size_t len = 0;
	FILE *mem;
	int err = read_doc(r, &d);

	if (err)
		return err;
	mem = open_memstream(&body, &len);
	if (!mem) {
		err = -errno;
		bisection_free(&d.b);
		return err;
	}
	if (d.b.status == ST_FOUND)
		email_found(mem, &d, o);
	else
		email_other(mem, &d, o);
	if (fclose(mem) && !err)
		err = -EIO;
	if (!err) {
		email_subject(subj, sizeof(subj), &d);
		err = report_email_message(out, o ? o->from : NULL, o ? o->to : NULL, subj,
					   body, len);
	}
	free(body);
	bisection_free(&d.b);
	return err;
}

/* ---- HTML ---- */

static const char bisect_css[] =
	"svg .good{stroke:#070;stroke-width:1.5;stroke-dasharray:6 3}\n"
	"svg .bad{stroke:#b00;stroke-width:1.5;stroke-dasharray:6 3}\n"
	"svg .culprit{stroke:#c00;stroke-width:2}\n"
	"svg .pbad{fill:none;stroke:#8a4fc0;stroke-width:1.5}\n"
	"svg .skip{font-size:12px;text-anchor:middle;fill:#777}\n"
	"svg .label{font-size:11px;fill:#444}\n"
	"svg .label.culprit{fill:#c00;stroke:none;font-family:monospace;text-anchor:middle}\n"
	"tr.culprit td{background:#fee}\n"
	"p.warn{color:#b00;font-weight:bold}\n";

static void html_num(FILE *out, const struct doc *d, double v)
{
	char buf[64];

	fprintf(out, "<td class=\"num\">%s</td>", fmt_num(buf, sizeof(buf), d, v));
}

static void html_change_cells(FILE *out, const struct change *c)
{
	if (!c->have) {
		fputs("<td colspan=\"4\">not computed</td>", out);
		return;
	}
	fprintf(out, "<td class=\"num\">%+.1f%%</td>", c->pct);
	if (isfinite(c->low) && isfinite(c->high))
		fprintf(out, "<td class=\"num\">[%+.1f%%, %+.1f%%]</td>", c->low, c->high);
	else
		fputs("<td></td>", out);
	if (isfinite(c->p))
		fprintf(out, "<td class=\"num\">%.2g</td>", c->p);
	else
		fputs("<td></td>", out);
	fprintf(out, "<td class=\"v-%s\">", c->verdict && !strcmp(c->verdict, "changed") ?
		"changed" : c->verdict && !strcmp(c->verdict, "same") ? "same" : "other");
	report_html_puts(out, c->verdict ? c->verdict : "-");
	fputs("</td>", out);
}

static void html_side_row(FILE *out, const struct doc *d, const char *what,
			  const struct side *s, const char *given)
{
	fprintf(out, "<tr><td>%s</td><td class=\"name\">", what);
	report_html_short_id(out, s->sha);
	if (given) {
		fputs(" (", out);
		report_html_puts(out, given);
		fputc(')', out);
	}
	fputs("</td>", out);
	if (s->n >= 0)
		fprintf(out, "<td class=\"num\">%ld</td>", s->n);
	else
		fputs("<td class=\"num\">-</td>", out);
	html_num(out, d, s->mean);
	html_num(out, d, s->stddev);
	fputs("</tr>\n", out);
}

/* Two sides and the change between them. */
static void html_pair(FILE *out, const struct doc *d, const char *w1, const struct side *a,
		      const char *w2, const struct side *b, const struct change *c)
{
	fputs("<table>\n<tr><th></th><th>commit</th><th>runs</th><th>mean</th>"
	      "<th>stddev</th></tr>\n", out);
	html_side_row(out, d, w1, a, a->given);
	html_side_row(out, d, w2, b, b->given);
	fputs("</table>\n<table>\n<tr><th>%change</th><th>95% interval</th><th>p</th>"
	      "<th>verdict</th><th>direction</th></tr>\n<tr>", out);
	html_change_cells(out, c);
	if (c->have) {
		fputs("<td>", out);
		report_html_puts(out, change_word(d, c->pct));
		fputs("</td>", out);
	}
	fputs("</tr>\n</table>\n", out);
}

static void html_items(FILE *out, const struct item *v, size_t n)
{
	char p[32];

	fputs("<table>\n<tr><th>probability</th><th>commit</th><th>subject</th></tr>\n", out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "<tr><td class=\"num\">%s</td><td class=\"name\">",
			fmt_prob(p, sizeof(p), v[i].probability));
		report_html_puts(out, v[i].sha);
		fputs("</td><td>", out);
		report_html_puts(out, v[i].subject);
		if (v[i].skipped)
			fputs(" <em>(skipped: could not be built)</em>", out);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void html_commit_table(FILE *out, const struct doc *d, const struct bisection *b)
{
	const char *culprit = b->have_culprit && b->status == ST_FOUND ? b->culprit.sha : NULL;
	char p[32];

	if (!b->ncommits) {
		fputs("<p>no commit measured</p>\n", out);
		return;
	}
	fputs("<table class=\"cmp\">\n<tr><th>index</th><th>commit</th><th>state</th>"
	      "<th>runs</th><th>mean</th><th>P(bad)</th><th>subject</th></tr>\n", out);
	for (size_t i = 0; i < b->ncommits; i++) {
		const struct item *it = &b->commits[i];
		bool is_culprit = culprit && !strcmp(culprit, it->sha);

		fprintf(out, "<tr%s>", is_culprit ? " class=\"culprit\"" : "");
		if (it->index >= 0)
			fprintf(out, "<td class=\"num\">%ld</td>", it->index);
		else
			fputs("<td class=\"num\">-</td>", out);
		fputs("<td class=\"name\">", out);
		report_html_short_id(out, it->sha);
		fputs("</td><td>", out);
		report_html_puts(out, it->state ? it->state : it->skipped ? "skipped" : "-");
		fputs("</td>", out);
		if (it->n >= 0)
			fprintf(out, "<td class=\"num\">%ld</td>", it->n);
		else
			fputs("<td class=\"num\">-</td>", out);
		html_num(out, d, it->mean);
		fprintf(out, "<td class=\"num\">%s</td><td>", fmt_prob(p, sizeof(p), it->p_bad));
		report_html_puts(out, it->subject);
		if (it->note) {
			fputs(it->subject ? " <em>(" : "<em>(", out);
			report_html_puts(out, it->note);
			fputs(")</em>", out);
		}
		if (is_culprit)
			fputs(" <strong>first bad commit</strong>", out);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* x slots: the candidates, or as many as the highest index measured. */
static size_t plot_slots(const struct bisection *b)
{
	size_t n = b->candidates > 0 ? (size_t)b->candidates : 0;

	for (size_t i = 0; i < b->ncommits; i++)
		if (b->commits[i].index >= 0 && (size_t)b->commits[i].index >= n)
			n = (size_t)b->commits[i].index + 1;
	return n;
}

static void hline(FILE *out, const struct report_axis *a, const char *cls,
		  const char *label, double v)
{
	double y;

	if (!isfinite(v))
		return;
	y = report_axis_y(a, v);
	fprintf(out, "<line class=\"%s\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
		cls, MARGIN_L, y, PLOT_W - MARGIN_R, y);
	fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%.1f\">%s</text>\n",
		PLOT_W - MARGIN_R - 60, y - 4, label);
}

/*
 * Every sample of every candidate measured (dots) over its index, the
 * good and bad baseline means (dashed), the culprit (vertical line), each
 * skipped commit (a cross at the bottom) and P(bad) (purple: 0 at the
 * bottom of the frame, 1 at the top).
 */
static void html_plot(FILE *out, const struct doc *d, const struct bisection *b)
{
	size_t n = plot_slots(b);
	struct report_axis a = { INFINITY, -INFINITY };
	double top = MARGIN_T, bottom = PLOT_H - MARGIN_B, step, spread;
	bool any = false, started = false;

	if (!n)
		return;
	for (size_t i = 0; i < b->ncommits; i++) {
		const struct item *it = &b->commits[i];
		size_t k;
		const json_t *x;

		json_array_foreach(it->values, k, x) {
			report_axis_widen(&a, json_number_value(x));
			any = true;
		}
		if (!it->values && isfinite(it->mean)) {
			report_axis_widen(&a, it->mean);
			any = true;
		}
	}
	report_axis_widen(&a, b->good.mean);
	report_axis_widen(&a, b->bad.mean);
	if (!any && !isfinite(a.lo))
		return;
	report_axis_pad(&a);
	spread = fmin(2.5, (PLOT_W - MARGIN_L - MARGIN_R) / (double)n / 6);

	fputs("<figure>\n", out);
	report_svg_begin(out, d->metric);
	report_svg_y_ticks(out, &a);
	/* x ticks at 1, 2 or 5 times a power of ten of the index */
	step = n > 1 ? fmax(1, report_nice_step((double)(n - 1))) : 1;
	for (double t = 0; t < (double)n; t += step)
		fprintf(out, "<text class=\"commit\" x=\"%.1f\" y=\"%d\">%.0f</text>\n",
			report_plot_x(t, n), PLOT_H - MARGIN_B + 16, t);
	fprintf(out, "<text class=\"commit\" x=\"%d\" y=\"%d\">candidate index, oldest first</text>\n",
		(PLOT_W + MARGIN_L - MARGIN_R) / 2, PLOT_H - 8);

	hline(out, &a, "good", "good mean", b->good.mean);
	hline(out, &a, "bad", "bad mean", b->bad.mean);

	if (b->status == ST_FOUND && b->have_culprit) {
		long idx = b->culprit.index;

		for (size_t i = 0; idx < 0 && i < b->ncommits; i++)
			if (!strcmp(b->commits[i].sha, b->culprit.sha))
				idx = b->commits[i].index;
		if (idx >= 0) {
			double x = report_plot_x((double)idx, n);

			fprintf(out, "<line class=\"culprit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				x, top, x, bottom);
			fprintf(out, "<text class=\"label culprit\" x=\"%.1f\" y=\"%.1f\">", x,
				top - 6);
			report_html_short_id(out, b->culprit.sha);
			fputs("</text>\n", out);
		}
	}

	for (size_t i = 0; i < b->ncommits; i++) {
		const struct item *it = &b->commits[i];
		double x;
		size_t k;
		const json_t *v;

		if (it->index < 0)
			continue;
		x = report_plot_x((double)it->index, n);
		if (it->skipped && !it->values) {
			fprintf(out, "<text class=\"skip\" x=\"%.1f\" y=\"%.1f\">&#215;</text>\n",
				x, bottom - 4);
			continue;
		}
		/* spread a commit's runs sideways, within its slot */
		json_array_foreach(it->values, k, v)
			fprintf(out, "<circle class=\"run\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>\n",
				x + ((double)(k % 5) - 2) * spread,
				report_axis_y(&a, json_number_value(v)));
		if (!it->values && isfinite(it->mean))
			fprintf(out, "<circle class=\"run\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>\n",
				x, report_axis_y(&a, it->mean));
	}

	for (size_t i = 0; i < b->ncommits; i++) {
		const struct item *it = &b->commits[i];

		if (it->index < 0 || !isfinite(it->p_bad))
			continue;
		fprintf(out, "%s%.1f,%.1f", started ? " " : "<polyline class=\"pbad\" points=\"",
			report_plot_x((double)it->index, n),
			bottom - fmin(1, fmax(0, it->p_bad)) * (bottom - top));
		started = true;
	}
	if (started)
		fputs("\"/>\n", out);
	fputs("</svg>\n<figcaption>", out);
	report_html_puts(out, d->metric);
	fputs(": every run of each candidate measured (dots) by its index among the "
	      "candidates, the good and bad commits' means (green and red dashes), the "
	      "first bad commit (red line), commits that could not be built (&#215;) and "
	      "P(bad), the probability that the commit is bad (purple: 0 at the bottom, 1 at "
	      "the top)</figcaption>\n</figure>\n", out);
}

static void html_dl(FILE *out, const char *term, const char *value)
{
	if (!value)
		return;
	fprintf(out, "<dt>%s</dt><dd>", term);
	report_html_puts(out, value);
	fputs("</dd>\n", out);
}

static void html_bisection(FILE *out, const struct doc *d, const struct bisection *b,
			   bool inner)
{
	char p[32];

	fputs("<dl>\n", out);
	html_dl(out, "status", status_names[b->status]);
	fputs("<dt>good</dt><dd class=\"name\">", out);
	report_html_puts(out, b->good.sha);
	if (b->good.given) {
		fputs(" (", out);
		report_html_puts(out, b->good.given);
		fputc(')', out);
	}
	fputs("</dd>\n<dt>bad</dt><dd class=\"name\">", out);
	report_html_puts(out, b->bad.sha);
	if (b->bad.given) {
		fputs(" (", out);
		report_html_puts(out, b->bad.given);
		fputc(')', out);
	}
	fputs("</dd>\n", out);
	if (b->candidates >= 0)
		fprintf(out, "<dt>candidates</dt><dd>%ld</dd>\n", b->candidates);
	if (b->runs >= 0)
		fprintf(out, "<dt>runs</dt><dd>%ld</dd>\n", b->runs);
	if (b->builds >= 0)
		fprintf(out, "<dt>builds</dt><dd>%ld (%ld failed)</dd>\n", b->builds,
			b->build_failures > 0 ? b->build_failures : 0);
	if (isfinite(b->confidence))
		fprintf(out, "<dt>stops at</dt><dd>%.10g%%</dd>\n", 100 * b->confidence);
	fputs("</dl>\n", out);

	if (b->status == ST_FOUND && b->have_culprit) {
		const struct item *c = &b->culprit, *next = best_other(b, c->sha);

		fprintf(out, "<h3>%s</h3>\n<p class=\"name\">", inner ?
			"First bad commit inside the merged branch" : "First bad commit");
		report_html_puts(out, c->sha);
		fputs("</p>\n<p>", out);
		report_html_puts(out, c->subject);
		fputs("</p>\n<dl>\n", out);
		html_dl(out, "author", c->author);
		html_dl(out, "date", c->date);
		if (isfinite(c->probability))
			html_dl(out, "probability", fmt_prob(p, sizeof(p), c->probability));
		if (next && isfinite(next->probability)) {
			fputs("<dt>next likely</dt><dd class=\"name\">", out);
			report_html_short_id(out, next->sha);
			fprintf(out, " %s</dd>\n", fmt_prob(p, sizeof(p), next->probability));
		}
		fputs("</dl>\n", out);
		if (b->have_confirm) {
			fputs("<h3>Confirmation: the commit against its parent</h3>\n", out);
			html_pair(out, d, "parent", &b->parent, "culprit", &b->culp, &b->confirm);
			if (!confirmed(b))
				fputs("<p class=\"warn\">The confirmation did not show the change: "
				      "treat this commit as a suspect.</p>\n", out);
		} else {
			fputs("<p class=\"warn\">Not confirmed against its parent.</p>\n", out);
		}
	}
	if (b->status == ST_RANGE) {
		fputs("<h3>The first bad commit is one of these</h3>\n", out);
		html_items(out, b->range, b->nrange);
	}
	if (b->status == ST_UNDECIDED || b->status == ST_RUNNING) {
		fprintf(out, "<p>%s after %ld runs.</p>\n", b->status == ST_UNDECIDED ?
			"Not decided" : "Still running", b->runs >= 0 ? b->runs : b->runs_search);
	}
	if (b->nbest && b->status != ST_RANGE) {
		fputs("<h3>Most likely first bad commits</h3>\n", out);
		html_items(out, b->best, b->nbest);
	}
	if (b->message) {
		fputs("<p>", out);
		report_html_puts(out, b->message);
		fputs("</p>\n", out);
	}
	if (b->good.n >= 0 || isfinite(b->good.mean) || b->base_change.have) {
		fputs("<h3>Baseline: the good and bad commits</h3>\n", out);
		html_pair(out, d, "good", &b->good, "bad", &b->bad, &b->base_change);
	}
	html_plot(out, d, b);
	fputs("<h3>Commits measured</h3>\n", out);
	html_commit_table(out, d, b);
	if (b->merge_sha) {
		fputs("<section>\n<h2>Inside the merged branch</h2>\n<p>The first bad commit on "
		      "the first-parent line is the merge <span class=\"name\">", out);
		report_html_puts(out, b->merge_sha);
		fputs("</span> ", out);
		report_html_puts(out, b->merge_subject);
		fputs("</p>\n", out);
		if (b->inner)
			html_bisection(out, d, b->inner, true);
		else
			fputs("<p>not bisected inside the merged branch</p>\n", out);
		fputs("</section>\n", out);
	}
}

int report_bisect_email(FILE *out, const json_t *r, const struct report_bisect_opts *o)
{
	json_t *safe = r ? json_quote_tree(r) : NULL;
	int err = r && !safe ? -ENOMEM : bisect_email(out, safe, o);

	json_decref(safe);
	return err;
}

int report_bisect_html(FILE *out, const json_t *r)
{
	struct doc d;
	int err = read_doc(r, &d);
	const struct bisection *b;
	const struct change *ch;

	if (err)
		return err;
	b = blamed(&d.b);
	ch = headline_change(&d, b);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>perfbot bisection", out);
	if (d.id >= 0)
		fprintf(out, " %ld", d.id);
	fputs(": ", out);
	report_html_puts(out, d.metric);
	fprintf(out, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n", report_html_css,
		bisect_css);
	fputs("<h1>perfbot bisection", out);
	if (d.id >= 0)
		fprintf(out, " %ld", d.id);
	fprintf(out, ": %s</h1>\n", status_line(d.b.status));
	if (d.b.status == ST_FOUND && ch) {
		fprintf(out, "<p>perfbot bisected a %.1f%% %s of <span class=\"name\">",
			fabs(ch->pct), change_word(&d, ch->pct));
		report_html_puts(out, d.metric);
		fputs("</span> to <span class=\"name\">", out);
		report_html_short_id(out, b->culprit.sha);
		fputs("</span> ", out);
		report_html_puts(out, b->culprit.subject);
		fputs("</p>\n", out);
	}
	fputs("<dl>\n", out);
	html_dl(out, "metric", d.metric);
	if (d.higher_is_better >= 0)
		html_dl(out, "better", d.higher_is_better ? "higher" : "lower");
	html_dl(out, "repository", d.repo);
	html_dl(out, "origin", d.origin_url);
	html_dl(out, "job", d.job);
	html_dl(out, "testcase", d.testcase);
	html_dl(out, "testbox", d.testbox);
	html_dl(out, "machine", d.machine);
	if (d.params && json_object_size(d.params)) {
		const char *k;
		const json_t *v;
		bool first = true;

		fputs("<dt>parameters</dt><dd>", out);
		json_object_foreach((json_t *)d.params, k, v) {
			fputs(first ? "" : ", ", out);
			first = false;
			report_html_puts(out, k);
			fputc('=', out);
			if (json_is_string(v))
				report_html_puts(out, json_string_value(v));
			else
				fprintf(out, "%.10g", json_number_value(v));
		}
		fputs("</dd>\n", out);
	}
	fputs("</dl>\n<section>\n<h2>Bisection</h2>\n", out);
	html_bisection(out, &d, &d.b, false);
	fputs("</section>\n", out);
	if (d.job_text) {
		fputs("<details><summary>job to reproduce</summary><pre>", out);
		report_html_puts(out, d.job_text);
		fputs("</pre></details>\n", out);
	}
	fputs("</body>\n</html>\n", out);
	bisection_free(&d.b);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

/* ---- JSON ---- */

int report_bisect_json(FILE *out, const json_t *r)
{
	struct doc d;
	int err = read_doc(r, &d);

	if (err)
		return err;
	bisection_free(&d.b);
	if (json_dumpf(r, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10)))
		return -EIO;
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}
