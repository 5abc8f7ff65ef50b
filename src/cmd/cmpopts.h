/*
 * cmpopts.h - the options of every command that compares stored results
 * (perfbot compare, perfbot report): -s/--set, --testbox, --repo,
 * --min-change, --alpha, --stat, --color (--db is main()'s: cmdutil.h).  One parser, so that they accept and refuse the
 * same values with the same messages.
 *
 * A command lists CMPOPTS_LONGOPTS in its getopt_long() table and hands
 * argv to cmpopts_parse(), which takes these options and passes the
 * command's own to a callback.  Strings point into argv; the rules'
 * patterns are owned and freed by cmpopts_release().  Use from one thread.
 */
#ifndef PERFBOT_CMD_CMPOPTS_H
#define PERFBOT_CMD_CMPOPTS_H

#include "report/report.h"
#include "stats/compare.h"
#include "store/store.h"
#include "util/colour.h"

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

enum {
	CMPOPT_TESTBOX = 1000,
	CMPOPT_REPO,
	CMPOPT_MIN_CHANGE,
	CMPOPT_ALPHA,
	CMPOPT_STAT,
	CMPOPT_COLOR,
};

#define CMPOPTS_LONGOPTS \
	{ "set", required_argument, NULL, 's' }, \
	{ "testbox", required_argument, NULL, CMPOPT_TESTBOX }, \
	{ "repo", required_argument, NULL, CMPOPT_REPO }, \
	{ "min-change", required_argument, NULL, CMPOPT_MIN_CHANGE }, \
	{ "alpha", required_argument, NULL, CMPOPT_ALPHA }, \
	{ "stat", required_argument, NULL, CMPOPT_STAT }, \
	{ "color", required_argument, NULL, CMPOPT_COLOR }

struct cmpopts {
	const char *who;		/* the command, for messages */
	const char *testbox;		/* may be NULL */
	const char *repo;		/* resolves tags and branches; may be NULL */
	char **sets;			/* KEY=VALUE */
	size_t nr_sets, max_sets;	/* max_sets: argc, what sets holds */
	bool have_min;
	double min_change;
	struct min_change_rule *rules;
	size_t nr_rules;
	bool have_alpha;
	double alpha;
	/* --stat PATTERN: globs, into argv; the rows shown (struct report's stats) */
	const char **stats;
	size_t nr_stats;
	enum colour_when colour;	/* --color; the terminal's text only */
};

/* Ready for argc arguments; EXIT_FAILED (printed) when out of memory. */
int cmpopts_init(struct cmpopts *o, const char *who, int argc);

/*
 * The command line: getopt_long() over longopts (CMPOPTS_LONGOPTS and the
 * command's own, "h" for help) with short options "hs:".  Ours are taken
 * here; every other option found in longopts goes to own(c, optarg, ctx),
 * which returns 0 (taken), -1 (done: help was shown, exit 0) or an exit
 * status it printed.  A missing value or an unknown option is a usage
 * error here.  Afterwards optind is the first operand.  0, -1 (help) or
 * the exit status printed.
 */
int cmpopts_parse(struct cmpopts *o, int argc, char **argv,
		  const struct option *longopts,
		  int (*own)(int c, const char *arg, void *ctx), void *ctx);

/* After the operands: the database's location; 0 or the exit status printed. */
int cmpopts_finish(struct cmpopts *o);

/* The compare options the command line asks for. */
void cmpopts_apply(const struct cmpopts *o, struct compare_opts *out);

/*
 * --stat given and no stat of the report's jobs matches: says so on
 * stderr (the table is then empty; exit 0, as LKP's compare).  true when
 * it said so.
 */
bool cmpopts_warn_no_stat(const struct cmpopts *o, const struct report *r);

/* The rows shown: --stat's patterns into the report. */
void cmpopts_apply_stats(const struct cmpopts *o, struct report *r);

/* The store for reading; 0 or the exit status printed. */
int cmpopts_open_store(const struct cmpopts *o, struct store **s);

void cmpopts_release(struct cmpopts *o);

#endif
