/* Unit tests: run/env (environment capture, memory rounding, cpufreq). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/env.h"
#include "util/fsutil.h"

static const char *const keys[] = {
	"testbox", "kernel", "kernel_version", "arch", "kernel_cmdline",
	"cpu_model", "nr_cpu", "memory", "microcode", "cpufreq_governor",
	"thp_enabled", "thp_defrag", "compiler", "perfbot_version", "aslr",
	"machine",
};

static void capture_has_every_key(void **state)
{
	struct strmap env = { 0 };
	struct strbuf err = STRBUF_INIT;
	char expect[1024];
	const char *v;

	(void)state;
	assert_int_equal(env_capture(&env, &err), 0);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = strmap_get(&env, keys[i]);
		if (!v)
			fail_msg("no key %s", keys[i]);
		if (!*v)
			fail_msg("key %s is empty", keys[i]);
	}
	assert_int_equal(env.n, sizeof(keys) / sizeof(keys[0]));

	assert_int_equal(strtol(strmap_get(&env, "nr_cpu"), NULL, 10),
			 sysconf(_SC_NPROCESSORS_ONLN));
	v = strmap_get(&env, "memory");
	assert_true(v[strlen(v) - 1] == 'G' || v[strlen(v) - 1] == 'M');
	snprintf(expect, sizeof(expect), "%s threads %s with %s memory",
		 strmap_get(&env, "nr_cpu"), strmap_get(&env, "cpu_model"),
		 strmap_get(&env, "memory"));
	assert_string_equal(strmap_get(&env, "machine"), expect);
	/* THP choices are single words, not the whole sysfs line */
	v = strmap_get(&env, "thp_enabled");
	assert_true(!strchr(v, '[') || !strncmp(v, "unavailable", 11));
	assert_true(!strncmp(strmap_get(&env, "compiler"), "gcc ", 4) ||
		    !strncmp(strmap_get(&env, "compiler"), "clang ", 6));
	v = strmap_get(&env, "aslr");
	assert_true(!strcmp(v, "0") || !strcmp(v, "1") || !strcmp(v, "2") ||
		    !strncmp(v, "unavailable", 11));
	if (access(ENV_SYSFS_CPU "/cpu0/cpufreq", F_OK))
		assert_string_equal(strmap_get(&env, "cpufreq_governor"),
				    "unavailable: no cpufreq");
	strmap_release(&env);
	strbuf_release(&err);
}

static void memory_rounding(void **state)
{
	char buf[32];

	(void)state;
	env_format_memory(24684084, buf, sizeof(buf));	/* this VM */
	assert_string_equal(buf, "23G");
	env_format_memory(1048576, buf, sizeof(buf));
	assert_string_equal(buf, "1G");
	env_format_memory(1048575, buf, sizeof(buf));
	assert_string_equal(buf, "1023M");
	env_format_memory(65673088, buf, sizeof(buf));	/* a "64G" box */
	assert_string_equal(buf, "62G");
	env_format_memory(0, buf, sizeof(buf));
	assert_string_equal(buf, "0M");
}

