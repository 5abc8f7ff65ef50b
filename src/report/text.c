/*
 * text.c - the report for a terminal and as an email in the style of
 * LKP's (docs/design.md §9).
 */
#define _GNU_SOURCE
#include "report/report.h"
#include "report/internal.h"
#include "util/quote.h"
#include "util/strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * What the report says of job j: its KPI row and the first column where
 * it changed (report_headline() for one job); else, for an email written
 * with --all, a change between runs taken apart (marked so); else NULL.
 */
static const struct stat_row *job_change(const struct report *r, const struct report_job *j,
					 size_t *col)
{
	struct report one = *r;
	const struct stat_row *row = NULL;
	size_t job;

	one.jobs = j;
	one.njobs = 1;
	if (!report_headline(&one, &job, col, &row) &&
	    !report_change_apart(&one, &job, col, &row))
		return NULL;
	return row;
}

static const char *change_word(const struct stat_row *row, size_t col)
{
	const char *w = report_better_word(row->better, row->vs[col].change.pct);

	return w ? w : "change";
}

static void print_commit(FILE *out, const struct report_commit *c)
{
	quote_fputs(c->id, out);
	if (c->subject) {
		/* a subject is git's bytes: controls escaped, quotes kept as LKP's */
		fputs(" (\"", out);
		quote_line_fputs(c->subject, out);
		fputs("\")", out);
	}
	fputc('\n', out);
}

int report_text(FILE *out, const struct report *r)
{
	int err = 0;

	if (r->ncommits < 2)
		return -EINVAL;
	fputs("commits:\n", out);
	for (size_t c = 0; c < r->ncommits; c++) {
		fputs(c ? "  " : "  (base) ", out);
		print_commit(out, &r->commits[c]);
	}
	if (r->repo_url || r->branch)
	{
		fputs("repository: ", out);
		quote_line_fputs(r->repo_url ? r->repo_url : "", out);
		fputc(' ', out);
		quote_line_fputs(r->branch ? r->branch : "", out);
		fputc('\n', out);
	}
	for (size_t i = 0; i < r->njobs && !err; i++) {
		fputc('\n', out);
		err = report_write_job(out, r, &r->jobs[i], 0, 1);
	}
	if (err)
		return err;
	return ferror(out) ? -EIO : 0;
}

/* ---- email ---- */

/* Header values are one line: a CR or LF would start a header of its own. */
static void put_header(FILE *out, const char *name, const char *value)
{
	fprintf(out, "%s: ", name);
	for (const char *p = value; *p; p++)
		fputc(*p == '\r' || *p == '\n' ? ' ' : *p, out);
	fputc('\n', out);
}

/* Length of the valid UTF-8 sequence at p (up to end), 0 when invalid. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	size_t n;

	if (*p < 0x80)
		return 1;
	if ((*p & 0xe0) == 0xc0 && *p >= 0xc2)
		n = 2;
	else if ((*p & 0xf0) == 0xe0)
		n = 3;
	else if ((*p & 0xf8) == 0xf0 && *p <= 0xf4)
		n = 4;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * The body as the message may carry it: invalid UTF-8 (a stat or job text
 * is whatever a benchmark wrote) becomes '?', NULs and stray CRs go, and
 * a line longer than REPORT_MAX_LINE octets is broken between characters.
 */
void report_put_body(FILE *out, const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf, *end = p + len;
	size_t col = 0;

	while (p < end) {
		size_t n = utf8_len(p, end);

		if (*p == '\n') {
			fputc('\n', out);
			col = 0;
			p++;
			continue;
		}
		if (!n || *p == '\0' || *p == '\r') {
			p += n ? n : 1;
			if (!n) {
				fputc('?', out);
				col++;
			}
			continue;
		}
		if (col + n > REPORT_MAX_LINE) {
			fputc('\n', out);
			col = 0;
		}
		fwrite(p, 1, n, out);
		col += n;
		p += n;
	}
	if (col)
		fputc('\n', out);
}

static void print_params_tabbed(FILE *out, const struct strmap *p)
{
	for (size_t i = 0; p && i < p->n; i++)
	{
		fputc('\t', out);
		quote_fputs(p->v[i].key, out);
		fputs(": ", out);
		quote_fputs(p->v[i].value, out);
		fputc('\n', out);
	}
}

