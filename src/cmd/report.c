/*
 * report.c - perfbot report: what compare found, as the report a
 * developer reads (text), receives (email), opens (html) or a machine
 * reads (json) -- docs/design.md §9, docs/report.md.
 */
#define _GNU_SOURCE
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/gather.h"
#include "cmd/cmpopts.h"
#include "report/tabular.h"
#include "record/bisect_result.h"
#include "report/bisect_report.h"
#include "report/report.h"
#include "store/store.h"
#include "util/child.h"
#include "util/quote.h"
#include "util/bug.h"
#include "util/parse.h"
#include "util/words.h"
#include "vcs/git.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define usage_error(...) cmd_usage_error("report", __VA_ARGS__)

/* printf() arguments: the default alpha (stats/compare.h). */
static const char report_usage[] =
	"usage: perfbot report [--db PATH] --format text|email|html|json|csv|markdown [--all]\n"
	"                      [--repo DIR] [--branch NAME] [--from ADDR] [--to ADDR]\n"
	"                      [--reported-by ADDR] [--link URL] [--send]\n"
	"                      [--sendmail CMD] [--subsystem NAME] [--evidence-file FILE]\n"
	"                      [-s KEY=VALUE ...] [--testbox HOST]\n"
	"                      [--headline-testbox HOST]\n"
	"                      [--min-change [PATTERN=]PCT ...] [--alpha A]\n"
	"                      [--stat PATTERN ...] BASE OTHER [OTHER ...]\n"
	"       perfbot report [--db PATH] --format FMT [--from --to --reported-by --link\n"
	"                      --send --sendmail] --bisect ID\n"
	"\n"
	"Write the report of what changed between BASE and the OTHER commits, for\n"
	"every atomic job with complete runs on all of them (as perfbot compare\n"
	"finds and judges them; a job unsupported on a commit is named as such).\n"
	"The email and its headline are about the largest KPI change in the first\n"
	"commit where a KPI changed against BASE, among the jobs of every test box\n"
	"(each compared only with its own box's runs); the other jobs whose KPI\n"
	"changed, on any box, are the \"In addition to that\" table (docs/report.md).\n"
	"\n"
	"      --db PATH           the results database (as perfbot compare)\n"
	"      --format FMT        text (default), email (RFC 5322), html (one\n"
	"                          self-contained file), json (docs/report.md), csv\n"
	"                          or markdown (the tables' rows, as perfbot compare)\n"
	"      --all               every stat, not only the changed; with --format\n"
	"                          email, an email even when no KPI changed\n"
	"      --repo DIR          a git repository: the commits' subjects, authors\n"
	"                          and dates, and its origin's URL\n"
	"      --branch NAME       the branch the commits are on, named in the report\n"
	"      --from ADDR         the email's sender (default perfbot <perfbot@localhost>)\n"
	"      --to ADDR           the email's recipients\n"
	"      --reported-by ADDR  add a Reported-by: tag\n"
	"      --link URL          add a Closes: tag\n"
	"      --subsystem NAME    the email subject's [NAME] (\"\" none; default, with\n"
	"                          --repo: the commit subject's prefix, \"mm/slub\" of\n"
	"                          \"mm/slub: ...\", else the directory of the files\n"
	"                          it touches)\n"
	"      --evidence-file FILE  the email's \"How sure\" section: FILE's text\n"
	"      --send              send the email (--format email) with sendmail -t\n"
	"                          instead of printing it\n"
	"      --sendmail CMD      the command --send runs, the message on its stdin\n"
	"                          (split into words as a shell would; no shell runs)\n"
	"  -s, --set KEY=VALUE     only jobs whose parameter KEY is VALUE (repeatable)\n"
	"      --testbox HOST      only runs on HOST\n"
	"      --headline-testbox HOST\n"
	"                          the headline is the largest change among HOST's\n"
	"                          jobs; the other boxes' changes are in the table\n"
	"      --min-change [PATTERN=]PCT\n"
	"                          the smallest change reported (as perfbot compare)\n"
	"      --alpha A           the tests' alpha (as perfbot compare; default %g)\n"
	"      --stat PATTERN      only the stats matching the glob are shown\n"
	"                          (repeatable); the headline still weighs them all\n"
	"      --color WHEN        colour the text's verdicts: auto (a terminal), always,\n"
	"                          never; never in an email, JSON or HTML\n"
	"      --bisect ID         the report of bisection ID (perfbot bisect): the\n"
	"                          culprit, how sure, and the confirmation's evidence\n"
	"  -h, --help              show this help\n"
	"\n"
	"An email is written (or sent) only when a KPI changed, on a machine no more\n"
	"disturbed on one side than the other (or with --all); else it says there is\n"
	"nothing to report.\n"
	"Exit status: 0 written (or sent), or nothing to report, 1 no atomic job has complete runs on all\n"
	"the commits, the database cannot be read or sending failed, 2 bad usage or\n"
	"unknown commit.\n";

