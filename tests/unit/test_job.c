/* Unit tests: job files (parse, matrix, names, params, overrides, errors). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "job/job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit_jobfile.h"

static int load_ov(const char *text, char *const *ov, size_t nov,
		   struct atomic_job **jobs, size_t *nr, struct job_error *err)
{
	return job_load(write_job(text), ov, nov, jobs, nr, err);
}

static int load(const char *text, struct atomic_job **jobs, size_t *nr,
		struct job_error *err)
{
	return load_ov(text, NULL, 0, jobs, nr, err);
}

static const struct atomic_job *find_job(const struct atomic_job *jobs,
					 size_t nr, const char *name)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(jobs[i].name, name))
			return &jobs[i];
	return NULL;
}

static const char seed000[] =
	"suite: will-it-scale\n"
	"testcase: will-it-scale\n"
	"category: benchmark\n"
	"runtime: 300s\n"
	"cpufreq_governor: performance\n"
	"nr_task: [16, 50%, 100%]\n"
	"will-it-scale:\n"
	"  mode:\n"
	"  - thread\n"
	"  - process\n"
	"  test: [futex1, futex2, futex3, futex4]\n";

static void matrix_seed000(void **state)
{
	static const char *const tasks[] = { "16", "50%", "100%" };
	static const char *const modes[] = { "thread", "process" };
	struct atomic_job *jobs;
	const struct atomic_job *j;
	const struct job_param *p;
	struct job_error err;
	size_t nr;
	char name[128];

	(void)state;
	assert_int_equal(load(seed000, &jobs, &nr, &err), 0);
	assert_int_equal(nr, 24);
	for (size_t t = 0; t < 3; t++)
		for (size_t m = 0; m < 2; m++)
			for (int f = 1; f <= 4; f++) {
				snprintf(name, sizeof(name), "will-it-scale-%s-%s-futex%d",
					 tasks[t], modes[m], f);
				assert_non_null(find_job(jobs, nr, name));
			}
	for (size_t i = 1; i < nr; i++)
		assert_true(strcmp(jobs[i - 1].name, jobs[i].name) < 0);

	j = find_job(jobs, nr, "will-it-scale-100%-thread-futex3");
	assert_non_null(j);
	assert_string_equal(j->testcase, "will-it-scale");
	assert_string_equal(j->category, "benchmark");
	assert_true(j->runtime_s == 300);
	assert_int_equal(j->repeat, 0);
	assert_null(j->monitors);
	assert_null(j->exec.argv);
	assert_string_equal(strmap_get(&j->recorded, "cpufreq_governor"), "performance");
	/* identity: the benchmark's parameters, sorted; runtime is a scalar */
	assert_int_equal(j->nr_params, 3);
	assert_string_equal(j->params[0].key, "mode");
	assert_string_equal(j->params[0].value, "thread");
	assert_int_equal(j->params[0].line, 9);
	assert_int_equal(j->params[0].column, 5);
	assert_string_equal(j->params[1].key, "nr_task");
	assert_string_equal(j->params[1].value, "100%");
	assert_int_equal(j->params[1].line, 6);
	assert_int_equal(j->params[1].column, 20);
	assert_string_equal(j->params[2].key, "test");
	assert_string_equal(j->params[2].value, "futex3");
	assert_int_equal(j->params[2].line, 11);
	assert_int_equal(j->params[2].column, 26);
	p = atomic_job_param(j, "nr_task");
	assert_non_null(p);
	assert_string_equal(p->value, "100%");
	assert_null(atomic_job_param(j, "runtime"));
	assert_null(atomic_job_param(j, "zzz"));
	assert_string_equal(j->file + strlen(j->file) - 5, ".yaml");
	atomic_jobs_release(jobs, nr);
}

