/*
 * json.c - the one JSON document of a comparison, for machines: every
 * number compare computed, for every stat (the text formats show only the
 * changed).  perfbot compare --json and perfbot report --format json both
 * write it; docs/compare.md ("JSON") is its schema.
 */
#include "report/report.h"
#include "report/internal.h"
#include "util/quote.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>

/* What a reader checks before it reads on; bump on any incompatible change. */
#define SCHEMA_NAME "perfbot-compare"
#define SCHEMA_VERSION 3

/* JSON has no NaN or infinity: null says "not computed". */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Whatever the store holds (an old database may hold bad bytes) is kept. */
#define str json_str

/* Append, or drop the array: a NULL member makes the caller's pack fail. */
static void append(json_t **arr, json_t *v)
{
	if (*arr && json_array_append_new(*arr, v)) {
		json_decref(*arr);
		*arr = NULL;
	}
}

static json_t *summary_json(const struct summary *s)
{
	double pop = report_population_stddev(s);

	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "n", (json_int_t)s->n, "mean", num(s->mean),
			 "stddev", num(s->stddev),
			 "stddev_pct", num(s->mean ? 100 * s->stddev / fabs(s->mean) : 0),
			 "stddev_pop", num(pop),
			 "stddev_pop_pct", num(s->mean ? 100 * pop / fabs(s->mean) : 0),
			 "sem", num(s->sem), "min", num(s->min), "max", num(s->max),
			 "median", num(s->median), "mad", num(s->mad));
}

/* The table's words for a column, as the text writes them (with --all). */
static json_t *words_json(const struct stat_row *row, size_t col)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *v;

	report_verdict_words(&sb, row, col, true);
	v = strbuf_error(&sb) ? NULL : json_string(sb.buf);
	strbuf_release(&sb);
	return v;
}

static const char *family_name(enum stat_family f)
{
	return f == FAMILY_KPI ? "kpi" : f == FAMILY_FAILURE ? "failure" : "other";
}

static json_t *better_json(int better)
{
	return better == STAT_BETTER_HIGHER ? json_string("higher") :
	       better == STAT_BETTER_LOWER ? json_string("lower") : json_null();
}

static json_t *vs_json(const struct report *r, const struct stat_row *row, size_t j)
{
	const struct stat_vs *v = &row->vs[j];
	const char *dir = v->verdict == VERDICT_CHANGED ?
			  report_better_word(row->better, v->change.pct) : NULL;

	return json_pack(
		"{s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:s, s:o, s:o, s:I, s:b,"
		" s:I, s:I, s:o}",
		"commit", str(r->commits[j + 1].id), "summary", summary_json(&v->s),
		"pct", num(v->change.pct), "mean_pct", num(v->mean_pct),
		"low", num(v->change.low),
		"high", num(v->change.high), "absolute", v->change.absolute,
		"p", num(v->p), "q", num(v->q), "mwu_p", num(v->mwu_p),
		"verdict", verdict_name(v->verdict), "words", words_json(row, j),
		"direction", str(dir), "more_runs", (json_int_t)v->more_runs,
		"disturbed", v->disturbed,
		"fails", (json_int_t)v->fails, "runs", (json_int_t)v->runs,
		"reproduction", num(v->reproduction));
}

static json_t *row_json(const struct report *r, const struct report_job *j,
		       const struct stat_row *row)
{
	size_t ncols = r->ncommits - 1;
	json_t *vs = json_array(), *base = summary_json(&row->base);

	if (base && (json_object_set_new(base, "fails", json_integer(row->base_fails)) ||
		     json_object_set_new(base, "runs", json_integer(row->base_runs)))) {
		json_decref(base);
		base = NULL;
	}
	for (size_t j = 0; j < ncols; j++)
		append(&vs, vs_json(r, row, j));
	return json_pack("{s:o, s:s, s:b, s:o, s:o, s:b, s:b, s:o, s:o}",
			 "name", str(row->name), "family", family_name(row->family),
			 "kpi", row->kpi, "better", better_json(row->better),
			 "unit", str(row->unit),
			 "changed", report_row_changed(row, ncols),
			 "shown", report_row_shown(&(struct report){ .commits = r->commits,
					.ncommits = r->ncommits }, j, row),
			 "base", base, "vs", vs);
}

