/*
 * reference.c - what the tables say, as text: `perfbot bench NAME --help`
 * and the reference of every benchmark (`perfbot help benchmarks`,
 * docs/benchmarks.md).  Built into a strbuf; the command prints it.
 */
#include "bench/bench.h"
#include "util/strbuf.h"

#include <string.h>

/* --help: options start at column 2, their text at column 24, lines end by 78. */
#define HELP_TEXT_COL 24
#define HELP_WIDTH 78
/* Enums with more choices get a list of their own in the reference. */
#define INLINE_CHOICES 4

/* A builder's failure becomes the output's: nothing is left out silently. */
static void adopt_error(struct strbuf *out, const struct strbuf *part)
{
	if (strbuf_error(part) && !out->err)
		out->err = strbuf_error(part);
}

/* Add `text` wrapped at HELP_WIDTH, every line but the first indented by `indent`. */
static void add_wrapped(struct strbuf *out, const char *text, size_t col,
			size_t indent)
{
	const char *p = text;

	while (*p) {
		size_t w = strcspn(p, " ");

		if (col > indent && col + 1 + w > HELP_WIDTH) {
			strbuf_addch(out, '\n');
			strbuf_addchars(out, ' ', indent);
			col = indent;
		} else if (col > indent) {
			strbuf_addch(out, ' ');
			col++;
		}
		strbuf_add(out, p, w);
		col += w;
		p += w;
		while (*p == ' ')
			p++;
	}
	strbuf_addch(out, '\n');
}

/* The default as a value, in the form a job or an option writes it. */
static void add_default(struct strbuf *out, const struct bench_param *p)
{
	struct bench_choice c;

	if (p->def_text) {
		strbuf_addstr(out, p->def_text);
		return;
	}
	switch (p->type) {
	case BENCH_DURATION:
		strbuf_addf(out, "%gs", p->def_s);
		break;
	case BENCH_ENUM:
		bench_param_choice(p, p->def, &c);
		strbuf_addstr(out, c.name);
		break;
	case BENCH_BOOL:
		strbuf_addstr(out, p->def ? "on" : "off");
		break;
	default:
		strbuf_addf(out, "%lu", p->def);
		break;
	}
}

static bool has_default(const struct bench_param *p)
{
	if (p->def_text)
		return true;
	switch (p->type) {
	case BENCH_BOOL:
		return false;	/* the flag's help says what it changes */
	case BENCH_DURATION:
		return p->def_s > 0;
	case BENCH_ENUM:
		return !(p->flags & BENCH_REQUIRED);
	default:
		return p->def > 0;
	}
}

static void add_option_line(struct strbuf *out, char opt, const char *long_opt,
			    const char *metavar, const char *help,
			    const struct bench_param *p)
{
	size_t start = out->len;
	struct strbuf text = STRBUF_INIT;

	if (opt)
		strbuf_addf(out, "  -%c%s", opt, long_opt ? ", " : "");
	else
		strbuf_addstr(out, "      ");
	if (long_opt)
		strbuf_addf(out, "--%s", long_opt);
	if (metavar)
		strbuf_addf(out, " %s", metavar);
	if (out->len - start + 1 >= HELP_TEXT_COL) {
		strbuf_addch(out, '\n');
		strbuf_addchars(out, ' ', HELP_TEXT_COL);
	} else {
		strbuf_addchars(out, ' ', HELP_TEXT_COL - (out->len - start));
	}
	strbuf_addstr(&text, help);
	if (p && has_default(p)) {
		strbuf_addstr(&text, " (default ");
		add_default(&text, p);
		if ((p->type == BENCH_TASKS || p->type == BENCH_COUNT) && p->max)
			strbuf_addf(&text, "; at most %lu", p->max);
		strbuf_addch(&text, ')');
	}
	add_wrapped(out, text.buf, HELP_TEXT_COL, HELP_TEXT_COL);
	adopt_error(out, &text);
	strbuf_release(&text);
}

