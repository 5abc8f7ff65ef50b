/*
 * param.c - the one validator of benchmark parameters: a job's values and
 * `perfbot bench NAME`'s options, by the type's table.  See bench.h.
 */
#define _GNU_SOURCE
#include "bench/bench.h"
#include "util/bug.h"
#include "util/parse.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Choices an "expected a, b or c" message lists in full; more get "did you mean". */
#define FEW_CHOICES 4

size_t bench_param_nr_choices(const struct bench_param *p)
{
	struct bench_choice c;
	size_t n = 0;

	if (p->choice_at) {
		while (p->choice_at(n, &c))
			n++;
		return n;
	}
	while (p->choices && p->choices[n].name)
		n++;
	return n;
}

void bench_param_choice(const struct bench_param *p, size_t i,
			struct bench_choice *out)
{
	if (p->choice_at) {
		if (!p->choice_at(i, out))
			BUG("choice %zu of %s out of range", i, p->key);
		return;
	}
	BUG_ON(!p->choices || !p->choices[i].name);
	*out = p->choices[i];
}

static const struct bench_param *row_of(const struct bench_args *a, int row)
{
	BUG_ON(row < 0 || (size_t)row >= a->type->nr_params);
	return &a->type->params[row];
}

void bench_args_init(struct bench_args *a, const struct bench_type *t,
		     unsigned ncpus, bool job)
{
	BUG_ON(t->nr_params > BENCH_MAX_PARAMS);
	memset(a, 0, sizeof(*a));
	a->type = t;
	a->ncpus = ncpus ? ncpus : 1;
	a->job = job;
	for (size_t i = 0; i < t->nr_params; i++) {
		const struct bench_param *p = &t->params[i];
		union bench_value *v = &a->v[i].v;

		switch (p->type) {
		case BENCH_DURATION:
			v->s = p->def_s;
			break;
		case BENCH_ENUM:
			v->choice = p->def;
			break;
		case BENCH_BOOL:
			v->on = p->def != 0;
			break;
		default:
			v->n = p->def;
			break;
		}
	}
}

static bool job_key(const struct bench_param *p)
{
	return !(p->flags & (BENCH_CLI_ONLY | BENCH_GENERIC));
}

int bench_param_find(const struct bench_type *t, const char *key)
{
	for (size_t i = 0; i < t->nr_params; i++)
		if (job_key(&t->params[i]) && !strcmp(t->params[i].key, key))
			return (int)i;
	return -1;
}

const char *bench_param_suggest(const struct bench_type *t, const char *key)
{
	struct suggest sg;

	suggest_init(&sg, key);
	/* the generic keys it takes are a job's keys too (runttime: runtime) */
	for (size_t i = 0; i < t->nr_params; i++)
		if (!(t->params[i].flags & BENCH_CLI_ONLY))
			suggest_add(&sg, t->params[i].key);
	return suggest_result(&sg);
}

/* A choice this context may take: a job never takes a command-line one. */
static bool choice_usable(const struct bench_args *a, const struct bench_choice *c)
{
	return !(a->job && (c->flags & BENCH_CHOICE_CLI_ONLY));
}

static bool choice_matches(const struct bench_param *p,
			   const struct bench_choice *c, const char *text)
{
	int (*cmp)(const char *, const char *) =
		p->flags & BENCH_NOCASE ? strcasecmp : strcmp;

	if (!cmp(c->name, text))
		return true;
	for (const char *const *al = c->aliases; al && *al; al++)
		if (!cmp(*al, text))
			return true;
	return false;
}

static bool find_choice(const struct bench_args *a, const struct bench_param *p,
			const char *text, size_t *out)
{
	size_t n = bench_param_nr_choices(p);

	for (size_t i = 0; i < n; i++) {
		struct bench_choice c;

		bench_param_choice(p, i, &c);
		if (choice_usable(a, &c) && choice_matches(p, &c, text)) {
			*out = i;
			return true;
		}
	}
	return false;
}

