#include "bench/wis_json.h"

#include <math.h>
#include <stdio.h>

const char *wis_per_task_stat(enum wis_mode mode)
{
	return mode == WIS_THREAD ? "per_thread_ops" : "per_process_ops";
}

/* A number, or null for the "unknown" markers (-1 idle, NaN). */
static json_t *num_or_null(double v, bool negative_is_unknown)
{
	if (isnan(v) || isinf(v) || (negative_is_unknown && v < 0))
		return json_null();
	return json_real(v);
}

static json_t *run_header(const struct wis_config *cfg,
			  const struct wis_json_context *ctx)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:I, s:b, s:b, s:f, s:f, s:f}",
			 "perfbot_version", ctx->version,
			 "test", cfg->test->name,
			 "description", cfg->test->desc,
			 "mode", wis_mode_name(cfg->mode),
			 "cpus_online", (json_int_t)ctx->cpus_online,
			 "affinity", cfg->affinity,
			 "aslr_disabled", ctx->aslr_disabled,
			 "warmup_s", cfg->warmup_s,
			 "duration_s", cfg->duration_s,
			 "interval_s", cfg->interval_s);
}

static int set_status(json_t *o, enum wis_status status, const char *why)
{
	return json_object_set_new(o, "status", json_string(wis_status_name(status))) ||
	       json_object_set_new(o, "incomplete",
				   json_boolean(status == WIS_INCOMPLETE)) ||
	       json_object_set_new(o, "reason", status == WIS_OK || !why || !*why
					? json_null() : json_string(why));
}

json_t *wis_result_json(const struct wis_config *cfg,
			const struct wis_result *r,
			const struct wis_json_context *ctx)
{
	json_t *o = run_header(cfg, ctx), *samples = json_array();
	int err;

	if (!o || !samples)
		goto fail;
	for (size_t i = 0; i < r->nr_samples; i++) {
		const struct wis_sample *s = &r->samples[i];

		if (json_array_append_new(samples, json_pack(
			"{s:f, s:f, s:I, s:f, s:f, s:f, s:o}",
			"start_s", s->start_s, "secs", s->secs,
			"ops", (json_int_t)s->ops, "total", s->total,
			"min_task", s->min_task, "max_task", s->max_task,
			"idle_pct", num_or_null(s->idle_pct, true))))
			goto fail;
	}
	err = json_object_set_new(o, "tasks", json_integer(r->nr_tasks)) ||
	      set_status(o, r->status, r->why) ||
	      json_object_set_new(o, "nr_samples", json_integer((json_int_t)r->nr_samples)) ||
	      json_object_set_new(o, "measured_s", json_real(r->measured_s)) ||
	      json_object_set_new(o, wis_per_task_stat(cfg->mode),
				  r->nr_samples ? json_real(r->per_task) : json_null()) ||
	      json_object_set_new(o, "workload",
				  r->nr_samples ? json_real(r->workload) : json_null()) ||
	      json_object_set_new(o, "samples_min",
				  r->nr_samples ? json_real(r->min) : json_null()) ||
	      json_object_set_new(o, "samples_max",
				  r->nr_samples ? json_real(r->max) : json_null()) ||
	      json_object_set_new(o, "samples_stddev",
				  r->nr_samples ? json_real(r->stddev) : json_null()) ||
	      json_object_set_new(o, "idle_pct", num_or_null(r->idle_pct, true)) ||
	      json_object_set_new(o, "samples", samples);
	if (err)
		goto fail_o;
	return o;
fail:
	json_decref(samples);
fail_o:
	json_decref(o);
	return NULL;
}

json_t *wis_sweep_json(const struct wis_config *cfg,
		       const struct wis_sweep_row *rows, size_t n,
		       enum wis_status status, const char *why,
		       const struct wis_json_context *ctx)
{
	json_t *o = run_header(cfg, ctx), *arr = json_array(), *scal;
	static const char *const col[2] = { "processes", "threads" };

	if (!o || !arr)
		goto fail;
	json_object_del(o, "mode");
	for (size_t i = 0; i < n; i++) {
		json_t *row = json_pack("{s:I, s:f}", "tasks",
					(json_int_t)rows[i].tasks, "linear",
					rows[i].linear);
		char idle_key[32];

		if (!row || json_array_append_new(arr, row))
			goto fail;
		for (int m = 0; m < 2; m++) {
			if (!rows[i].have[m])
				continue;
			snprintf(idle_key, sizeof(idle_key), "%s_idle", col[m]);
			json_object_set_new(row, col[m], json_real(rows[i].ops[m]));
			json_object_set_new(row, idle_key,
					    num_or_null(rows[i].idle[m], true));
		}
	}
	scal = json_object();
	for (int m = 0; m < 2; m++) {
		double s = wis_sweep_scalability(rows, n, (enum wis_mode)m);

		if (!isnan(s))
			json_object_set_new(scal, col[m], json_real(s));
	}
	if (set_status(o, status, why) ||
	    json_object_set_new(o, "rows", arr) ||
	    json_object_set_new(o, "scalability", scal))
		goto fail_o;
	return o;
fail:
	json_decref(arr);
fail_o:
	json_decref(o);
	return NULL;
}
