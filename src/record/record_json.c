/*
 * record_json.c - record_json.h: a run record to JSON and back.
 */
#include "record/record_json.h"
#include "util/quote.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *number(double v)
{
	if (isnan(v))
		return json_string("nan");
	if (isinf(v))
		return json_string(v > 0 ? "inf" : "-inf");
	return json_real(v);
}

static json_t *strmap_obj(const struct strmap *m)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < m->n; i++)
		if (json_object_set_lossy(o, m->v[i].key, json_str(m->v[i].value))) {
			json_decref(o);
			return NULL;
		}
	return o;
}

json_t *record_json_object(const struct run_record *r)
{
	json_t *stats = json_object(), *meta = json_array(), *root = NULL;

	for (size_t i = 0; stats && i < r->stats.n; i++)
		if (json_object_set_lossy(stats, r->stats.v[i].name,
					  number(r->stats.v[i].value)))
			goto out;
	for (size_t i = 0; meta && i < r->meta.n; i++) {
		const struct stat_meta *m = &r->meta.v[i];

		if (json_array_append_new(meta, json_pack("{s:o, s:o, s:i, s:b}",
				"name", json_str(m->name), "unit", json_str(m->unit),
				"better", m->better, "kpi", m->kpi)))
			goto out;
	}
	if (!stats || !meta)
		goto out;
	root = json_pack("{s:s, s:i, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:O, s:O, s:o}",
			 "schema", RECORD_JSON_SCHEMA, "version", RECORD_JSON_VERSION,
			 "testbox", json_str(r->testbox), "testcase", json_str(r->testcase),
			 "job", json_str(r->job), "commit", json_str(r->commit),
			 "status", run_status_name(r->status),
			 "started", number(r->started), "duration_s", number(r->duration_s),
			 "params", strmap_obj(&r->params), "env", strmap_obj(&r->env),
			 "stats", stats, "meta", meta, "job_text", json_str(r->job_text));
out:
	json_decref(stats);
	json_decref(meta);
	return root;
}

int record_to_json(const struct run_record *r, char **text)
{
	json_t *root = record_json_object(r);

	*text = root ? json_dumps(root, JSON_REAL_PRECISION(17)) : NULL;
	json_decref(root);
	return *text ? 0 : -ENOMEM;
}

static int bad(struct strbuf *err, const char *field, const char *why)
{
	strbuf_setf(err, "run record JSON: %s %s", field, why);
	return -EINVAL;
}

static int get_number(json_t *v, double *out)
{
	const char *s;

	if (json_is_number(v)) {
		*out = json_number_value(v);
		return 0;
	}
	if (!json_is_string(v))
		return -1;
	s = json_string_value(v);
	if (!strcmp(s, "nan"))
		*out = NAN;
	else if (!strcmp(s, "inf"))
		*out = INFINITY;
	else if (!strcmp(s, "-inf"))
		*out = -INFINITY;
	else
		return -1;
	return 0;
}

static int get_str(json_t *root, const char *key, char **field, struct strbuf *err)
{
	json_t *v = json_object_get(root, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return bad(err, key, "is not a string");
	return record_set_str(field, json_string_value(v));
}

static int get_map(json_t *root, const char *key, struct strmap *m, struct strbuf *err)
{
	json_t *o = json_object_get(root, key), *v;
	const char *k;

	if (!o)
		return 0;
	if (!json_is_object(o))
		return bad(err, key, "is not an object");
	json_object_foreach(o, k, v) {
		if (!json_is_string(v)) {
			strbuf_setf(err, "run record JSON: %s \"%s\" is not a string", key, k);
			return -EINVAL;
		}
		if (strmap_set(m, k, json_string_value(v)))
			return -ENOMEM;
	}
	return 0;
}

static int get_status(json_t *root, enum run_status *st, struct strbuf *err)
{
	json_t *v = json_object_get(root, "status");
	static const enum run_status all[] = {
		RUN_COMPLETE, RUN_FAILED, RUN_INCOMPLETE, RUN_UNSUPPORTED,
	};

	if (!json_is_string(v))
		return bad(err, "status", "is missing or not a string");
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(json_string_value(v), run_status_name(all[i]))) {
			*st = all[i];
			return 0;
		}
	strbuf_setf(err, "run record JSON: unknown status \"%s\"", json_string_value(v));
	return -EINVAL;
}

static int get_stats_meta(json_t *root, struct run_record *out, struct strbuf *err)
{
	json_t *stats = json_object_get(root, "stats"), *meta = json_object_get(root, "meta"), *v;
	const char *k;
	size_t i;

	if (stats && !json_is_object(stats))
		return bad(err, "stats", "is not an object");
	json_object_foreach(stats, k, v) {
		double d;

		if (get_number(v, &d)) {
			strbuf_setf(err, "run record JSON: stat \"%s\" is not a number", k);
			return -EINVAL;
		}
		if (statmap_add(&out->stats, k, d))
			return -ENOMEM;
	}
	statmap_finish(&out->stats);
	if (meta && !json_is_array(meta))
		return bad(err, "meta", "is not an array");
	json_array_foreach(meta, i, v) {
		const char *name = NULL, *unit = "";
		int better = 0, kpi = 0;

		if (json_unpack(v, "{s:s, s?s, s?i, s?b}", "name", &name, "unit", &unit,
				"better", &better, "kpi", &kpi) || better < -1 || better > 1) {
			strbuf_setf(err, "run record JSON: meta entry %zu is not {name, unit, better: -1|0|1, kpi}", i);
			return -EINVAL;
		}
		if (stat_meta_set(&out->meta, name, unit, better, kpi))
			return -ENOMEM;
	}
	return 0;
}

int record_from_json(const char *text, size_t len, struct run_record *out,
		     struct strbuf *err)
{
	json_error_t jerr;
	json_t *root, *v;
	int ret;

	memset(out, 0, sizeof(*out));
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		strbuf_setf(err, "run record JSON: line %d column %d: %s",
			    jerr.line, jerr.column, jerr.text);
		return -EINVAL;
	}
	v = json_object_get(root, "schema");
	if (!json_is_object(root) || !json_is_string(v) ||
	    strcmp(json_string_value(v), RECORD_JSON_SCHEMA)) {
		ret = bad(err, "schema", "is not \"" RECORD_JSON_SCHEMA "\"");
		goto out;
	}
	v = json_object_get(root, "version");
	if (!json_is_integer(v) || json_integer_value(v) != RECORD_JSON_VERSION) {
		ret = bad(err, "version", "is not 1");
		goto out;
	}
	if ((ret = get_str(root, "testbox", &out->testbox, err)) ||
	    (ret = get_str(root, "testcase", &out->testcase, err)) ||
	    (ret = get_str(root, "job", &out->job, err)) ||
	    (ret = get_str(root, "commit", &out->commit, err)) ||
	    (ret = get_str(root, "job_text", &out->job_text, err)) ||
	    (ret = get_status(root, &out->status, err)) ||
	    (ret = get_map(root, "params", &out->params, err)) ||
	    (ret = get_map(root, "env", &out->env, err)) ||
	    (ret = get_stats_meta(root, out, err)))
		goto out;
	if (get_number(json_object_get(root, "started"), &out->started)) {
		ret = bad(err, "started", "is not a number");
		goto out;
	}
	if (get_number(json_object_get(root, "duration_s"), &out->duration_s)) {
		ret = bad(err, "duration_s", "is not a number");
		goto out;
	}
out:
	json_decref(root);
	if (ret == -ENOMEM)
		strbuf_setf(err, "out of memory");
	return ret;
}