/*
 * Bytes as netperf's -m reads them (its convert()): N, or N with K (1024),
 * M (2^20), k (1000) or m (10^6); the digits by util/parse.h's grammar.
 */
static enum parse_status parse_size(const char *s, unsigned long min,
				    unsigned long max, unsigned long *out)
{
	unsigned long v, mult = 1;
	size_t len = strlen(s);
	char digits[32];
	enum parse_status st;

	switch (len ? s[len - 1] : 0) {
	case 'K':
		mult = 1024;
		break;
	case 'k':
		mult = 1000;
		break;
	case 'M':
		mult = 1024 * 1024;
		break;
	case 'm':
		mult = 1000 * 1000;
		break;
	}
	if (mult > 1)
		len--;
	if (len >= sizeof(digits))
		return strspn(s, "0123456789") == len && *s != '0' ? PARSE_TOO_LARGE
								    : PARSE_SYNTAX;
	memcpy(digits, s, len);
	digits[len] = '\0';
	st = parse_ulong(digits, 0, max / mult, &v);
	if (st != PARSE_OK)
		return st;
	if (v * mult < min)
		return PARSE_TOO_SMALL;
	*out = v * mult;
	return PARSE_OK;
}

static enum bench_param_status from_parse(enum parse_status st)
{
	switch (st) {
	case PARSE_OK:
		return BENCH_PARAM_OK;
	case PARSE_TOO_SMALL:
		return BENCH_PARAM_TOO_SMALL;
	case PARSE_TOO_LARGE:
		return BENCH_PARAM_TOO_LARGE;
	default:
		return BENCH_PARAM_SYNTAX;
	}
}

static enum bench_param_status parse_bool(const char *text, bool *on)
{
	static const char *const yes[] = { "true", "yes", "on", "1", NULL };
	static const char *const no[] = { "false", "no", "off", "0", NULL };

	for (size_t i = 0; yes[i]; i++) {
		if (!strcmp(text, yes[i])) {
			*on = true;
			return BENCH_PARAM_OK;
		}
		if (!strcmp(text, no[i])) {
			*on = false;
			return BENCH_PARAM_OK;
		}
	}
	return BENCH_PARAM_SYNTAX;
}

static enum bench_param_status check_seconds(const struct bench_param *p, double s)
{
	if (p->flags & BENCH_ABOVE_MIN ? !(s > p->min_s) : !(s >= p->min_s))
		return BENCH_PARAM_TOO_SMALL;
	if (p->max_s > 0 && s > p->max_s)
		return BENCH_PARAM_TOO_LARGE;
	return BENCH_PARAM_OK;
}

/* Parse without touching the slot. */
static enum bench_param_status parse_value(const struct bench_args *a,
					   const struct bench_param *p,
					   const char *text, union bench_value *v)
{
	enum bench_param_status st;
	unsigned tasks;

	switch (p->type) {
	case BENCH_COUNT:
		return from_parse(parse_ulong(text, p->min, p->max, &v->n));
	case BENCH_TASKS:
		st = from_parse(parse_task_count(text, a->ncpus, (unsigned)p->max,
						 &tasks));
		if (st == BENCH_PARAM_OK)
			v->n = tasks;
		return st;
	case BENCH_SIZE:
		return from_parse(parse_size(text, p->min, p->max, &v->n));
	case BENCH_DURATION:
		st = from_parse(parse_duration(text, &v->s));
		return st == BENCH_PARAM_OK ? check_seconds(p, v->s) : st;
	case BENCH_ENUM:
		return find_choice(a, p, text, &v->choice) ? BENCH_PARAM_OK
							   : BENCH_PARAM_BAD_CHOICE;
	case BENCH_BOOL:
		return parse_bool(text, &v->on);
	case BENCH_PATH:
		/* what the file is, its writer says when it opens it */
		v->n = 0;
		return *text ? BENCH_PARAM_OK : BENCH_PARAM_SYNTAX;
	}
	return BENCH_PARAM_SYNTAX;
}

