/*
 * wis_type.h - will-it-scale as a struct bench_type (bench.h): the whole
 * catalogue of src/bench/wis/ behind one `test` parameter, so `perfbot
 * bench futex3` is will-it-scale with test=futex3.
 *
 * For a front end that shows more than the stats: run()'s detail is the
 * engine's struct wis_result (its samples), on_progress's event a const
 * struct wis_sample *, and the phases are "warm-up" and "measure".
 * No state; the catalogue is constant.
 */
#ifndef PERFBOT_BENCH_WIS_TYPE_H
#define PERFBOT_BENCH_WIS_TYPE_H

#include "bench/bench.h"
#include "bench/wis.h"

/* The rows of the parameter table. */
enum wis_row {
	WIS_P_TEST,
	WIS_P_NR_TASK,
	WIS_P_MODE,
	WIS_P_RUNTIME,
	WIS_P_WARMUP,
	WIS_P_INTERVAL,
	WIS_P_AFFINITY,
	WIS_P_SWEEP,
	WIS_P_MAX,
	WIS_P_CSV,
	WIS_P_FORMAT,
	WIS_P_SVG,
	WIS_NR_PARAMS,
};

/* The choices of --format: the sweep table as text, CSV or Markdown. */
enum wis_format_choice { WIS_FORMAT_TEXT, WIS_FORMAT_CSV, WIS_FORMAT_MARKDOWN };

/* The choices of the mode row; a sweep also takes both. */
enum wis_mode_choice { WIS_MODE_PROCESS, WIS_MODE_THREAD, WIS_MODE_BOTH };

extern const struct bench_type bench_type_wis;

/* A will-it-scale test by name (hidden self-tests included), or NULL. */
const struct wis_test *wis_find_test(const char *name);

/*
 * The engine's configuration from checked arguments: test, mode (a
 * sweep's "both" is left as process), tasks, warm-up, duration, interval,
 * affinity.  In a job (a->job) the warm-up defaults to at most half the
 * runtime and the interval to at most the runtime.  No callbacks, no stop.
 */
void wis_config_from_args(const struct bench_args *a, struct wis_config *cfg);

#endif
