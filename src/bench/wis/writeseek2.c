/* writeseek2: lseek() to 0, then write() 4 KiB to one shared file. */
#include "bench/wis/fileio.h"

#include <fcntl.h>

static char shared_path[WIS_PATH_MAX];

static enum wis_status prepare(struct wis_env *env)
{
	return wis_env_shared_file(env, shared_path, "writeseek2",
				      FILEIO_BUF_SIZE);
}

static noreturn void loop(struct wis_task *t)
{
	/* each task opens the file itself: its own open file description */
	fileio_writeseek_loop(t, wis_task_open(t, shared_path, O_RDWR), 0);
}

const struct wis_test wis_test_writeseek2 = {
	.name = "writeseek2",
	.desc = "lseek() to 0, then write() 4 KiB to one shared file, same offset for all",
	.prepare = prepare,
	.loop = loop,
};
