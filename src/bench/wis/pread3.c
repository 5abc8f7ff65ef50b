/* pread3: pread() 4 KiB of one shared file at offset nr x page size. */
#include "bench/wis/fileio.h"

#include <fcntl.h>

static char shared_path[WIS_PATH_MAX];

static enum wis_status prepare(struct wis_env *env)
{
	return wis_env_shared_file(env, shared_path, "pread3",
				      fileio_per_task_size(env));
}

static noreturn void loop(struct wis_task *t)
{
	/* a page apart: the tasks share the file but no page of its cache */
	off_t offset = (off_t)t->nr * (off_t)wis_page_size();

	fileio_pread_loop(t, wis_task_open(t, shared_path, O_RDONLY), offset);
}

const struct wis_test wis_test_pread3 = {
	.name = "pread3",
	.desc = "pread() 4 KiB of one shared file at offset nr x page size",
	.prepare = prepare,
	.loop = loop,
};