enum format { FORMAT_TEXT, FORMAT_EMAIL, FORMAT_HTML, FORMAT_JSON, FORMAT_TABULAR };

struct report_args {
	struct cmpopts sel;	/* -s, --testbox, --repo, --min-change, --alpha */
	int64_t bisect;		/* --bisect ID: that bisection's report; 0: none */
	enum format format;
	enum tabular_format tabular;	/* FORMAT_TABULAR's */
	bool all, send;
	const char *branch, *from, *to, *reported_by, *link, *sendmail;
	const char *subsystem;		/* --subsystem; NULL: derived */
	const char *headline_testbox;	/* --headline-testbox; NULL: any box */
	struct strbuf evidence;		/* --evidence-file's text */
	char **given;
	size_t nr_commits;
};

#define failure(...) cmd_failure("report", __VA_ARGS__)

enum { OPT_FORMAT = 256, OPT_ALL, OPT_BRANCH, OPT_FROM, OPT_TO,
       OPT_REPORTED_BY, OPT_LINK, OPT_SEND, OPT_SENDMAIL, OPT_BISECT, OPT_SUBSYSTEM,
       OPT_EVIDENCE, OPT_HEADLINE_TESTBOX };

/* The most of an --evidence-file read: it is a few lines of text. */
#define EVIDENCE_MAX (1 << 20)

static int own_option(int c, const char *arg, void *ctx)
{
	struct report_args *a = ctx;
	unsigned long id;

	switch (c) {
	case OPT_FORMAT:
		if (!strcmp(arg, "text"))
			a->format = FORMAT_TEXT;
		else if (!strcmp(arg, "email"))
			a->format = FORMAT_EMAIL;
		else if (!strcmp(arg, "html"))
			a->format = FORMAT_HTML;
		else if (!strcmp(arg, "json"))
			a->format = FORMAT_JSON;
		else if (tabular_format_parse(arg, &a->tabular))
			a->format = FORMAT_TABULAR;
		else
			return usage_error("invalid --format '%s': expected text, email, html, json,"
					   " csv or markdown", arg);
		return 0;
	case OPT_ALL:
		a->all = true;
		return 0;
	case OPT_BRANCH:
		a->branch = arg;
		return 0;
	case OPT_FROM:
		a->from = arg;
		return 0;
	case OPT_TO:
		a->to = arg;
		return 0;
	case OPT_REPORTED_BY:
		a->reported_by = arg;
		return 0;
	case OPT_LINK:
		a->link = arg;
		return 0;
	case OPT_SEND:
		a->send = true;
		return 0;
	case OPT_SENDMAIL:
		if (!*arg)
			return usage_error("--sendmail needs a command");
		a->sendmail = arg;
		return 0;
	case OPT_SUBSYSTEM:
		a->subsystem = arg;
		return 0;
	case OPT_HEADLINE_TESTBOX:
		if (!*arg)
			return usage_error("--headline-testbox needs a test box's name");
		a->headline_testbox = arg;
		return 0;
	case OPT_EVIDENCE: {
		int err;

		strbuf_reset(&a->evidence);
		err = strbuf_read_file(&a->evidence, arg, EVIDENCE_MAX);
		if (err)
			return usage_error("cannot read --evidence-file '%s': %s", arg,
					   err == -EFBIG ? "larger than 1 MiB" : strerror(-err));
		if (memchr(a->evidence.buf, '\0', a->evidence.len))
			return usage_error("invalid --evidence-file '%s': a NUL byte: expected text",
					   arg);
		return 0;
	}
	case OPT_BISECT:
		if (parse_ulong(arg, 1, INT64_MAX, &id) != PARSE_OK)
			return usage_error("invalid --bisect '%s': expected a bisection id",
					   arg);
		a->bisect = (int64_t)id;
		return 0;
	case 'h':
		printf(report_usage, COMPARE_ALPHA);
		return -1;
	}
	BUG("option %d is in longopts but not handled", c);
}