enum bench_param_status bench_args_set(struct bench_args *a, int row,
				       const char *text)
{
	const struct bench_param *p = row_of(a, row);
	union bench_value v;
	enum bench_param_status st = parse_value(a, p, text, &v);

	if (st != BENCH_PARAM_OK)
		return st;
	a->v[row].v = v;
	a->v[row].given = true;
	a->v[row].text = text;
	return BENCH_PARAM_OK;
}

enum bench_param_status bench_args_set_choice(struct bench_args *a, int row,
					      size_t choice, const char *opt)
{
	const struct bench_param *p = row_of(a, row);
	struct bench_arg *s = &a->v[row];

	BUG_ON(p->type != BENCH_ENUM);
	if ((p->flags & BENCH_EXCLUSIVE) && s->given && s->opt &&
	    s->v.choice != choice)
		return BENCH_PARAM_CONFLICT;
	s->v.choice = choice;
	s->given = true;
	s->opt = opt;
	return BENCH_PARAM_OK;
}

void bench_args_flag(struct bench_args *a, int row, const char *opt)
{
	const struct bench_param *p = row_of(a, row);

	BUG_ON(p->type != BENCH_BOOL);
	a->v[row].v.on = !p->def;
	a->v[row].given = true;
	a->v[row].opt = opt;
}

void bench_args_set_seconds(struct bench_args *a, int row, double s)
{
	BUG_ON(row_of(a, row)->type != BENCH_DURATION);
	a->v[row].v.s = s;
	a->v[row].given = true;
}

const char *bench_args_choice_name(const struct bench_args *a, int row)
{
	struct bench_choice c;

	bench_param_choice(row_of(a, row), a->v[row].v.choice, &c);
	return c.name;
}

/* ---- messages ------------------------------------------------------------- */

/* "7 days", "30 s": a bound as a person writes it. */
static void add_seconds(struct strbuf *sb, double s)
{
	if (s >= 86400 && fmod(s, 86400) == 0)
		strbuf_addf(sb, "%g days", s / 86400);
	else
		strbuf_addf(sb, "%g s", s);
}

/* "-t", else "--tasks": how a command-line message names the option. */
static void add_option(struct strbuf *sb, const struct bench_param *p)
{
	if (p->opt)
		strbuf_addf(sb, "-%c", p->opt);
	else if (p->long_opt)
		strbuf_addf(sb, "--%s", p->long_opt);
	else
		strbuf_addstr(sb, p->key);
}

static bool is_alias_param(const struct bench_type *t, const struct bench_param *p)
{
	return t->cli_alias && !strcmp(t->cli_alias, p->key);
}

/* Where the choices are listed, for a message without a suggestion. */
static void add_list_hint(struct strbuf *sb, const struct bench_type *t,
			  const struct bench_param *p)
{
	if (is_alias_param(t, p))
		strbuf_addstr(sb, "'perfbot bench' lists them");
	else if (bench_type_cli_named(t))
		strbuf_addf(sb, "'perfbot bench %s --help' lists them", t->name);
	else
		strbuf_addstr(sb, "'perfbot help benchmarks' lists them");
}