static void sections_and_literals(void **state)
{
	struct atomic_job *jobs;
	struct job_error err;
	size_t nr;

	(void)state;
	/* no testcase: the one section names it; literal values stay */
	assert_int_equal(load("runtime: [300s, 5m]\n"
			      "repeat: 3\n"
			      "netperf:\n"
			      "  ip: ipv4\n"
			      "  nr_threads: 200%\n"
			      "  send_size: 10K\n"
			      "  test: TCP_STREAM\n",
			      &jobs, &nr, &err), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(jobs[0].name, "netperf-300s-ipv4-200%-10K-TCP_STREAM");
	assert_string_equal(jobs[1].name, "netperf-5m-ipv4-200%-10K-TCP_STREAM");
	assert_string_equal(jobs[0].testcase, "netperf");
	assert_int_equal(jobs[0].nr_params, 5);
	assert_string_equal(jobs[0].params[0].key, "ip");
	assert_string_equal(jobs[0].params[1].key, "nr_threads");
	assert_string_equal(jobs[0].params[1].value, "200%");
	assert_string_equal(jobs[0].params[2].key, "runtime");
	assert_string_equal(jobs[0].params[2].value, "300s");
	assert_int_equal(jobs[0].params[2].line, 1);
	assert_int_equal(jobs[0].params[2].column, 11);
	assert_true(jobs[0].runtime_s == 300);
	assert_true(jobs[1].runtime_s == 300);
	assert_string_equal(jobs[1].params[2].value, "5m");
	assert_int_equal(jobs[0].repeat, 3);
	atomic_jobs_release(jobs, nr);

	/* an empty section names the testcase; params may sit at the top */
	assert_int_equal(load("hackbench:\n"
			      "nr_threads: [50%, 100%]\n"
			      "mode: [process, threads]\n"
			      "ipc: [pipe, socket]\n"
			      "iterations: 4\n"
			      "monitors: vmstat\n"
			      "packages: [netperf, rt-tests]\n"
			      "interval: 500ms\n"
			      "timeout: 1h\n"
			      "kpi: hackbench.throughput\n"
			      "category: functional\n",
			      &jobs, &nr, &err), 0);
	assert_int_equal(nr, 8);
	assert_string_equal(jobs[0].name, "hackbench-100%-process-pipe-4");
	assert_string_equal(jobs[0].category, "functional");
	assert_string_equal(jobs[0].kpi, "hackbench.throughput");
	assert_string_equal(jobs[0].monitors[0], "vmstat");
	assert_null(jobs[0].monitors[1]);
	assert_string_equal(jobs[0].packages[1], "rt-tests");
	assert_null(jobs[0].packages[2]);
	assert_true(jobs[0].interval_s == 0.5);
	assert_true(jobs[0].timeout_s == 3600);
	assert_true(jobs[0].runtime_s == 0);
	atomic_jobs_release(jobs, nr);

	/* an empty monitors list means none, not the default set */
	assert_int_equal(load("testcase: t\nmonitors: []\nbuild: make -j8 'CFLAGS=-O2 -g'\n",
			      &jobs, &nr, &err), 0);
	assert_int_equal(nr, 1);
	assert_string_equal(jobs[0].name, "t");
	assert_int_equal(jobs[0].nr_params, 0);
	assert_non_null(jobs[0].monitors);
	assert_null(jobs[0].monitors[0]);
	assert_string_equal(jobs[0].build[0], "make");
	assert_string_equal(jobs[0].build[2], "CFLAGS=-O2 -g");
	assert_int_equal(jobs[0].build_line, 3);
	assert_null(jobs[0].build[3]);
	atomic_jobs_release(jobs, nr);

	/* '/' and blanks cannot go into a file name */
	assert_int_equal(load("testcase: t\nx: 'a/b c'\n", &jobs, &nr, &err), 0);
	assert_string_equal(jobs[0].name, "t-a_b_c");
	assert_string_equal(jobs[0].params[0].value, "a/b c");
	atomic_jobs_release(jobs, nr);
}

static void overrides(void **state)
{
	char *narrow[] = { "test=futex3", "nr_task=100%" };
	char *replace[] = { "runtime=5s", "cpufreq_governor=powersave" };
	char *add[] = { "extra=1", "repeat=7" };
	char *outside[] = { "mode=fiber" };
	char *twice[] = { "test=futex1", "test=futex2" };
	struct atomic_job *jobs;
	const struct atomic_job *j;
	struct job_error err;
	size_t nr;

	(void)state;
	assert_int_equal(load_ov(seed000, narrow, 2, &jobs, &nr, &err), 0);
	assert_int_equal(nr, 2);
	/* a narrowed dimension keeps its place in the name */
	assert_string_equal(jobs[0].name, "will-it-scale-100%-process-futex3");
	assert_string_equal(jobs[1].name, "will-it-scale-100%-thread-futex3");
	assert_int_equal(atomic_job_param(&jobs[0], "test")->line, 0);
	assert_int_equal(atomic_job_param(&jobs[0], "test")->column, 0);
	assert_int_equal(atomic_job_param(&jobs[0], "mode")->line, 10);
	assert_int_equal(atomic_job_param(&jobs[1], "mode")->line, 9);
	atomic_jobs_release(jobs, nr);

	assert_int_equal(load_ov(seed000, replace, 2, &jobs, &nr, &err), 0);
	assert_int_equal(nr, 24);
	assert_true(jobs[0].runtime_s == 5);
	assert_null(atomic_job_param(&jobs[0], "runtime"));
	assert_string_equal(strmap_get(&jobs[0].recorded, "cpufreq_governor"), "powersave");
	atomic_jobs_release(jobs, nr);

	assert_int_equal(load_ov(seed000, add, 2, &jobs, &nr, &err), 0);
	assert_int_equal(nr, 24);
	j = find_job(jobs, nr, "will-it-scale-100%-thread-futex3-1");
	assert_non_null(j);
	assert_int_equal(j->repeat, 7);
	assert_string_equal(atomic_job_param(j, "extra")->value, "1");
	atomic_jobs_release(jobs, nr);

	/* any value, as LKP allows, not only the listed ones */
	assert_int_equal(load_ov(seed000, outside, 1, &jobs, &nr, &err), 0);
	assert_int_equal(nr, 12);
	assert_non_null(find_job(jobs, nr, "will-it-scale-16-fiber-futex1"));
	atomic_jobs_release(jobs, nr);

	assert_int_equal(load_ov(seed000, twice, 2, &jobs, &nr, &err), 0);
	assert_int_equal(nr, 6);
	assert_non_null(find_job(jobs, nr, "will-it-scale-16-thread-futex2"));
	atomic_jobs_release(jobs, nr);
}

struct bad_override {
	const char *ov;
	const char *msg;
};

static void override_errors(void **state)
{
	static const struct bad_override cases[] = {
		{ "nr_task", "invalid override 'nr_task' (expected -s key=value)" },
		{ "=3", "invalid override '=3' (expected -s key=value)" },
		{ "runtime=5x", "-s runtime=5x: runtime '5x' is not a duration (a decimal number of seconds, or with a unit ms, s, m or h)" },
		{ "repeat=0", "-s repeat=0: 'repeat' must be at least 1, not '0'" },
		{ "will-it-scale=3", "-s will-it-scale=3: 'will-it-scale' is a section, not a value" },
		{ "runtime=", "-s runtime=: runtime '' is not a duration (a decimal number of seconds, or with a unit ms, s, m or h)" },
	};
	struct atomic_job *jobs = (void *)1;
	struct job_error err;
	size_t nr = 99;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *ov[] = { (char *)cases[i].ov };

		assert_int_equal(load_ov(seed000, ov, 1, &jobs, &nr, &err), -EINVAL);
		assert_null(jobs);
		assert_int_equal(nr, 0);
		assert_string_equal(err.file.buf, "<command line>");
		assert_int_equal(err.line, 0);
		assert_string_equal(err.msg.buf, cases[i].msg);
		job_error_release(&err);
	}
}

