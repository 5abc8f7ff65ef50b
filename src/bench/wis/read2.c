/* read2: read() 4 KiB sequentially from one shared 1 MiB file, own fd each. */
#include "bench/wis/fileio.h"

#include <fcntl.h>

static char shared_path[WIS_PATH_MAX];

static enum wis_status prepare(struct wis_env *env)
{
	return wis_env_shared_file(env, shared_path, "read2",
				      FILEIO_FILE_SIZE);
}

static noreturn void loop(struct wis_task *t)
{
	/* each task opens the file itself: its own file position */
	fileio_read_loop(t, wis_task_open(t, shared_path, O_RDONLY),
			 FILEIO_BUF_SIZE);
}

const struct wis_test wis_test_read2 = {
	.name = "read2",
	.desc = "read() 4 KiB sequentially from one shared 1 MiB file (own fd), rewinding at EOF",
	.prepare = prepare,
	.loop = loop,
};
