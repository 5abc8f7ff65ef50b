/* read4: O_DIRECT read() of one page sequentially from a shared 1 MiB file. */
#include "bench/wis/fileio.h"

static char shared_path[WIS_PATH_MAX];

static enum wis_status prepare(struct wis_env *env)
{
	enum wis_status status;

	status = wis_env_shared_file(env, shared_path, "read4",
					FILEIO_FILE_SIZE);
	if (status != WIS_OK)
		return status;
	/* refuse the whole run up front rather than fail it from every task */
	return fileio_env_probe_direct(env, shared_path);
}

static noreturn void loop(struct wis_task *t)
{
	/* each task opens the file itself: its own file position */
	fileio_read_loop(t, fileio_task_open_direct(t, shared_path),
			 wis_page_size());
}

const struct wis_test wis_test_read4 = {
	.name = "read4",
	.desc = "O_DIRECT read() of one page sequentially from one shared 1 MiB file (own fd), rewinding at EOF",
	.prepare = prepare,
	.loop = loop,
};