struct bad_job {
	const char *text;
	unsigned line, column;
	const char *msg;
};

static void errors(void **state)
{
	static const struct bad_job cases[] = {
		{ "testcase: t\nruntime: 5x\n", 2, 10,
		  "runtime '5x' is not a duration (a decimal number of seconds, or with a unit ms, s, m or h)" },
		{ "testcase: t\nruntime: [10s, 5x]\n", 2, 16,
		  "runtime '5x' is not a duration (a decimal number of seconds, or with a unit ms, s, m or h)" },
		{ "testcase: t\nruntime: 0s\n", 2, 10, "'runtime' must be more than 0, not '0s'" },
		{ "testcase: t\nrepeat: abc\n", 2, 9,
		  "repeat 'abc' is not a whole number (decimal digits, no sign or leading zero)" },
		{ "testcase: t\nrepeat: 0\n", 2, 9,
		  "'repeat' must be at least 1, not '0'" },
		{ "testcase: t\nruntime: 0x10\n", 2, 10,
		  "runtime '0x10' is not a duration (a decimal number of seconds, or with a unit ms, s, m or h)" },
		{ "testcase: t\ninterval: '+3'\n", 2, 11,
		  "interval '+3' is not a duration (a decimal number of seconds, or with a unit ms, s, m or h)" },
		{ "testcase: t\ntimeout: 99999999999999999999\n", 2, 10,
		  "timeout '99999999999999999999' is more than 30 days" },
		{ "testcase: t\nruntime: 721h\n", 2, 10, "runtime '721h' is more than 30 days" },
		{ "testcase: t\nrepeat: 010\n", 2, 9,
		  "repeat '010' is not a whole number (decimal digits, no sign or leading zero)" },
		{ "testcase: t\nrepeat: '+3'\n", 2, 9,
		  "repeat '+3' is not a whole number (decimal digits, no sign or leading zero)" },
		{ "testcase: t\nrepeat: 1000001\n", 2, 9, "repeat '1000001' is more than 1000000" },
		{ "testcase: t\nrepeat: -1\n", 2, 9, "'repeat' must be at least 1, not '-1'" },
		{ "testcase: t\nmode: []\n", 2, 7, "empty matrix dimension 'mode'" },
		{ "w:\n  mode: []\n", 2, 9, "empty matrix dimension 'mode'" },
		{ "w:\n  mode: thread\n  test: x\n  mode: process\n", 4, 3,
		  "duplicate key 'mode'" },
		{ "mode: a\nw:\n  mode: b\n", 3, 3, "duplicate parameter 'mode' (also at 1:1)" },
		{ "testcase: t\nmode: [a, b, a]\n", 2, 14,
		  "duplicate value 'a' in matrix dimension 'mode'" },
		{ "testcase: t\nmode: [a, [b]]\n", 2, 11,
		  "the values of 'mode' must be plain values, not lists" },
		{ "testcase: t\nmode: [a, ~]\n", 2, 11, "empty value in matrix dimension 'mode'" },
		{ "w:\n  mode: thread\n  deep:\n    x: 1\n", 3, 3,
		  "'deep' in section 'w' is a mapping; sections do not nest" },
		{ "w:\n  exec: {cmd: [true]}\n", 2, 3,
		  "'exec' belongs at the top level, not in section 'w'" },
		{ "nr_task: 1\n", 1, 1, "no testcase: say testcase: or give a benchmark section" },
		{ "a:\n  x: 1\nb:\n  y: 2\n", 1, 1,
		  "no testcase: 2 sections, say which with testcase:" },
		{ "testcase: [a, b]\n", 1, 11, "'testcase' must be a single value, not a list" },
		{ "testcase:\n", 1, 10, "'testcase' needs a value" },
		{ "testcase: t\ncategory: {a: 1}\n", 2, 11,
		  "'category' must be a single value, not a mapping" },
		{ "testcase: t\nmonitors: {a: 1}\n", 2, 11,
		  "'monitors' must be a list of names, not a mapping" },
		{ "testcase: t\npackages: [a, [b]]\n", 2, 15,
		  "the items of 'packages' must be plain names" },
		{ "testcase: t\nbuild: []\n", 2, 8, "empty 'build' command" },
		{ "testcase: t\nbuild: make 'x\n", 2, 8,
		  "invalid 'build' command: unterminated quote or trailing backslash" },
		{ "- a\n- b\n", 1, 1, "a job must be a mapping of keys to values" },
		{ "testcase: t\nmode: [a, b\n", 3, 1,
		  "did not find expected ',' or ']' while parsing a flow sequence at 2:7" },
		{ "testcase: t\n  mode: a\n", 2, 7,
		  "mapping values are not allowed in this context" },
		{ "testcase: t\nx: &a 1\ny: *a\n", 3, 4,
		  "yaml aliases are not supported in job files (alias 'a')" },
		{ "testcase: t\n---\nmode: []\n", 3, 7, "empty matrix dimension 'mode'" },
		{ "testcase: t\nrepeat: 1\n---\nrepeat: 2\n", 3, 1,
		  "document 2 gives the atomic job 't' that document 1 (at 1:1) gives too, "
		  "with other keys outside its name (make the key that differs a list of "
		  "one, e.g. runtime: [60s])" },
		{ "testcase: t\n? [a]\n: 1\n", 2, 3, "mapping keys must be plain words" },
		{ "testcase: t\n'': 1\n", 2, 1, "empty key" },
		{ "exec: [true]\n", 1, 7, "'exec' must be a mapping (cmd:, parse:, paths:)" },
		{ "exec:\n  parse: kv\n", 1, 1, "exec needs cmd: (the command as a list of words)" },
		{ "exec:\n  cmd: [./b]\n  parse: xml\n", 3, 10,
		  "invalid parse 'xml' (expected kv, json, gbench, hyperfine or time)" },
		{ "exec:\n  cmd: [./b]\n  paths: {a: b}\n", 3, 3,
		  "'paths' is only for parse: json" },
		{ "exec:\n  cmd: [./b]\n  parse: json\n  paths: [a]\n", 4, 10,
		  "'paths' must be a mapping of stat names to json paths" },
		{ "exec:\n  cmd: [./b]\n  frob: 1\n", 3, 3,
		  "unknown key 'frob' in exec (expected cmd, parse or paths)" },
		{ "exec:\n  cmd: []\n", 2, 8, "empty 'cmd' command" },
	};
	struct atomic_job *jobs;
	struct job_error err;
	size_t nr;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = write_job(cases[i].text);

		jobs = (void *)1;
		nr = 99;
		if (job_load(path, NULL, 0, &jobs, &nr, &err) != -EINVAL ||
		    err.line != cases[i].line || err.column != cases[i].column ||
		    strcmp(err.msg.buf, cases[i].msg) || strcmp(err.file.buf, path))
			fail_msg("case %zu (%s): got %s:%u:%u: %s", i, cases[i].text,
				 err.file.buf, err.line, err.column, err.msg.buf);
		assert_null(jobs);
		assert_int_equal(nr, 0);
		job_error_release(&err);
	}
}

