/*
 * report.h - the report a developer acts on, from what compare computed
 * (docs/design.md §9).  report/ formats; it never queries the store and never
 * computes statistics (stats/compare does).
 *
 * One report covers N commits (the first is the base) and the atomic jobs
 * that ran on all of them, each with its compare rows and the samples they
 * came from.  Writers write to a FILE and return 0 or a negative errno.
 * Ownership: everything is borrowed from the caller.  No state.
 */
#ifndef PERFBOT_REPORT_REPORT_H
#define PERFBOT_REPORT_REPORT_H

#include "record/record.h"
#include "stats/compare.h"
#include "util/colour.h"
#include "util/strbuf.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct report_commit {
	const char *id;		/* full sha or label, as stored */
	const char *given;	/* as the user named it (a prefix, a tag); NULL: id */
	const char *subject;	/* NULL unless known from a repository */
	const char *author, *date;	/* NULL unless known */
};

struct report_job {
	const char *testbox, *testcase, *job;
	const struct strmap *params;	/* the atomic job's parameters */
	const char *kpi;		/* its KPI stat name, or NULL */
	const char *machine;		/* "2 threads AMD EPYC with 23G memory" */
	const char *job_text;		/* to reproduce; may be NULL */
	/*
	 * The environment of one of its runs (a run's env), or NULL: the
	 * email's parameter block adds the identity keys the job recorded
	 * (job.cpufreq_governor, job.ucode, job.kconfig, job.compiler,
	 * job.rootfs) and the machine's cpufreq_governor and microcode (as
	 * `ucode`) where the job gave none (docs/report.md, "email").
	 */
	const struct strmap *env;
	/*
	 * The email's "test-description:" and "test-url:" lines; NULL: those
	 * of the testcase when it is one of perfbot's benchmarks
	 * (report_test_description()), else none.
	 */
	const char *test_description, *test_url;
	const struct sample_set *sets;	/* [ncommits], sets[0] the base */
	const struct stat_row *rows;	/* compare_sets() of sets */
	size_t nr_rows;
	/*
	 * [ncommits], or NULL when the job ran everywhere: on commit c, why
	 * every run of it was unsupported here (the runs' env
	 * last_state.reason, "" when they give none), NULL where it ran.  A
	 * job unsupported on any commit has no rows (nr_rows 0); its sets
	 * carry only nr_runs.
	 */
	const char *const *unsupported;
	/*
	 * [ncommits - 1], or NULL: how the runs of commit c + 1 were disturbed
	 * against the base's (stats/compare.h, compare_disturbance()).  NULL:
	 * the writers ask compare_disturbance() of sets themselves.
	 */
	const struct compare_disturbance *disturbance;
	/*
	 * The runs compared started at this time (Unix s) or later: compare
	 * --measure's window of interleaved runs; 0: every stored run.
	 */
	double since;
};

struct report {
	const struct report_commit *commits;
	size_t ncommits;
	const struct report_job *jobs;
	size_t njobs;
	/*
	 * repo_url: where the code is, as a reader fetches it (the origin's
	 * URL, else a path); printed under the email's commit line with the
	 * branch, and cloned in its "To reproduce".  branch: "tree:branch" or
	 * "branch", the subject's first [prefix].  Both may be NULL.
	 */
	const char *repo_url, *branch;
	/*
	 * The local repository the runs were built in; "To reproduce" passes
	 * it to --repo when there is no repo_url.  May be NULL.
	 */
	const char *repo;
	/*
	 * The subject's [SUBSYSTEM] (report_subsystem() of the culprit), or
	 * NULL: none.  With neither branch nor subsystem the subject starts
	 * "[perfbot]".
	 */
	const char *subsystem;
	/*
	 * "How sure" evidence, lines the caller formatted (the bisection's
	 * P(first bad) and runs, the confirmation against the parent with its
	 * interval and p), printed whole in the email's own section; NULL or
	 * "": none.
	 */
	const char *evidence;
	const char *from, *to;		/* email addresses; may be NULL */
	const char *cc;			/* the Cc: header's addresses; may be NULL */
	/*
	 * A follow-up: the Message-ID ("<...>") of the report it follows;
	 * its subject is "Re: " and the first's, with In-Reply-To and
	 * References.  NULL: a report of its own.
	 */
	const char *in_reply_to;
	const char *reported_by;	/* "Reported-by:" tag value; may be NULL */
	const char *link;		/* "Closes:" link; may be NULL */
	const struct compare_opts *opts;	/* the verdicts' options; NULL: defaults */
	int show_all;			/* every row, not only the changed */
	/*
	 * The headline only among this test box's jobs (a fleet's report
	 * about the box a bisection ran on); the other boxes' changes still
	 * go to "In addition to that".  NULL: every box's jobs compete
	 * (docs/report.md, "Several test boxes").
	 */
	const char *headline_testbox;
	/*
	 * --stat: only the rows whose stat name matches one of these globs
	 * (fnmatch) are shown, in every format; the headline, the verdicts
	 * and the email's lead still weigh every row.  nr_stats 0: all.
	 */
	const char *const *stats;
	size_t nr_stats;
	/*
	 * The terminal's text (report_text(), report_write_job()): verdicts
	 * and their %change in colour (report_verdict_colour()), widths
	 * computed on the plain text.  The caller decides it for its stream
	 * (util/colour.h); report_email() and the other formats ignore it.
	 */
	bool colour;
};

