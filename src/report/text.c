/*
 * text.c - the report for a terminal and as an email in the style of
 * LKP's (docs/design.md §9).
 */
#define _GNU_SOURCE
#include "report/report.h"
#include "report/internal.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static void print_params_tabbed(FILE *out, const struct report_idents *iv)
{
	for (size_t i = 0; i < iv->n; i++) {
		fputc('\t', out);
		quote_fputs(iv->v[i].key, out);
		fputs(": ", out);
		quote_fputs(iv->v[i].value, out);
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

/*
 * Seed 000's table: one block per other job whose KPI changed, its
 * identity sorted by key as LKP's "test parameters" are.
 */
static int print_impact(FILE *out, const struct report *r, size_t headline)
{
	struct strbuf buf = STRBUF_INIT;
	struct report_idents *ids = calloc(r->njobs, sizeof(*ids));
	size_t w2 = 0;
	int err = ids ? 0 : -ENOMEM;

	for (size_t i = 0; i < r->njobs && !err; i++) {
		const struct report_job *j = &r->jobs[i];
		size_t col;
		const struct stat_row *row = report_impact(r, headline, i, &col);

		if (!row)
			continue;
		err = report_identity(j, true, &ids[i]);
		if (err)
			break;
		report_impact_line(&buf, j, row, col);
		if (cell_width(buf.buf) > w2)
			w2 = cell_width(buf.buf);
		if (cell_width(j->machine ? j->machine : j->testbox) > w2)
			w2 = cell_width(j->machine ? j->machine : j->testbox);
		for (size_t k = 0; k < ids[i].n; k++) {
			size_t w = cell_width(ids[i].v[k].key) + 1 + cell_width(ids[i].v[k].value);

			if (w > w2)
				w2 = w;
		}
	}
	if (err || !w2)
		goto out;
	fputs("\nIn addition to that, the commit also has significant impact on the following tests:\n\n",
	      out);
	dashes(out, 16, w2);
	for (size_t i = 0; i < r->njobs; i++) {
		const struct report_job *j = &r->jobs[i];
		size_t col;
		const struct stat_row *row = report_impact(r, headline, i, &col);

		if (!row)
			continue;
		report_impact_line(&buf, j, row, col);
		cell(out, "testcase: change", buf.buf, w2);
		cell(out, "test machine", j->machine ? j->machine : j->testbox, w2);
		for (size_t k = 0; k < ids[i].n; k++) {
			strbuf_reset(&buf);
			strbuf_addf(&buf, "%s=%s", ids[i].v[k].key, ids[i].v[k].value);
			cell(out, k ? "" : "test parameters", buf.buf, w2);
		}
		dashes(out, 16, w2);
	}
out:
	/* out of memory: the email fails rather than show a line in part */
	if (!err)
		err = strbuf_error(&buf);
	for (size_t i = 0; ids && i < r->njobs; i++)
		vec_free(&ids[i]);
	free(ids);
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
 * How the headline's runs were taken.  An email of runs taken apart is
 * written only with --all, and says so first.
 */
static void print_order(FILE *out, const struct report_job *j, size_t col)
{
	struct strbuf sb = STRBUF_INIT;

	report_order_words(&sb, j, col);
	if (!strbuf_error(&sb) && sb.len)
		fprintf(out, "\n%s", sb.buf);
	strbuf_release(&sb);
}

/* The "test-description:" and "test-url:" lines of job j, when known. */
static void print_test_lines(FILE *out, const struct report_job *j)
{
	const char *desc = j->test_description, *url = j->test_url;

	if (!desc && !url)
		report_test_description(j->testcase, &desc, &url);
	if (desc || url)
		fputc('\n', out);
	if (desc)
		report_field(out, "test-description: ", desc);
	if (url)
		report_field(out, "test-url: ", url);
}

/*
 * The tags the fix should carry: for a regression, LKP's "kindly add
 * following tags" block near the top; else (nothing to fix) plain tag
 * lines at the end.
 */
static void print_tags(FILE *out, const struct report *r, bool fix)
{
	if (!r->reported_by && !r->link)
		return;
	if (fix)
		fputs("\nIf you fix the issue in a separate patch/commit (i.e. not just a new version of\n"
		      "the same patch/commit), kindly add following tags\n", out);
	else
		fputc('\n', out);
	if (r->reported_by)
		report_field(out, fix ? "| Reported-by: " : "Reported-by: ", r->reported_by);
	if (r->link)
		report_field(out, fix ? "| Closes: " : "Closes: ", r->link);
}

/* The caller's "How sure" lines, whole. */
static void print_evidence(FILE *out, const struct report *r)
{
	size_t n = r->evidence ? strlen(r->evidence) : 0;

	if (!n)
		return;
	fputs("\nHow sure:\n\n", out);
	fputs(r->evidence, out);
	if (r->evidence[n - 1] != '\n')
		fputc('\n', out);
}

/*
 * "To reproduce": the repository cloned (or the local one), the job run
 * on the base and on the commit the report is about, and compared.
 */
static void print_reproduce(FILE *out, const struct report *r, const struct report_commit *c)
{
	const char *repo = r->repo_url ? "repo" : r->repo;

	fputs("\nTo reproduce:\n\n", out);
	if (r->repo_url) {
		fputs("        git clone ", out);
		quote_line_fputs(r->repo_url, out);
		fputs(" repo\n", out);
	}
	fputs("        perfbot install job.yaml  # the job file is at the end of this email\n", out);
	if (!repo) {
		fputs("        perfbot run job.yaml\n", out);
		return;
	}
	for (int i = 0; i < 2; i++) {
		fputs("        perfbot run --repo ", out);
		quote_line_fputs(repo, out);
		fputs(" --commit ", out);
		quote_line_fputs(i ? c->id : r->commits[0].id, out);
		fputs(" job.yaml\n", out);
	}
	fputs("        perfbot compare ", out);
	quote_line_fputs(r->commits[0].id, out);
	fputc(' ', out);
	quote_line_fputs(c->id, out);
	fputc('\n', out);
}

static int write_body(FILE *out, const struct report *r, size_t headline, size_t col)
{
	const struct report_job *h = &r->jobs[headline < r->njobs ? headline : 0];
	size_t hcol = 0;
	const struct stat_row *row = headline < r->njobs ? report_job_change(r, h, &hcol) : NULL;
	const struct report_commit *c = &r->commits[row ? col + 1 : r->ncommits - 1];
	const char *word = row ? report_change_word(row, col) : NULL;
	struct report_idents ids = { 0 };
	struct strbuf lead = STRBUF_INIT;
	int err = 0;

	report_lead_words(&lead, row, col);
	err = strbuf_error(&lead);
	if (!err)
		fputs(lead.buf, out);
	strbuf_release(&lead);
	if (err)
		return err;
	quote_fputs(row ? row->name : h->kpi ? h->kpi : "the KPI", out);
	fputs(" on:\n\n", out);
	fprintf(out, "commit: ");
	print_commit(out, c);
	/*
	 * LKP's: the commit, then where it is, the URL and the branch -- of
	 * "tree:branch" the branch (git's names hold no ':'), as seed 003's
	 * "[tip:timers/core]" is "tip.git timers/core"
	 */
	if (r->repo_url || r->branch) {
		const char *b = r->branch, *colon = b ? strchr(b, ':') : NULL;

		if (colon && colon[1])
			b = colon + 1;
		quote_line_fputs(r->repo_url ? r->repo_url : "", out);
		fputs(r->repo_url && b ? " " : "", out);
		quote_line_fputs(b ? b : "", out);
		fputc('\n', out);
	}
	if (row)
		print_later(out, r, row, col);
	if (c->author)
		report_field(out, "author: ", c->author);
	if (c->date)
		report_field(out, "date: ", c->date);
	report_field(out, "\nin testcase: ", h->testcase ? h->testcase : h->job);
	report_field(out, "test machine: ", h->machine ? h->machine : h->testbox);
	err = report_identity(h, false, &ids);
	if (err) {
		vec_free(&ids);
		return err;
	}
	if (ids.n) {
		fputs("with following parameters:\n\n", out);
		print_params_tabbed(out, &ids);
	}
	vec_free(&ids);
	print_test_lines(out, h);
	if (row)
		print_order(out, h, col);
	err = print_impact(out, r, headline);
	if (err)
		return err;
	print_tags(out, r, word && !strcmp(word, "regression"));
	print_evidence(out, r);
	fputs("\nDetails are as below:\n", out);
	fputs("-------------------------------------------------------------------------------------------------->\n",
	      out);
	print_reproduce(out, r, c);
	fputc('\n', out);
	print_commits_of(out, r);
	for (size_t i = 0; i < r->njobs && !err; i++) {
		if (i)
			fputc('\n', out);
		err = report_write_job(out, r, &r->jobs[i], 0, 1);
	}
	if (err)
		return err;
	if (h->job_text) {
		size_t n = strlen(h->job_text);

		fputs("\njob.yaml:\n\n", out);
		fputs(h->job_text, out);
		if (n && h->job_text[n - 1] != '\n')
			fputc('\n', out);
	}
	if (!(word && !strcmp(word, "regression")))
		print_tags(out, r, false);
	return ferror(out) ? -EIO : 0;
}

/* "[branch] [subsystem] ", or "[perfbot] " with neither. */
static void subject_prefix(struct strbuf *sb, const struct report *r)
{
	if (r->branch && *r->branch)
		strbuf_addf(sb, "[%s] ", r->branch);
	if (r->subsystem && *r->subsystem)
		strbuf_addf(sb, "[%s] ", r->subsystem);
	if (!sb->len)
		strbuf_addstr(sb, "[perfbot] ");
}

static void subject(struct strbuf *sb, const struct report *r, size_t headline,
		    size_t col)
{
	const struct report_job *j = headline < r->njobs ? &r->jobs[headline] : NULL;
	size_t hcol = 0;
	const struct stat_row *row = j ? report_job_change(r, j, &hcol) : NULL;
	const char *id = r->commits[row ? col + 1 : r->ncommits - 1].id;

	subject_prefix(sb, r);
	/* the id's first 10 characters, as LKP's subjects abbreviate it */
	if (row) {
		struct compare_order_info oi;

		strbuf_addf(sb, "%.10s: %s %+.1f%% %s", id, row->name,
			    row->vs[col].change.pct, report_change_word(row, col));
		compare_order(&j->sets[0], &j->sets[col + 1], &oi);
		if (oi.order == COMPARE_ORDER_APART)
			strbuf_addstr(sb, " (not confirmed: runs apart)");
	}
	else
		strbuf_addf(sb, "%.10s: no significant change", id);
}

int report_email_message(FILE *out, const char *from, const char *to, const char *cc,
			 const char *in_reply_to,
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
	if (cc)
		put_header(out, "Cc", cc);
	put_header(out, "Subject", subj.buf);
	strbuf_release(&subj);
	put_header(out, "Date", date);
	put_header(out, "Message-ID", id);
	if (in_reply_to) {
		put_header(out, "In-Reply-To", in_reply_to);
		put_header(out, "References", in_reply_to);
	}
	put_header(out, "MIME-Version", "1.0");
	put_header(out, "Content-Type", "text/plain; charset=utf-8");
	put_header(out, "Content-Transfer-Encoding", "8bit");
	fputc('\n', out);
	report_put_body(out, body, len);
	return ferror(out) ? -EIO : 0;
}

int report_email(FILE *out, const struct report *rp)
{
	/* a message is never coloured, whatever the terminal's text is */
	struct report plain = *rp;
	const struct report *r = &plain;
	size_t headline = r->njobs, col = 0, len = 0;
	struct strbuf subj = STRBUF_INIT;
	char *body = NULL;
	FILE *mem;
	int err;

	plain.colour = false;
	if (r->ncommits < 2 || !r->njobs)
		return -EINVAL;
	if (!report_lead(r, &headline, &col, NULL))
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
	if (r->in_reply_to && !strbuf_error(&subj)) {
		char *first = strbuf_detach(&subj, NULL);

		strbuf_addf(&subj, "Re: %s", first ? first : "");
		free(first);
	}
	err = strbuf_error(&subj) ?: report_email_message(out, r->from, r->to, r->cc,
							  r->in_reply_to, subj.buf, body, len);
	strbuf_release(&subj);
	free(body);
	return err;
}
