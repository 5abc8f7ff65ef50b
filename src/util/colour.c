/*
 * colour.c - colour on terminals (colour.h).
 */
#include "util/colour.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int colour_parse(const char *arg, enum colour_when *out)
{
	if (!strcmp(arg, "auto"))
		*out = COLOUR_AUTO;
	else if (!strcmp(arg, "always") || !strcmp(arg, "true"))
		*out = COLOUR_ALWAYS;
	else if (!strcmp(arg, "never") || !strcmp(arg, "false"))
		*out = COLOUR_NEVER;
	else
		return -EINVAL;
	return 0;
}

bool colour_decide(enum colour_when when, bool tty, const char *term,
		   const char *no_color)
{
	switch (when) {
	case COLOUR_ALWAYS:
		return true;
	case COLOUR_NEVER:
		return false;
	case COLOUR_AUTO:
		break;
	}
	/* https://no-color.org: set and not empty */
	if (no_color && *no_color)
		return false;
	return tty && term && *term && strcmp(term, "dumb");
}

bool colour_for(enum colour_when when, FILE *f)
{
	int fd = fileno(f);

	return colour_decide(when, fd >= 0 && isatty(fd), getenv("TERM"),
			     getenv("NO_COLOR"));
}

const char *colour_start(enum colour c)
{
	switch (c) {
	case COLOUR_BAD:
		return "\033[31m";
	case COLOUR_GOOD:
		return "\033[32m";
	case COLOUR_DIM:
		return "\033[2m";
	case COLOUR_CHANGE:
		return "\033[1;33m";
	case COLOUR_PLAIN:
		break;
	}
	return "";
}

void colour_fputs(FILE *out, bool on, enum colour c, const char *s)
{
	size_t lead, len;

	if (!on || c == COLOUR_PLAIN) {
		fputs(s, out);
		return;
	}
	lead = strspn(s, " ");
	len = strlen(s + lead);
	while (len && s[lead + len - 1] == ' ')
		len--;
	fwrite(s, 1, lead, out);
	if (len) {
		fputs(colour_start(c), out);
		fwrite(s + lead, 1, len, out);
		fputs(COLOUR_RESET, out);
	}
	fputs(s + lead + len, out);
}
