/*
 * wis_params.h - LKP's will-it-scale job parameters applied to a
 * struct wis_config: test, mode, nr_task, and perfbot's warmup.
 * (runtime is a generic job key: the runner sets duration_s from it.)
 * No state; thread-safe.
 */
#ifndef PERFBOT_BENCH_WIS_PARAMS_H
#define PERFBOT_BENCH_WIS_PARAMS_H

#include "bench/wis.h"

enum wis_param {
	WIS_PARAM_OK = 0,
	WIS_PARAM_UNKNOWN,	/* not a will-it-scale parameter */
	WIS_PARAM_SYNTAX,	/* the value has the wrong form, or no such test */
	WIS_PARAM_TOO_SMALL,
	WIS_PARAM_TOO_LARGE,
};

/* The parameters, NULL-terminated (for "did you mean"). */
extern const char *const wis_param_names[];

/*
 *   test     a test of the catalogue (hidden self-tests included)
 *   mode     process | processes | thread | threads
 *   nr_task  N or N% of ncpus, rounded down, at least 1 (LKP's rule)
 *   warmup   a duration >= 0 (perfbot's; LKP's harness always warms up 5 s)
 * On error cfg is unchanged.
 */
enum wis_param wis_set_param(struct wis_config *cfg, const char *key,
			     const char *value, unsigned ncpus);
/* What `key` takes, for a message naming the bad value; NULL if unknown. */
const char *wis_param_expects(const char *key);

#endif
