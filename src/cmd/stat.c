/*
 * stat.c - perfbot stat: time any command over repeated runs, as
 * `perf stat -r` prints it, and compare variants run by run.
 */
#define _GNU_SOURCE
#include "bench/exec.h"
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "report/report.h"
#include "stats/compare.h"
#include "stats/summary.h"
#include "stats/ttest.h"
#include "report/tabular.h"
#include "util/interrupt.h"
#include "util/parse.h"
#include "util/perfevent.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/timeutil.h"
#include "util/words.h"
#include "version.h"

#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_VARIANTS 16
#define MAX_REPEAT 1000000

/* perf stat's default events, cache-misses added (issue 18) */
static const char *const default_events[] = {
	"task-clock", "context-switches", "cpu-migrations", "page-faults",
	"cycles", "instructions", "branches", "branch-misses", "cache-misses",
};

#define NR_DEFAULT_EVENTS (sizeof(default_events) / sizeof(default_events[0]))

static const char stat_usage[] =
	"usage: perfbot stat [options] -- COMMAND [ARG ...]\n"
	"\n"
	"Run COMMAND repeatedly and print its mean wall, user and system time,\n"
	"max RSS and event counts, each with the standard error of the mean, as\n"
	"`perf stat -r`.\n"
	"\n"
	"  -r, --repeat N      measured runs of each command (default 5)\n"
	"  -w, --warmup N      unmeasured runs of each command first (default 0)\n"
	"      --vs 'COMMAND'  a variant to compare with COMMAND; repeatable (up\n"
	"                      to %1$d). The commands alternate run by run (A B A B\n"
	"                      ...) so drift cancels. Words are split like a shell's,\n"
	"                      without any expansion; no shell runs.\n"
	"  -n, --name NAME     a name for the output: the first names COMMAND, the\n"
	"                      next the --vs commands in order; repeatable\n"
	"  -e, --events LIST   the events to count, comma-separated; repeatable\n"
	"                      (default: task-clock, context-switches,\n"
	"                      cpu-migrations, page-faults, cycles, instructions,\n"
	"                      branches, branch-misses, cache-misses; also\n"
	"                      cache-references). An event this machine cannot\n"
	"                      count is said to be unavailable, with the reason\n"
	"      --no-counters   count no events\n"
	"      --progress WHEN a progress line on stderr: auto (when it is a\n"
	"                      terminal and not --show-output), always, never\n"
	"      --timeout TIME  kill a run after TIME (default: none); it counts\n"
	"                      as failed\n"
	"      --fail-fast     stop at the first failed run\n"
	"      --show-output   let the commands write to the terminal (default:\n"
	"                      their stdout and stderr go to /dev/null)\n"
	"      --json          print every run and the summaries as JSON\n"
	"      --format FMT    text (default), json, csv or markdown (a row per\n"
	"                      command and measure or event: the JSON's summaries)\n"
	"      --color WHEN    colour the verdicts: auto (a terminal, unless\n"
	"                      NO_COLOR is set or TERM=dumb), always, never\n"
	"  -h, --help          show this help\n"
	"\n"
	"A run that exits non-zero, is killed by a signal or times out is\n"
	"reported and left out of the statistics. With variants, each is\n"
	"compared with COMMAND: the ratio of mean times, then perfbot compare's\n"
	"verdict for a KPI with its own %2$g%% interval of the change (trimmed\n"
	"means, Yuen's test; Mann-Whitney's p beside it): changed when p < %3$g\n"
	"and the time changed by %4$g%% or more, small when sure but smaller,\n"
	"same when the whole interval is within +-%4$g%%, else unknown (more runs\n"
	"would decide); a verdict needs %5$d successful runs of each. Exit\n"
	"status: 0 done, 1 a run failed with --fail-fast or a command never\n"
	"succeeded, 2 bad usage or a command that cannot be run, 128+signal when\n"
	"interrupted.\n";

struct variant {
	char **argv;		/* owned: split from --vs, or borrowed from main's argv */
	bool owned;
	char *label;		/* the command as typed, words joined */
	const char *name;	/* -n's, borrowed from argv; else label */
	size_t nr_ok, nr_failed;
	struct exec_run *runs;	/* every measured run, failed ones included */
	size_t nr_runs;
	/* runs[r]'s count of event e: counts[r * nr_events + e]; NAN: none */
	double *counts;
	int *count_err;		/* per event: the errno of its last NAN */
	double ok_s;		/* the successful runs' wall time: the mean so far */
	double timed_s;		/* every run's wall time, warm-ups included */
	size_t nr_timed;	/* ... and how many: the ETA's mean */
};

enum progress_mode { PROGRESS_AUTO, PROGRESS_ALWAYS, PROGRESS_NEVER };

/* The line rewritten on stderr between runs (hyperfine's, simpler). */
struct progress {
	bool on;
	size_t shown;		/* bytes of the line on screen; 0: none */
	size_t cols;		/* the terminal's width: never wrap */
};

struct stat_opts {
	unsigned long repeat, warmup;
	double timeout_s;
	bool fail_fast, show_output, json, no_counters;
	int tabular;		/* --format csv|markdown: an enum tabular_format; -1 none */
	enum progress_mode progress_mode;
	enum colour_when colour;	/* --color: the verdicts on a terminal */
	size_t nr_variants;
	struct variant v[MAX_VARIANTS];
	const char *names[MAX_VARIANTS];	/* -n, in order */
	size_t nr_names;
	const char *events[PE_NR];		/* -e, in order, each once */
	size_t nr_events;
	struct perfevent_exec pe;		/* armed for each measured run */
	struct progress progress;
};