void bench_cli_help(const struct bench_type *t, struct strbuf *out)
{
	strbuf_addstr(out, "usage: ");
	if (t->synopsis)
		strbuf_addstr(out, t->synopsis);
	else
		strbuf_addf(out, "perfbot bench %s [options]\n", t->name);
	strbuf_addch(out, '\n');
	if (t->intro)
		strbuf_addf(out, "%s\n", t->intro);
	for (size_t i = 0; i < t->nr_params; i++) {
		const struct bench_param *p = &t->params[i];

		if (p->opt || p->long_opt)
			add_option_line(out, p->opt, p->long_opt,
					p->type == BENCH_BOOL ? NULL : p->metavar,
					p->help, p);
		if (p->type != BENCH_ENUM)
			continue;
		for (size_t c = 0, n = bench_param_nr_choices(p); c < n; c++) {
			struct bench_choice ch;

			bench_param_choice(p, c, &ch);
			if (ch.opt || ch.long_opt)
				add_option_line(out, ch.opt, ch.long_opt, NULL,
						ch.help, NULL);
		}
	}
	{
		struct strbuf json = STRBUF_INIT;

		strbuf_addstr(&json, "print the result as JSON");
		if (t->doc)
			strbuf_addf(&json, " (%s)", t->doc);
		add_option_line(out, 0, "json", NULL, json.buf, NULL);
		adopt_error(out, &json);
		strbuf_release(&json);
	}
	add_option_line(out, 'h', "help", NULL, "show this help", NULL);
	for (size_t i = 0; i < t->nr_params; i++) {
		const struct bench_param *p = &t->params[i];

		if (!p->choices_title)
			continue;
		strbuf_addf(out, "\n%s:\n", p->choices_title);
		for (size_t c = 0, n = bench_param_nr_choices(p); c < n; c++) {
			struct bench_choice ch;

			bench_param_choice(p, c, &ch);
			if (ch.flags & BENCH_CHOICE_HIDDEN)
				continue;
			strbuf_addf(out, "  %-17s ", ch.name);
			add_wrapped(out, ch.help ? ch.help : "", 20, 20);
		}
	}
	if (t->notes)
		strbuf_addf(out, "\n%s", t->notes);
}

/* ---- the reference ---------------------------------------------------------- */

struct cells {
	struct strbuf key, option, type, def, values;
};

static const char *type_name(enum bench_param_type type)
{
	static const char *const names[] = {
		[BENCH_COUNT] = "count", [BENCH_TASKS] = "task count",
		[BENCH_DURATION] = "duration", [BENCH_SIZE] = "size",
		[BENCH_ENUM] = "choice", [BENCH_BOOL] = "switch",
		[BENCH_PATH] = "file",
	};

	return names[type];
}

/* `code` in markdown, as is in text. */
static void add_code(struct strbuf *sb, bool md, const char *fmt, const char *s)
{
	if (md)
		strbuf_addch(sb, '`');
	strbuf_addf(sb, fmt, s);
	if (md)
		strbuf_addch(sb, '`');
}

static void add_flag(struct strbuf *sb, bool md, char opt, const char *long_opt,
		     const char *metavar)
{
	char s[2] = { opt, 0 };

	if (opt)
		add_code(sb, md, "-%s", s);
	if (opt && long_opt)
		strbuf_addstr(sb, ", ");
	if (long_opt) {
		if (md)
			strbuf_addch(sb, '`');
		strbuf_addf(sb, "--%s", long_opt);
		if (metavar)
			strbuf_addf(sb, " %s", metavar);
		if (md)
			strbuf_addch(sb, '`');
	} else if (metavar && opt) {
		strbuf_addf(sb, " %s", metavar);
	}
}

static bool is_alias(const struct bench_type *t, const struct bench_param *p)
{
	return t->cli_alias && !strcmp(t->cli_alias, p->key);
}

static bool long_choice_list(const struct bench_param *p)
{
	return p->type == BENCH_ENUM && bench_param_nr_choices(p) > INLINE_CHOICES;
}