static void cpufreq_unsupported_here(void **state)
{
	struct cpufreq_saved *saved = (void *)1;
	struct strbuf why = STRBUF_INIT;

	(void)state;
	if (!access(ENV_SYSFS_CPU "/cpu0/cpufreq", F_OK))
		skip();
	assert_int_equal(cpufreq_set_governor("performance", &saved, &why), -ENOTSUP);
	assert_null(saved);
	assert_string_equal(why.buf, "no cpufreq on this machine");
	strbuf_release(&why);
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void get(const char *root, const char *rel, char *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, (int)len, f));
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void mk(const char *root, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* cpu0, cpu1 with cpufreq; cpu2 without (offline); files that are not CPUs. */
static char *fake_sysfs(void)
{
	char *root;

	assert_int_equal(make_temp_dir(NULL, "perfbot-test-env", &root), 0);
	mk(root, "cpu0");
	mk(root, "cpu0/cpufreq");
	mk(root, "cpu1");
	mk(root, "cpu1/cpufreq");
	mk(root, "cpu2");
	mk(root, "cpufreq");
	mk(root, "cpuidle");
	put(root, "cpu0/cpufreq/scaling_available_governors",
	    "performance powersave\n");
	put(root, "cpu1/cpufreq/scaling_available_governors",
	    "performance powersave\n");
	put(root, "cpu0/cpufreq/scaling_governor", "powersave\n");
	put(root, "cpu1/cpufreq/scaling_governor", "performance\n");
	put(root, "online", "0-2\n");
	return root;
}

static void cpufreq_set_and_restore(void **state)
{
	struct cpufreq_saved *saved = NULL;
	struct strbuf why = STRBUF_INIT;
	char buf[64];
	char *root = fake_sysfs();

	(void)state;
	assert_int_equal(cpufreq_set_governor_at(root, "performance", &saved, &why), 0);
	assert_non_null(saved);
	get(root, "cpu0/cpufreq/scaling_governor", buf, sizeof(buf));
	assert_string_equal(buf, "performance");
	get(root, "cpu1/cpufreq/scaling_governor", buf, sizeof(buf));
	assert_string_equal(buf, "performance");
	cpufreq_restore(saved);
	get(root, "cpu0/cpufreq/scaling_governor", buf, sizeof(buf));
	assert_string_equal(buf, "powersave");
	get(root, "cpu1/cpufreq/scaling_governor", buf, sizeof(buf));
	assert_string_equal(buf, "performance");
	cpufreq_restore(NULL);
	assert_int_equal(remove_tree(root), 0);
	free(root);
	strbuf_release(&why);
}

static void cpufreq_unknown_governor(void **state)
{
	struct cpufreq_saved *saved = (void *)1;
	struct strbuf why = STRBUF_INIT;
	char buf[64];
	char *root = fake_sysfs();

	(void)state;
	/* cpu1 lacks "schedutil": nothing may change, cpu0 included */
	put(root, "cpu0/cpufreq/scaling_available_governors",
	    "performance powersave schedutil\n");
	assert_int_equal(cpufreq_set_governor_at(root, "schedutil", &saved, &why), -EINVAL);
	assert_null(saved);
	assert_non_null(strstr(why.buf, "schedutil"));
	get(root, "cpu0/cpufreq/scaling_governor", buf, sizeof(buf));
	assert_string_equal(buf, "powersave");
	/* a prefix of a listed governor is not a governor */
	assert_int_equal(cpufreq_set_governor_at(root, "perf", &saved, &why), -EINVAL);
	assert_int_equal(remove_tree(root), 0);
	free(root);
	strbuf_release(&why);
}

/*
 * A job's governor of 5,000 bytes and a long list of governors are in the
 * message whole (main cut it at 256 bytes, the list's end first).
 */
static void cpufreq_unknown_governor_named_whole(void **state)
{
	struct cpufreq_saved *saved = (void *)1;
	struct strbuf why = STRBUF_INIT, list = STRBUF_INIT, want = STRBUF_INIT;
	char *root = fake_sysfs(), *governor = malloc(5001);

	(void)state;
	assert_non_null(governor);
	memset(governor, 'g', 5000);
	governor[5000] = '\0';
	for (int i = 0; i < 300; i++)
		strbuf_addf(&list, "%sgov%d", i ? " " : "", i);
	strbuf_addch(&list, '\n');
	put(root, "cpu0/cpufreq/scaling_available_governors", list.buf);
	put(root, "cpu1/cpufreq/scaling_available_governors", list.buf);
	strbuf_rtrim(&list);
	assert_int_equal(cpufreq_set_governor_at(root, governor, &saved, &why), -EINVAL);
	assert_null(saved);
	/* cpu0 or cpu1, in the directory's order */
	strbuf_addf(&want, ": no governor '%s' (available: %s)", governor, list.buf);
	assert_int_equal(why.len, strlen("cpuN") + want.len);
	assert_string_equal(why.buf + strlen("cpuN"), want.buf);
	assert_int_equal(remove_tree(root), 0);
	free(root);
	free(governor);
	strbuf_release(&why);
	strbuf_release(&list);
	strbuf_release(&want);
}

static void cpufreq_write_failure_rolls_back(void **state)
{
	struct cpufreq_saved *saved = (void *)1;
	struct strbuf why = STRBUF_INIT;
	char buf[64], path[4096];
	char *root = fake_sysfs();

	(void)state;
	/* writes to /dev/full fail (ENOSPC) even for root, unlike chmod */
	snprintf(path, sizeof(path), "%s/cpu1/cpufreq/scaling_governor", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/dev/full", path), 0);
	assert_int_equal(cpufreq_set_governor_at(root, "performance", &saved, &why),
			 -ENOSPC);
	assert_null(saved);
	assert_non_null(strstr(why.buf, "cpu1"));
	get(root, "cpu0/cpufreq/scaling_governor", buf, sizeof(buf));
	assert_string_equal(buf, "powersave");
	assert_int_equal(remove_tree(root), 0);
	free(root);
	strbuf_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(capture_has_every_key),
		cmocka_unit_test(memory_rounding),
		cmocka_unit_test(cpufreq_unsupported_here),
		cmocka_unit_test(cpufreq_set_and_restore),
		cmocka_unit_test(cpufreq_unknown_governor),
		cmocka_unit_test(cpufreq_unknown_governor_named_whole),
		cmocka_unit_test(cpufreq_write_failure_rolls_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