#define usage_error(...) cmd_usage_error("stat", __VA_ARGS__)

static char *join_words(char *const *argv)
{
	struct strbuf sb = STRBUF_INIT;

	for (char *const *p = argv; *p; p++) {
		if (p != argv)
			strbuf_addch(&sb, ' ');
		strbuf_addstr(&sb, *p);
	}
	return strbuf_detach(&sb, NULL);
}

static int add_variant(struct stat_opts *o, char **argv, bool owned)
{
	struct variant *v;

	if (o->nr_variants == MAX_VARIANTS)
		return usage_error("at most %d commands", MAX_VARIANTS);
	v = &o->v[o->nr_variants++];
	v->argv = argv;
	v->owned = owned;
	v->label = join_words(argv);
	return v->label ? 0 : usage_error("out of memory");
}

static void release(struct stat_opts *o)
{
	for (size_t i = 0; i < o->nr_variants; i++) {
		if (o->v[i].owned)
			free_words(o->v[i].argv);
		free(o->v[i].label);
		free(o->v[i].runs);
		free(o->v[i].counts);
		free(o->v[i].count_err);
	}
	perfevent_exec_release(&o->pe);
}

/* The name the output uses: -n's, else the command. */
static const char *shown(const struct variant *v)
{
	return v->name ? v->name : v->label;
}

/* -e's error for an unknown event: the nearest name, or all of them. */
static int unknown_event(const char *list, const char *word)
{
	const char *names[PE_NR + 1] = { NULL };
	const char *near;
	struct strbuf all = STRBUF_INIT;
	int ret;

	for (size_t i = 0; i < PE_NR; i++) {
		names[i] = perfevent_table[i].name;
		strbuf_addf(&all, "%s%s", i ? ", " : "", names[i]);
	}
	near = suggest_nearest(word, names);
	if (near)
		ret = usage_error("-e %s: unknown event '%s' (did you mean '%s'?)",
				  list, word, near);
	else
		ret = usage_error("-e %s: unknown event '%s'; perfbot counts %s",
				  list, word, strbuf_error(&all) ? "..." : all.buf);
	strbuf_release(&all);
	return ret;
}

/* -e LIST: each known event once, in the order given. */
static int add_events(struct stat_opts *o, const char *list)
{
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		char *word = strndup(p, len);
		const struct perfevent *e;
		bool dup = false;

		if (!word)
			return usage_error("out of memory");
		e = perfevent_find(word);
		if (!e) {
			int ret = unknown_event(list, word);

			free(word);
			return ret;
		}
		free(word);
		for (size_t i = 0; i < o->nr_events; i++)
			dup |= !strcmp(o->events[i], e->name);
		if (!dup)
			o->events[o->nr_events++] = e->name;
		p += len;
		if (!*p)
			return 0;
	}
}