static void fill_cells(const struct bench_type *t, const struct bench_param *p,
		       bool md, struct cells *c)
{
	struct bench_choice ch;
	bool first = true;

	if (p->flags & BENCH_CLI_ONLY) {
		strbuf_addstr(&c->key, md ? "—" : "-");
	} else {
		add_code(&c->key, md, "%s", p->key);
		if (p->flags & BENCH_GENERIC)
			strbuf_addstr(&c->key, " (generic)");
	}
	if (is_alias(t, p)) {
		add_code(&c->option, md, "perfbot bench %s", p->metavar);
	} else if (!bench_type_cli_named(t) && !t->cli_alias) {
		strbuf_addstr(&c->option, md ? "—" : "-");
	} else if (p->opt || p->long_opt) {
		add_flag(&c->option, md, p->opt, p->long_opt,
			 p->type == BENCH_BOOL ? NULL : p->metavar);
	}
	if (p->type == BENCH_ENUM) {
		for (size_t i = 0, n = bench_param_nr_choices(p); i < n; i++) {
			bench_param_choice(p, i, &ch);
			if (!ch.opt && !ch.long_opt)
				continue;
			if (c->option.len)
				strbuf_addstr(&c->option, md ? "<br>" : "; ");
			add_flag(&c->option, md, ch.opt, ch.long_opt, NULL);
			strbuf_addstr(&c->option, ": ");
			add_code(&c->option, md, "%s", ch.name);
		}
	}
	if (!c->option.len)
		strbuf_addstr(&c->option, md ? "—" : "-");
	strbuf_addstr(&c->type, type_name(p->type));
	if (p->flags & BENCH_REQUIRED)
		strbuf_addstr(&c->def, "required");
	else if (has_default(p) || p->type == BENCH_BOOL)
		add_default(&c->def, p);
	else
		strbuf_addstr(&c->def, md ? "—" : "-");
	switch (p->type) {
	case BENCH_COUNT:
		strbuf_addf(&c->values, "%lu to %lu", p->min, p->max);
		break;
	case BENCH_TASKS:
		strbuf_addf(&c->values, "1 to %lu, or N%% of the online CPUs", p->max);
		break;
	case BENCH_SIZE:
		strbuf_addf(&c->values, "%lu to %lu bytes; K, M, k, m", p->min, p->max);
		break;
	case BENCH_DURATION:
		strbuf_addf(&c->values, "%s %g s", p->flags & BENCH_ABOVE_MIN ? "above" : "at least",
			    p->min_s);
		if (p->max_s >= 86400)
			strbuf_addf(&c->values, ", at most %g days", p->max_s / 86400);
		else if (p->max_s > 0)
			strbuf_addf(&c->values, ", at most %g s", p->max_s);
		break;
	case BENCH_BOOL:
		strbuf_addstr(&c->values, p->flags & BENCH_CLI_ONLY ? "a flag" : "true or false");
		break;
	case BENCH_PATH:
		strbuf_addstr(&c->values, "a file name");
		break;
	case BENCH_ENUM:
		if (long_choice_list(p)) {
			strbuf_addstr(&c->values, "below");
			break;
		}
		for (size_t i = 0, n = bench_param_nr_choices(p); i < n; i++) {
			bench_param_choice(p, i, &ch);
			if (ch.flags & BENCH_CHOICE_HIDDEN)
				continue;
			if (!first)
				strbuf_addstr(&c->values, ", ");
			first = false;
			add_code(&c->values, md, "%s", ch.name);
			for (const char *const *al = ch.aliases; al && *al; al++) {
				strbuf_addstr(&c->values, " or ");
				add_code(&c->values, md, "%s", *al);
			}
			if (ch.flags & BENCH_CHOICE_CLI_ONLY)
				strbuf_addstr(&c->values, " (command line)");
		}
		if (p->flags & BENCH_NOCASE)
			strbuf_addstr(&c->values, ", any case");
		break;
	}
}

static void cells_release(struct strbuf *out, struct cells *c)
{
	adopt_error(out, &c->key);
	adopt_error(out, &c->option);
	adopt_error(out, &c->type);
	adopt_error(out, &c->def);
	adopt_error(out, &c->values);
	strbuf_release(&c->key);
	strbuf_release(&c->option);
	strbuf_release(&c->type);
	strbuf_release(&c->def);
	strbuf_release(&c->values);
}

