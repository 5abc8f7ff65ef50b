/*
 * wis_json.h - will-it-scale results as JSON (jansson).  The fields are
 * documented in docs/bench.md; change both together.
 *
 * Each function returns a new reference the caller owns (json_decref), or
 * NULL when out of memory.  No state.
 */
#ifndef PERFBOT_BENCH_WIS_JSON_H
#define PERFBOT_BENCH_WIS_JSON_H

#include "bench/wis.h"
#include "bench/wis_sweep.h"

#include <jansson.h>

/* Run facts the result itself does not hold. */
struct wis_json_context {
	const char *version;
	unsigned cpus_online;
	bool aslr_disabled;
};

json_t *wis_result_json(const struct wis_config *cfg,
			const struct wis_result *r,
			const struct wis_json_context *ctx);

/* The sweep: rows (linear filled in), scalability, and how it ended. */
json_t *wis_sweep_json(const struct wis_config *cfg,
		       const struct wis_sweep_row *rows, size_t n,
		       enum wis_status status, const char *why,
		       const struct wis_json_context *ctx);

/* The LKP stat name of the per-task result: per_process_ops or per_thread_ops. */
const char *wis_per_task_stat(enum wis_mode mode);

#endif