static int parse_args(int argc, char **argv, struct stat_opts *o,
		      char **vs, size_t *nr_vs)
{
	enum { OPT_VS = 256, OPT_TIMEOUT, OPT_FAIL_FAST, OPT_SHOW, OPT_JSON,
	       OPT_NO_COUNTERS, OPT_PROGRESS, OPT_FORMAT, OPT_COLOR };
	static const struct option longopts[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "vs", required_argument, NULL, OPT_VS },
		{ "name", required_argument, NULL, 'n' },
		{ "events", required_argument, NULL, 'e' },
		{ "no-counters", no_argument, NULL, OPT_NO_COUNTERS },
		{ "progress", required_argument, NULL, OPT_PROGRESS },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "fail-fast", no_argument, NULL, OPT_FAIL_FAST },
		{ "show-output", no_argument, NULL, OPT_SHOW },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "color", required_argument, NULL, OPT_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	/* "+": stop at the first non-option, the command's own options are its */
	while ((c = getopt_long(argc, argv, "+:r:w:n:e:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			switch (parse_ulong(optarg, 1, MAX_REPEAT, &o->repeat)) {
			case PARSE_OK:
				break;
			case PARSE_TOO_LARGE:
				return usage_error("-r %s is more than %d runs", optarg,
						   MAX_REPEAT);
			default:
				return usage_error("invalid run count '%s': expected a number of at least 1",
						   optarg);
			}
			break;
		case 'w':
			if (parse_ulong(optarg, 0, MAX_REPEAT, &o->warmup) != PARSE_OK)
				return usage_error("invalid warm-up run count '%s': expected 0 or more",
						   optarg);
			break;
		case OPT_VS:
			if (*nr_vs == MAX_VARIANTS - 1)
				return usage_error("at most %d --vs", MAX_VARIANTS - 1);
			vs[(*nr_vs)++] = optarg;
			break;
		case 'n':
			if (!*optarg)
				return usage_error("-n '': a name cannot be empty");
			/* one more than the commands can take: named at the end */
			if (o->nr_names == MAX_VARIANTS)
				return usage_error("-n '%s': more names than the %d commands stat runs at most",
						   optarg, MAX_VARIANTS);
			o->names[o->nr_names++] = optarg;
			break;
		case 'e':
			if (add_events(o, optarg))
				return EXIT_USAGE;
			break;
		case OPT_NO_COUNTERS:
			o->no_counters = true;
			break;
		case OPT_PROGRESS:
			if (!strcmp(optarg, "auto"))
				o->progress_mode = PROGRESS_AUTO;
			else if (!strcmp(optarg, "always"))
				o->progress_mode = PROGRESS_ALWAYS;
			else if (!strcmp(optarg, "never"))
				o->progress_mode = PROGRESS_NEVER;
			else
				return usage_error("invalid --progress '%s': expected auto, always or never",
						   optarg);
			break;
		case OPT_TIMEOUT:
			if (cmd_parse_duration("stat", "timeout", optarg, &o->timeout_s))
				return EXIT_USAGE;
			if (!(o->timeout_s > 0))
				return usage_error("invalid timeout '%s': expected a time above 0",
						   optarg);
			break;
		case OPT_FAIL_FAST:
			o->fail_fast = true;
			break;
		case OPT_SHOW:
			o->show_output = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_FORMAT:
			if (cmd_parse_format("stat", optarg, &o->json, &o->tabular))
				return EXIT_USAGE;
			break;
		case OPT_COLOR:
			if (cmd_colour_option("stat", optarg, &o->colour))
				return EXIT_USAGE;
			break;
		case 'h':
			printf(stat_usage, MAX_VARIANTS - 1, 100 * COMPARE_LEVEL,
			       COMPARE_ALPHA, COMPARE_KPI_MIN_PCT, COMPARE_MIN_RUNS);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("no command to run: perfbot stat [options] -- COMMAND [ARG ...]");
	if (o->no_counters && o->nr_events)
		return usage_error("-e and --no-counters: choose one");
	if (!o->no_counters && !o->nr_events)
		for (size_t i = 0; i < NR_DEFAULT_EVENTS; i++)
			o->events[o->nr_events++] = default_events[i];
	if (o->no_counters)
		o->nr_events = 0;
	return 0;
}

/* Build the variants and check that every command can be executed. */
static int setup_variants(struct stat_opts *o, char **cmd, char **vs,
			  size_t nr_vs)
{
	int err = add_variant(o, cmd, false);

	for (size_t i = 0; !err && i < nr_vs; i++) {
		char **words;
		int n = split_words(vs[i], &words);

		if (n == -EINVAL)
			return usage_error("--vs '%s': unterminated quote or trailing backslash",
					   vs[i]);
		if (n < 0)
			return usage_error("out of memory");
		if (n == 0) {
			free_words(words);
			return usage_error("--vs '%s': no command", vs[i]);
		}
		err = add_variant(o, words, true);
		if (err)
			free_words(words);
	}
	if (err)
		return err;
	if (o->nr_names > o->nr_variants)
		return usage_error("-n '%s': %zu names for %zu command%s",
				   o->names[o->nr_variants], o->nr_names,
				   o->nr_variants, o->nr_variants > 1 ? "s" : "");
	for (size_t i = 0; i < o->nr_names; i++)
		o->v[i].name = o->names[i];
	for (size_t i = 0; i < o->nr_variants; i++) {
		struct variant *v = &o->v[i];
		int e = exec_find(v->argv[0]);

		if (e)
			return usage_error("cannot run '%s': %s", v->argv[0],
					   strerror(-e));
		v->runs = calloc(o->repeat, sizeof(*v->runs));
		v->counts = calloc(o->repeat * (o->nr_events ? o->nr_events : 1),
				   sizeof(*v->counts));
		v->count_err = calloc(o->nr_events ? o->nr_events : 1,
				      sizeof(*v->count_err));
		if (!v->runs || !v->counts || !v->count_err)
			return usage_error("out of memory");
	}
	/* the names were checked by -e */
	if (perfevent_exec_init(&o->pe, o->events, o->nr_events))
		return usage_error("out of memory");
	return 0;
}

/* "exit status 3", "killed by signal 9 (Killed)", "timed out after 2 s" */
static void describe_failure(const struct exec_run *r, const struct stat_opts *o,
			     char *buf, size_t len)
{
	if (r->outcome == EXEC_TIMED_OUT)
		snprintf(buf, len, "timed out after %g s", o->timeout_s);
	else if (r->outcome == EXEC_STOPPED)
		snprintf(buf, len, "interrupted");
	else if (WIFSIGNALED(r->status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(r->status),
			 strsignal(WTERMSIG(r->status)));
	else
		snprintf(buf, len, "exit status %d", WEXITSTATUS(r->status));
}

/* ---- the progress line ---- */

static void progress_init(struct stat_opts *o)
{
	struct progress *p = &o->progress;
	struct winsize ws;

	p->on = o->progress_mode == PROGRESS_ALWAYS ||
		(o->progress_mode == PROGRESS_AUTO && !o->show_output &&
		 isatty(STDERR_FILENO));
	p->cols = 80;
	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 20)
		p->cols = ws.ws_col;
}

/* Before anything else is written to stderr, and at the end. */
static void progress_clear(struct stat_opts *o)
{
	if (!o->progress.shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	o->progress.shown = 0;
}

/* "51.2 ms", "1.234 s", "2 min 5 s": a time for people */
static void add_time(struct strbuf *sb, double s)
{
	if (s < 1)
		strbuf_addf(sb, "%.1f ms", 1e3 * s);
	else if (s < 60)
		strbuf_addf(sb, "%.3g s", s);
	else	/* whole seconds first, or 119.7 s would read "1 min 60 s" */
		strbuf_addf(sb, "%.0f min %.0f s", floor(round(s) / 60),
			    fmod(round(s), 60));
}

/* The mean wall time of a variant's successful measured runs; NAN: none. */
static double mean_so_far(const struct variant *v)
{
	return v->nr_ok ? v->ok_s / (double)v->nr_ok : NAN;
}

/*
 * Seconds left from round `round`, variant `cur` on: each command's runs
 * to come times its mean run so far (warm-ups and failures included, as
 * they take time too).  NAN until every command has run once.
 */
static double eta(const struct stat_opts *o, unsigned long round, size_t cur)
{
	unsigned long rounds = o->warmup + o->repeat;
	double left = 0;

	for (size_t i = 0; i < o->nr_variants; i++) {
		const struct variant *v = &o->v[i];
		unsigned long runs = rounds - round - (i < cur);

		if (!v->nr_timed)
			return NAN;
		left += (double)runs * v->timed_s / (double)v->nr_timed;
	}
	return left;
}

/*
 * Show which run comes next: written between runs only, never while one
 * is timed.  One line, rewritten with \r, cut to the terminal's width.
 */
static void progress_show(struct stat_opts *o, unsigned long round, size_t cur)
{
	const struct variant *v = &o->v[cur];
	bool warm = round < o->warmup;
	struct strbuf sb = STRBUF_INIT;
	double mean = mean_so_far(v), left = eta(o, round, cur);
	char *line;
	size_t len;

	if (!o->progress.on)
		return;
	strbuf_addf(&sb, "%s '%s'", warm ? "Warming up" : "Measuring", shown(v));
	if (o->nr_variants > 1)
		strbuf_addf(&sb, " (%zu of %zu)", cur + 1, o->nr_variants);
	if (warm)
		strbuf_addf(&sb, ": warm-up %lu of %lu", round + 1, o->warmup);
	else
		strbuf_addf(&sb, ": run %lu of %lu", round - o->warmup + 1, o->repeat);
	if (!warm && isfinite(mean)) {
		strbuf_addstr(&sb, ", mean ");
		add_time(&sb, mean);
	}
	if (isfinite(left)) {
		strbuf_addstr(&sb, ", ETA ");
		add_time(&sb, left);
	}
	/* a name with a newline or an escape must not break the line */
	line = strbuf_error(&sb) ? NULL : quote_line(sb.buf);
	strbuf_release(&sb);
	if (!line)
		return;
	len = strlen(line);
	if (len > o->progress.cols - 1) {
		len = o->progress.cols - 1;
		/* not in the middle of a UTF-8 character */
		while (len && ((unsigned char)line[len] & 0xc0) == 0x80)
			len--;
	}
	fprintf(stderr, "\r\033[K%.*s", (int)len, line);
	fflush(stderr);
	o->progress.shown = len ? len : 1;
	free(line);
}

/* ---- the runs ---- */

/* A measured run's counts into the variant's table. */
static void store_counts(struct stat_opts *o, struct variant *v)
{
	double *x = &v->counts[v->nr_runs * o->nr_events];

	perfevent_exec_collect(&o->pe, x);
	for (size_t e = 0; e < o->nr_events; e++)
		if (isnan(x[e]))
			v->count_err[e] = o->pe.err[e];
}

/*
 * The runs: warm-up rounds, then measured rounds, the variants taking
 * turns in each round.  Returns 0, or 1 when --fail-fast stopped it.
 * Only the measured runs are counted; the events are armed before the
 * spawn and read after the run, outside the time exec_run_once() takes.
 */
static int run_all(struct stat_opts *o)
{
	struct exec_opts eo = {
		.timeout_s = o->timeout_s, .show_output = o->show_output,
		.stop = &interrupted,
	};
	unsigned long rounds = o->warmup + o->repeat;

	for (unsigned long round = 0; round < rounds && !interrupted; round++) {
		bool warm = round < o->warmup;

		for (size_t i = 0; i < o->nr_variants && !interrupted; i++) {
			struct variant *v = &o->v[i];
			struct exec_run r;
			char why[128];
			int err;

			progress_show(o, round, i);
			if (!warm)
				perfevent_exec_arm(&o->pe);
			err = exec_run_once(v->argv, &eo, &r);
			if (!warm && !err && r.outcome != EXEC_STOPPED)
				store_counts(o, v);
			else
				perfevent_exec_disarm(&o->pe);
			if (err) {
				progress_clear(o);
				fprintf(stderr, "perfbot: stat: cannot run '%s': %s\n",
					v->argv[0], strerror(-err));
				return 1;
			}
			if (r.outcome == EXEC_STOPPED)
				break;	/* not a run: the user stopped it */
			v->timed_s += r.wall_s;
			v->nr_timed++;
			if (warm)
				continue;
			v->runs[v->nr_runs++] = r;
			if (exec_run_ok(&r)) {
				v->nr_ok++;
				v->ok_s += r.wall_s;
				continue;
			}
			v->nr_failed++;
			describe_failure(&r, o, why, sizeof(why));
			progress_clear(o);
			fprintf(stderr, "perfbot: stat: run %lu of '%s': %s\n",
				round - o->warmup + 1, shown(v), why);
			if (o->fail_fast)
				return 1;
		}
	}
	return 0;
}

enum measure { M_ELAPSED, M_USER, M_SYS, M_MAXRSS, NR_MEASURES };

static double measure_of(const struct exec_run *r, enum measure m)
{
	switch (m) {
	case M_ELAPSED:
		return r->wall_s;
	case M_USER:
		return r->user_s;
	case M_SYS:
		return r->sys_s;
	default:
		return (double)r->maxrss_kib;
	}
}

/* One measure of a variant's successful runs (malloc'd, *n of them), or NULL. */
static double *measure_values(const struct variant *v, enum measure m, size_t *n)
{
	double *x = calloc(v->nr_ok ? v->nr_ok : 1, sizeof(*x));

	*n = 0;
	for (size_t i = 0; x && i < v->nr_runs; i++)
		if (exec_run_ok(&v->runs[i]))
			x[(*n)++] = measure_of(&v->runs[i], m);
	return x;
}

/* Summary of one measure over a variant's successful runs. */
static void summarize_measure(const struct variant *v, enum measure m,
			      struct summary *s)
{
	size_t n;
	double *x = measure_values(v, m, &n);

	if (!x) {
		memset(s, 0, sizeof(*s));
		return;
	}
	summarize(x, n, s);
	free(x);
}

/* Decimals that show about 4 significant digits of a value. */
static int decimals_for(double x)
{
	int d;

	if (!(x > 0))
		return 4;
	d = 3 - (int)floor(log10(x));
	return d < 4 ? 4 : (d > 9 ? 9 : d);
}

/* One line: the mean, +- the error of the mean and its %, a note after. */
static void print_line(const struct summary *s, int prec, const char *unit,
		       const char *note)
{
	/* two doubles in %.9f, DBL_MAX's 309 digits included: always whole */
	char num[2 * (DBL_MAX_10_EXP + 16)];

	/* one run: no +-, as perf prints it, and no division by zero */
	if (s->n > 1)
		snprintf(num, sizeof(num), "%.*f +- %.*f", prec, s->mean, prec,
			 s->sem);
	else
		snprintf(num, sizeof(num), "%.*f", prec, s->mean);
	if (s->n > 1 && s->mean > 0)
		printf("  %28s %-22s( +- %5.2f%% )", num, unit,
		       100 * s->sem / s->mean);
	else if (note)
		printf("  %28s %-22s", num, unit);
	else
		printf("  %28s %s", num, unit);
	if (note)
		printf("  # %s", note);
	putchar('\n');
}

/* An event's counts over a variant's successful runs (NAN: not counted). */
static void summarize_event(const struct stat_opts *o, const struct variant *v,
			    size_t e, struct summary *s)
{
	double *x = calloc(v->nr_runs ? v->nr_runs : 1, sizeof(*x));
	size_t n = 0;

	memset(s, 0, sizeof(*s));
	if (!x)
		return;
	for (size_t r = 0; r < v->nr_runs; r++) {
		double c = v->counts[r * o->nr_events + e];

		if (exec_run_ok(&v->runs[r]) && !isnan(c))
			x[n++] = c;
	}
	summarize(x, n, s);
	free(x);
}

/* The index of an event counted and summarised, or -1. */
static int event_index(const struct stat_opts *o, const struct summary *ev,
		       const char *name)
{
	for (size_t e = 0; e < o->nr_events; e++)
		if (!strcmp(o->events[e], name))
			return ev[e].n ? (int)e : -1;
	return -1;
}

/* "cycles", or "cycles:u" when only user space could be counted */
static void event_label(const struct stat_opts *o, size_t e, char *buf,
			size_t len)
{
	const struct perfevent *pe = o->pe.ev[e];

	snprintf(buf, len, "%s%s%s%s", pe->unit, *pe->unit ? " " : "", pe->name,
		 o->pe.user_only[e] ? ":u" : "");
}

/* Why an event has no count in any of a variant's successful runs. */
static const char *event_why(const struct stat_opts *o, const struct variant *v,
			     size_t e)
{
	int err = v->count_err[e];

	/* every run failed before its count could be read */
	return perfevent_why(o->pe.ev[e], err ? err : ENODATA);
}

/* perf stat's notes: CPUs utilized, insn per cycle, % of all branches */
static const char *event_note(const struct stat_opts *o, const struct summary *ev,
			      size_t e, double elapsed_s, char *buf, size_t len)
{
	const char *name = o->events[e];
	int other;

	if (!strcmp(name, "task-clock") && elapsed_s > 0) {
		snprintf(buf, len, "%.3f CPUs utilized", ev[e].mean / (1e3 * elapsed_s));
		return buf;
	}
	if (!strcmp(name, "instructions") &&
	    (other = event_index(o, ev, "cycles")) >= 0 && ev[other].mean > 0) {
		snprintf(buf, len, "%.2f insn per cycle", ev[e].mean / ev[other].mean);
		return buf;
	}
	if (!strcmp(name, "branch-misses") &&
	    (other = event_index(o, ev, "branches")) >= 0 && ev[other].mean > 0) {
		snprintf(buf, len, "%.2f%% of all branches",
			 100 * ev[e].mean / ev[other].mean);
		return buf;
	}
	if (!strcmp(name, "cache-misses") &&
	    (other = event_index(o, ev, "cache-references")) >= 0 &&
	    ev[other].mean > 0) {
		snprintf(buf, len, "%.2f%% of all cache refs",
			 100 * ev[e].mean / ev[other].mean);
		return buf;
	}
	return NULL;
}

static void print_counters(const struct stat_opts *o, const struct variant *v,
			   double elapsed_s)
{
	struct summary ev[PE_NR];

	for (size_t e = 0; e < o->nr_events; e++)
		summarize_event(o, v, e, &ev[e]);
	for (size_t e = 0; e < o->nr_events; e++) {
		char label[64], note[64];

		event_label(o, e, label, sizeof(label));
		if (!ev[e].n) {
			int err = v->count_err[e];

			/* perf's words in the number's place, then why */
			printf("  %28s %-22sunavailable: %s\n",
			       err == ENODATA ? "<not counted>" : "<not supported>",
			       label, event_why(o, v, e));
			continue;
		}
		/* perf's msec with 2 decimals; a small count's too, for its spread */
		print_line(&ev[e], strcmp(o->events[e], "task-clock") &&
				   ev[e].mean >= 100 ? 0 : 2, label,
			   event_note(o, ev, e, elapsed_s, note, sizeof(note)));
	}
}

static void print_variant(const struct variant *v, const struct stat_opts *o)
{
	struct summary s[NR_MEASURES];
	int prec;

	for (int m = 0; m < NR_MEASURES; m++)
		summarize_measure(v, (enum measure)m, &s[m]);
	printf("\n Performance counter stats for '%s'", shown(v));
	if (o->repeat > 1)
		printf(" (%zu runs)", v->nr_ok);
	printf(":\n\n");
	if (v->nr_failed)
		printf("  %zu of %zu runs failed and are left out\n\n", v->nr_failed,
		       v->nr_runs);
	if (!v->nr_ok) {
		printf("  no successful run\n");
		return;
	}
	prec = decimals_for(s[M_USER].mean > s[M_SYS].mean ? s[M_USER].mean
							     : s[M_SYS].mean);
	print_line(&s[M_USER], prec, "seconds user", NULL);
	print_line(&s[M_SYS], prec, "seconds sys", NULL);
	print_line(&s[M_MAXRSS], 0, "KiB maxrss", NULL);
	print_counters(o, v, s[M_ELAPSED].mean);
	putchar('\n');
	print_line(&s[M_ELAPSED], decimals_for(s[M_ELAPSED].mean),
		   "seconds time elapsed", NULL);
}

/*
 * A variant against the baseline: perf's ratio with its interval, and the
 * elapsed time judged as perfbot compare judges a KPI -- by compare_sets()
 * itself, so the test, the floor and the words are compare's.
 */
struct comparison {
	struct summary a, b;
	struct ratio_interval r;
	struct welch w;
	bool testable;		/* 2 runs of each: an interval and a test */
	struct stat_vs v;	/* p, mwu_p, %change and its interval, verdict */
};

#define ELAPSED "elapsed_s"

/* 0, or -ENOMEM with *c holding the summaries and an unknown verdict. */
static int compare(const struct variant *base, const struct variant *v,
		   struct comparison *c)
{
	char *names[] = { ELAPSED };
	double *x[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	struct stat_meta_list meta = { 0 };
	struct sample_set sets[2];
	struct compare_opts o;
	struct stat_row *rows = NULL;
	size_t nrows = 0;
	int err = -ENOMEM;

	memset(c, 0, sizeof(*c));
	c->v.verdict = VERDICT_UNKNOWN;
	c->v.p = c->v.mwu_p = NAN;
	c->v.change = (struct pct_change){ .pct = NAN, .low = NAN, .high = NAN };
	summarize_measure(base, M_ELAPSED, &c->a);
	summarize_measure(v, M_ELAPSED, &c->b);
	c->r = ratio_interval(&c->a, &c->b, COMPARE_LEVEL);
	c->w = welch_test(&c->a, &c->b);
	c->testable = c->a.n >= 2 && c->b.n >= 2;
	x[0] = measure_values(base, M_ELAPSED, &n[0]);
	x[1] = measure_values(v, M_ELAPSED, &n[1]);
	if (!x[0] || !x[1] || stat_meta_set(&meta, ELAPSED, "s", STAT_BETTER_LOWER, true))
		goto out;
	for (int i = 0; i < 2; i++)
		sets[i] = (struct sample_set){
			.commit = shown(i ? v : base), .nr = 1, .names = names,
			.values = &x[i], .counts = &n[i], .nr_runs = n[i], .meta = &meta,
		};
	compare_opts_init(&o);
	err = compare_sets(sets, 2, &o, &rows, &nrows);
	/* no row: a side without a successful run has nothing to test */
	if (!err && nrows)
		c->v = rows[0].vs[0];
	else if (!err)
		c->v.verdict = VERDICT_FEW_RUNS;
	compare_release(rows, nrows);
out:
	stat_meta_release(&meta);
	free(x[0]);
	free(x[1]);
	return err;
}

static void print_comparisons(const struct stat_opts *o)
{
	const struct variant *base = &o->v[0];
	bool colour = colour_for(o->colour, stdout);

	printf("\n Compared with '%s':\n\n", shown(base));
	for (size_t i = 1; i < o->nr_variants; i++) {
		const struct variant *v = &o->v[i];
		struct comparison c;
		int prec;

		if (compare(base, v, &c)) {
			printf("  '%s': out of memory\n", shown(v));
			continue;
		}
		if (!c.a.n || !c.b.n) {
			printf("  '%s': no successful runs to compare\n", shown(v));
			continue;
		}
		prec = decimals_for(fmax(c.a.mean, c.b.mean));
		/* seed 004's form: variant / baseline = ratio ( change ) */
		printf("  %.*f / %.*f = %.4f ( %.2f%% ) %s  '%s'\n", prec, c.b.mean,
		       prec, c.a.mean, c.r.ratio, 100 * fabs(c.r.ratio - 1),
		       c.r.ratio > 1 ? "slowdown" : (c.r.ratio < 1 ? "speedup" : "no change"),
		       shown(v));
		if (!c.testable) {
			printf("      needs 2 or more successful runs of each for an interval and a test\n");
			continue;
		}
		/*
		 * The verdict's own interval (compare's statistic: trimmed
		 * means, Yuen's test), so that the two never disagree; the
		 * ratio of the means above is perf's form.
		 */
		printf("      %g%% interval of the change %+.2f%% .. %+.2f%%; Yuen's test p = %.3g",
		       100 * COMPARE_LEVEL, c.v.change.low, c.v.change.high, c.v.p);
		if (isfinite(c.v.mwu_p))
			printf(", Mann-Whitney p = %.3g", c.v.mwu_p);
		fputs(": ", stdout);
		colour_fputs(stdout, colour, report_verdict_colour(STAT_BETTER_LOWER, &c.v),
			     verdict_name(c.v.verdict));
		if (c.v.verdict == VERDICT_FEW_RUNS)
			printf(" (a verdict needs %d runs of each)", COMPARE_MIN_RUNS);
		putchar('\n');
	}
}

/* JSON has no NaN or infinity: null says "not computed". */
static json_t *number(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *summary_json(const struct summary *s)
{
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f}",
			 "n", (json_int_t)s->n, "mean", s->mean, "stderr", s->sem,
			 "stddev", s->stddev, "min", s->min, "max", s->max,
			 "rel_stderr_pct", s->mean > 0 ? 100 * s->sem / s->mean : 0.0);
}

/* One run's counts: {"cycles": 123, "task-clock": 1.9, ...}, null: none */
static json_t *run_counters_json(const struct stat_opts *o,
				 const struct variant *v, size_t r)
{
	json_t *obj = json_object();

	for (size_t e = 0; e < o->nr_events; e++)
		json_object_set_new(obj, o->events[e],
				    number(v->counts[r * o->nr_events + e]));
	return obj;
}

/*
 * Each event over the successful runs: its summary, or why it is
 * unavailable ({"n": 0, "unavailable": "no hardware counter ..."}).
 */
static json_t *counters_json(const struct stat_opts *o, const struct variant *v)
{
	json_t *obj = json_object();

	for (size_t e = 0; e < o->nr_events; e++) {
		struct summary s;
		json_t *c;

		summarize_event(o, v, e, &s);
		if (s.n)
			c = summary_json(&s);
		else
			c = json_pack("{s:I, s:s}", "n", (json_int_t)0,
				      "unavailable", event_why(o, v, e));
		json_object_set_new(c, "unit", json_string(o->pe.ev[e]->unit));
		json_object_set_new(c, "user_only", json_boolean(o->pe.user_only[e]));
		json_object_set_new(obj, o->events[e], c);
	}
	return obj;
}

static json_t *variant_json(const struct variant *v, const struct stat_opts *o)
{
	static const char *const names[NR_MEASURES] = {
		"elapsed_s", "user_s", "sys_s", "maxrss_kib",
	};
	json_t *runs = json_array(), *cmd = json_array(), *obj;

	for (char **p = v->argv; *p; p++)
		json_array_append_new(cmd, json_string(*p));
	for (size_t i = 0; i < v->nr_runs; i++) {
		const struct exec_run *r = &v->runs[i];
		char why[128] = "";
		json_t *run;

		if (!exec_run_ok(r))
			describe_failure(r, o, why, sizeof(why));
		run = json_pack("{s:f, s:f, s:f, s:I, s:b, s:s?}",
				"elapsed_s", r->wall_s, "user_s", r->user_s,
				"sys_s", r->sys_s, "maxrss_kib", (json_int_t)r->maxrss_kib,
				"ok", exec_run_ok(r), "failure", *why ? why : NULL);
		json_object_set_new(run, "counters", run_counters_json(o, v, i));
		json_array_append_new(runs, run);
	}
	obj = json_pack("{s:s, s:o, s:o, s:I, s:I, s:o}", "label", v->label,
			"name", json_str(shown(v)), "command", cmd,
			"ok_runs", (json_int_t)v->nr_ok,
			"failed_runs", (json_int_t)v->nr_failed, "runs", runs);
	for (int m = 0; m < NR_MEASURES; m++) {
		struct summary s;

		summarize_measure(v, (enum measure)m, &s);
		json_object_set_new(obj, names[m], summary_json(&s));
	}
	json_object_set_new(obj, "counters", counters_json(o, v));
	return obj;
}

static int print_json(const struct stat_opts *o)
{
	json_t *root, *vars = json_array(), *cmps = json_array();
	json_t *events = json_array();

	for (size_t e = 0; e < o->nr_events; e++)
		json_array_append_new(events, json_string(o->events[e]));
	for (size_t i = 0; i < o->nr_variants; i++)
		json_array_append_new(vars, variant_json(&o->v[i], o));
	for (size_t i = 1; i < o->nr_variants; i++) {
		struct comparison c;

		if (compare(&o->v[0], &o->v[i], &c)) {
			json_decref(vars);
			json_decref(cmps);
			json_decref(events);
			return cmd_print_json("stat", NULL);
		}
		json_array_append_new(cmps, json_pack(
			"{s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:s}",
			"baseline", (json_int_t)0, "variant", (json_int_t)i,
			"ratio", number(c.r.ratio), "ratio_low", number(c.r.low),
			"ratio_high", number(c.r.high), "welch_t", number(c.w.t),
			"p", number(c.w.p),
			"significant", c.testable && c.w.p < COMPARE_ALPHA,
			"pct", number(c.v.change.pct), "low", number(c.v.change.low),
			"high", number(c.v.change.high), "mwu_p", number(c.v.mwu_p),
			"verdict", verdict_name(c.v.verdict)));
	}
	root = json_pack("{s:s, s:s, s:b, s:I, s:I, s:f, s:f, s:f, s:I, s:o, s:o, s:o}",
			 "perfbot_version", PERFBOT_VERSION,
			 "status", interrupted ? "incomplete" : "complete",
			 "incomplete", interrupted != 0,
			 "repeat", (json_int_t)o->repeat,
			 "warmup", (json_int_t)o->warmup, "alpha", COMPARE_ALPHA,
			 "min_change_pct", COMPARE_KPI_MIN_PCT, "level", COMPARE_LEVEL,
			 "min_runs", (json_int_t)COMPARE_MIN_RUNS,
			 "events", events, "commands", vars, "comparisons", cmps);
	return cmd_print_json("stat", root);
}

/* The text a terminal shows: perf stat's blocks, then the comparisons. */
static int print_text(const struct stat_opts *o)
{
	for (size_t i = 0; i < o->nr_variants; i++)
		print_variant(&o->v[i], o);
	if (o->nr_variants > 1)
		print_comparisons(o);
	if (interrupted)
		printf("\n incomplete: interrupted by signal %d\n", interrupted);
	putchar('\n');
	return 0;
}

/* One row of the table: a measure's or an event's summary. */
static void tabular_row(struct tabular *t, const struct variant *v, const char *what,
			const char *unit, const struct summary *s, const char *unavailable)
{
	tabular_cell(t, shown(v));
	tabular_cell(t, what);
	tabular_cell(t, unit);
	tabular_cellf(t, "%zu", s->n);
	tabular_number(t, s->n ? s->mean : NAN);
	tabular_number(t, s->n ? s->sem : NAN);
	tabular_number(t, s->n ? s->stddev : NAN);
	tabular_number(t, s->n ? s->min : NAN);
	tabular_number(t, s->n ? s->max : NAN);
	tabular_cell(t, unavailable);
	tabular_end_row(t);
}

/* A row per command and measure, then per event: the JSON's summaries, its digits. */
static int print_tabular(const struct stat_opts *o)
{
	static const char *const names[NR_MEASURES] = {
		"elapsed_s", "user_s", "sys_s", "maxrss_kib",
	};
	static const char *const units[NR_MEASURES] = { "s", "s", "s", "KiB" };
	static const struct tabular_column cols[] = {
		{ "command", false }, { "measure", false }, { "unit", false }, { "n", true },
		{ "mean", true }, { "stderr", true }, { "stddev", true }, { "min", true },
		{ "max", true }, { "unavailable", false },
	};
	struct tabular t;
	int err;

	tabular_begin(&t, stdout, (enum tabular_format)o->tabular, cols,
		      sizeof(cols) / sizeof(cols[0]));
	for (size_t i = 0; i < o->nr_variants; i++) {
		const struct variant *v = &o->v[i];
		struct summary s;

		for (int m = 0; m < NR_MEASURES; m++) {
			summarize_measure(v, (enum measure)m, &s);
			tabular_row(&t, v, names[m], units[m], &s, NULL);
		}
		for (size_t e = 0; e < o->nr_events; e++) {
			summarize_event(o, v, e, &s);
			tabular_row(&t, v, o->events[e], o->pe.ev[e]->unit, &s,
				    s.n ? NULL : event_why(o, v, e));
		}
	}
	err = tabular_finish(&t);
	if (err)
		return cmd_failure("stat", "cannot write the table: %s", strerror(-err));
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { .repeat = 5, .tabular = -1 };
	char *vs[MAX_VARIANTS];
	size_t nr_vs = 0;
	int ret = parse_args(argc, argv, &o, vs, &nr_vs);
	bool never_ok = false;

	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	ret = setup_variants(&o, argv + optind, vs, nr_vs);
	if (ret)
		goto out;
	ret = cmd_lifetime_start("stat");
	if (ret)
		goto out;
	interrupt_install();
	progress_init(&o);
	ret = run_all(&o) ? EXIT_FAILED : EXIT_OK;
	progress_clear(&o);
	/* one function per format: the output is written in one place */
	if ((o.json ? print_json : o.tabular >= 0 ? print_tabular : print_text)(&o))
		ret = EXIT_FAILED;
	for (size_t i = 0; i < o.nr_variants; i++)
		never_ok |= o.v[i].nr_ok == 0;
	if (never_ok && ret == EXIT_OK && !interrupted)
		ret = EXIT_FAILED;
	if (interrupted)
		ret = 128 + interrupted;
out:
	release(&o);
	return ret;
}