/*
 * "improvement" or "regression" for a change of `change` in a stat that
 * is better `better` (enum stat_better: a row's), NULL when neither way
 * is better or nothing changed.
 */
const char *report_better_word(int better, double change);
/*
 * The same for a stat known only by its name (a bisection's metric):
 * its direction by record.h's stat_rule_better().  Rows carry theirs.
 */
const char *report_direction_word(const char *name, double change);
/*
 * How a verdict is coloured on a terminal (docs/compare.md, "Colour"):
 * changed red for a regression, green for an improvement, bold yellow
 * where neither way is better, as are new and gone; same dim; small,
 * unknown and few runs plain.  better: enum stat_better.
 */
enum colour report_verdict_colour(int better, const struct stat_vs *v);
/* A change known to be one (a change point): red, green or bold yellow. */
enum colour report_change_colour(int better, double change);
/* Did the row change against any of the other commits? */
int report_row_changed(const struct stat_row *row, size_t ncols);
/*
 * Is the row in the default view (docs/report.md, "Which rows")?  Every
 * row LKP's compare would show, whatever perfbot's verdict: a verdict
 * changed, new or gone in some column; a failure stat whose fail rate
 * differs; a number that moved by more than LKP's floor (1% for the
 * job's KPIs and the benchmark's own stats, `TESTCASE.*`, 5% for the
 * rest), decided or not.  r->show_all: every row.
 */
bool report_row_shown(const struct report *r, const struct report_job *j,
		      const struct stat_row *row);
/* Does name match r->stats (true when there are none)? */
bool report_stat_listed(const struct report *r, const char *name);
/*
 * Is the row in a job's table: listed (report_stat_listed()) and every
 * row when the table shows all (--all, too few runs), else
 * report_row_shown()'s.  Text, HTML, CSV and Markdown alike.
 */
bool report_row_listed(const struct report *r, const struct report_job *j,
		       const struct stat_row *row);
/*
 * The comparison as one CSV or Markdown table (report/tabular.h): a row
 * per (job, listed stat), the base's mean, then for each other commit its
 * %change, mean and verdict (with_ci: the interval and p too); the
 * columns are docs/compare.md's ("CSV and Markdown").  format is an enum
 * tabular_format.
 */
int report_tabular(FILE *out, const struct report *r, int format, int with_ci);
/*
 * The verdict of column col (0: the first commit after the base) in
 * words, appended to sb: "improvement" or "regression" (or "changed"
 * when neither way is better) for a change, and only for a change;
 * "small", "new", "gone", "same", "few runs"; "unknown — N more runs"
 * (more_runs), "unknown — machine disturbed" (disturbed); then, where
 * outlying runs set the table's %change of the means apart from the
 * verdict's of the trimmed means, " (trimmed means -5.0%: outlying runs)".
 * full: a change is "changed  improvement", as --all writes it.
 */
void report_verdict_words(struct strbuf *sb, const struct stat_row *row,
			  size_t col, bool full);
/* j->disturbance[col], else compare_disturbance() of the base and col + 1. */
void report_column_disturbance(const struct report_job *j, size_t col,
			       struct compare_disturbance *out);
/*
 * "machine disturbed: disturbance.others_cpu 0.02 vs 0.98 CPUs, limit
 * 0.25 — no verdict", appended to sb (d->differs must be set).
 */