/* A markdown cell: '|' escaped. */
static void add_cell(struct strbuf *out, const char *s)
{
	strbuf_addstr(out, " ");
	for (; *s; s++) {
		if (*s == '|')
			strbuf_addch(out, '\\');
		strbuf_addch(out, *s);
	}
	strbuf_addstr(out, " |");
}

static const char *better_name(int better)
{
	return better > 0 ? "higher" : better < 0 ? "lower" : "neither";
}

static void add_how(struct strbuf *out, const struct bench_type *t, bool md)
{
	if (t->flags & BENCH_TYPE_EXEC) {
		strbuf_addstr(out, "a job with an ");
		add_code(out, md, "%s", "exec:");
		strbuf_addstr(out, " key, whatever its testcase; not a ");
		add_code(out, md, "%s", "perfbot bench");
		strbuf_addstr(out, " command");
		return;
	}
	add_code(out, md, "testcase: %s", t->name);
	strbuf_addstr(out, " in a job; ");
	if (t->cli_alias) {
		const char *mv = "NAME";

		for (size_t i = 0; i < t->nr_params; i++)
			if (is_alias(t, &t->params[i]))
				mv = t->params[i].metavar;
		add_code(out, md, "perfbot bench %s", mv);
	} else {
		add_code(out, md, "perfbot bench %s", t->name);
	}
	strbuf_addstr(out, " on the command line");
}

static void add_choice_list(struct strbuf *out, const struct bench_type *t,
			    const struct bench_param *p, bool md)
{
	if (md)
		strbuf_addf(out, "\n### %s: `%s` values\n\n| %s | what |\n|---|---|\n",
			    t->name, p->key, p->key);
	else
		strbuf_addf(out, "\n  %s values:\n", p->key);
	for (size_t i = 0, n = bench_param_nr_choices(p); i < n; i++) {
		struct bench_choice ch;

		bench_param_choice(p, i, &ch);
		if (ch.flags & BENCH_CHOICE_HIDDEN)
			continue;
		if (md) {
			strbuf_addf(out, "| `%s` |", ch.name);
			add_cell(out, ch.help ? ch.help : "");
			strbuf_addch(out, '\n');
		} else {
			strbuf_addf(out, "    %-18s", ch.name);
			add_wrapped(out, ch.help ? ch.help : "", 22, 22);
		}
	}
}

