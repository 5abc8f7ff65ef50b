/*
 * cmpopts.h - the options of every command that compares stored results
 * (perfbot compare, perfbot report): -s/--set, --testbox, --repo,
 * --min-change, --alpha (--db is main()'s: cmdutil.h).  One parser, so that they accept and refuse the
 * same values with the same messages.
 *
 * A command lists CMPOPTS_LONGOPTS in its getopt_long() table and "s:" in
 * its short options, and hands every option to cmpopts_option() first.
 * Strings point into argv; the rules' patterns are owned and freed by
 * cmpopts_release().  Use from one thread.
 */
#ifndef PERFBOT_CMD_CMPOPTS_H
#define PERFBOT_CMD_CMPOPTS_H

#include "stats/compare.h"
#include "store/store.h"

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

enum {
	CMPOPT_TESTBOX = 1000,
	CMPOPT_REPO,
	CMPOPT_MIN_CHANGE,
	CMPOPT_ALPHA,
};

#define CMPOPTS_LONGOPTS \
	{ "set", required_argument, NULL, 's' }, \
	{ "testbox", required_argument, NULL, CMPOPT_TESTBOX }, \
	{ "repo", required_argument, NULL, CMPOPT_REPO }, \
	{ "min-change", required_argument, NULL, CMPOPT_MIN_CHANGE }, \
	{ "alpha", required_argument, NULL, CMPOPT_ALPHA }

struct cmpopts {
	const char *who;		/* the command, for messages */
	const char *testbox;		/* may be NULL */
	const char *repo;		/* resolves tags and branches; may be NULL */
	char **sets;			/* KEY=VALUE */
	size_t nr_sets;
	bool have_min;
	double min_change;
	struct min_change_rule *rules;
	size_t nr_rules;
	double alpha;
};

/* Ready for argc arguments; EXIT_FAILED (printed) when out of memory. */
int cmpopts_init(struct cmpopts *o, const char *who, int argc);

/*
 * One option from getopt_long(): 0 when it was one of ours and is taken,
 * -1 when it is not ours, else the exit status of the error printed.
 */
int cmpopts_option(struct cmpopts *o, int c, const char *arg);

/* After the options: the database's location; 0 or the exit status printed. */
int cmpopts_finish(struct cmpopts *o);

/* The compare options the command line asks for. */
void cmpopts_apply(const struct cmpopts *o, struct compare_opts *out);

/* The store for reading; 0 or the exit status printed. */
int cmpopts_open_store(const struct cmpopts *o, struct store **s);

void cmpopts_release(struct cmpopts *o);

#endif