static int parse_args(int argc, char **argv, struct report_args *a)
{
	static const struct option longopts[] = {
		CMPOPTS_LONGOPTS,
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "branch", required_argument, NULL, OPT_BRANCH },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "reported-by", required_argument, NULL, OPT_REPORTED_BY },
		{ "link", required_argument, NULL, OPT_LINK },
		{ "send", no_argument, NULL, OPT_SEND },
		{ "sendmail", required_argument, NULL, OPT_SENDMAIL },
		{ "bisect", required_argument, NULL, OPT_BISECT },
		{ "subsystem", required_argument, NULL, OPT_SUBSYSTEM },
		{ "evidence-file", required_argument, NULL, OPT_EVIDENCE },
		{ "headline-testbox", required_argument, NULL, OPT_HEADLINE_TESTBOX },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ret = cmpopts_init(&a->sel, "report", argc);

	if (!ret)
		ret = cmpopts_parse(&a->sel, argc, argv, longopts, own_option, a);
	if (ret)
		return ret;
	if (a->bisect && argc - optind)
		return usage_error("--bisect takes no commits: the bisection names them");
	if (!a->bisect && argc - optind < 2)
		return usage_error("needs at least two commits, or --bisect ID: perfbot report BASE OTHER");
	if ((a->send || a->sendmail) && a->format != FORMAT_EMAIL)
		return usage_error("--send and --sendmail need --format email");
	if (a->headline_testbox && a->bisect)
		return usage_error("--headline-testbox takes no --bisect: the bisection names its box");
	if (a->bisect && a->sel.nr_stats)
		return usage_error("--stat takes no --bisect: a bisection's report has no stat table");
	if (a->bisect && a->format == FORMAT_TABULAR)
		return usage_error("--format csv and markdown are for a comparison, not --bisect");
	if ((a->subsystem || a->evidence.len) && (a->format != FORMAT_EMAIL || a->bisect))
		return usage_error("--subsystem and --evidence-file need --format email (not --bisect)");
	a->given = argv + optind;
	a->nr_commits = argc - optind;
	return cmpopts_finish(&a->sel);
}

/* ---- sending ---- */

/* The message goes to the command's stdin, as sendmail -t reads it. */
static int send_message(const char *cmd, const char *msg, size_t len)
{
	char **argv = NULL;
	int err = split_words(cmd, &argv), ret;

	if (err < 0)
		return failure("invalid --sendmail '%s': %s", cmd, strerror(-err));
	if (!err) {
		free_words(argv);
		return failure("invalid --sendmail '%s': no command", cmd);
	}
	ret = cmd_pipe_message("report", argv, msg, len);
	free_words(argv);
	return ret;
}

/* ---- the command ---- */


/*
 * The subsystem of the commit the email is about (report_subsystem()):
 * its subject's prefix, else the directory of the files it touches.
 * Appended to sb; nothing when the repository cannot say.
 */