static void add_bad_choice(struct strbuf *sb, const struct bench_args *a,
			   const struct bench_param *p, const char *name,
			   const char *text, bool cli)
{
	size_t n = bench_param_nr_choices(p), nr_listed = 0;
	const char *listed[FEW_CHOICES + 1];
	char folded[64];
	size_t text_len = strlen(text);
	struct suggest sg;
	const char *near = NULL;

	for (size_t i = 0; i < n; i++) {
		struct bench_choice c;

		bench_param_choice(p, i, &c);
		if (!choice_usable(a, &c) || (c.flags & BENCH_CHOICE_HIDDEN))
			continue;
		if (nr_listed <= FEW_CHOICES)
			listed[nr_listed] = c.name;
		nr_listed++;
	}
	if (nr_listed <= FEW_CHOICES) {
		strbuf_addf(sb, "invalid %s '%s': expected ", name, text);
		for (size_t i = 0; i < nr_listed; i++)
			strbuf_addf(sb, "%s%s", i == 0 ? "" :
				    i + 1 == nr_listed ? " or " : ", ", listed[i]);
		return;
	}
	/* a value too long to fold is not near anything */
	if (text_len < sizeof(folded)) {
		memcpy(folded, text, text_len + 1);
		/* choices matched in any case are written in capitals (netperf's tests) */
		if (p->flags & BENCH_NOCASE)
			for (char *c = folded; *c; c++)
				*c = (char)toupper((unsigned char)*c);
		suggest_init(&sg, folded);
		for (size_t i = 0; i < n; i++) {
			struct bench_choice c;

			bench_param_choice(p, i, &c);
			if (choice_usable(a, &c) && !(c.flags & BENCH_CHOICE_HIDDEN))
				suggest_add(&sg, c.name);
		}
		near = suggest_result(&sg);
	}
	strbuf_addf(sb, "%s %s '%s'", cli ? "unknown" : "invalid", name, text);
	if (near) {
		strbuf_addf(sb, " (did you mean '%s'?)", near);
		return;
	}
	if (!cli)
		strbuf_addf(sb, ": not a %s %s", a->type->name, p->noun ? p->noun : p->key);
	strbuf_addstr(sb, " (");
	add_list_hint(sb, a->type, p);
	strbuf_addch(sb, ')');
}

static void add_too_small(struct strbuf *sb, const struct bench_param *p,
			  const char *name, const char *text, bool cli)
{
	union bench_value v;

	switch (p->type) {
	case BENCH_TASKS:
		strbuf_addf(sb, "invalid %s '%s': must be at least 1 (or a percentage above 0%%)",
			    name, text);
		return;
	case BENCH_SIZE:
		strbuf_addf(sb, "invalid %s '%s': must be at least %lu byte%s", name,
			    text, p->min, p->min == 1 ? "" : "s");
		return;
	case BENCH_DURATION:
		if (cli && (p->flags & BENCH_QUOTE_SECONDS) &&
		    parse_duration(text, &v.s) == PARSE_OK)
			strbuf_addf(sb, "invalid %s '%g s': ", name, v.s);
		else
			strbuf_addf(sb, "invalid %s '%s': ", name, text);
		if (p->flags & BENCH_ABOVE_MIN)
			strbuf_addf(sb, "must be above %g", p->min_s);
		else if (p->min_s == 0)
			strbuf_addstr(sb, "must not be negative");
		else
			strbuf_addf(sb, "must be at least %g s", p->min_s);
		return;
	default:
		strbuf_addf(sb, "invalid %s '%s': must be at least %lu", name, text,
			    p->min);
		return;
	}
}

static void add_too_large(struct strbuf *sb, const struct bench_param *p,
			  const char *name, const char *text, bool cli)
{
	double s;

	switch (p->type) {
	case BENCH_SIZE:
		strbuf_addf(sb, "invalid %s '%s': at most %lu bytes", name, text, p->max);
		return;
	case BENCH_DURATION:
		strbuf_addf(sb, "invalid %s '%s': ", name, text);
		if (parse_duration(text, &s) == PARSE_OK && p->max_s > 0) {
			strbuf_addstr(sb, "at most ");
			add_seconds(sb, p->max_s);
		} else {
			strbuf_addstr(sb, "more than 30 days");
		}
		return;
	default:
		break;
	}
	if (p->unit && cli) {
		add_option(sb, p);
		strbuf_addf(sb, " %s is more than %lu %s", text, p->max, p->unit);
	} else if (p->unit) {
		strbuf_addf(sb, "invalid %s '%s': more than %lu %s", name, text,
			    p->max, p->unit);
	} else {
		strbuf_addf(sb, "invalid %s '%s': at most %lu", name, text, p->max);
	}
}

