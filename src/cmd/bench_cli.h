/*
 * bench_cli.h - the front ends of `perfbot bench NAME` (internal to cmd/).
 *
 * cmd/bench.c parses and checks every command line by the benchmark's
 * parameter table (bench/bench.h) and builds its --help from it; then the
 * benchmark's own front end, when it has one, runs it and prints what it
 * always printed (will-it-scale's samples and sweep, hackbench's Time:
 * lines, netperf's per-client table, their JSON), or cmd/bench.c prints
 * the declared stats itself.  A new benchmark needs no front end.
 * Main thread only; they print and pick exit codes (cmds.h).
 */
#ifndef PERFBOT_CMD_BENCH_CLI_H
#define PERFBOT_CMD_BENCH_CLI_H

#include "bench/bench.h"

#include <stdbool.h>

struct bench_cli {
	const char *type;	/* the bench_type's name */
	/* more checks of the command line: 0, or EXIT_USAGE after the message */
	int (*check)(const struct bench_args *a, bool json);
	/* start, run and print: the exit status */
	int (*run)(const struct bench_type *t, const struct bench_args *a,
		   bool json);
};

extern const struct bench_cli bench_cli_wis;
extern const struct bench_cli bench_cli_hackbench;
extern const struct bench_cli bench_cli_netperf;

/*
 * What every run does before it starts anything: lifetime_start() and
 * the interrupt handlers.  0, or the exit status after the message.
 */
int bench_cli_start(void);
/* The exit status of a run that ended so (128+N once interrupted). */
int bench_cli_exit(enum bench_status st);

#endif