void report_disturbance_words(struct strbuf *sb, const struct compare_disturbance *d);
/*
 * What a report is about: the KPI with the largest significant change
 * in the first commit (column, 0 the first after the base) where any KPI
 * changed -- of base, culprit and tip, the culprit.  Each job offers one
 * KPI: j->kpi when it changed somewhere, else its KPI row that changed
 * first, the largest |%change| among those.  Of the jobs offering one in
 * that first column, the largest |%change| wins (the first job in order
 * on a tie); *col is where the winner first changed.  A verdict counts
 * only when CHANGED: a disturbed column never does, nor one between runs
 * taken apart (stats/compare.h, compare_order(): time alone may have
 * made it; runs whose order is not known, imported ones, count).  Only
 * the jobs of r->headline_testbox when set.  false when no KPI changed
 * anywhere.
 */
bool report_headline(const struct report *r, size_t *job, size_t *col,
		     const struct stat_row **row);
/*
 * The same search among the changes report_headline() leaves out because
 * their runs were taken apart: what to tell a user who expected an email.
 */
bool report_change_apart(const struct report *r, size_t *job, size_t *col,
			 const struct stat_row **row);
/*
 * The subsystem a commit touches, for the email's subject: the prefix of
 * its subject before ": " ("timers: Implement ..." -> "timers",
 * "mm/slub: ..." -> "mm/slub", "x86, retpolines: ..." -> "x86,
 * retpolines") when it looks like one (letters, digits, "/_.+-", ", "
 * between names; at most 40 bytes); else the deepest directory every
 * path in paths[0..npaths) lies in ("kernel/time/a.c", "kernel/time/b.c"
 * -> "kernel/time").  Appended to out; false (out untouched) when
 * neither gives one.  subject and paths may be NULL.  Pure.
 */
bool report_subsystem(struct strbuf *out, const char *subject,
		      const char *const *paths, size_t npaths);
/*
 * The "test-description:" and "test-url:" of one of perfbot's benchmarks
 * by its testcase (will-it-scale, hackbench, netperf); false for any other
 * (an exec job's testcase).  Static strings.
 */
bool report_test_description(const char *testcase, const char **description,
			     const char **url);
struct bisect_result;
/*
 * The "How sure" lines (struct report's evidence) of a bisection that
 * found its culprit (record/bisect_result.h): "P(first bad) 99.8% that
 * <sha:12> is the first bad commit (bisection 3: 24 runs on 4 of the 11
 * candidate commits)", the next most likely, "confirmed against its
 * parent <sha:12>: +10.1% [+8.9%, +11.3%] (95% interval), p=3.4e-11:
 * changed (6 + 6 runs)" (or that it was not, or did not show the
 * change), and the good and bad commits' change.  Appended to sb; 0,
 * -EINVAL (nothing appended) when r found no culprit or breaks the
 * document's rules, -ENOMEM.
 */
int report_bisect_evidence(struct strbuf *sb, const struct bisect_result *r);
/* Was the job unsupported here on some commit (j->unsupported)? */
int report_job_unsupported(const struct report *r, const struct report_job *j);

/* The LKP-style table of one job (docs/design.md §7), as compare prints it. */
int report_write_table(FILE *out, const struct report *r,
		       const struct report_job *j, int with_ci);
/*
 * "commit X: machine disturbed: ... — no verdict", one line for each
 * column whose runs were disturbed otherwise than the base's.
 */
int report_write_disturbed(FILE *out, const struct report *r,
			   const struct report_job *j);
/*
 * A job's header: testbox, job and parameters (full: also its testcase,
 * machine and KPI, as reports show them).
 */
void report_write_job_header(FILE *out, const struct report_job *j, int full);
/*
 * "unsupported here: REASON" (per commit, "commit X: unsupported here:
 * REASON", unless every commit gives the same); 1 when the job was
 * unsupported and lines were written, 0 when it ran everywhere.
 */
int report_write_unsupported(FILE *out, const struct report *r,
			     const struct report_job *j);
/* "verdicts need 3 runs a side: commit X has 2 (1 more needed)" lines. */
void report_write_few_runs(FILE *out, const struct report *r,
			   const struct report_job *j);
/* Header, then the table or the unsupported lines, then the few-runs lines. */
int report_write_job(FILE *out, const struct report *r,
		     const struct report_job *j, int with_ci, int full_header);

int report_text(FILE *out, const struct report *r);
int report_email(FILE *out, const struct report *r);
/*
 * The one JSON document of a comparison ("schema": "perfbot-compare",
 * "version": 3, docs/report.md, "JSON"), for perfbot compare --json and perfbot
 * report --format json alike: every row of every job, every number.
 */
int report_json(FILE *out, const struct report *r);
int report_html(FILE *out, const struct report *r);

#endif