/* How column c's runs were taken against the base's (compare_order()). */
static json_t *column_order(const struct report_job *j, size_t c)
{
	struct compare_order_info oi;

	compare_order(&j->sets[0], &j->sets[c + 1], &oi);
	return json_pack("{s:s, s:I, s:I, s:I, s:I}", "order", compare_order_name(oi.order),
			 "switches", (json_int_t)oi.switches,
			 "needed", (json_int_t)oi.needed,
			 "base_outside", (json_int_t)oi.base_outside,
			 "other_outside", (json_int_t)oi.other_outside);
}

static json_t *job_json(const struct report *r, const struct report_job *j)
{
	json_t *params = json_object(), *runs = json_array(), *rows = json_array(),
	       *unsupported = json_array(), *disturbance = json_array(),
	       *order = json_array();

	for (size_t i = 0; params && j->params && i < j->params->n; i++)
		if (json_object_set_lossy(params, j->params->v[i].key,
					  str(j->params->v[i].value))) {
			json_decref(params);
			params = NULL;
		}
	for (size_t c = 0; c < r->ncommits; c++) {
		append(&runs, json_integer(j->sets[c].nr_runs));
		append(&unsupported, str(j->unsupported ? j->unsupported[c] : NULL));
	}
	/* every row, but only the stats --stat names */
	for (size_t i = 0; i < j->nr_rows; i++)
		if (report_stat_listed(r, j->rows[i].name))
			append(&rows, row_json(r, j, &j->rows[i]));
	for (size_t c = 0; c + 1 < r->ncommits; c++) {
		struct compare_disturbance d;

		report_column_disturbance(j, c, &d);
		append(&disturbance, json_pack("{s:b, s:o, s:o, s:o, s:o}",
				"differs", d.differs, "what", str(d.what),
				"base", d.what ? num(d.base) : json_null(),
				"other", d.what ? num(d.other) : json_null(),
				"limit", d.what ? num(d.limit) : json_null()));
		append(&order, column_order(j, c));
	}
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "testbox", str(j->testbox), "testcase", str(j->testcase),
			 "job", str(j->job), "params", params, "kpi", str(j->kpi),
			 "machine", str(j->machine), "job_text", str(j->job_text),
			 "since", j->since > 0 ? num(j->since) : json_null(),
			 "runs", runs, "unsupported", unsupported,
			 "disturbance", disturbance, "order", order, "rows", rows);
}

static json_t *opts_json(const struct compare_opts *o)
{
	json_t *rules = json_array();

	for (size_t i = 0; i < o->nr_rules; i++)
		append(&rules, json_pack("{s:o, s:o}", "pattern", str(o->rules[i].pattern),
					 "pct", num(o->rules[i].pct)));
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:I, s:o}",
			 "alpha", num(o->alpha), "q", num(o->q),
			 "kpi_min_pct", num(o->kpi_min_pct),
			 "other_min_pct", num(o->other_min_pct), "level", num(o->level),
			 "min_runs", (json_int_t)COMPARE_MIN_RUNS, "min_change", rules);
}

int report_json(FILE *out, const struct report *r)
{
	json_t *commits, *jobs, *root;
	struct compare_opts defaults;

	if (r->ncommits < 2)
		return -EINVAL;
	compare_opts_init(&defaults);
	commits = json_array();
	jobs = json_array();
	for (size_t c = 0; c < r->ncommits; c++) {
		const struct report_commit *rc = &r->commits[c];

		append(&commits, json_pack("{s:o, s:o, s:o, s:o, s:o}",
				"id", str(rc->id), "given", str(rc->given ? rc->given : rc->id),
				"subject", str(rc->subject), "author", str(rc->author),
				"date", str(rc->date)));
	}
	for (size_t i = 0; i < r->njobs; i++)
		append(&jobs, job_json(r, &r->jobs[i]));
	root = json_pack("{s:s, s:i, s:o, s:o, s:o, s:o, s:o}",
			 "schema", SCHEMA_NAME, "version", SCHEMA_VERSION,
			 "commits", commits, "repo_url", str(r->repo_url),
			 "branch", str(r->branch),
			 "opts", opts_json(r->opts ? r->opts : &defaults), "jobs", jobs);
	return report_json_dump(out, root);
}

int report_json_dump(FILE *out, json_t *root)
{
	int err = 0;

	if (!root)
		return -ENOMEM;
	if (json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10)))
		err = -EIO;
	else
		fputc('\n', out);
	json_decref(root);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}
