/*
 * bench.c - perfbot bench: list the benchmarks, or run one.  Every option
 * and its --help come from the benchmark's parameter table (bench.h);
 * the run goes to the benchmark's front end (bench_cli.h), or is printed
 * here for one that has none.
 */
#define _GNU_SOURCE
#include "bench/bench.h"
#include "cmd/bench_cli.h"
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "util/bug.h"
#include "util/cpus.h"
#include "util/interrupt.h"
#include "util/strbuf.h"
#include "version.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct bench_cli *const front_ends[] = {
	&bench_cli_wis, &bench_cli_hackbench, &bench_cli_netperf, NULL,
};

/* The options of one table, for getopt_long. */
#define MAX_OPTIONS (BENCH_MAX_PARAMS * 4 + 3)
#define OPT_JSON 256
#define OPT_FIRST 257	/* long-only options: OPT_FIRST + index in map */

struct option_map {
	int row;
	int choice;	/* >= 0: a choice's own flag */
};

struct cli {
	const struct bench_type *t;
	char who[128];	/* "bench", "bench: hackbench": messages' prefix */
	struct option longopts[MAX_OPTIONS];
	char optstring[MAX_OPTIONS * 2 + 4];
	struct option_map map[MAX_OPTIONS];
	struct option_map by_short[128];
	size_t nr_long, nr_map;
};

int bench_cli_start(void)
{
	int ret = cmd_lifetime_start("bench");

	if (ret)
		return ret;
	interrupt_install();
	return 0;
}

int bench_cli_exit(enum bench_status st)
{
	if (interrupted)
		return 128 + interrupted;
	switch (st) {
	case BENCH_OK:
		return EXIT_OK;
	case BENCH_UNSUPPORTED:
		return EXIT_UNSUPPORTED;
	default:
		return EXIT_FAILED;
	}
}

static const struct bench_type *default_type(void)
{
	for (const struct bench_type *const *t = bench_types; *t; t++)
		if ((*t)->cli_alias)
			return *t;
	BUG("no benchmark answers to its choices' names");
}

static void add_option(struct cli *c, char opt, const char *long_opt,
		       bool has_arg, int row, int choice)
{
	struct option_map m = { .row = row, .choice = choice };
	int val;

	BUG_ON(c->nr_map + 1 >= MAX_OPTIONS);
	c->map[c->nr_map] = m;
	if (opt) {
		BUG_ON((unsigned char)opt >= 128 || opt == 'h');
		size_t n = strlen(c->optstring);

		c->by_short[(unsigned char)opt] = m;
		c->optstring[n++] = opt;
		if (has_arg)
			c->optstring[n++] = ':';
		c->optstring[n] = '\0';
		val = opt;
	} else {
		val = OPT_FIRST + (int)c->nr_map;
	}
	c->nr_map++;
	if (long_opt)
		c->longopts[c->nr_long++] = (struct option){
			long_opt, has_arg ? required_argument : no_argument, NULL, val,
		};
}

/* getopt_long's tables from the type's: its rows, their choices' flags, --json, -h. */
static void build_options(struct cli *c)
{
	const struct bench_type *t = c->t;

	memset(c->by_short, 0xff, sizeof(c->by_short));
	strcpy(c->optstring, ":h");
	for (size_t i = 0; i < t->nr_params; i++) {
		const struct bench_param *p = &t->params[i];

		if (p->opt || p->long_opt)
			add_option(c, p->opt, p->long_opt, p->type != BENCH_BOOL,
				   (int)i, -1);
		if (p->type != BENCH_ENUM)
			continue;
		for (size_t k = 0, n = bench_param_nr_choices(p); k < n; k++) {
			struct bench_choice ch;

			bench_param_choice(p, k, &ch);
			if (ch.opt || ch.long_opt)
				add_option(c, ch.opt, ch.long_opt, false, (int)i, (int)k);
		}
	}
	c->longopts[c->nr_long++] = (struct option){ "json", no_argument, NULL, OPT_JSON };
	c->longopts[c->nr_long++] = (struct option){ "help", no_argument, NULL, 'h' };
	c->longopts[c->nr_long] = (struct option){ NULL, 0, NULL, 0 };
}

static void set_who(struct cli *c)
{
	if (c->t->cli_alias)
		snprintf(c->who, sizeof(c->who), "bench");
	else
		fmt_marked(c->who, sizeof(c->who), "bench: %s", c->t->name);
}

static void print_help(const struct bench_type *t)
{
	struct strbuf sb = STRBUF_INIT;

	bench_cli_help(t, &sb);
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
}

