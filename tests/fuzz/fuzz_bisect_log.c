/*
 * Fuzz target: what a bisection stores, read back - the result document
 * through every report writer (report/bisect.c, `perfbot report
 * --bisect`, `bisect status`), and the spec (bisect_spec_from_json(),
 * `bisect resume`).
 *
 * Input: JSON text, not NUL-terminated; the same bytes are tried as a
 * result and as a spec.  Writers go to an in-memory stream.  Beyond "no
 * crash", report.h's promise: on -EINVAL nothing has been written.
 */
#include "report/report.h"
#include "vcs/bisect_session.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { TEXT, EMAIL, HTML, JSON, NR_FORMATS };

static void render(const json_t *r, int fmt)
{
	static const struct report_bisect_opts o = {
		.from = "perfbot <perfbot@example.org>",
		.to = "list@example.org",
		.reported_by = "perfbot <perfbot@example.org>",
		.link = "https://example.org/b/1",
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int ret;

	if (!m)
		return;
	switch (fmt) {
	case TEXT: ret = report_bisect_text(m, r); break;
	case EMAIL: ret = report_bisect_email(m, r, &o); break;
	case HTML: ret = report_bisect_html(m, r); break;
	default: ret = report_bisect_json(m, r); break;
	}
	if (fclose(m))
		ret = ret ? ret : -EIO;
	if (ret == -EINVAL && len != 0)
		__builtin_trap();
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bisect_spec spec;
	json_error_t e;
	json_t *r = json_loadb((const char *)data, size, 0, &e);
	char *text;

	if (r) {
		for (int f = 0; f < NR_FORMATS; f++)
			render(r, f);
		json_decref(r);
	}
	/* the spec reader takes a C string: up to the first NUL */
	text = strndup((const char *)data, size);
	if (!text)
		return 0;
	memset(&spec, 0, sizeof(spec));
	if (bisect_spec_from_json(text, &spec) == 0)
		bisect_spec_release(&spec);
	free(text);
	return 0;
}
