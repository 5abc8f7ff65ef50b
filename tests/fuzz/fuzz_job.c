/*
 * Fuzz target: a job file parsed and expanded (job_load()).
 *
 * Input: the job file's text; after the first NUL byte, NUL-separated
 * "key=value" overrides (as -s gives them), at most 8.  The loader's
 * own cap on atomic jobs (100,000) bounds what one input can expand to.
 */
#include "fuzz_tmp.h"
#include "job/job.h"

#include <errno.h>
#include <stdint.h>

#define MAX_OVERRIDES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t text_len = nul ? (size_t)(nul - data) : size;
	char *ov[MAX_OVERRIDES], *rest = NULL;
	size_t nov = 0, nr = 0;
	struct atomic_job *jobs = NULL;
	struct job_error err;
	const char *path;
	int ret;

	if (nul) {
		size_t n = size - text_len - 1;

		rest = malloc(n + 1);
		if (!rest)
			return 0;
		memcpy(rest, nul + 1, n);
		rest[n] = '\0';
		for (char *p = rest; nov < MAX_OVERRIDES && p < rest + n;
		     p += strlen(p) + 1)
			ov[nov++] = p;
	}
	path = fuzz_tmp_write(data, text_len);
	if (!path) {
		free(rest);
		return 0;
	}
	ret = job_load(path, ov, nov, &jobs, &nr, &err);
	if (ret == 0) {
		/* the contract of job.h: at least one job, each named */
		if (nr == 0 || !jobs)
			__builtin_trap();
		for (size_t i = 0; i < nr; i++)
			if (!jobs[i].name || !jobs[i].testcase || !jobs[i].text)
				__builtin_trap();
		atomic_jobs_release(jobs, nr);
	} else if (ret > 0 || (ret != -ENOMEM && !err.msg.len)) {
		/* every refusal says why (the command prints err) */
		__builtin_trap();
	} else {
		job_error_release(&err);
	}
	free(rest);
	return 0;
}
