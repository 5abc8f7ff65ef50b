/* writeseek3: lseek() to nr x page size, write() 4 KiB to one shared file. */
#include "bench/wis/fileio.h"

#include <fcntl.h>

static char shared_path[WIS_PATH_MAX];

static enum wis_status prepare(struct wis_env *env)
{
	return wis_env_shared_file(env, shared_path, "writeseek3",
				      fileio_per_task_size(env));
}

static noreturn void loop(struct wis_task *t)
{
	/* a page apart: the tasks share the file but no page of its cache */
	off_t offset = (off_t)t->nr * (off_t)wis_page_size();

	fileio_writeseek_loop(t, wis_task_open(t, shared_path, O_RDWR), offset);
}

const struct wis_test wis_test_writeseek3 = {
	.name = "writeseek3",
	.desc = "lseek() to nr x page size, then write() 4 KiB to one shared file",
	.prepare = prepare,
	.loop = loop,
};