static void add_type(struct strbuf *out, const struct bench_type *t, bool md)
{
	if (md) {
		strbuf_addf(out, "\n## %s\n\n%s: ", t->name, t->desc);
		add_how(out, t, md);
		strbuf_addstr(out, ".");
		if (t->doc)
			strbuf_addf(out, " More in [%s](%s).", t->doc + strlen("docs/"),
				    t->doc + strlen("docs/"));
		strbuf_addstr(out, "\n\n### Parameters\n\n"
			      "| job key | `perfbot bench` option | type | default | values | meaning |\n"
			      "|---|---|---|---|---|---|\n");
	} else {
		strbuf_addf(out, "\n%s: %s\n  ", t->name, t->desc);
		add_how(out, t, md);
		if (t->doc)
			strbuf_addf(out, "; %s", t->doc);
		strbuf_addstr(out, "\n\n  parameters (job key, option, type, default, values):\n");
	}
	for (size_t i = 0; i < t->nr_params; i++) {
		const struct bench_param *p = &t->params[i];
		struct cells c = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT,
				   STRBUF_INIT };

		fill_cells(t, p, md, &c);
		if (md) {
			strbuf_addch(out, '|');
			add_cell(out, c.key.buf);
			add_cell(out, c.option.buf);
			add_cell(out, c.type.buf);
			add_cell(out, c.def.buf);
			add_cell(out, c.values.buf);
			add_cell(out, p->help ? p->help : "");
			strbuf_addch(out, '\n');
		} else {
			if (p->flags & BENCH_CLI_ONLY)
				strbuf_addf(out, "    %s (command line only)", c.option.buf);
			else if (!strcmp(c.option.buf, "-"))
				strbuf_addf(out, "    %s (job only)", c.key.buf);
			else
				strbuf_addf(out, "    %s, %s", c.key.buf, c.option.buf);
			strbuf_addf(out, ": %s; %s%s; %s\n      ", c.type.buf,
				    p->flags & BENCH_REQUIRED ? "" : "default ", c.def.buf,
				    c.values.buf);
			add_wrapped(out, p->help ? p->help : "", 6, 6);
		}
		cells_release(out, &c);
	}
	if (!t->nr_params)
		strbuf_addstr(out, md ? "| — | | | | | none |\n" : "    none\n");
	if (md)
		strbuf_addstr(out, "\n### Stats\n\n"
			      "| stat | unit | better | KPI | when | meaning |\n"
			      "|---|---|---|---|---|---|\n");
	else
		strbuf_addstr(out, "\n  stats (unit, better, KPI, when):\n");
	for (size_t i = 0; i < t->nr_stats; i++) {
		const struct bench_stat_decl *d = &t->stats[i];

		if (md) {
			strbuf_addf(out, "| `%s.%s` |", t->name, d->name);
			add_cell(out, d->unit);
			add_cell(out, better_name(d->better));
			add_cell(out, d->kpi ? "yes" : "");
			add_cell(out, d->when ? d->when : "always");
			add_cell(out, d->help ? d->help : "");
			strbuf_addch(out, '\n');
		} else {
			strbuf_addf(out, "    %s.%s: %s, %s better%s%s%s\n      ", t->name,
				    d->name, *d->unit ? d->unit : "no unit",
				    better_name(d->better), d->kpi ? ", KPI" : "",
				    d->when ? ", " : "", d->when ? d->when : "");
			add_wrapped(out, d->help ? d->help : "", 6, 6);
		}
	}
	if (!t->nr_stats)
		strbuf_addstr(out, md ? "| — | | | | | named by the command's output; "
				      "none is declared (record.h's rule gives the direction) |\n"
				    : "    named by the command's output; none is declared\n");
	for (size_t i = 0; i < t->nr_params; i++)
		if (long_choice_list(&t->params[i]))
			add_choice_list(out, t, &t->params[i], md);
}

void bench_reference(struct strbuf *out, bool markdown)
{
	if (markdown) {
		strbuf_addstr(out,
			"# Benchmarks\n\n"
			"<!-- Generated by `perfbot help benchmarks --markdown` from the\n"
			"benchmarks' tables (src/bench/bench.h); do not edit: a test fails\n"
			"when this file and that output differ. -->\n\n"
			"Every benchmark perfbot runs: its parameters and the stats it\n"
			"records. A parameter is one row with two spellings, the job key\n"
			"([jobs.md](jobs.md)) and the `perfbot bench` option; a job's values\n"
			"and the options go through the same checks, and every number\n"
			"follows one grammar ([jobs.md, Numbers](jobs.md#numbers)). A\n"
			"*generic* key is the job's own (`runtime`, `timeout`), which the\n"
			"benchmark takes; `—` marks a spelling a row does not have.\n\n"
			"A stat is recorded as `<testcase>.<name>` with its unit, which way\n"
			"is better and whether it is a KPI (the stat the run exists for;\n"
			"a job's `kpi:` overrides it). Monitors' stats and stats an `exec:`\n"
			"command names itself are not declared: their direction follows the\n"
			"rule of [compare.md](compare.md).\n\n"
			"| benchmark | what | how |\n|---|---|---|\n");
		for (const struct bench_type *const *t = bench_types; *t; t++) {
			strbuf_addf(out, "| [%s](#%s) |", (*t)->name, (*t)->name);
			add_cell(out, (*t)->desc);
			strbuf_addch(out, ' ');
			add_how(out, *t, true);
			strbuf_addstr(out, " |\n");
		}
	} else {
		strbuf_addstr(out,
			"perfbot's benchmarks: each parameter is one row with two spellings,\n"
			"the job key and the 'perfbot bench' option ('-' where a row has\n"
			"none); a generic key is the job's own.  Stats are recorded as\n"
			"<testcase>.<name>.  docs/benchmarks.md is this reference.\n");
	}
	for (const struct bench_type *const *t = bench_types; *t; t++)
		add_type(out, *t, markdown);
}
