/*
 * subsystem.c - what the email's subject names besides the branch: the
 * subsystem a commit touches (report_subsystem()), and the test lines of
 * perfbot's benchmarks (report_test_description()).  Pure; no state.
 */
#include "report/report.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <string.h>

/* A subsystem is at most this long: longer is a sentence, not a name. */
#define SUBSYSTEM_MAX 40

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '/' || c == '_' || c == '.' || c == '+' || c == '-';
}

/*
 * The length of the subsystem prefix of subject ("x86, retpolines: ..."
 * -> 15), 0 when it has none: names of name_char()s starting with a
 * letter or digit, ", " between them, then ": ".
 */
static size_t subject_prefix(const char *s)
{
	size_t i = 0;

	for (;;) {
		size_t start = i;

		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
		while (name_char(s[i]))
			i++;
		if (i == start || i > SUBSYSTEM_MAX)
			return 0;
		if (s[i] == ':')
			return s[i + 1] == ' ' ? i : 0;
		if (s[i] != ',' || s[i + 1] != ' ')
			return 0;
		i += 2;
	}
}

/* The length of the directory part of path ("a/b/c.c" -> 3), 0 for none. */
static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) : 0;
}

/*
 * The deepest directory every path lies in, as a length into paths[0]
 * (whole components only), 0 when they share none.
 */
static size_t common_dir(const char *const *paths, size_t n)
{
	size_t len = dir_len(paths[0]);

	/* len is always at a '/' of paths[0]: shorten it a component at a time */
	for (size_t i = 1; i < n && len; i++)
		while (len && (strncmp(paths[0], paths[i], len) || paths[i][len] != '/')) {
			len--;
			while (len && paths[0][len] != '/')
				len--;
		}
	return len;
}

bool report_subsystem(struct strbuf *out, const char *subject,
		      const char *const *paths, size_t npaths)
{
	size_t n = subject ? subject_prefix(subject) : 0;

	if (n) {
		strbuf_add(out, subject, n);
		return true;
	}
	if (!paths || !npaths)
		return false;
	for (size_t i = 0; i < npaths; i++)
		if (!paths[i])
			return false;
	n = common_dir(paths, npaths);
	if (!n || n > SUBSYSTEM_MAX)
		return false;
	/* a name fit for a subject: no blanks, brackets or controls */
	for (size_t i = 0; i < n; i++)
		if (!name_char(paths[0][i]))
			return false;
	if (paths[0][0] == '/' || paths[0][0] == '.')
		return false;
	strbuf_add(out, paths[0], n);
	return true;
}

/* ---- test-description, test-url ---- */

static const struct {
	const char *testcase, *description, *url;
} tests[] = {
	{ "will-it-scale",
	  "will-it-scale runs one operation (a system call, a page fault, a lock) in a "
	  "loop in 1 to N parallel tasks, as processes or as threads, and counts the "
	  "operations a second, to see whether the kernel's path for it scales. perfbot "
	  "runs its own port of will-it-scale's tests.",
	  "https://github.com/antonblanchard/will-it-scale" },
	{ "hackbench",
	  "hackbench is a benchmark and a stress test of the Linux scheduler: groups of "
	  "senders write messages to every receiver of their group over socketpairs or "
	  "pipes, and the time until all are done is measured. perfbot runs its own "
	  "hackbench with rt-tests' defaults.",
	  "https://git.kernel.org/pub/scm/utils/rt-tests/rt-tests.git" },
	{ "netperf",
	  "netperf measures networking performance: bulk data transfer (streams) and "
	  "request/response over TCP, UDP and SCTP. perfbot runs its own netperf-style "
	  "client and server pairs over loopback.",
	  "https://github.com/HewlettPackard/netperf" },
};

bool report_test_description(const char *testcase, const char **description,
			     const char **url)
{
	for (size_t i = 0; testcase && i < sizeof(tests) / sizeof(tests[0]); i++)
		if (!strcmp(tests[i].testcase, testcase)) {
			*description = tests[i].description;
			*url = tests[i].url;
			return true;
		}
	return false;
}
