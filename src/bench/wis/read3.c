/* read3: O_DIRECT read() of one page sequentially from an own 1 MiB file. */
#include "bench/wis/fileio.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Refuse the whole run up front rather than fail it from every task. */
static enum wis_status prepare(struct wis_env *env)
{
	char probe[WIS_PATH_MAX];
	enum wis_status status;

	status = wis_env_shared_file(env, probe, "read3.probe",
					wis_page_size());
	if (status != WIS_OK)
		return status;
	status = fileio_env_probe_direct(env, probe);
	if (unlink(probe) && status == WIS_OK)
		status = wis_env_fail(env, WIS_ERROR, "unlink %s: %s", probe,
				      strerror(errno));
	return status;
}

/*
 * In setup(), so the engine starts counting after the 1 MiB is written back.
 * Filled through the page cache (O_DIRECT wants aligned writes), then synced
 * so the first pass reads the device as every later one does.
 */
static void setup(struct wis_task *t)
{
	char path[WIS_PATH_MAX];
	int *fd = wis_task_alloc(t, sizeof(*fd), 0);
	int fill;

	wis_task_path(t, path, t->env->dir, "read3");
	fill = wis_task_create_file(t, path, FILEIO_FILE_SIZE, false, 0);
	if (fdatasync(fill))
		wis_task_fail_errno(t, "fdatasync %s", path);
	*fd = fileio_task_open_direct(t, path);
	close(fill);
	if (unlink(path))
		wis_task_fail_errno(t, "unlink %s", path);
	t->priv = fd;
}

static noreturn void loop(struct wis_task *t)
{
	fileio_read_loop(t, *(int *)t->priv, wis_page_size());
}

const struct wis_test wis_test_read3 = {
	.name = "read3",
	.desc = "O_DIRECT read() of one page sequentially from an own 1 MiB file, rewinding at EOF",
	.prepare = prepare,
	.setup = setup,
	.loop = loop,
};