static int write_report(FILE *out, const struct report_args *a, const struct report *r,
			const struct bisect_result *bisection)
{
	struct report_bisect_opts bo = {
		.from = a->from, .to = a->to, .reported_by = a->reported_by, .link = a->link,
	};

	if (bisection) {
		switch (a->format) {
		case FORMAT_EMAIL:
			return report_bisect_email(out, bisection, &bo);
		case FORMAT_HTML:
			return report_bisect_html(out, bisection);
		case FORMAT_JSON:
			return report_bisect_json(out, bisection);
		default:
			return report_bisect_text(out, bisection);
		}
	}
	switch (a->format) {
	case FORMAT_EMAIL:
		return report_email(out, r);
	case FORMAT_HTML:
		return report_html(out, r);
	case FORMAT_JSON:
		return report_json(out, r);
	case FORMAT_TABULAR:
		return report_tabular(out, r, a->tabular, 0);
	default:
		return report_text(out, r);
	}
}

/* One of r (a comparison) and bisection (a bisection's result) is given. */
static int emit(const struct report_args *a, const struct report *r,
		const struct bisect_result *bisection)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int err, ret;

	/* whole or nothing: a failed writer leaves no half report behind */
	mem = open_memstream(&buf, &len);
	if (!mem)
		return failure("out of memory");
	err = write_report(mem, a, r, bisection);
	if (fclose(mem) && !err)
		err = -EIO;
	if (err) {
		free(buf);
		return failure("cannot write the report: %s", strerror(-err));
	}
	if (a->send) {
		ret = send_message(a->sendmail ? a->sendmail : "sendmail -t", buf, len);
	} else {
		ret = EXIT_OK;
		if (fwrite(buf, 1, len, stdout) != len || fflush(stdout))
			ret = failure("cannot write the report: %s", strerror(errno));
	}
	free(buf);
	return ret;
}

/*
 * An email is a report someone must act on: none unless a KPI changed in
 * an undisturbed column (report_headline()).  Say so, write nothing.
 */
static bool nothing_to_report(const struct report_args *a, const struct report *r)
{
	size_t job, col;

	const struct stat_row *row;

	if (a->format != FORMAT_EMAIL || a->all || report_headline(r, &job, &col, NULL))
		return false;
	if (report_change_apart(r, &job, &col, &row)) {
		fprintf(stderr, "perfbot: report: nothing to report: ");
		quote_fputs(row->name, stderr);
		fprintf(stderr, " changed between '%s' and '%s' only on runs taken one "
			"commit after the other, which drift of the machine alone can "
			"separate; measure them interleaved (a bisection's confirmation "
			"does; or perfbot run each commit in turn, repeat: 1), or pass "
			"--all to write it anyway; no email %s\n", r->commits[0].id,
			r->commits[col + 1].id, a->send ? "sent" : "written");
		return true;
	}
	fprintf(stderr, "perfbot: report: nothing to report: no KPI changed%s%s "
		"(perfbot compare shows every verdict); no email %s\n",
		r->headline_testbox ? " on " : "",
		r->headline_testbox ? r->headline_testbox : "", a->send ? "sent" : "written");
	return true;
}

/* Did box have a job of the report? */
static bool has_testbox(const struct report *r, const char *box)
{
	for (size_t i = 0; i < r->njobs; i++)
		if (r->jobs[i].testbox && !strcmp(r->jobs[i].testbox, box))
			return true;
	return false;
}