static void list_benchmarks(void)
{
	const struct bench_type *def = default_type();
	int row = -1;

	for (size_t i = 0; i < def->nr_params; i++)
		if (!strcmp(def->params[i].key, def->cli_alias))
			row = (int)i;
	printf("%s tests (perfbot bench TEST --help for options):\n", def->name);
	for (size_t i = 0, n = bench_param_nr_choices(&def->params[row]); i < n; i++) {
		struct bench_choice ch;

		bench_param_choice(&def->params[row], i, &ch);
		if (!(ch.flags & BENCH_CHOICE_HIDDEN))
			printf("  %-18s %s\n", ch.name, ch.help);
	}
	printf("\nother benchmarks (perfbot bench NAME --help):\n");
	for (const struct bench_type *const *t = bench_types; *t; t++)
		if (bench_type_cli_named(*t))
			printf("  %-18s %s\n", (*t)->name, (*t)->desc);
}

static int unknown_test(const char *name)
{
	const char *near = bench_cli_suggest(name);

	if (near)
		return cmd_usage_error("bench", "unknown test '%s' (did you mean '%s'?)",
				       name, near);
	return cmd_usage_error("bench", "unknown test '%s' ('perfbot bench' lists them)",
			       name);
}

/* The usage error for a value the validator refused, quoting it whole. */
static int param_error(const struct cli *c, const struct bench_args *a, int row,
		       const char *text, enum bench_param_status st)
{
	struct strbuf msg = STRBUF_INIT;
	int ret;

	bench_param_message(a, row, text, st, true, &msg);
	ret = cmd_usage_error(c->who, "%s", strbuf_error(&msg) ? "out of memory" : msg.buf);
	strbuf_release(&msg);
	return ret;
}

/*
 * Parse argv by c->t's options into *a.  Returns 0, -1 after printing
 * the help (-h), or EXIT_USAGE after the message; *given counts options.
 */
static int parse_options(struct cli *c, struct bench_args *a, int argc,
			 char **argv, bool *json, int *given)
{
	int ch;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, c->optstring, c->longopts, NULL)) != -1) {
		struct option_map m;
		enum bench_param_status st;

		switch (ch) {
		case 'h':
			print_help(c->t);
			return -1;
		case ':':
			return cmd_usage_error(c->who, "option '%s' needs a value",
					       argv[optind - 1]);
		case '?':
			return cmd_usage_error(c->who, "unknown option '%s'",
					       argv[optind - 1]);
		case OPT_JSON:
			*json = true;
			++*given;
			continue;
		}
		m = ch >= OPT_FIRST ? c->map[ch - OPT_FIRST] : c->by_short[ch];
		BUG_ON(m.row < 0);
		++*given;
		if (m.choice >= 0) {
			struct bench_choice choice;

			st = bench_args_set_choice(a, m.row, (size_t)m.choice,
						   argv[optind - 1]);
			if (st == BENCH_PARAM_OK)
				continue;
			bench_param_choice(&c->t->params[m.row], (size_t)m.choice,
					   &choice);
			return param_error(c, a, m.row, choice.name, st);
		}
		if (c->t->params[m.row].type == BENCH_BOOL) {
			bench_args_flag(a, m.row, argv[optind - 1]);
			continue;
		}
		st = bench_args_set(a, m.row, optarg);
		if (st != BENCH_PARAM_OK)
			return param_error(c, a, m.row, optarg, st);
		a->v[m.row].opt = argv[optind - 1];
	}
	return 0;
}

/* ---- a benchmark without a front end of its own ------------------------ */

static json_t *param_json(const struct bench_args *a, size_t i)
{
	const struct bench_param *p = &a->type->params[i];
	const union bench_value *v = &a->v[i].v;

	switch (p->type) {
	case BENCH_DURATION:
		return json_real(v->s);
	case BENCH_ENUM:
		return json_string(bench_args_choice_name(a, (int)i));
	case BENCH_BOOL:
		return json_boolean(v->on);
	case BENCH_PATH:
		return a->v[i].text ? json_string(a->v[i].text) : json_null();
	default:
		return json_integer((json_int_t)v->n);
	}
}

