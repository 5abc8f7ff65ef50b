/*
 * jobcheck_bench.c - how long the job-file checks take on huge lists
 * (issue 10, point 9; figures go to bench/RESULTS.md).
 *
 *   jobcheck_bench [N]     (default 200000 values)
 *
 * Times job_load() (parse, checks, expansion) on generated job files:
 *   list-N      one dimension of N distinct values: over the 100,000-job
 *               cap, refused before any per-value check;
 *   list-cap    one dimension of 99,999 (or N-1) distinct values and a duplicate
 *               of the first at the end: every value checked, refused;
 *   keys-N      N distinct parameters of one value each (one atomic job),
 *               so every key check runs and the job is accepted;
 *   map-dup-N   N keys in one mapping, the last repeating the first.
 * Beside each, the old check (all pairs, as job.c and yaml.c did before)
 * on the same strings, with a cut-off: it is stopped after OLD_LIMIT_S
 * seconds and its full time extrapolated (it grows as n^2).
 * Temp files under $TMPDIR, removed at the end.
 */
#define _GNU_SOURCE
#include "job/job.h"
#include "util/fsutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OLD_LIMIT_S 20.0

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The removed algorithm, kept here only to measure it: each string against
 * every one before it.  Returns the seconds it took, extrapolated as n^2
 * when cut off.
 */
static double old_check(char **v, size_t n)
{
	double t0 = now(), t;
	size_t i, found = 0;

	for (i = 0; i < n; i++) {
		for (size_t j = 0; j < i; j++)
			found += !strcmp(v[j], v[i]);
		if ((i & 1023) == 0 && now() - t0 > OLD_LIMIT_S)
			break;
	}
	t = now() - t0;
	if (found == (size_t)-1)
		puts("");	/* keep the loop */
	if (i < n)
		return t * ((double)n * n) / ((double)i * i);
	return t;
}

static double time_load(const char *path, int *ret, char *msg, size_t len)
{
	struct atomic_job *jobs;
	struct job_error err;
	size_t nr;
	double t0 = now(), t;

	*ret = job_load(path, NULL, 0, &jobs, &nr, &err);
	t = now() - t0;
	snprintf(msg, len, "%s", *ret ? err.msg.buf : "accepted");
	if (!*ret)
		atomic_jobs_release(jobs, nr);
	else
		job_error_release(&err);
	return t;
}

static char **names(size_t n, const char *prefix)
{
	char **v = calloc(n, sizeof(*v));

	for (size_t i = 0; v && i < n; i++)
		if (asprintf(&v[i], "%s%zu", prefix, i) < 0)
			exit(1);
	return v;
}

static void run(const char *dir, const char *label, const char *text_head,
		char **v, size_t n, const char *sep, const char *tail, bool old_also,
		size_t old_n)
{
	char path[4096], msg[600];
	FILE *f;
	int ret;
	double t, told = -1;

	snprintf(path, sizeof(path), "%s/%s.yaml", dir, label);
	f = fopen(path, "w");
	if (!f)
		exit(1);
	fputs(text_head, f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s%s", i && !strchr(sep, '\n') ? ", " : "", v[i], sep);
	fputs(tail, f);
	fclose(f);
	t = time_load(path, &ret, msg, sizeof(msg));
	if (old_also)
		told = old_check(v, old_n);
	printf("%-10s %8zu values  new %8.3f s  old %10.1f s   (%s)\n", label, n, t,
	       told, msg);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	char *dir;
	char **v = names(n + 1, "v"), **k = names(n + 1, "k");

	if (!v || !k || n < 2 || make_temp_dir(NULL, "perfbot-jobcheck", &dir))
		return 1;
	/* list-N: the cap refuses it before the values are looked at */
	run(dir, "list-N", "testcase: t\nmode: [", v, n, "", "]\n", true, n);
	/* list-cap: 99,999 values and a repeat: every value looked at */
	size_t cap = n < 100000 ? n : 100000;
	free(v[cap - 1]);
	v[cap - 1] = strdup(v[0]);
	run(dir, "list-cap", "testcase: t\nmode: [", v, cap, "", "]\n", true, cap);
	/* keys-N: N parameters of one value, accepted */
	for (size_t i = 0; i < n; i++) {
		char *s;

		if (asprintf(&s, "%s: 1", k[i]) < 0)
			return 1;
		free(v[i]);
		v[i] = s;
	}
	run(dir, "keys-N", "testcase: t\n", v, n, "\n", "", true, n);
	/* map-dup-N: the last key repeats the first */
	free(v[n - 1]);
	v[n - 1] = strdup(v[0]);
	run(dir, "map-dup-N", "testcase: t\n", v, n, "\n", "", false, n);
	remove_tree(dir);
	free(dir);
	for (size_t i = 0; i <= n; i++) {
		free(v[i]);
		free(k[i]);
	}
	free(v);
	free(k);
	return 0;
}
