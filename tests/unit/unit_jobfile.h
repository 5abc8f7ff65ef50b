/*
 * unit_jobfile.h - job files for unit tests: a temporary directory made by
 * the group's setup, job files written into it, all removed at teardown.
 * Header-only (static inline), for the test programs that write jobs.
 * Single-threaded, like cmocka's groups.
 */
#ifndef PERFBOT_TESTS_UNIT_JOBFILE_H
#define PERFBOT_TESTS_UNIT_JOBFILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[4096];
static unsigned nr_files;

static inline int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/perfbot-unit.XXXXXX", tmp ? tmp : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static inline int teardown(void **state)
{
	char path[4200];

	(void)state;
	for (unsigned i = 0; i < nr_files; i++) {
		snprintf(path, sizeof(path), "%s/job%u.yaml", dir, i);
		unlink(path);
	}
	return rmdir(dir);
}

/* A job file holding text; the path stays valid until the next call. */
static inline const char *write_job(const char *text)
{
	static char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/job%u.yaml", dir, nr_files++);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

#endif
