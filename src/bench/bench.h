/*
 * bench.h - the benchmark interface (docs/design.md §12): what every
 * built-in benchmark declares and implements, and the static registry of
 * them (registry.c).  monitor/monitor_type.h is the model.
 *
 * A benchmark is one `const struct bench_type`: a name, a description, a
 * parameter table (fio's option table is the model), the stats it
 * produces, and run().  The parameter table alone drives the job-file
 * checks (run/runner.c, with "did you mean"), `perfbot bench NAME` and its
 * --help (cmd/bench.c), `perfbot job split`, and the reference
 * (`perfbot help benchmarks`, docs/benchmarks.md).  The stat table gives
 * each stat's unit, direction and whether it is a KPI; the runner stores
 * them with the run (record.h's stat_meta).  Adding a benchmark is one
 * file defining its bench_type and one line in registry.c's BENCH_TYPES.
 *
 * Parameters: every value a job file or a command line gives goes through
 * one validator (param.c) into a struct bench_args -- one slot per row of
 * the table, by the row's index -- so run() reads args->v[ROW] with no
 * lookup by name.  A row says both spellings: the job key (LKP's name,
 * e.g. nr_threads) and the `perfbot bench NAME` option (-g, --groups).
 * Numbers follow util/parse.h's one grammar.
 *
 * Ownership: the tables are constant.  struct bench_args holds pointers
 * to the texts it was given (job values, argv), which must outlive it.
 * struct bench_result owns its env, extra stats and detail until
 * bench_result_release().
 * Threading: the tables, lookups and the validator are thread-safe.
 * run() is as the engine it drives: one run at a time, from the main
 * thread (the engines fork and reap; see wis.h, hackbench.h, netperf.h).
 * Libraries never print: run() reports through its result and callbacks.
 */
#ifndef PERFBOT_BENCH_BENCH_H
#define PERFBOT_BENCH_BENCH_H

#include "record/record.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/*
 * The measured window of a benchmark that is not told how long to run:
 * a job without `runtime`, `perfbot bench TEST` without -d, `perfbot bench
 * netperf` without -l.  The one definition (the runner, `perfbot run`'s
 * estimate and the command lines use it).
 */
#define BENCH_DEFAULT_RUNTIME_S 10.0

#define BENCH_MAX_PARAMS 16	/* rows of one table */
#define BENCH_MAX_STATS 16	/* declared stats one run may produce */
#define BENCH_WHY_MAX 512

/* ---- the parameter table ------------------------------------------------ */

enum bench_param_type {
	BENCH_COUNT,	/* a whole number in [min, max] */
	BENCH_TASKS,	/* N, or N% of the online CPUs rounded down (at least 1); at most max */
	BENCH_DURATION,	/* seconds: 300, 0.5, 300ms, 5s, 2m, 1h; in [min_s, max_s] */
	BENCH_SIZE,	/* bytes: N, or N with K (1024), M (2^20), k (1000), m (10^6); in [min, max] */
	BENCH_ENUM,	/* one of the choices, by its name or an alias */
	BENCH_BOOL,	/* a switch: on the command line a flag that sets the opposite of the default */
	BENCH_PATH,	/* a file name, not empty: the value is bench_arg.text (NULL: none given) */
};

/* A row's flags. */
enum {
	/*
	 * Not a job key: only `perfbot bench NAME` has it (--no-affinity,
	 * --sweep).  The key names it in JSON and the reference.
	 */
	BENCH_CLI_ONLY = 1 << 0,
	/*
	 * A generic job key (runtime, timeout: job.h) that this benchmark
	 * takes: the job layer parses it and the runner passes the job's
	 * value (runtime: BENCH_DEFAULT_RUNTIME_S when the job has none;
	 * timeout: runner_timeout()), so the table's default is the command
	 * line's.
	 */
	BENCH_GENERIC = 1 << 1,
	BENCH_REQUIRED = 1 << 2,	/* a job must give it */
	BENCH_CLI_REQUIRED = 1 << 3,	/* `perfbot bench NAME` must be given it */
	BENCH_NOCASE = 1 << 4,		/* choices match in any case (they are written in capitals) */
	BENCH_EXCLUSIVE = 1 << 5,	/* two flags of its choices do not go together (-4 -6) */
	BENCH_ABOVE_MIN = 1 << 6,	/* DURATION: must be above min_s, not merely at least */
	/* DURATION: a command-line message quotes a value out of range in
	 * seconds ('0 s'), not as written (will-it-scale's -d, -w, -i) */
	BENCH_QUOTE_SECONDS = 1 << 7,
	/*
	 * COUNT: runs of the benchmark that the runner makes, and throws
	 * away, before a caller's first measured run (runner_opts.warm_up:
	 * exec's `warmup`); recorded in that run's env as warmup.*.
	 */
	BENCH_WARMUP_RUNS = 1 << 8,
};