static void dashes(FILE *out, size_t w1, size_t w2)
{
	fputc('+', out);
	for (size_t i = 0; i < w1 + 2; i++)
		fputc('-', out);
	fputc('+', out);
	for (size_t i = 0; i < w2 + 2; i++)
		fputc('-', out);
	fputs("+\n", out);
}

/* "testcase: kpi 5.0% regression", whole: a KPI's name may be 4 KiB. */
static void impact_line(struct strbuf *sb, const struct report_job *j,
			const struct stat_row *row, size_t col)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "%s: %s %.1f%% %s", j->testcase ? j->testcase : j->job,
		    row->name, fabs(row->vs[col].change.pct), change_word(row, col));
}

static size_t display_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* The width of a cell's text once its control characters are escaped. */
static size_t cell_width(const char *s)
{
	char *q = quote_line(s);
	size_t w = q ? display_width(q) : 0;

	free(q);
	return w;
}

static void cell(FILE *out, const char *left, const char *right, size_t w2)
{
	size_t w = cell_width(right);

	fprintf(out, "| %-16s | ", left);
	quote_line_fputs(right, out);
	for (; w < w2; w++)
		fputc(' ', out);
	fputs(" |\n", out);
}

/* Seed 000's table: one block per other job whose KPI changed. */
static int print_impact(FILE *out, const struct report *r, size_t headline)
{
	struct strbuf buf = STRBUF_INIT;
	size_t w2 = 0;
	int err;

	for (size_t i = 0; i < r->njobs; i++) {
		const struct report_job *j = &r->jobs[i];
		size_t col;
		const struct stat_row *row = job_change(r, j, &col);

		if (i == headline || !row)
			continue;
		impact_line(&buf, j, row, col);
		if (cell_width(buf.buf) > w2)
			w2 = cell_width(buf.buf);
		if (cell_width(j->machine ? j->machine : j->testbox) > w2)
			w2 = cell_width(j->machine ? j->machine : j->testbox);
		for (size_t k = 0; j->params && k < j->params->n; k++) {
			size_t w = cell_width(j->params->v[k].key) + 1 +
				   cell_width(j->params->v[k].value);

			if (w > w2)
				w2 = w;
		}
	}
	if (!w2)
		goto out;
	fputs("\nIn addition to that, the commit also has significant impact on the following tests:\n\n",
	      out);
	dashes(out, 16, w2);
	for (size_t i = 0; i < r->njobs; i++) {
		const struct report_job *j = &r->jobs[i];
		size_t col;
		const struct stat_row *row = job_change(r, j, &col);

		if (i == headline || !row)
			continue;
		impact_line(&buf, j, row, col);
		cell(out, "testcase: change", buf.buf, w2);
		cell(out, "test machine", j->machine ? j->machine : j->testbox, w2);
		for (size_t k = 0; j->params && k < j->params->n; k++) {
			strbuf_reset(&buf);
			strbuf_addf(&buf, "%s=%s", j->params->v[k].key,
				    j->params->v[k].value);
			cell(out, k ? "" : "test parameters", buf.buf, w2);
		}
		dashes(out, 16, w2);
	}
out:
	/* out of memory: the email fails rather than show a line in part */
	err = strbuf_error(&buf);
	strbuf_release(&buf);
	return err;
}

static void print_commits_of(FILE *out, const struct report *r)
{
	fputs("commits:\n", out);
	for (size_t c = 0; c < r->ncommits; c++) {
		fputs("  ", out);
		print_commit(out, &r->commits[c]);
	}
	fputc('\n', out);
}

/*
 * Of base, culprit and tip, the culprit: the commit where the KPI first
 * changed; the commits after it say what they show against the base.
 */
static void print_later(FILE *out, const struct report *r, const struct stat_row *row,
			size_t col)
{
	struct strbuf sb = STRBUF_INIT;
	char pct[64];

	for (size_t c = col + 1; c + 1 < r->ncommits; c++) {
		strbuf_reset(&sb);
		report_verdict_words(&sb, row, c, false);
		report_format_change(pct, sizeof(pct), &row->vs[c].change);
		fputs("later: ", out);
		quote_fputs(r->commits[c + 1].id, out);
		fprintf(out, " %s against the base: %s\n", pct,
			strbuf_error(&sb) ? verdict_name(row->vs[c].verdict) : sb.buf);
	}
	strbuf_release(&sb);
}