static void file_errors(void **state)
{
	struct atomic_job *jobs;
	struct job_error err;
	size_t nr;
	char path[4200];

	(void)state;
	snprintf(path, sizeof(path), "%s/missing.yaml", dir);
	assert_int_equal(job_load(path, NULL, 0, &jobs, &nr, &err), -ENOENT);
	assert_string_equal(err.file.buf, path);
	assert_int_equal(err.line, 0);
	assert_string_equal(err.msg.buf, "cannot read the job file: No such file or directory");
	job_error_release(&err);

	assert_int_equal(job_load(dir, NULL, 0, &jobs, &nr, &err), -EINVAL);
	job_error_release(&err);
	assert_int_equal(load("", &jobs, &nr, &err), -EINVAL);
	assert_int_equal(err.line, 0);
	assert_string_equal(err.msg.buf, "empty job file");
	job_error_release(&err);
	assert_int_equal(load("# only a comment\n", &jobs, &nr, &err), -EINVAL);
	assert_string_equal(err.msg.buf, "empty job file");
	job_error_release(&err);
}

/*
 * A value of 5,000 bytes is quoted whole, from the file and from -s, and a
 * job file in a directory of 300 bytes is named whole (main cut messages
 * at 512 bytes and file names at 256).
 */
static void errors_whole(void **state)
{
	struct strbuf value = STRBUF_INIT, text = STRBUF_INIT, want = STRBUF_INIT;
	struct strbuf ov = STRBUF_INIT, sub = STRBUF_INIT, path = STRBUF_INIT;
	struct atomic_job *jobs;
	struct job_error err;
	size_t nr;
	char *ovs[1];
	FILE *f;

	(void)state;
	strbuf_addchars(&value, 'v', 5000);
	strbuf_addf(&text, "testcase: t\nruntime: %s\n", value.buf);
	assert_int_equal(load(text.buf, &jobs, &nr, &err), -EINVAL);
	strbuf_addf(&want, "runtime '%s' is not a duration (%s)", value.buf,
		    "a decimal number of seconds, or with a unit ms, s, m or h");
	assert_string_equal(err.msg.buf, want.buf);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 10);
	job_error_release(&err);

	strbuf_addf(&ov, "runtime=%s", value.buf);
	ovs[0] = ov.buf;
	assert_int_equal(load_ov("testcase: t\n", ovs, 1, &jobs, &nr, &err), -EINVAL);
	strbuf_reset(&want);
	strbuf_addf(&want, "-s %s: runtime '%s' is not a duration (%s)", ov.buf, value.buf,
		    "a decimal number of seconds, or with a unit ms, s, m or h");
	assert_string_equal(err.file.buf, "<command line>");
	assert_string_equal(err.msg.buf, want.buf);
	job_error_release(&err);

	/* two directories: a name is at most 255 bytes */
	strbuf_addf(&sub, "%s/", dir);
	strbuf_addchars(&sub, 'd', 150);
	assert_int_equal(mkdir(sub.buf, 0700), 0);
	strbuf_addch(&sub, '/');
	strbuf_addchars(&sub, 'e', 150);
	assert_int_equal(mkdir(sub.buf, 0700), 0);
	strbuf_addf(&path, "%s/job.yaml", sub.buf);
	f = fopen(path.buf, "w");
	assert_non_null(f);
	fputs("testcase: t\nx: []\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(job_load(path.buf, NULL, 0, &jobs, &nr, &err), -EINVAL);
	assert_string_equal(err.file.buf, path.buf);
	assert_string_equal(err.msg.buf, "empty matrix dimension 'x'");
	job_error_release(&err);
	assert_int_equal(unlink(path.buf), 0);
	assert_int_equal(rmdir(sub.buf), 0);
	strbuf_setlen(&sub, (size_t)(strrchr(sub.buf, '/') - sub.buf));
	assert_int_equal(rmdir(sub.buf), 0);

	strbuf_release(&value);
	strbuf_release(&text);
	strbuf_release(&want);
	strbuf_release(&ov);
	strbuf_release(&sub);
	strbuf_release(&path);
}

