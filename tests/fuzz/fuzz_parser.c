/*
 * Fuzz target: one exec benchmark output parser (bench/parsers.h), built
 * once per kind: PARSE_KIND is "kv", "json", "gbench", "hyperfine" or
 * "time" (fuzz_parse_<kind>).
 *
 * Input: the benchmark's stdout, not NUL-terminated.  For "json" only,
 * an input starting with "paths:\n" gives `name=path` lines up to an
 * empty line first (a job's `paths:`), then the output.  Beyond "no
 * crash", parsers.h's promises: an error leaves the statmap as it was
 * (here: empty) and has a message; success leaves no stat unnamed.
 */
#include "bench/parsers.h"
#include "util/quote.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef PARSE_KIND
#error "PARSE_KIND must name the parser"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Take "paths:\n" name=path lines up to "\n\n" off the input's front. */
static void take_paths(const uint8_t **data, size_t *size, struct strmap *paths)
{
	static const char magic[] = "paths:\n";
	const char *p = (const char *)*data + strlen(magic);
	const char *end = (const char *)*data + *size;

	if (*size < strlen(magic) || memcmp(*data, magic, strlen(magic)))
		return;
	while (p < end && *p != '\n') {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *eq = memchr(p, '=', (size_t)(eol - p));

		if (eq && !memchr(p, '\0', (size_t)(eol - p))) {
			char *name = strndup(p, (size_t)(eq - p));
			char *path = strndup(eq + 1, (size_t)(eol - eq - 1));

			if (name && path)
				strmap_set(paths, name, path);
			free(name);
			free(path);
		}
		p = nl ? nl + 1 : end;
	}
	if (p < end)
		p++;	/* the empty line */
	*size = (size_t)(end - p);
	*data = (const uint8_t *)p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strmap paths = { 0 };
	struct statmap out = { 0 };
	struct strbuf sb = STRBUF_INIT;
	const char *err;
	int ret;

	if (!strcmp(PARSE_KIND, "json"))
		take_paths(&data, &size, &paths);
	ret = exec_parse_output(PARSE_KIND, (const char *)data, size, &paths,
				size & 1 ? "bench" : NULL, &out, &sb);
	err = sb.buf;
	if (ret == 0) {
		/* on success err is empty, or says which bad names were dropped */
		if (err[0] && !strstr(err, ": dropped "))
			__builtin_trap();
		/*
		 * a name is never empty - unless the caller asked for one: no
		 * prefix and a path named "" (the runner always gives the
		 * testcase as prefix)
		 */
		bool may_be_empty = !(size & 1) && strmap_get(&paths, "");

		for (size_t i = 0; i < out.n; i++)
			if (!out.v[i].name || (!out.v[i].name[0] && !may_be_empty) ||
			    name_problem(out.v[i].name))	/* the store's rule */
				__builtin_trap();
		statmap_finish(&out);
	} else if (out.n != 0 || !err[0] || (ret != -EPROTO && ret != -ENOMEM)) {
		__builtin_trap();
	}
	statmap_release(&out);
	strmap_release(&paths);
	strbuf_release(&sb);
	return 0;
}
