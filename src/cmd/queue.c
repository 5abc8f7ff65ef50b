/*
 * queue.c - perfbot queue: what the fleet's queue holds (list, show), an
 * item cancelled or retried, the boxes and their quarantine, the classes
 * of identical boxes.
 */
#define _GNU_SOURCE
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "queue/needs.h"
#include "store/store.h"
#include "util/parse.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char queue_usage[] =
	"usage: perfbot queue [list] [--state STATE] [--json] --db postgresql://...\n"
	"       perfbot queue show ID [--json]\n"
	"       perfbot queue cancel ID | retry ID\n"
	"       perfbot queue boxes [--json]\n"
	"       perfbot queue release BOX\n"
	"       perfbot queue class [NAME BOX... | --remove NAME]\n"
	"\n"
	"The fleet's queue (docs/fleet.md).  list: the items, oldest first (STATE:\n"
	"queued, running, done, failed, cancelled); show: one item, its needs,\n"
	"attempts and their reasons, and its job; cancel: a queued or running item\n"
	"(a running attempt is fenced out); retry: a failed or cancelled item\n"
	"queued again with 3 more attempts; boxes: the test boxes, their state\n"
	"and counts; release: a quarantined box active again; class: the classes\n"
	"of identical boxes (none: list them; NAME BOX...: declare or replace NAME\n"
	"as exactly those boxes; a box is in one class at most).\n"
	"\n"
	"      --state STATE     list only items in that state\n"
	"      --json            JSON instead of a table\n"
	"      --remove NAME     (class) class NAME no more\n"
	CMD_DB_USAGE
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: 0 done, 1 the store failed or no such item, 2 bad usage (also\n"
	"a class refused: a box in two classes, a name both a box's and a class's).\n";

#define usage_error(...) cmd_usage_error("queue", __VA_ARGS__)

static const char *const states[] = { "queued", "running", "done", "failed", "cancelled", NULL };

static json_t *item_json(const struct store_queue_item *it)
{
	json_t *o = json_object(), *tags = json_array();

	for (size_t i = 0; it->parsed.tags && it->parsed.tags[i]; i++)
		json_array_append_new(tags, json_string(it->parsed.tags[i]));
	json_object_set_new(o, "id", json_integer(it->id));
	json_object_set_new(o, "batch", json_integer(it->batch));
	json_object_set_new(o, "state", json_string(it->state));
	json_object_set_new(o, "priority", json_integer(it->priority));
	json_object_set_new(o, "job", json_string(it->job));
	json_object_set_new(o, "testcase", json_string(it->testcase));
	json_object_set_new(o, "repo", it->repo ? json_string(it->repo) : json_null());
	json_object_set_new(o, "commit", it->commit ? json_string(it->commit) : json_null());
	json_object_set_new(o, "needs", json_string(it->needs));
	json_object_set_new(o, "min_cpus", json_integer(it->parsed.min_cpus));
	json_object_set_new(o, "min_mem_mb", json_integer(it->parsed.min_mem_mb));
	json_object_set_new(o, "arch", it->parsed.arch ? json_string(it->parsed.arch)
						       : json_null());
	json_object_set_new(o, "testbox", it->parsed.testbox ? json_string(it->parsed.testbox)
							     : json_null());
	json_object_set_new(o, "class", it->parsed.class ? json_string(it->parsed.class)
							 : json_null());
	json_object_set_new(o, "tags", tags);
	json_object_set_new(o, "attempt", json_integer(it->attempt));
	json_object_set_new(o, "max_attempts", json_integer(it->max_attempts));
	json_object_set_new(o, "box", it->box ? json_string(it->box) : json_null());
	json_object_set_new(o, "lease_until", isnan(it->lease_until) ? json_null()
						 : json_real(it->lease_until));
	json_object_set_new(o, "run_id", it->run_id ? json_integer(it->run_id) : json_null());
	json_object_set_new(o, "reasons", json_string(it->reasons));
	json_object_set_new(o, "created", json_real(it->created));
	json_object_set_new(o, "updated", json_real(it->updated));
	return o;
}

static int list(struct store *s, const char *state, bool json)
{
	struct store_queue_item *items;
	size_t nr;

	if (store_queue_list(s, state, &items, &nr))
		return cmd_failure("queue", "%s", store_error(s));
	if (json) {
		json_t *a = json_array();

		for (size_t i = 0; i < nr; i++)
			json_array_append_new(a, item_json(&items[i]));
		store_queue_items_release(items, nr);
		return cmd_print_json("queue", a);
	}
	if (nr)
		printf("%-8s %-9s %5s %-7s %-14s %-12s %-8s %s\n", "ID", "STATE", "PRIO",
		       "ATTEMPT", "BOX", "COMMIT", "RUN", "JOB  [NEEDS]");
	for (size_t i = 0; i < nr; i++) {
		const struct store_queue_item *it = &items[i];
		char att[24], run[24];

		snprintf(att, sizeof(att), "%d/%d", it->attempt, it->max_attempts);
		if (it->run_id)
			snprintf(run, sizeof(run), "%" PRId64, it->run_id);
		else
			snprintf(run, sizeof(run), "-");
		printf("%-8" PRId64 " %-9s %5d %-7s %-14s %-12.12s %-8s %s%s%s%s\n", it->id,
		       it->state, it->priority, att, it->box ? it->box : "-",
		       it->commit ? it->commit : "-", run, it->job, *it->needs ? "  [" : "",
		       it->needs, *it->needs ? "]" : "");
	}
	if (!nr)
		fprintf(stderr, "perfbot: queue: no items%s%s\n", state ? " in state " : "",
			state ? state : "");
	store_queue_items_release(items, nr);
	return EXIT_OK;
}

static int show(struct store *s, int64_t id, bool json)
{
	struct store_queue_item it;
	char when[64];

	if (store_queue_get(s, id, &it))
		return cmd_failure("queue", "%s", store_error(s));
	if (json) {
		json_t *o = item_json(&it);

		json_object_set_new(o, "job_text", json_string(it.job_text));
		store_queue_item_release(&it);
		return cmd_print_json("queue", o);
	}
	printf("item %" PRId64 " (batch %" PRId64 "): %s\n", it.id, it.batch, it.state);
	printf("  job       %s\n", it.job);
	if (it.repo)
		printf("  repo      %s\n", it.repo);
	printf("  commit    %s\n", it.commit ? it.commit : "(the worker's kernel release)");
	printf("  needs     %s\n", *it.needs ? it.needs : "(any box)");
	printf("  priority  %d\n", it.priority);
	printf("  attempt   %d of %d%s%s\n", it.attempt, it.max_attempts,
	       it.box ? " on " : "", it.box ? it.box : "");
	if (!isnan(it.lease_until)) {
		cmd_format_utc(when, sizeof(when), it.lease_until);
		printf("  lease     until %s\n", when);
	}
	if (it.run_id)
		printf("  run       %" PRId64 " (perfbot results show %" PRId64 ")\n", it.run_id,
		       it.run_id);
	cmd_format_utc(when, sizeof(when), it.created);
	printf("  created   %s\n", when);
	cmd_format_utc(when, sizeof(when), it.updated);
	printf("  updated   %s\n", when);
	if (*it.reasons) {
		printf("  reasons:\n");
		for (const char *p = it.reasons; *p;) {
			size_t n = strcspn(p, "\n");

			printf("    %.*s\n", (int)n, p);
			p += n + (p[n] == '\n');
		}
	}
	printf("  job text:\n");
	for (const char *p = it.job_text; *p;) {
		size_t n = strcspn(p, "\n");

		printf("    %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	store_queue_item_release(&it);
	return EXIT_OK;
}

static int boxes(struct store *s, bool json)
{
	struct store_box *b;
	size_t nr;
	json_t *a = json ? json_array() : NULL;

	if (store_queue_boxes(s, &b, &nr))
		return cmd_failure("queue", "%s", store_error(s));
	if (!json && nr)
		printf("%-16s %-11s %6s %6s %6s  %-16s %-24s %s\n", "BOX", "STATE", "DONE",
		       "FAILED", "LOST", "CLASS", "TAGS", "MACHINE");
	for (size_t i = 0; i < nr; i++) {
		char tags[256] = "";
		char seen[64];
		size_t len = 0;

		for (size_t t = 0; b[i].tags && b[i].tags[t] && len < sizeof(tags); t++)
			len += snprintf(tags + len, sizeof(tags) - len, "%s%s", t ? "," : "",
					b[i].tags[t]);
		cmd_format_utc(seen, sizeof(seen), b[i].seen);
		if (json) {
			json_t *o = json_object();

			json_object_set_new(o, "testbox", json_string(b[i].testbox));
			json_object_set_new(o, "machine", json_string(b[i].machine));
			json_object_set_new(o, "cpus", json_integer(b[i].cpus));
			json_object_set_new(o, "mem_mb", json_integer(b[i].mem_mb));
			json_object_set_new(o, "arch", json_string(b[i].arch));
			json_object_set_new(o, "kernel", json_string(b[i].kernel));
			json_object_set_new(o, "tags", json_string(tags));
			json_object_set_new(o, "state", json_string(b[i].state));
			json_object_set_new(o, "why", b[i].why ? json_string(b[i].why) : json_null());
			json_object_set_new(o, "seen", json_real(b[i].seen));
			json_object_set_new(o, "done", json_integer(b[i].done));
			json_object_set_new(o, "failed", json_integer(b[i].failed));
			json_object_set_new(o, "lost", json_integer(b[i].lost));
			json_object_set_new(o, "class", b[i].class ? json_string(b[i].class)
								   : json_null());
			json_array_append_new(a, o);
			continue;
		}
		printf("%-16s %-11s %6" PRId64 " %6" PRId64 " %6" PRId64 "  %-16s %-24s %s (%s, %s;"
		       " seen %s)\n", b[i].testbox, b[i].state, b[i].done, b[i].failed, b[i].lost,
		       b[i].class ? b[i].class : "-", *tags ? tags : "-", b[i].machine,
		       b[i].arch, b[i].kernel, seen);
		if (b[i].why)
			printf("  %s\n", b[i].why);
	}
	store_boxes_release(b, nr);
	if (json)
		return cmd_print_json("queue", a);
	if (!nr)
		fprintf(stderr, "perfbot: queue: no boxes registered (perfbot worker registers its"
			" box)\n");
	return EXIT_OK;
}

/* Every class and its boxes, a line each (registered or not: see boxes). */
static int classes(struct store *s, bool json)
{
	struct store_class *c;
	size_t nr;
	json_t *a = json ? json_array() : NULL;

	if (store_queue_classes(s, &c, &nr)) {
		json_decref(a);
		return cmd_failure("queue", "%s", store_error(s));
	}
	for (size_t i = 0; i < nr; i++) {
		json_t *boxes = json ? json_array() : NULL;

		if (!json)
			printf("%s:", c[i].name);
		for (size_t k = 0; c[i].boxes && c[i].boxes[k]; k++) {
			if (json)
				json_array_append_new(boxes, json_string(c[i].boxes[k]));
			else
				printf(" %s", c[i].boxes[k]);
		}
		if (json)
			json_array_append_new(a, json_pack("{s:s, s:o}", "class", c[i].name,
							   "boxes", boxes));
		else
			putchar('\n');
	}
	store_classes_release(c, nr);
	if (json)
		return cmd_print_json("queue", a);
	if (!nr)
		fprintf(stderr, "perfbot: queue: no classes (perfbot queue class NAME BOX...)\n");
	return EXIT_OK;
}

/* perfbot queue class NAME BOX...: the names checked here, the rest by the store. */
static int declare(struct store *s, const char *name, char **boxes, int nr)
{
	int err;

	for (int i = 0; i < nr; i++)
		for (int k = 0; k < i; k++)
			if (!strcmp(boxes[i], boxes[k]))
				return usage_error("class %s: box %s given twice", name, boxes[i]);
	err = store_queue_class_set(s, name, boxes);
	if (err == -EEXIST || err == -EINVAL)
		return usage_error("%s", store_error(s));
	if (err)
		return cmd_failure("queue", "%s", store_error(s));
	fprintf(stderr, "perfbot: queue: class %s: %d box%s\n", name, nr, nr == 1 ? "" : "es");
	return EXIT_OK;
}

static int parse_id(const char *arg, int64_t *id)
{
	unsigned long v;

	if (!arg)
		return usage_error("no item id");
	if (parse_ulong(arg, 1, LONG_MAX, &v) != PARSE_OK)
		return usage_error("invalid item id '%s': expected a number from perfbot queue list",
				   arg);
	*id = (int64_t)v;
	return 0;
}

/* queue class: list (no name), declare (NAME BOX...) or --remove NAME. */
static int class_verb(const char *remove, bool json, char **args, int nr)
{
	struct store *s = NULL;
	const char *why;
	int ret;

	if (remove && nr)
		return usage_error("unexpected argument '%s': --remove takes the class alone",
				   args[0]);
	if (nr == 1)
		return usage_error("class %s: no box (perfbot queue class NAME BOX...)", args[0]);
	if (json && (remove || nr))
		return usage_error("--json lists the classes: perfbot queue class --json");
	for (int i = 0; i < nr; i++)
		if ((why = needs_word_problem(args[i])))
			return usage_error("%s '%s': %s", i ? "box" : "class", args[i], why);
	if (remove && (why = needs_word_problem(remove)))
		return usage_error("class '%s': %s", remove, why);
	if ((ret = cmd_store_open("queue", remove || nr ? STORE_WRITE : STORE_READ, &s)))
		return ret;
	if (remove) {
		if (store_queue_class_remove(s, remove))
			ret = cmd_failure("queue", "%s", store_error(s));
		else
			fprintf(stderr, "perfbot: queue: class %s removed\n", remove);
	} else if (nr) {
		ret = declare(s, args[0], args + 1, nr - 1);
	} else {
		ret = classes(s, json);
	}
	store_close(s);
	return ret;
}

int cmd_queue(int argc, char **argv)
{
	enum { OPT_STATE = 256, OPT_JSON, OPT_REMOVE };
	static const struct option longopts[] = {
		{ "state", required_argument, NULL, OPT_STATE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "remove", required_argument, NULL, OPT_REMOVE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *state = NULL, *verb = "list", *arg = NULL, *remove = NULL;
	struct store *s = NULL;
	bool json = false, writes;
	int64_t id = 0;
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_STATE:
			state = optarg;
			for (size_t i = 0; states[i] && state; i++)
				if (!strcmp(states[i], optarg))
					state = NULL;
			if (state)
				return usage_error("--state '%s': one of queued, running, done,"
						   " failed, cancelled", optarg);
			state = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_REMOVE:
			remove = optarg;
			break;
		case 'h':
			fputs(queue_usage, stdout);
			return EXIT_OK;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		verb = argv[optind++];
	if (remove && strcmp(verb, "class"))
		return usage_error("--remove is queue class's: perfbot queue class --remove NAME");
	if (!strcmp(verb, "class"))
		return class_verb(remove, json, argv + optind, argc - optind);
	if (optind < argc)
		arg = argv[optind++];
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (strcmp(verb, "list") && strcmp(verb, "show") && strcmp(verb, "cancel") &&
	    strcmp(verb, "retry") && strcmp(verb, "boxes") && strcmp(verb, "release"))
		return usage_error("unknown queue command '%s': list, show, cancel, retry, boxes,"
				   " release or class", verb);
	if ((!strcmp(verb, "list") || !strcmp(verb, "boxes")) && arg)
		return usage_error("unexpected argument '%s'", arg);
	if (!strcmp(verb, "show") || !strcmp(verb, "cancel") || !strcmp(verb, "retry"))
		if ((ret = parse_id(arg, &id)))
			return ret;
	if (!strcmp(verb, "release") && !arg)
		return usage_error("no box: perfbot queue release BOX");
	writes = !strcmp(verb, "cancel") || !strcmp(verb, "retry") || !strcmp(verb, "release");
	if ((ret = cmd_store_open("queue", writes ? STORE_WRITE : STORE_READ, &s)))
		return ret;
	if (!strcmp(verb, "list"))
		ret = list(s, state, json);
	else if (!strcmp(verb, "show"))
		ret = show(s, id, json);
	else if (!strcmp(verb, "boxes"))
		ret = boxes(s, json);
	else {
		int err = !strcmp(verb, "cancel") ? store_queue_cancel(s, id)
			  : !strcmp(verb, "retry") ? store_queue_retry(s, id)
			  : store_queue_release(s, arg);

		if (err)
			ret = cmd_failure("queue", "%s", store_error(s));
		else if (arg && !strcmp(verb, "release"))
			fprintf(stderr, "perfbot: queue: box %s released\n", arg);
		else
			fprintf(stderr, "perfbot: queue: item %" PRId64 " %s\n", id,
				!strcmp(verb, "cancel") ? "cancelled" : "queued again");
	}
	store_close(s);
	return ret;
}