/* A choice's flags. */
enum {
	BENCH_CHOICE_HIDDEN = 1 << 0,	/* accepted, never listed (harness self-tests) */
	BENCH_CHOICE_CLI_ONLY = 1 << 1,	/* only on the command line (a sweep's `both`) */
};

/* One value an ENUM row takes. */
struct bench_choice {
	const char *name;		/* as a job and the command line write it */
	const char *const *aliases;	/* other spellings, NULL-terminated; may be NULL */
	char opt;			/* a flag of its own selects it (hackbench's -T), or 0 */
	const char *long_opt;		/* --threads, or NULL */
	const char *help;		/* one line, for --help and the reference */
	unsigned flags;			/* BENCH_CHOICE_* */
};

struct bench_param {
	const char *key;	/* the job key, LKP's name (nr_task); names the row everywhere */
	const char *noun;	/* a command-line message's: "invalid <noun> '0'"; NULL: the key */
	enum bench_param_type type;
	unsigned flags;		/* BENCH_* above */
	/* `perfbot bench NAME` option: neither set = not on the command line */
	char opt;		/* -t */
	const char *long_opt;	/* --tasks */
	const char *metavar;	/* N|N%, TIME, SIZE, MODE */
	/* COUNT, TASKS (min is 1), SIZE */
	unsigned long min, max;
	/* TASKS, COUNT: what max counts, for "-t 4097 is more than 4096 tasks" */
	const char *unit;
	/* DURATION; max_s 0: util/parse.h's 30 days */
	double min_s, max_s;
	/* the default: COUNT/TASKS/SIZE a number, ENUM a choice's index, BOOL 0/1 */
	unsigned long def;
	double def_s;		/* DURATION */
	const char *def_text;	/* the default in words, when it depends on something */
	/* ENUM: a static list ending with a NULL name, or a function for a
	 * list built elsewhere (the will-it-scale catalogue): false past the end */
	const struct bench_choice *choices;
	bool (*choice_at)(size_t i, struct bench_choice *out);
	const char *choices_title;	/* --help lists the choices under it ("Tests") */
	const char *help;	/* what it is, for --help and the reference */
};

/* ---- the stats ---------------------------------------------------------- */

/*
 * A stat a run may produce, named "<testcase>.<name>" in the record.
 * Which are KPIs may depend on the parameters: a run produces one of
 * per_process_ops and per_thread_ops, by mode, each a KPI; `when` says so
 * in the reference.
 */
struct bench_stat_decl {
	const char *name;
	const char *unit;	/* "ops/s", "KiB/s", "s"; "" for none */
	int better;		/* enum stat_better */
	bool kpi;
	const char *when;	/* NULL: always; else the condition, for the reference */
	const char *help;
};

struct bench_stat {
	const struct bench_stat_decl *decl;
	double value;
};

/* ---- parsed parameters --------------------------------------------------- */

union bench_value {
	unsigned long n;	/* COUNT; TASKS resolved against the CPUs; SIZE in bytes */
	double s;		/* DURATION, seconds */
	size_t choice;		/* ENUM: the index in the choices */
	bool on;		/* BOOL */
};

struct bench_arg {
	union bench_value v;
	bool given;		/* by the job or the command line, not the default */
	const char *text;	/* as written (NULL for a default or a generic key) */
	const char *opt;	/* command line: the option as written ("-4"); else NULL */
	unsigned line, column;	/* job: where it is written; 0 otherwise */
};

struct bench_args {
	const struct bench_type *type;
	unsigned ncpus;		/* what N% is a share of */
	/*
	 * From a job (runner), not `perfbot bench`.  A type may default
	 * differently there: will-it-scale warms up at most half the runtime
	 * in a job, a short job cannot afford upstream's 5 s.
	 */
	bool job;
	struct bench_arg v[BENCH_MAX_PARAMS];
};

