#include "bench/wis_params.h"
#include "bench/bench.h"
#include "util/parse.h"

#include <string.h>

const char *const wis_param_names[] = { "test", "mode", "nr_task", "warmup", NULL };

static enum wis_param from_parse(enum parse_status st)
{
	switch (st) {
	case PARSE_OK:
		return WIS_PARAM_OK;
	case PARSE_TOO_SMALL:
		return WIS_PARAM_TOO_SMALL;
	case PARSE_TOO_LARGE:
		return WIS_PARAM_TOO_LARGE;
	default:
		return WIS_PARAM_SYNTAX;
	}
}

enum wis_param wis_set_param(struct wis_config *cfg, const char *key,
			     const char *value, unsigned ncpus)
{
	if (!strcmp(key, "test")) {
		const struct wis_test *t = wis_find_test(value);

		if (!t)
			return WIS_PARAM_SYNTAX;
		cfg->test = t;
	} else if (!strcmp(key, "mode")) {
		if (!strcmp(value, "process") || !strcmp(value, "processes"))
			cfg->mode = WIS_PROCESS;
		else if (!strcmp(value, "thread") || !strcmp(value, "threads"))
			cfg->mode = WIS_THREAD;
		else
			return WIS_PARAM_SYNTAX;
	} else if (!strcmp(key, "nr_task")) {
		unsigned n;
		enum wis_param p = from_parse(parse_task_count(value, ncpus,
							      WIS_MAX_TASKS, &n));

		if (p != WIS_PARAM_OK)
			return p;
		cfg->nr_tasks = n;
	} else if (!strcmp(key, "warmup")) {
		double w;

		enum parse_status st = parse_duration(value, &w);

		if (st != PARSE_OK)
			return from_parse(st);
		if (w < 0)
			return WIS_PARAM_TOO_SMALL;
		cfg->warmup_s = w;
	} else {
		return WIS_PARAM_UNKNOWN;
	}
	return WIS_PARAM_OK;
}

const char *wis_param_expects(const char *key)
{
	if (!strcmp(key, "test"))
		return "a will-it-scale test ('perfbot bench' lists them)";
	if (!strcmp(key, "mode"))
		return "process or thread";
	if (!strcmp(key, "nr_task"))
		return "N or N% of the CPUs, at least 1, at most 4096";
	if (!strcmp(key, "warmup"))
		return "a duration such as 5s";
	return NULL;
}
