/* pwrite3: pwrite() 4 KiB of one shared file at offset nr x page size. */
#include "bench/wis/fileio.h"

#include <fcntl.h>

static char shared_path[WIS_PATH_MAX];

static enum wis_status prepare(struct wis_env *env)
{
	return wis_env_shared_file(env, shared_path, "pwrite3",
				      fileio_per_task_size(env));
}

static noreturn void loop(struct wis_task *t)
{
	/* a page apart: the tasks share the file but no page of its cache */
	off_t offset = (off_t)t->nr * (off_t)wis_page_size();

	fileio_pwrite_loop(t, wis_task_open(t, shared_path, O_RDWR), offset);
}

const struct wis_test wis_test_pwrite3 = {
	.name = "pwrite3",
	.desc = "pwrite() 4 KiB of one shared file at offset nr x page size",
	.prepare = prepare,
	.loop = loop,
};