enum bench_param_status {
	BENCH_PARAM_OK = 0,
	BENCH_PARAM_UNKNOWN,	/* no such row */
	BENCH_PARAM_SYNTAX,	/* not of the row's form */
	BENCH_PARAM_TOO_SMALL,
	BENCH_PARAM_TOO_LARGE,
	BENCH_PARAM_BAD_CHOICE,	/* not one of an ENUM's choices */
	BENCH_PARAM_CONFLICT,	/* a second flag of a BENCH_EXCLUSIVE row */
};

/* ---- a run -------------------------------------------------------------- */

enum bench_status {
	BENCH_OK = 0,
	BENCH_INCOMPLETE,	/* stopped early (*stop); what was measured is valid */
	BENCH_FAILED,		/* the benchmark failed, crashed or timed out */
	BENCH_UNSUPPORTED,	/* cannot run on this machine: not a failure */
	BENCH_ERROR,		/* the harness could not run it (fork, memory, limits) */
};

/* An external command (an exec job's `exec:` key, docs/jobs.md). */
struct bench_command {
	char *const *argv;
	const char *parse;		/* bench/parsers.h's kind; NULL: time */
	const struct strmap *paths;	/* parse: json's stat -> path; may be NULL */
	const char *cwd;		/* run it there; NULL: here */
};

struct bench_run {
	const struct bench_args *args;	/* checked (bench_args_check()) */
	volatile sig_atomic_t *stop;	/* may be NULL; non-zero stops the run */
	/*
	 * Called in the caller, may be NULL: "warm-up" (will-it-scale) and
	 * "measure" just before the measured window, where monitors open.
	 */
	void (*on_phase)(const char *phase, void *arg);
	/*
	 * Called in the caller after each step, may be NULL; what `event`
	 * points at is the type's (its header says: a will-it-scale sample,
	 * a hackbench iteration's seconds).
	 */
	void (*on_progress)(const void *event, size_t idx, void *arg);
	void *arg;
	const struct bench_command *command;	/* BENCH_TYPE_EXEC: the command */
	const char *testcase;	/* the prefix of stats a run names itself */
};

struct bench_result {
	enum bench_status status;
	char why[BENCH_WHY_MAX];	/* for anything but BENCH_OK */
	struct bench_stat stats[BENCH_MAX_STATS];	/* declared, in the table's order */
	size_t nr_stats;
	/* stats the run names itself, full names (exec's parsed output): not declared */
	struct statmap extra;
	/* for the run's environment: resolved.* values, parse.dropped */
	struct strmap env;
	/* the engine's own result, for a front end that shows more (see the
	 * type's header); freed by bench_result_release() */
	void *detail;
	void (*free_detail)(void *detail);
};

/* ---- the type ----------------------------------------------------------- */

/* A type's flags. */
enum {
	/*
	 * Selected by a job's `exec:` key whatever its testcase, and not a
	 * `perfbot bench` command (`perfbot stat` times commands).
	 */
	BENCH_TYPE_EXEC = 1 << 0,
};

struct bench_type {
	const char *name;	/* the job's testcase; `perfbot bench NAME` */
	const char *desc;	/* one line, for the listing */
	const char *doc;	/* its page: "docs/hackbench.md" */
	unsigned flags;		/* BENCH_TYPE_* */
	const struct bench_param *params;
	size_t nr_params;
	const struct bench_stat_decl *stats;
	size_t nr_stats;
	/*
	 * The key of an ENUM row whose choices are commands of their own:
	 * `perfbot bench futex3` is will-it-scale with test=futex3, and the
	 * type is reached only that way (`perfbot bench` lists them).
	 */
	const char *cli_alias;
	/* --help: the usage lines after "usage: " (NULL: "perfbot bench NAME
	 * [options]"), a paragraph before the options and one after */
	const char *synopsis;
	const char *intro;
	const char *notes;
	/* a job's parameter that is not the type's: the advice after the message */
	const char *param_hint;
	/*
	 * Checks the rows against each other, after each passed the
	 * validator: 0, or -1 with the message added to why and the row to
	 * blame in *row (-1: none).  May be NULL.
	 */
	int (*check)(const struct bench_args *a, int *row, struct strbuf *why);
	/*
	 * Run once.  `out` arrives zeroed (bench_type_run()); returns
	 * out->status.  Nothing the run started remains when it returns.
	 */
	enum bench_status (*run)(const struct bench_run *run, struct bench_result *out);
};

/* ---- the registry (registry.c) ---------------------------------------------- */

/* Every type, in listing order, NULL-terminated. */
extern const struct bench_type *const bench_types[];

