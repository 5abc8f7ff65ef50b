/*
 * Fuzz target: what a bisection stores, read back -- the result through
 * its one reader (record/bisect_result.h: bisect_result_from_json() as a
 * whole document, bisect_result_load() as a stored result completed by
 * its spec, as `bisect status`, `report --bisect` and `bisect resume`
 * read it), every report writer (report/bisect_report.h), and the spec
 * (bisect_spec_from_json()).
 *
 * Input: JSON text, not NUL-terminated; the same bytes are tried as a
 * document, as a stored result and as a spec.  Writers go to an
 * in-memory stream.  Beyond "no crash", the reader's promises: a result
 * it takes is one every writer writes (none says -EINVAL), and one that
 * reads back as it was written (JSON, struct, JSON, struct, JSON: the
 * same text twice).
 */
#include "record/bisect_result.h"
#include "report/bisect_report.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { TEXT, EMAIL, HTML, JSON, NR_FORMATS };

/* a spec as `bisect start` stores it, to complete a stored result */
static const char spec[] =
	"{\"repo\":\"/src/demo\",\"good\":\"24412ef5d15c04ebcc948c60b21a19a54d9e061d\","
	"\"bad\":\"5735ed2be62f8e2a38100fd83b167c3a8c6db0e7\",\"good_given\":\"v1.0\","
	"\"job_path\":\"/jobs/demo.yaml\",\"job_text\":\"testcase: demo\\n\","
	"\"testbox\":\"host1\",\"confidence\":0.99,\"max_runs\":100}";

static const char *const statuses[] = {
	"found", "found-range", "no-change", "undecided", "failed", "running", "reset",
};

static void render(const struct bisect_result *r, int fmt)
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
	fclose(m);
	/* the reader took it: a writer has no reason to refuse it */
	if (ret == -EINVAL)
		__builtin_trap();
	free(buf);
}

/* r written, read back and written again: the same text. */
static void round_trip(const struct bisect_result *r)
{
	struct bisect_result back;
	char err[512], *one = NULL, *two = NULL;

	if (bisect_result_to_json(r, BISECT_JSON_COMPACT, &one, err, sizeof(err)))
		__builtin_trap();
	if (bisect_result_from_json(one, strlen(one), &back, err, sizeof(err)))
		__builtin_trap();
	if (bisect_result_to_json(&back, BISECT_JSON_COMPACT, &two, err, sizeof(err)) ||
	    strcmp(one, two))
		__builtin_trap();
	bisect_result_release(&back);
	free(one);
	free(two);
}

static void check_result(struct bisect_result *r)
{
	for (int f = 0; f < NR_FORMATS; f++)
		render(r, f);
	round_trip(r);
	bisect_result_release(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bisect_result r;
	struct bisect_spec sp;
	char err[512], *text, *again = NULL;

	if (!bisect_result_from_json((const char *)data, size, &r, err, sizeof(err)))
		check_result(&r);
	/* the stored texts are C strings: up to the first NUL */
	text = strndup((const char *)data, size);
	if (!text)
		return 0;
	if (!bisect_result_load(&r, 7, statuses[size % 7], text, spec, err, sizeof(err)))
		check_result(&r);
	if (bisect_spec_from_json(text, &sp) == 0) {
		if (bisect_spec_to_json(&sp, &again))
			__builtin_trap();
		bisect_spec_release(&sp);
		if (bisect_spec_from_json(again, &sp))
			__builtin_trap();
		bisect_spec_release(&sp);
		free(again);
	}
	free(text);
	return 0;
}
