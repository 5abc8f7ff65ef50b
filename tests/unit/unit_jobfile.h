/*
 * unit_jobfile.h - job files for unit tests: a temporary directory made by
 * the group's setup, job files written into it, all removed at teardown.
 * The setup also gives the benchmarks a shared-memory root of their own
 * (PERFBOT_SHMDIR, /dev/shm/perfbot-unit.*), so that an engine's files
 * never stand straight in /dev/shm, where an end-to-end test running
 * beside (ctest -j2) counts what perfbot left behind.
 * Header-only (static inline), for the test programs that write jobs.
 * Single-threaded, like cmocka's groups.
 */
#ifndef PERFBOT_TESTS_UNIT_JOBFILE_H
#define PERFBOT_TESTS_UNIT_JOBFILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[4096];
static char shm_dir[] = "/dev/shm/perfbot-unit.XXXXXX";
static unsigned nr_files;

static inline int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/perfbot-unit.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	if (!mkdtemp(shm_dir) || setenv("PERFBOT_SHMDIR", shm_dir, 1))
		return -1;
	return 0;
}

static inline int teardown(void **state)
{
	char path[4200];

	(void)state;
	for (unsigned i = 0; i < nr_files; i++) {
		snprintf(path, sizeof(path), "%s/job%u.yaml", dir, i);
		unlink(path);
	}
	/* an engine's leftover makes rmdir fail: the test fails with it */
	return rmdir(dir) || rmdir(shm_dir) ? -1 : 0;
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
