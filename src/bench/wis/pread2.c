/* pread2: pread() 4 KiB at offset 0 of one shared file. */
#include "bench/wis/fileio.h"

#include <fcntl.h>

static char shared_path[WIS_PATH_MAX];

static enum wis_status prepare(struct wis_env *env)
{
	return wis_env_shared_file(env, shared_path, "pread2",
				      FILEIO_BUF_SIZE);
}

static noreturn void loop(struct wis_task *t)
{
	/* each task opens the file itself: its own open file description */
	fileio_pread_loop(t, wis_task_open(t, shared_path, O_RDONLY), 0);
}

const struct wis_test wis_test_pread2 = {
	.name = "pread2",
	.desc = "pread() 4 KiB at offset 0 of one shared file",
	.prepare = prepare,
	.loop = loop,
};