static json_t *generic_json(const struct bench_args *a, const struct bench_result *r)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:{}, s:s, s:b, s:{}}",
			      "perfbot_version", PERFBOT_VERSION,
			      "benchmark", a->type->name,
			      "cpus_online", (json_int_t)a->ncpus,
			      "parameters",
			      "status", bench_status_name(r->status),
			      "incomplete", r->status == BENCH_INCOMPLETE,
			      "stats");
	json_t *params = o ? json_object_get(o, "parameters") : NULL;
	json_t *stats = o ? json_object_get(o, "stats") : NULL;

	if (!o || json_object_set_new(o, "reason", r->status == BENCH_OK ? json_null()
							     : json_string(r->why)))
		goto fail;
	for (size_t i = 0; i < a->type->nr_params; i++)
		if (json_object_set_new(params, a->type->params[i].key, param_json(a, i)))
			goto fail;
	for (size_t i = 0; i < r->nr_stats; i++)
		if (json_object_set_new(stats, r->stats[i].decl->name,
					json_real(r->stats[i].value)))
			goto fail;
	return o;
fail:
	json_decref(o);
	return NULL;
}

static int generic_run(const struct bench_type *t, const struct bench_args *a,
		       bool json)
{
	struct bench_run run = { .args = a, .stop = &interrupted };
	struct bench_result r;
	int ret = bench_cli_start();

	if (ret)
		return ret;
	if (!json) {
		printf("%s: %s\n", t->name, t->desc);
		fflush(stdout);
	}
	bench_type_run(t, &run, &r);
	if (json) {
		ret = cmd_print_json("bench", generic_json(a, &r));
	} else {
		printf("status: %s", bench_status_name(r.status));
		if (r.status != BENCH_OK)
			printf(" (%s)", r.why);
		putchar('\n');
		for (size_t i = 0; i < r.nr_stats; i++)
			printf("%-16s %.6g %s\n", r.stats[i].decl->name,
			       r.stats[i].value, r.stats[i].decl->unit);
	}
	if (r.status != BENCH_OK && r.status != BENCH_INCOMPLETE)
		fprintf(stderr, "perfbot: bench: %s: %s%s\n", t->name,
			r.status == BENCH_UNSUPPORTED ? "unsupported: " : "", r.why);
	ret = ret ? EXIT_FAILED : bench_cli_exit(r.status);
	bench_result_release(&r);
	return ret;
}

/* ---- the command ----------------------------------------------------------- */

static const struct bench_cli *front_end_of(const struct bench_type *t)
{
	for (const struct bench_cli *const *f = front_ends; *f; f++)
		if (!strcmp((*f)->type, t->name))
			return *f;
	return NULL;
}

int cmd_bench(int argc, char **argv)
{
	/* `perfbot bench NAME ...`, or options first and the name among them */
	const char *name = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
	struct cli *c = calloc(1, sizeof(*c));
	const struct bench_cli *fe;
	struct strbuf msg = STRBUF_INIT;
	struct bench_args a;
	size_t choice = 0;
	bool json = false;
	int row = -1, given = 0, ret;

	if (!c)
		return cmd_failure("bench", "out of memory");
	c->t = name ? bench_cli_find(name, &row, &choice) : default_type();
	if (!c->t) {
		ret = unknown_test(name);
		goto out;
	}
	set_who(c);
	build_options(c);
	bench_args_init(&a, c->t, online_cpus(), false);
	ret = parse_options(c, &a, argc, argv, &json, &given);
	if (ret) {
		ret = ret < 0 ? EXIT_OK : ret;
		goto out;
	}
	if (!name && optind < argc) {
		/* the name after options: will-it-scale's tests take them first */
		const struct bench_type *t = bench_cli_find(argv[optind], &row, &choice);

		if (t && t != c->t) {
			ret = cmd_usage_error("bench", "options of %s go after its name: perfbot bench %s [options]",
					      argv[optind], argv[optind]);
			goto out;
		}
		if (!t) {
			ret = unknown_test(argv[optind]);
			goto out;
		}
		name = argv[optind];
	}
	if (name)
		optind++;	/* the name itself, wherever getopt moved it */
	if (optind < argc) {
		ret = cmd_usage_error(c->who, "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!name) {
		if (given)
			ret = cmd_usage_error("bench", "options given but no test; 'perfbot bench' lists them");
		else
			list_benchmarks();
		goto out;
	}
	if (row >= 0 && bench_args_set(&a, row, name) != BENCH_PARAM_OK)
		BUG("%s: the choice it was found by does not parse", name);
	if (bench_args_check(&a, true, &row, &msg)) {
		ret = cmd_usage_error(c->who, "%s",
				      strbuf_error(&msg) ? "out of memory" : msg.buf);
		goto out;
	}
	fe = front_end_of(c->t);
	ret = fe && fe->check ? fe->check(&a, json) : 0;
	if (!ret)
		ret = fe ? fe->run(c->t, &a, json) : generic_run(c->t, &a, json);
out:
	strbuf_release(&msg);
	free(c);
	return ret;
}
