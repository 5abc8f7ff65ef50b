/*
 * colour.h - colour on terminals, as git and hyperfine do it: decided
 * once per stream (--color=auto|always|never, NO_COLOR, TERM=dumb, a
 * tty or not), then a few SGR sequences around words whose width was
 * computed on the plain text, so columns line up with and without it.
 *
 * Only text for a terminal is ever coloured; emails, JSON, CSV and HTML
 * never are (their writers never ask).  No state; thread-safe.
 */
#ifndef PERFBOT_UTIL_COLOUR_H
#define PERFBOT_UTIL_COLOUR_H

#include <stdbool.h>
#include <stdio.h>

enum colour_when { COLOUR_AUTO, COLOUR_ALWAYS, COLOUR_NEVER };

/* What a word means, not how it looks: colour_start() picks the look. */
enum colour {
	COLOUR_PLAIN,	/* nothing: unknown, few runs */
	COLOUR_BAD,	/* red: a regression */
	COLOUR_GOOD,	/* green: an improvement */
	COLOUR_DIM,	/* dim: same, nothing moved */
	COLOUR_CHANGE,	/* bold yellow: a change with no better direction */
};

/* "auto", "always", "never" (git's also: "true", "false"): 0, or -EINVAL. */
int colour_parse(const char *arg, enum colour_when *out);

/*
 * The decision, pure: always -> true; never -> false; auto -> a tty whose
 * TERM is set and not "dumb".  NO_COLOR set and non-empty turns auto off
 * (never always: asking for it on the command line wins).  term and
 * no_color may be NULL (unset).
 */
bool colour_decide(enum colour_when when, bool tty, const char *term,
		   const char *no_color);
/* colour_decide() for the stream: isatty(fileno(f)), $TERM, $NO_COLOR. */
bool colour_for(enum colour_when when, FILE *f);

/* The SGR sequence that starts c ("" for COLOUR_PLAIN); end with COLOUR_RESET. */
const char *colour_start(enum colour c);
#define COLOUR_RESET "\033[m"

/*
 * s to out, coloured c when on: blanks leading and trailing s stay
 * outside the sequences (a padded cell keeps its plain look), and
 * nothing is added when s has no other character.
 */
void colour_fputs(FILE *out, bool on, enum colour c, const char *s);

#endif