static int run_report(struct store *s, const struct report_args *a)
{
	struct gather ga = {
		.who = "report", .testbox = a->sel.testbox, .repo = a->sel.repo,
		.sets = a->sel.sets, .nr_sets = a->sel.nr_sets,
		.given = a->given, .nr_commits = a->nr_commits,
	};
	struct git_commit *gc = NULL;
	struct strbuf subsystem = STRBUF_INIT;
	char *url = NULL;
	struct compare_opts o;
	int ret = gather_jobs(s, &ga);

	if (ret)
		goto out;
	if (a->headline_testbox && !has_testbox(&ga.report, a->headline_testbox)) {
		ret = usage_error("--headline-testbox '%s': no job of the report ran there"
				  " (complete runs on every commit given)", a->headline_testbox);
		goto out;
	}
	cmpopts_apply(&a->sel, &o);
	gc = calloc(a->nr_commits, sizeof(*gc));
	if (!gc) {
		ret = failure("out of memory");
		goto out;
	}
	for (size_t j = 0; j < a->nr_commits; j++) {
		struct report_commit *rc = &ga.report_commits[j];

		/* a label or a commit the repository lacks: the report says less */
		if (a->sel.repo && !git_commit_info(a->sel.repo, ga.commits[j], &gc[j])) {
			rc->subject = gc[j].subject;
			rc->author = gc[j].author;
			rc->date = gc[j].date;
		}
	}
	if (a->sel.repo)
		url = gather_origin_url(a->sel.repo);
	for (size_t i = 0; i < ga.njobs && !ret; i++)
		ret = gather_compare(s, &ga, &ga.jobs[i], &o);
	if (ret)
		goto out;
	ga.report.repo_url = url;
	ga.report.branch = a->branch;
	ga.report.from = a->from;
	ga.report.to = a->to;
	ga.report.reported_by = a->reported_by;
	ga.report.link = a->link;
	ga.report.opts = &o;
	ga.report.show_all = a->all;
	/* the terminal's text only: never an email, JSON or HTML */
	ga.report.colour = a->format == FORMAT_TEXT && !a->send &&
			   colour_for(a->sel.colour, stdout);
	ga.report.headline_testbox = a->headline_testbox;
	cmpopts_apply_stats(&a->sel, &ga.report);
	cmpopts_warn_no_stat(&a->sel, &ga.report);
	ga.report.repo = a->sel.repo;
	ga.report.evidence = a->evidence.len ? a->evidence.buf : NULL;
	if (a->subsystem) {
		ga.report.subsystem = a->subsystem;
	} else if (a->format == FORMAT_EMAIL) {
		gather_subsystem(&subsystem, a->sel.repo, &ga.report);
		ga.report.subsystem = subsystem.len ? subsystem.buf : NULL;
	}
	ret = nothing_to_report(a, &ga.report) ? EXIT_OK : emit(a, &ga.report, NULL);
out:
	for (size_t j = 0; gc && j < a->nr_commits; j++)
		git_commit_release(&gc[j]);
	free(gc);
	free(url);
	strbuf_release(&subsystem);
	gather_release(&ga);
	return ret;
}

/* --bisect ID: the stored result of that bisection, formatted. */
static int bisect_report(struct store *s, const struct report_args *a)
{
	struct store_bisect b = { 0 };
	struct bisect_result r;
	char err[512];
	int ret = store_bisect_get(s, a->bisect, &b);

	if (ret == -ENOENT) {
		ret = usage_error("no bisection %" PRId64 " in the store", a->bisect);
		goto out;
	}
	if (ret) {
		ret = failure("%s", store_error(s));
		goto out;
	}
	/* any state: a failed or running one says so, and why (its message) */
	ret = bisect_result_load(&r, b.id, b.status, b.result, b.spec, err, sizeof(err));
	if (ret == -EINVAL) {
		ret = failure("bisection %" PRId64 " is damaged in the store: %s", b.id, err);
		goto out;
	}
	if (ret) {
		ret = failure("out of memory");
		goto out;
	}
	ret = emit(a, NULL, &r);
	bisect_result_release(&r);
out:
	store_bisect_release(&b);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .evidence = STRBUF_INIT };
	struct store *s = NULL;
	int ret = parse_args(argc, argv, &a);

	if (ret)
		ret = ret < 0 ? EXIT_OK : ret;
	else if (!(ret = cmpopts_open_store(&a.sel, &s)))
		ret = a.bisect ? bisect_report(s, &a) : run_report(s, &a);
	store_close(s);
	cmpopts_release(&a.sel);
	strbuf_release(&a.evidence);
	return ret;
}
