/*
 * json.c - the report for machines: every number compare computed, for
 * every stat (the text formats show only the changed); docs/report.md.
 */
#include "report/report.h"
#include "util/quote.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>

/* JSON has no NaN or infinity: null says "not computed". */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Whatever the store holds (an old database may hold bad bytes) is kept. */
#define str json_str

static json_t *summary_json(const struct summary *s)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "n", (json_int_t)s->n, "mean", num(s->mean),
			 "stddev", num(s->stddev), "sem", num(s->sem),
			 "min", num(s->min), "max", num(s->max),
			 "median", num(s->median), "mad", num(s->mad));
}

static const char *family_name(enum stat_family f)
{
	return f == FAMILY_KPI ? "kpi" : f == FAMILY_FAILURE ? "failure" : "other";
}

static json_t *row_json(const struct report *r, const struct stat_row *row)
{
	size_t ncols = r->ncommits - 1;
	json_t *vs = json_array(), *base = summary_json(&row->base);

	if (base && row->family == FAMILY_FAILURE) {
		json_object_set_new(base, "fails", json_integer(row->base_fails));
		json_object_set_new(base, "runs", json_integer(row->base_runs));
	}
	for (size_t j = 0; vs && j < ncols; j++) {
		const struct stat_vs *v = &row->vs[j];
		json_t *o = json_pack(
			"{s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:s, s:o, s:I, s:I, s:o}",
			"commit", str(r->commits[j + 1].id), "summary", summary_json(&v->s),
			"pct", num(v->change.pct), "low", num(v->change.low),
			"high", num(v->change.high), "absolute", v->change.absolute,
			"p", num(v->p), "q", num(v->q), "mwu_p", num(v->mwu_p),
			"verdict", verdict_name(v->verdict),
			"direction", str(v->verdict == VERDICT_CHANGED ?
					 report_direction_word(row->name, v->change.pct) : NULL),
			"fails", (json_int_t)v->fails, "runs", (json_int_t)v->runs,
			"reproduction", num(v->reproduction));

		if (json_array_append_new(vs, o)) {
			json_decref(vs);
			vs = NULL;
		}
	}
	return json_pack("{s:o, s:s, s:b, s:o, s:o}", "name", str(row->name),
			 "family", family_name(row->family),
			 "changed", report_row_changed(row, ncols), "base", base, "vs", vs);
}

static json_t *job_json(const struct report *r, const struct report_job *j)
{
	json_t *params = json_object(), *runs = json_array(), *rows = json_array();

	for (size_t i = 0; params && j->params && i < j->params->n; i++)
		json_object_set_lossy(params, j->params->v[i].key,
				      str(j->params->v[i].value));
	for (size_t c = 0; runs && c < r->ncommits; c++)
		json_array_append_new(runs, json_integer(j->sets[c].nr_runs));
	for (size_t i = 0; rows && i < j->nr_rows; i++) {
		if (json_array_append_new(rows, row_json(r, &j->rows[i]))) {
			json_decref(rows);
			rows = NULL;
		}
	}
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "testbox", str(j->testbox), "testcase", str(j->testcase),
			 "job", str(j->job), "params", params, "kpi", str(j->kpi),
			 "machine", str(j->machine), "job_text", str(j->job_text),
			 "runs", runs, "rows", rows);
}

int report_json(FILE *out, const struct report *r)
{
	json_t *commits = json_array(), *jobs = json_array(), *root;
	int err = 0;

	if (r->ncommits < 2) {
		json_decref(commits);
		json_decref(jobs);
		return -EINVAL;
	}
	for (size_t c = 0; commits && c < r->ncommits; c++) {
		const struct report_commit *rc = &r->commits[c];

		if (json_array_append_new(commits, json_pack("{s:o, s:o, s:o, s:o}",
				"id", str(rc->id), "subject", str(rc->subject),
				"author", str(rc->author), "date", str(rc->date)))) {
			json_decref(commits);
			commits = NULL;
		}
	}
	for (size_t i = 0; jobs && i < r->njobs; i++) {
		if (json_array_append_new(jobs, job_json(r, &r->jobs[i]))) {
			json_decref(jobs);
			jobs = NULL;
		}
	}
	root = json_pack("{s:o, s:o, s:o, s:o}", "commits", commits,
			 "repo_url", str(r->repo_url), "branch", str(r->branch),
			 "jobs", jobs);
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