/*
 * How the headline's runs were taken: a reader must know whether drift
 * of the machine could have made the change (stats/compare.h,
 * compare_order()).  An email of runs taken apart is written only with
 * --all, and says so first.
 */
static void print_order(FILE *out, const struct report_job *j, size_t col)
{
	struct compare_order_info oi;

	compare_order(&j->sets[0], &j->sets[col + 1], &oi);
	switch (oi.order) {
	case COMPARE_ORDER_INTERLEAVED:
		fprintf(out, "\nThe runs of both commits were interleaved (%u changes of\n"
			"commit in time order), so drift of the machine fell on both.\n",
			oi.switches);
		break;
	case COMPARE_ORDER_APART:
		fputs("\nNOT CONFIRMED on interleaved runs: every run of one commit was\n"
		      "taken before the other's, and drift of the machine alone can make\n"
		      "such a difference.\n", out);
		break;
	case COMPARE_ORDER_UNKNOWN:
		fputs("\nThe order of the runs is not known (imported results, or one\n"
		      "run a side): the change is not confirmed on interleaved runs.\n",
		      out);
		break;
	}
}

static int write_body(FILE *out, const struct report *r, size_t headline, size_t col)
{
	const struct report_job *h = &r->jobs[headline < r->njobs ? headline : 0];
	size_t hcol = 0;
	const struct stat_row *row = headline < r->njobs ? job_change(r, h, &hcol) : NULL;
	const struct report_commit *c = &r->commits[row ? col + 1 : r->ncommits - 1];
	int err = 0;

	if (row) {
		fprintf(out, "perfbot noticed a %.1f%% %s of ",
			fabs(row->vs[col].change.pct), change_word(row, col));
		quote_fputs(row->name, out);
	} else {
		fputs("perfbot noticed no significant change of ", out);
		quote_fputs(h->kpi ? h->kpi : "the KPI", out);
	}
	fputs(" on:\n\n", out);
	fprintf(out, "commit: ");
	print_commit(out, c);
	if (row)
		print_later(out, r, row, col);
	if (c->author)
		report_field(out, "author: ", c->author);
	if (c->date)
		report_field(out, "date: ", c->date);
	if (r->repo_url || r->branch) {
		quote_line_fputs(r->repo_url ? r->repo_url : "", out);
		fputs(r->repo_url && r->branch ? " " : "", out);
		quote_line_fputs(r->branch ? r->branch : "", out);
		fputc('\n', out);
	}
	report_field(out, "\nin testcase: ", h->testcase ? h->testcase : h->job);
	report_field(out, "test machine: ", h->machine ? h->machine : h->testbox);
	if (h->params && h->params->n) {
		fputs("with following parameters:\n\n", out);
		print_params_tabbed(out, h->params);
	}
	if (row)
		print_order(out, h, col);
	err = print_impact(out, r, headline);
	if (err)
		return err;
	fputs("\nDetails are as below:\n", out);
	fputs("-------------------------------------------------------------------------------------------------->\n\n",
	      out);
	print_commits_of(out, r);
	for (size_t i = 0; i < r->njobs && !err; i++) {
		if (i)
			fputc('\n', out);
		err = report_write_job(out, r, &r->jobs[i], 0, 1);
	}
	if (err)
		return err;
	fputs("\nTo reproduce:\n\n", out);
	fputs("        perfbot install job.yaml  # the job file is below\n", out);
	fputs("        perfbot run job.yaml\n", out);
	if (h->job_text) {
		size_t n = strlen(h->job_text);

		fputs("\njob.yaml:\n\n", out);
		fputs(h->job_text, out);
		if (n && h->job_text[n - 1] != '\n')
			fputc('\n', out);
	}
	if (r->reported_by || r->link)
		fputc('\n', out);
	if (r->reported_by)
		fprintf(out, "Reported-by: %s\n", r->reported_by);
	if (r->link)
		fprintf(out, "Closes: %s\n", r->link);
	return ferror(out) ? -EIO : 0;
}

