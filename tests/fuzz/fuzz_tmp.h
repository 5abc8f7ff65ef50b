/*
 * fuzz_tmp.h - the fuzz targets' one scratch directory: job_load() and
 * store_open() read paths, so an input is first written to a file.
 *
 * One directory per process (mkdtemp under $TMPDIR), made on first use
 * and removed at exit; CTest points TMPDIR into the build directory, so
 * what a crashed process leaves stays there.  Single-threaded, as
 * libFuzzer calls the target.
 */
#ifndef PERFBOT_FUZZ_TMP_H
#define PERFBOT_FUZZ_TMP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir[4096];

/* Files the target may have made in fuzz_dir, removed after each input. */
static const char *const fuzz_names[] = {
	"input", "input-journal", "input-wal", "input-shm",
};

static void fuzz_tmp_clean(void)
{
	char p[4200];

	if (!fuzz_dir[0])
		return;
	for (size_t i = 0; i < sizeof(fuzz_names) / sizeof(fuzz_names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", fuzz_dir, fuzz_names[i]);
		unlink(p);
	}
}

static void fuzz_tmp_remove(void)
{
	fuzz_tmp_clean();
	if (fuzz_dir[0])
		rmdir(fuzz_dir);
}

/* Write data to <dir>/input; the path, or NULL (the caller skips the input). */
static const char *fuzz_tmp_write(const void *data, size_t len)
{
	static char path[4200];
	FILE *f;

	if (!fuzz_dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/perfbot-fuzz.XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir)) {
			perror("perfbot fuzz: mkdtemp");
			abort();
		}
		atexit(fuzz_tmp_remove);
	}
	fuzz_tmp_clean();
	snprintf(path, sizeof(path), "%s/input", fuzz_dir);
	f = fopen(path, "wb");
	if (!f)
		return NULL;
	if (len && fwrite(data, 1, len, f) != len) {
		fclose(f);
		return NULL;
	}
	return fclose(f) ? NULL : path;
}

#endif
