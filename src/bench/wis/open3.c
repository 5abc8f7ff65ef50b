/* open3: open() and close() one shared file. */
#include "bench/wis/fileio.h"

static char shared_path[WIS_PATH_MAX];

static enum wis_status prepare(struct wis_env *env)
{
	return wis_env_shared_file(env, shared_path, "open3", 0);
}

static noreturn void loop(struct wis_task *t)
{
	fileio_open_loop(t, shared_path);
}

const struct wis_test wis_test_open3 = {
	.name = "open3",
	.desc = "open(O_RDWR) and close() one shared file",
	.prepare = prepare,
	.loop = loop,
};
