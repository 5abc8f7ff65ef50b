/*
 * alerts.c - perfbot alerts: the changes the robot found (docs/watch.md,
 * "Alerts"), and a user's word on them: `ignore` (a real change nobody
 * needs mailed) or `invalid` (not a change: noise, a broken machine).
 * Either keeps the robot from reporting it; neither deletes anything.
 */
#define _GNU_SOURCE
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "store/store.h"
#include "util/parse.h"
#include "util/quote.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define usage_error(...) cmd_usage_error("alerts", __VA_ARGS__)
#define failure(...) cmd_failure("alerts", __VA_ARGS__)

static const char alerts_usage[] =
	"usage: perfbot alerts [list [--state STATE]] [--db PATH]\n"
	"       perfbot alerts show ID [--db PATH]\n"
	"       perfbot alerts ignore ID [--db PATH]\n"
	"       perfbot alerts invalid ID [--db PATH]\n"
	"\n"
	"The changes perfbot watch found, oldest first, with their state:\n"
	"confirmed (on interleaved runs), bisecting, found (a culprit),\n"
	"reported, explained (by an earlier report's culprit), no-culprit,\n"
	"invalid or ignored.  `ignore` and `invalid` are a user's word: the\n"
	"robot never reports such an alert; a reported one keeps its report.\n"
	"\n"
	CMD_DB_USAGE
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: 0, 1 the store cannot be read or written, 2 bad usage or\n"
	"no such alert.\n";

static void put(const char *label, const char *value)
{
	printf("%-10s ", label);
	if (value)
		quote_fputs(value, stdout);
	else
		fputs("-", stdout);
	putchar('\n');
}

static void put_time(const char *label, double t)
{
	char buf[64];

	cmd_format_utc(buf, sizeof(buf), t);
	put(label, buf);
}

static void list_line(const struct store_alert *a)
{
	printf("%-5" PRId64 " %-11s ", a->id, a->state);
	quote_fputs(a->tree, stdout);
	putchar('/');
	quote_fputs(a->branch, stdout);
	putchar(' ');
	quote_fputs(a->job, stdout);
	putchar(' ');
	quote_fputs(a->metric, stdout);
	if (isfinite(a->pct))
		printf(" %+.1f%%", a->pct);
	printf(" %.12s..%.12s", a->before, a->after);
	if (a->culprit)
		printf(" culprit %.12s", a->culprit);
	if (a->report_id)
		printf(" report %" PRId64, a->report_id);
	putchar('\n');
}

static int parse_alert_id(const char *arg, int64_t *id)
{
	unsigned long v;

	if (parse_ulong(arg, 1, LONG_MAX, &v) != PARSE_OK)
		return usage_error("invalid alert id '%s': expected a positive number", arg);
	*id = (int64_t)v;
	return 0;
}

static int get_alert(struct store *s, const char *arg, struct store_alert *a)
{
	int64_t id = 0;
	int ret = parse_alert_id(arg, &id);

	if (ret)
		return ret;
	ret = store_alert_get(s, id, a);
	if (ret == -ENOENT)
		return usage_error("no alert %" PRId64 " in the store", id);
	return ret ? failure("%s", store_error(s)) : 0;
}

static int do_list(struct store *s, int argc, char **argv)
{
	struct store_alert *a = NULL;
	const char *state = NULL;
	size_t n = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--state") && i + 1 < argc)
			state = argv[++i];
		else
			return usage_error("list: unexpected '%s'", argv[i]);
	}
	if (store_alerts(s, state, &a, &n))
		return failure("%s", store_error(s));
	if (!n)
		printf("no alert%s%s\n", state ? " in state " : "", state ? state : "");
	for (size_t i = 0; i < n; i++)
		list_line(&a[i]);
	store_alerts_release(a, n);
	return fflush(stdout) ? failure("cannot write") : EXIT_OK;
}

static int do_show(struct store *s, int argc, char **argv)
{
	struct store_alert a = { 0 };
	struct store_report r = { 0 };
	char num[64];
	int ret;

	if (argc != 2)
		return usage_error("show takes one alert id");
	ret = get_alert(s, argv[1], &a);
	if (ret)
		return ret;
	snprintf(num, sizeof(num), "%" PRId64, a.id);
	put("alert", num);
	put("state", a.state);
	put("note", a.note);
	put("tree", a.tree);
	put("branch", a.branch);
	put("testbox", a.testbox);
	put("job", a.job);
	put("metric", a.metric);
	snprintf(num, sizeof(num), "%+.2f%%", a.pct);
	put("change", isfinite(a.pct) ? num : NULL);
	put("before", a.before);
	put("after", a.after);
	put("found by", !strcmp(a.how, "head") ? "head (a new head against its base)" :
			!strcmp(a.how, "changepoint") ? "changepoint (the branch's history)" : a.how);
	put("culprit", a.culprit);
	snprintf(num, sizeof(num), "%" PRId64 " (perfbot bisect status %" PRId64 ")", a.bisect_id,
		 a.bisect_id);
	put("bisection", a.bisect_id ? num : NULL);
	if (a.report_id && !store_report_get(s, a.report_id, &r)) {
		snprintf(num, sizeof(num), "%" PRId64 " (%s)", r.id, r.state);
		put("report", num);
		put("message", r.path);
	} else {
		put("report", NULL);
	}
	put_time("created", a.created);
	put_time("updated", a.updated);
	store_report_release(&r);
	store_alert_release(&a);
	return fflush(stdout) ? failure("cannot write") : EXIT_OK;
}

/* ignore / invalid: a user's word, kept with the alert. */
static int do_mark(struct store *s, int argc, char **argv, const char *state)
{
	struct store_alert a = { 0 };
	char *old_state, *old_note;
	int ret;

	if (argc != 2)
		return usage_error("%s takes one alert id", argv[0]);
	ret = get_alert(s, argv[1], &a);
	if (ret)
		return ret;
	old_state = a.state;
	old_note = a.note;
	a.state = (char *)state;
	a.note = !strcmp(state, "ignored") ? "ignored by a user" : "marked invalid by a user";
	if (store_alert_update(s, &a))
		ret = failure("%s", store_error(s));
	else
		printf("alert %" PRId64 ": %s (was %s)%s\n", a.id, state, old_state,
		       !strcmp(old_state, "reported") ? "; its report stays as it was sent" : "");
	a.state = old_state;
	a.note = old_note;
	store_alert_release(&a);
	return ret;
}

int cmd_alerts(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "list";
	bool writes = !strcmp(sub, "ignore") || !strcmp(sub, "invalid");
	struct store *s = NULL;
	int ret;

	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		fputs(alerts_usage, stdout);
		return EXIT_OK;
	}
	if (strcmp(sub, "list") && strcmp(sub, "show") && !writes)
		return usage_error("unknown subcommand '%s': expected list, show, ignore or invalid",
				   sub);
	ret = cmd_store_open("alerts", writes ? STORE_WRITE : STORE_READ, &s);
	if (ret)
		return ret;
	if (argc <= 1)
		ret = do_list(s, 1, argv);
	else if (!strcmp(sub, "list"))
		ret = do_list(s, argc - 1, argv + 1);
	else if (!strcmp(sub, "show"))
		ret = do_show(s, argc - 1, argv + 1);
	else
		ret = do_mark(s, argc - 1, argv + 1, !strcmp(sub, "ignore") ? "ignored" : "invalid");
	store_close(s);
	return ret;
}