static void subject(struct strbuf *sb, const struct report *r, size_t headline,
		    size_t col)
{
	const struct report_job *j = headline < r->njobs ? &r->jobs[headline] : NULL;
	size_t hcol = 0;
	const struct stat_row *row = j ? job_change(r, j, &hcol) : NULL;
	const char *id = r->commits[row ? col + 1 : r->ncommits - 1].id;

	/* the id's first 10 characters, as LKP's subjects abbreviate it */
	if (row) {
		struct compare_order_info oi;

		strbuf_addf(sb, "[perfbot] %.10s: %s %+.1f%% %s", id, row->name,
			    row->vs[col].change.pct, change_word(row, col));
		compare_order(&j->sets[0], &j->sets[col + 1], &oi);
		if (oi.order == COMPARE_ORDER_APART)
			strbuf_addstr(sb, " (not confirmed: runs apart)");
	}
	else
		strbuf_addf(sb, "[perfbot] %.10s: no significant change", id);
}

int report_email_message(FILE *out, const char *from, const char *to,
			 const char *subject, const char *body, size_t len)
{
	/* "Subject: " and the value make one line of at most REPORT_MAX_LINE */
	const size_t subj_max = REPORT_MAX_LINE - strlen("Subject: ");
	struct strbuf subj = STRBUF_INIT;
	char date[64], host[256], id[512];
	struct timespec ts;
	struct tm tm;

	strbuf_addstr(&subj, subject);
	if (strbuf_error(&subj))
		return -ENOMEM;
	/* a header is ASCII unless encoded (RFC 2047): keep it plain */
	for (size_t i = 0; i < subj.len; i++)
		if ((unsigned char)subj.buf[i] >= 0x80 || subj.buf[i] < ' ')
			subj.buf[i] = '?';
	/*
	 * A subject no line can hold (a KPI named in kilobytes) is shortened,
	 * and says so: the body has the name whole.
	 */
	if (subj.len > subj_max) {
		strbuf_setlen(&subj, subj_max - 3);
		strbuf_addstr(&subj, "...");
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	/* RFC 5322 names days and months in English, whatever the locale */
	localtime_r(&ts.tv_sec, &tm);
	{
		static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu",
						    "Fri", "Sat" };
		static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May",
						      "Jun", "Jul", "Aug", "Sep", "Oct",
						      "Nov", "Dec" };
		long off = tm.tm_gmtoff / 60;

		snprintf(date, sizeof(date), "%s, %d %s %d %02d:%02d:%02d %c%02ld%02ld",
			 days[tm.tm_wday], tm.tm_mday, months[tm.tm_mon],
			 tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec,
			 off < 0 ? '-' : '+', labs(off) / 60, labs(off) % 60);
	}
	if (gethostname(host, sizeof(host)) || !*host)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	snprintf(id, sizeof(id), "<perfbot.%lld.%09ld.%ld@%s>", (long long)ts.tv_sec,
		 ts.tv_nsec, (long)getpid(), host);
	put_header(out, "From", from ? from : "perfbot <perfbot@localhost>");
	if (to)
		put_header(out, "To", to);
	put_header(out, "Subject", subj.buf);
	strbuf_release(&subj);
	put_header(out, "Date", date);
	put_header(out, "Message-ID", id);
	put_header(out, "MIME-Version", "1.0");
	put_header(out, "Content-Type", "text/plain; charset=utf-8");
	put_header(out, "Content-Transfer-Encoding", "8bit");
	fputc('\n', out);
	report_put_body(out, body, len);
	return ferror(out) ? -EIO : 0;
}

int report_email(FILE *out, const struct report *r)
{
	size_t headline = r->njobs, col = 0, len = 0;
	struct strbuf subj = STRBUF_INIT;
	char *body = NULL;
	FILE *mem;
	int err;

	if (r->ncommits < 2 || !r->njobs)
		return -EINVAL;
	if (!report_headline(r, &headline, &col, NULL) &&
	    !report_change_apart(r, &headline, &col, NULL))
		headline = r->njobs;
	mem = open_memstream(&body, &len);
	if (!mem)
		return -errno;
	err = write_body(mem, r, headline, col);
	if (fclose(mem) && !err)
		err = -EIO;
	if (err) {
		free(body);
		return err;
	}
	subject(&subj, r, headline, col);
	err = strbuf_error(&subj) ?: report_email_message(out, r->from, r->to, subj.buf,
							  body, len);
	strbuf_release(&subj);
	free(body);
	return err;
}