static void add_syntax(struct strbuf *sb, const struct bench_param *p,
		       const char *name, const char *text)
{
	static const char *const expected[] = {
		[BENCH_COUNT] = "a whole number",
		[BENCH_TASKS] = "N or N%",
		[BENCH_DURATION] = "seconds, or a number with ms, s, m or h",
		[BENCH_SIZE] = "bytes, or a number with K, M, k or m",
		[BENCH_ENUM] = "one of its values",
		[BENCH_BOOL] = "true or false",
		[BENCH_PATH] = "a file name",
	};

	strbuf_addf(sb, "invalid %s '%s': expected %s", name, text,
		    expected[p->type]);
}

/* "-4" of a choice, else "--ipv4", else its name. */
static void add_choice_flag(struct strbuf *sb, const struct bench_choice *c)
{
	if (c->opt)
		strbuf_addf(sb, "-%c", c->opt);
	else if (c->long_opt)
		strbuf_addf(sb, "--%s", c->long_opt);
	else
		strbuf_addstr(sb, c->name);
}

void bench_param_message(const struct bench_args *a, int row, const char *text,
			 enum bench_param_status st, bool cli, struct strbuf *sb)
{
	const struct bench_param *p = st == BENCH_PARAM_UNKNOWN ? NULL : row_of(a, row);
	const char *name = p ? cli && p->noun ? p->noun : p->key : text;
	struct bench_choice was, now;
	size_t i;

	switch (st) {
	case BENCH_PARAM_OK:
		strbuf_addstr(sb, "ok");
		break;
	case BENCH_PARAM_UNKNOWN:
		strbuf_addf(sb, "unknown parameter '%s' for %s", text, a->type->name);
		break;
	case BENCH_PARAM_SYNTAX:
		add_syntax(sb, p, name, text);
		break;
	case BENCH_PARAM_TOO_SMALL:
		add_too_small(sb, p, name, text, cli);
		break;
	case BENCH_PARAM_TOO_LARGE:
		add_too_large(sb, p, name, text, cli);
		break;
	case BENCH_PARAM_BAD_CHOICE:
		add_bad_choice(sb, a, p, name, text, cli);
		break;
	case BENCH_PARAM_CONFLICT:
		/* text is the second choice's name */
		bench_param_choice(p, a->v[row].v.choice, &was);
		now = was;
		if (find_choice(a, p, text, &i))
			bench_param_choice(p, i, &now);
		add_choice_flag(sb, &was);
		strbuf_addstr(sb, " and ");
		add_choice_flag(sb, &now);
		strbuf_addstr(sb, " do not go together");
		break;
	}
}

int bench_args_check(const struct bench_args *a, bool cli, int *row,
		     struct strbuf *msg)
{
	const struct bench_type *t = a->type;
	struct strbuf why = STRBUF_INIT;

	*row = -1;
	for (size_t i = 0; i < t->nr_params; i++) {
		const struct bench_param *p = &t->params[i];

		if (a->v[i].given ||
		    !(p->flags & (cli ? BENCH_CLI_REQUIRED : BENCH_REQUIRED)))
			continue;
		if (!cli) {
			strbuf_addf(msg, "%s needs a '%s' parameter", t->name, p->key);
			return -1;
		}
		strbuf_addf(msg, "no %s: ", p->noun ? p->noun : p->key);
		add_option(msg, p);
		strbuf_addf(msg, " %s is required", p->metavar ? p->metavar : "VALUE");
		if (p->type == BENCH_ENUM) {
			strbuf_addstr(msg, " (");
			add_list_hint(msg, t, p);
			strbuf_addch(msg, ')');
		}
		*row = (int)i;
		return -1;
	}
	if (t->check && t->check(a, row, &why)) {
		/* in a job's message, name what the values do not fit */
		if (!cli && *row < 0)
			strbuf_addf(msg, "%s: ", t->name);
		if (strbuf_error(&why))
			strbuf_addstr(msg, "out of memory");
		else
			strbuf_add(msg, why.buf, why.len);
		strbuf_release(&why);
		return -1;
	}
	strbuf_release(&why);
	*row = -1;
	return 0;
}
