/*
 * Fuzz target: the robot's tree registry (registry_load(), robot/).
 *
 * Input: the registry file's text, loaded without looking at the files
 * it names (REGISTRY_NO_FS_CHECK: the paths are the fuzzer's).  Beyond
 * "no crash": a refusal says why, and a loaded registry's description
 * (registry_describe()) loads back into a registry described the same.
 */
#define _GNU_SOURCE
#include "fuzz_tmp.h"
#include "robot/registry.h"

#include <errno.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *describe(const struct registry *r)
{
	char *text = NULL, *nl;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (registry_describe(f, r))
		__builtin_trap();
	if (fclose(f))
		return NULL;
	/* the first line names the file described: not part of the registry */
	nl = strchr(text, '\n');
	if (!nl)
		__builtin_trap();
	memmove(text, nl + 1, strlen(nl + 1) + 1);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct registry *r = NULL, *again = NULL;
	struct job_error err;
	char *one = NULL, *two = NULL;
	const char *path = fuzz_tmp_write(data, size);
	int ret;

	if (!path)
		return 0;
	ret = registry_load_opts(path, REGISTRY_NO_FS_CHECK, &r, &err);
	if (ret) {
		/* every refusal says why (the command prints err) */
		if (ret > 0 || r || (ret != -ENOMEM && !err.msg.len))
			__builtin_trap();
		job_error_release(&err);
		return 0;
	}
	if (!r || !r->nr_trees)
		__builtin_trap();
	one = describe(r);
	if (!one)
		goto out;
	path = fuzz_tmp_write(one, strlen(one));
	if (!path)
		goto out;
	ret = registry_load_opts(path, REGISTRY_NO_FS_CHECK, &again, &err);
	if (ret == -ENOMEM)
		goto out;
	if (ret) {
		fprintf(stderr, "the description does not load: %u:%u: %s\n%s", err.line,
			err.column, err.msg.buf, one);
		__builtin_trap();
	}
	two = describe(again);
	if (two && strcmp(one, two)) {
		fprintf(stderr, "described twice, differently:\n%s---\n%s", one, two);
		__builtin_trap();
	}
out:
	free(one);
	free(two);
	registry_free(r);
	registry_free(again);
	return 0;
}
