#include "cmd/cmpopts.h"
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/minchange.h"
#include "util/parse.h"
#include "util/quote.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmpopts_init(struct cmpopts *o, const char *who, int argc)
{
	*o = (struct cmpopts){ .who = who, .alpha = COMPARE_ALPHA, .max_sets = (size_t)argc };
	o->sets = calloc(argc + 1, sizeof(*o->sets));
	o->rules = calloc(argc + 1, sizeof(*o->rules));
	o->stats = calloc(argc + 1, sizeof(*o->stats));
	if (!o->sets || !o->rules || !o->stats)
		return cmd_failure(who, "out of memory");
	return 0;
}

/* 0 when c is ours and taken, -1 when not ours, else the exit status printed. */
static int cmpopts_option(struct cmpopts *o, int c, const char *arg)
{
	int err;

	switch (c) {
	case 's':
		return cmd_take_set(o->who, (char *)arg, o->sets, &o->nr_sets, o->max_sets);
	case CMPOPT_TESTBOX:
		o->testbox = arg;
		return 0;
	case CMPOPT_REPO:
		o->repo = arg;
		return 0;
	case CMPOPT_MIN_CHANGE:
		err = parse_min_change(arg, &o->rules[o->nr_rules], &o->min_change);
		if (err == -ENOMEM)
			return cmd_failure(o->who, "out of memory");
		if (err < 0)
			return cmd_usage_error(o->who,
					       "invalid --min-change '%s': expected PCT or PATTERN=PCT, PCT a percentage of at least 0",
					       arg);
		if (err)
			o->nr_rules++;
		else
			o->have_min = true;
		return 0;
	case CMPOPT_ALPHA:
		if (parse_double(arg, &o->alpha) != PARSE_OK || !(o->alpha > 0 && o->alpha < 1))
			return cmd_usage_error(o->who,
					       "invalid --alpha '%s': expected a number between 0 and 1",
					       arg);
		o->have_alpha = true;
		return 0;
	case CMPOPT_STAT:
		if (!*arg)
			return cmd_usage_error(o->who,
					       "invalid --stat '%s': expected a stat name or a glob"
					       " (will-it-scale.*)", arg);
		o->stats[o->nr_stats++] = arg;
		return 0;
	case CMPOPT_COLOR:
		return cmd_colour_option(o->who, arg, &o->colour);
	}
	return -1;
}

int cmpopts_parse(struct cmpopts *o, int argc, char **argv,
		  const struct option *longopts,
		  int (*own)(int c, const char *arg, void *ctx), void *ctx)
{
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hs:", longopts, NULL)) != -1) {
		if (c == ':')
			return cmd_usage_error(o->who, "option '%s' needs a value",
					       argv[optind - 1]);
		if (c == '?')
			return cmd_usage_error(o->who, "unknown option '%s'",
					       argv[optind - 1]);
		ret = cmpopts_option(o, c, optarg);
		if (ret < 0)
			ret = own(c, optarg, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

int cmpopts_finish(struct cmpopts *o)
{
	return cmd_store_location(o->who) ? 0 : EXIT_FAILED;
}

void cmpopts_apply(const struct cmpopts *o, struct compare_opts *out)
{
	compare_opts_init(out);
	if (o->have_alpha)
		out->alpha = out->q = o->alpha;
	if (o->have_min)
		out->kpi_min_pct = out->other_min_pct = o->min_change;
	out->rules = o->rules;
	out->nr_rules = o->nr_rules;
}

void cmpopts_apply_stats(const struct cmpopts *o, struct report *r)
{
	r->stats = o->stats;
	r->nr_stats = o->nr_stats;
}

bool cmpopts_warn_no_stat(const struct cmpopts *o, const struct report *r)
{
	if (!o->nr_stats)
		return false;
	for (size_t i = 0; i < r->njobs; i++)
		for (size_t k = 0; k < r->jobs[i].nr_rows; k++)
			if (report_stat_listed(r, r->jobs[i].rows[k].name))
				return false;
	fprintf(stderr, "perfbot: %s: no stat matches --stat", o->who);
	for (size_t i = 0; i < o->nr_stats; i++) {
		fputs(i ? ", " : " ", stderr);
		quote_fputs(o->stats[i], stderr);
	}
	fputc('\n', stderr);
	return true;
}

int cmpopts_open_store(const struct cmpopts *o, struct store **s)
{
	return cmd_store_open(o->who, STORE_READ, s);
}

void cmpopts_release(struct cmpopts *o)
{
	free(o->sets);
	for (size_t i = 0; o->rules && i < o->nr_rules; i++)
		free((char *)o->rules[i].pattern);
	free(o->rules);
	free(o->stats);
	o->stats = NULL;
	o->sets = NULL;
	o->rules = NULL;
}