/* The type of a testcase, or NULL; an exec job (has_exec) falls back to exec's. */
const struct bench_type *bench_type_find(const char *testcase, bool has_exec);
/* The type nearest to `name` (for "did you mean"), or NULL. */
const char *bench_type_suggest(const char *name);
/*
 * `perfbot bench NAME`: a type by its name, or (cli_alias) the type one
 * of whose choices NAME is, with *row and *choice set; NULL if neither.
 * *row is -1 for a type found by its own name.
 */
const struct bench_type *bench_cli_find(const char *name, int *row,
					size_t *choice);
/* The visible `perfbot bench` name nearest to `name`, or NULL. */
const char *bench_cli_suggest(const char *name);
/* Whether `perfbot bench NAME` runs the type by its own name. */
bool bench_type_cli_named(const struct bench_type *t);

/* Run t (t->run with out zeroed first). */
enum bench_status bench_type_run(const struct bench_type *t,
				 const struct bench_run *run,
				 struct bench_result *out);
/* The declared stat `name` of t, or NULL. */
const struct bench_stat_decl *bench_stat_find(const struct bench_type *t,
					      const char *name);
/* Add a declared stat to a result (at most BENCH_MAX_STATS: BUG beyond). */
void bench_result_add(struct bench_result *r, const struct bench_stat_decl *d,
		      double value);
/* Set why (and the status, returned): "fmt" shortened with "..." if long. */
enum bench_status bench_result_fail(struct bench_result *r,
				    enum bench_status status,
				    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void bench_result_release(struct bench_result *r);

const char *bench_status_name(enum bench_status s);
/* The record's status of a run that ended so. */
enum run_status bench_run_status(enum bench_status s);

/* ---- the validator (param.c) ---------------------------------------------- */

/* Every row at its default; BUG if the table is longer than BENCH_MAX_PARAMS. */
void bench_args_init(struct bench_args *a, const struct bench_type *t,
		     unsigned ncpus, bool job);
/* The row of a job key (not CLI-only, not generic), or -1. */
int bench_param_find(const struct bench_type *t, const char *key);
/* The job key nearest to `key` (generic ones the type takes included), or NULL. */
const char *bench_param_suggest(const struct bench_type *t, const char *key);

/*
 * Parse `text` for row `row` by its type and range; on BENCH_PARAM_OK the
 * slot is set and marked given (text kept), else left as it was.
 */
enum bench_param_status bench_args_set(struct bench_args *a, int row,
				       const char *text);
/*
 * A command-line flag of a choice (-T): selects it; BENCH_PARAM_CONFLICT
 * when a BENCH_EXCLUSIVE row already has another choice by a flag.
 * `opt` is the flag as written, kept for messages.
 */
enum bench_param_status bench_args_set_choice(struct bench_args *a, int row,
					      size_t choice, const char *opt);
/* A BOOL's flag: sets the opposite of its default. */
void bench_args_flag(struct bench_args *a, int row, const char *opt);
/* A value that is already a number (a generic key the job layer parsed). */
void bench_args_set_seconds(struct bench_args *a, int row, double s);

/*
 * The message for a status bench_args_set() returned, one line, added to
 * out: whole, however long the value it quotes (for BENCH_PARAM_UNKNOWN
 * row is ignored and text is the key).
 * cli: as `perfbot bench` words it ("invalid task count '0': must be at
 * least 1 ..."), else as a job's ("invalid nr_task '0': ...").
 */
void bench_param_message(const struct bench_args *a, int row, const char *text,
			 enum bench_param_status st, bool cli, struct strbuf *out);
/*
 * Whatever no single row shows: required rows, then the type's check().
 * 0, or -1 with the message added to msg and the row to blame (-1: none).
 */
int bench_args_check(const struct bench_args *a, bool cli, int *row,
		     struct strbuf *msg);

/* The choice a row has (ENUM). */
void bench_param_choice(const struct bench_param *p, size_t i,
			struct bench_choice *out);
size_t bench_param_nr_choices(const struct bench_param *p);
/* The name of the choice an ENUM slot holds. */
const char *bench_args_choice_name(const struct bench_args *a, int row);

/* ---- the reference (reference.c) ------------------------------------------ */

/*
 * `perfbot bench NAME --help`, built from t's table: the usage, the
 * options, the choices sections, the notes.
 */
void bench_cli_help(const struct bench_type *t, struct strbuf *out);
/*
 * Every type's parameters and stats: `perfbot help benchmarks`, or with
 * markdown docs/benchmarks.md exactly.
 */
void bench_reference(struct strbuf *out, bool markdown);

#endif