static void exec_job(void **state)
{
	struct atomic_job *jobs;
	struct job_error err;
	size_t nr;

	(void)state;
	assert_int_equal(load("exec:\n"
			      "  cmd: [./bench, --json, \"a b\"]\n"
			      "  parse: json\n"
			      "  paths:\n"
			      "    ops: results.0.ops\n"
			      "    lat: results.0.latency\n"
			      "build: [make, -j8]\n"
			      "threads: [1, 2]\n",
			      &jobs, &nr, &err), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(jobs[0].name, "exec-1");
	assert_string_equal(jobs[0].testcase, "exec");
	assert_string_equal(jobs[0].exec.argv[0], "./bench");
	assert_string_equal(jobs[0].exec.argv[2], "a b");
	assert_null(jobs[0].exec.argv[3]);
	assert_string_equal(jobs[1].exec.parse, "json");
	assert_int_equal(jobs[1].exec.paths.n, 2);
	assert_string_equal(strmap_get(&jobs[1].exec.paths, "lat"), "results.0.latency");
	assert_string_equal(jobs[1].build[1], "-j8");
	/* where build: is written, for run's "build: needs --repo" */
	assert_int_equal(jobs[0].build_line, 7);
	assert_int_equal(jobs[1].build_column, 1);
	atomic_jobs_release(jobs, nr);

	/* parse defaults to time; a string command is split; testcase names it */
	assert_int_equal(load("testcase: sleeper\nexec:\n  cmd: sleep 0.1\n",
			      &jobs, &nr, &err), 0);
	assert_int_equal(nr, 1);
	assert_string_equal(jobs[0].name, "sleeper");
	assert_string_equal(jobs[0].exec.parse, "time");
	assert_string_equal(jobs[0].exec.argv[1], "0.1");
	assert_int_equal(jobs[0].exec.paths.n, 0);
	atomic_jobs_release(jobs, nr);
}

/* Each atomic job's text loads back into itself. */
static void round_trip_one(const char *text, char *const *ov, size_t nov)
{
	struct atomic_job *jobs, *back;
	struct job_error err;
	size_t nr, nr_back;

	if (load_ov(text, ov, nov, &jobs, &nr, &err))
		fail_msg("%s:%u:%u: %s", err.file.buf, err.line, err.column, err.msg.buf);
	for (size_t i = 0; i < nr; i++) {
		const struct atomic_job *a = &jobs[i], *b;

		if (load(a->text, &back, &nr_back, &err))
			fail_msg("%s\n%s:%u:%u: %s", a->text, err.file.buf, err.line,
				 err.column, err.msg.buf);
		assert_int_equal(nr_back, 1);
		b = &back[0];
		assert_string_equal(a->name, b->name);
		assert_string_equal(a->text, b->text);
		assert_string_equal(a->testcase, b->testcase);
		assert_string_equal(a->category, b->category);
		assert_int_equal(a->nr_params, b->nr_params);
		for (size_t p = 0; p < a->nr_params; p++) {
			assert_string_equal(a->params[p].key, b->params[p].key);
			assert_string_equal(a->params[p].value, b->params[p].value);
		}
		assert_int_equal(a->repeat, b->repeat);
		assert_true(a->runtime_s == b->runtime_s);
		assert_true(a->interval_s == b->interval_s);
		assert_true(a->timeout_s == b->timeout_s);
		assert_int_equal(a->recorded.n, b->recorded.n);
		for (size_t r = 0; r < a->recorded.n; r++)
			assert_string_equal(strmap_get(&b->recorded, a->recorded.v[r].key),
					    a->recorded.v[r].value);
		assert_int_equal(!a->monitors, !b->monitors);
		assert_int_equal(!a->build, !b->build);
		assert_int_equal(!a->exec.argv, !b->exec.argv);
		if (a->exec.argv)
			assert_int_equal(a->exec.paths.n, b->exec.paths.n);
		atomic_jobs_release(back, nr_back);
	}
	atomic_jobs_release(jobs, nr);
}

static void round_trip(void **state)
{
	char *ov[] = { "test=futex3", "extra=a b" };
	char *ov2[] = { "runtime=10s" };

	(void)state;
	round_trip_one(seed000, NULL, 0);
	round_trip_one(seed000, ov, 2);
	round_trip_one("runtime: [10s, 30s]\n"
		       "ucode: [0x1, 0x2]\n"
		       "repeat: 3\n"
		       "weird: ['%x', 'a: b', '#c', '~', \"q\\\"\\\\\", '-1', 'tab\there', '']\n"
		       "monitors: [vmstat, perf-stat]\n"
		       "packages: []\n"
		       "kpi: x.y\n"
		       "exec:\n"
		       "  cmd: [./b, --x, 'a b']\n"
		       "  parse: json\n"
		       "  paths: {'a.b': 'c.0', x: y}\n"
		       "build: make -j8\n",
		       NULL, 0);
	round_trip_one("runtime: [10s, 30s]\nw:\n  x: [1, 2]\n", ov2, 1);
	round_trip_one("w:\n  x: [1, 2]\nempty:\ntestcase: w\n", NULL, 0);
	round_trip_one("w:\n  runtime: [1s, 2s]\n  cpufreq_governor: [a, b]\n  x: 1\n",
		       NULL, 0);
}

static void text_shape(void **state)
{
	char *ov[] = { "test=futex3", "nr_task=100%", "mode=thread", "extra=1" };
	struct atomic_job *jobs;
	struct job_error err;
	size_t nr;

	(void)state;
	assert_int_equal(load_ov(seed000, ov, 4, &jobs, &nr, &err), 0);
	assert_int_equal(nr, 1);
	assert_string_equal(jobs[0].text,
			    "suite: will-it-scale\n"
			    "testcase: will-it-scale\n"
			    "category: benchmark\n"
			    "runtime: 300s\n"
			    "cpufreq_governor: performance\n"
			    "nr_task: 100%\n"
			    "will-it-scale:\n"
			    "  mode: thread\n"
			    "  test: futex3\n"
			    "extra: 1\n");
	atomic_jobs_release(jobs, nr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(matrix_seed000),
		cmocka_unit_test(sections_and_literals),
		cmocka_unit_test(overrides),
		cmocka_unit_test(override_errors),
		cmocka_unit_test(errors),
		cmocka_unit_test(file_errors),
		cmocka_unit_test(errors_whole),
		cmocka_unit_test(exec_job),
		cmocka_unit_test(round_trip),
		cmocka_unit_test(text_shape),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
