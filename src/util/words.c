#include "util/words.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void free_words(char **argv)
{
	if (!argv)
		return;
	for (char **p = argv; *p; p++)
		free(*p);
	free(argv);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

int split_words(const char *line, char ***out)
{
	size_t len = strlen(line), n = 0;
	/* no word is longer than the line, and there are at most len/2+1 */
	char **argv = calloc(len / 2 + 2, sizeof(*argv));
	char *word = NULL;
	const char *p = line;
	int err = -EINVAL;

	*out = NULL;
	if (!argv)
		return -ENOMEM;
	for (;;) {
		size_t w = 0;

		while (is_blank(*p))
			p++;
		if (!*p)
			break;
		word = malloc(len + 1);
		if (!word) {
			err = -ENOMEM;
			goto fail;
		}
		while (*p && !is_blank(*p)) {
			if (*p == '\'') {
				const char *end = strchr(p + 1, '\'');

				if (!end)
					goto fail;
				memcpy(word + w, p + 1, (size_t)(end - p - 1));
				w += (size_t)(end - p - 1);
				p = end + 1;
			} else if (*p == '"') {
				for (p++; *p != '"'; p++) {
					if (!*p)
						goto fail;
					if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
						p++;
					word[w++] = *p;
				}
				p++;
			} else if (*p == '\\') {
				if (!p[1])
					goto fail;
				word[w++] = p[1];
				p += 2;
			} else {
				word[w++] = *p++;
			}
		}
		word[w] = '\0';
		argv[n++] = word;
		word = NULL;
	}
	*out = argv;
	return (int)n;
fail:
	free(word);
	free_words(argv);
	return err;
}
