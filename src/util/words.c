#include "util/words.h"
#include "util/strbuf.h"
#include "util/vec.h"

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
	struct {
		char **v;
		size_t n, cap;
	} argv = { 0 };
	struct strbuf word = STRBUF_INIT;
	const char *p = line;
	char *w;
	int err = -EINVAL;

	*out = NULL;
	for (;;) {
		while (is_blank(*p))
			p++;
		if (!*p)
			break;
		while (*p && !is_blank(*p)) {
			if (*p == '\'') {
				const char *end = strchr(p + 1, '\'');

				if (!end)
					goto fail;
				strbuf_add(&word, p + 1, (size_t)(end - p - 1));
				p = end + 1;
			} else if (*p == '"') {
				for (p++; *p != '"'; p++) {
					if (!*p)
						goto fail;
					if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
						p++;
					strbuf_addch(&word, *p);
				}
				p++;
			} else if (*p == '\\') {
				if (!p[1])
					goto fail;
				strbuf_addch(&word, p[1]);
				p += 2;
			} else {
				strbuf_addch(&word, *p++);
			}
		}
		/* '' is a word too: detach gives it a string of its own */
		w = strbuf_detach(&word, NULL);
		if (!w || vec_push(&argv, w)) {
			free(w);
			err = -ENOMEM;
			goto fail;
		}
	}
	if (vec_push(&argv, NULL)) {
		err = -ENOMEM;
		goto fail;
	}
	*out = argv.v;
	return (int)(argv.n - 1);
fail:
	strbuf_release(&word);
	for (size_t i = 0; i < argv.n; i++)
		free(argv.v[i]);
	vec_free(&argv);
	return err;
}
