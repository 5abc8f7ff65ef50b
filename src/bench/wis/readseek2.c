/* readseek2: lseek() to 0, then read() 4 KiB of one shared file. */
#include "bench/wis/fileio.h"

#include <fcntl.h>

static char shared_path[WIS_PATH_MAX];

static enum wis_status prepare(struct wis_env *env)
{
	return wis_env_shared_file(env, shared_path, "readseek2",
				      FILEIO_BUF_SIZE);
}

static noreturn void loop(struct wis_task *t)
{
	/* each task opens the file itself: its own open file description */
	fileio_readseek_loop(t, wis_task_open(t, shared_path, O_RDONLY), 0);
}

const struct wis_test wis_test_readseek2 = {
	.name = "readseek2",
	.desc = "lseek() to 0, then read() 4 KiB of one shared file, same offset for all",
	.prepare = prepare,
	.loop = loop,
};
