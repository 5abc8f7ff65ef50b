/*
 * Unit tests: LKP job files of several YAML documents (docs/jobs.md,
 * "Several documents"): the first alone, then each later one applied to
 * it as lkp-tests' revise_hash() does (k, a.b, k-, k+), with errors
 * naming the later document's lines; and an LKP run's job.yaml as
 * perfbot's atomic job (docs/import.md, "lkp-result").
 */
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

#include "unit_jobfile.h"

/* The atomic jobs' names, one a line, in job_load()'s (sorted) order. */
static char *names_of(const char *text, int *ret, struct job_error *err)
{
	struct atomic_job *jobs;
	size_t nr, len;
	char *out = NULL;
	FILE *f;

	*ret = job_load(write_job(text), NULL, 0, &jobs, &nr, err);
	if (*ret)
		return NULL;
	f = open_memstream(&out, &len);
	assert_non_null(f);
	for (size_t i = 0; i < nr; i++)
		fprintf(f, "%s\n", jobs[i].name);
	fclose(f);
	atomic_jobs_release(jobs, nr);
	return out;
}

static void expect_names(const char *text, const char *want)
{
	struct job_error err;
	int ret;
	char *got = names_of(text, &ret, &err);

	if (ret)
		fail_msg("%s: %u:%u: %s", text, err.line, err.column, err.msg.buf);
	assert_string_equal(got, want);
	free(got);
}

static const char base[] =
	"suite: will-it-scale\n"
	"testcase: will-it-scale\n"
	"runtime: 3s\n"
	"nr_task: 1\n"
	"will-it-scale:\n"
	"  mode: process\n"
	"  test: futex1\n";

/* The first document is a job of its own; a later section replaces its section. */
static void section_replaced(void **state)
{
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), "%s---\nwill-it-scale:\n  mode: thread\n"
		 "  test: [futex1, futex2]\n", base);
	expect_names(text, "will-it-scale-1-process-futex1\n"
			   "will-it-scale-1-thread-futex1\n"
			   "will-it-scale-1-thread-futex2\n");
	/* lkp-tests' jobs/ftq.yaml's shape: three documents, three variants */
	snprintf(text, sizeof(text), "%s---\nwill-it-scale:\n  mode: thread\n  test: futex2\n"
		 "---\nnr_task: 2\nwill-it-scale:\n  mode: process\n  test: getppid1\n", base);
	expect_names(text, "will-it-scale-1-process-futex1\n"
			   "will-it-scale-1-thread-futex2\n"
			   "will-it-scale-2-process-getppid1\n");
}

/* The merged job keeps the first document's key order; new keys go last. */
static void order_and_text(void **state)
{
	struct atomic_job *jobs;
	struct job_error err;
	size_t nr;
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), "%s---\nextra: [a]\nnr_task: 2\n", base);
	assert_int_equal(job_load(write_job(text), NULL, 0, &jobs, &nr, &err), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(jobs[0].name, "will-it-scale-1-process-futex1");
	/* nr_task replaced in place (before the section), extra appended */
	assert_string_equal(jobs[1].name, "will-it-scale-2-process-futex1-a");
	assert_non_null(strstr(jobs[1].text, "runtime: 3s\nnr_task: 2\nwill-it-scale:\n"
				"  mode: process\n  test: futex1\nextra: a\n"));
	atomic_jobs_release(jobs, nr);
}

/* a.b sets a section's key; k- deletes; k+ adds values (a new dimension). */
static void special_keys(void **state)
{
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), "%s---\nwill-it-scale.test: futex3\n", base);
	expect_names(text, "will-it-scale-1-process-futex1\n"
			   "will-it-scale-1-process-futex3\n");
	/* the first document's job again, as written: one job (LKP writes its file twice) */
	snprintf(text, sizeof(text), "%s---\nnr_task+: [2, 1]\n", base);
	expect_names(text, "will-it-scale-1-process-futex1\n"
			   "will-it-scale-2-process-futex1\n");
	snprintf(text, sizeof(text), "%s---\nwill-it-scale.mode-:\nextra: x\n", base);
	expect_names(text, "will-it-scale-1-futex1-x\n"
			   "will-it-scale-1-process-futex1\n");
	/* values out of a list */
	expect_names("testcase: t\nx: [a, b, c]\n---\nx-: [b]\ny: 1\n",
		     "t-a\nt-a-1\nt-b\nt-c\nt-c-1\n");
	/* deleting what is not there is no error, as in LKP */
	expect_names("testcase: t\nx: a\n---\nnope-:\nx: b\n", "t-a\nt-b\n");
	/* an empty later document adds nothing */
	expect_names("testcase: t\nx: a\n---\n", "t-a\n");
}

static void expect_error(const char *text, unsigned line, unsigned column, const char *msg)
{
	struct job_error err;
	int ret;
	char *got = names_of(text, &ret, &err);

	free(got);
	if (ret != -EINVAL || err.line != line || err.column != column ||
	    strcmp(err.msg.buf, msg))
		fail_msg("%s: got %d %u:%u: %s", text, ret, err.line, err.column, err.msg.buf);
	job_error_release(&err);
}

/* Errors of a later document name its own lines. */
static void errors(void **state)
{
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), "%s---\nwill-it-scale:\n  mode: []\n  test: futex1\n",
		 base);
	expect_error(text, 10, 9, "empty matrix dimension 'mode'");
	/* the same name from two documents, with other text: which one to run? */
	expect_error("testcase: t\nruntime: 1\n---\nruntime: 2\n", 3, 1,
		     "document 2 gives the atomic job 't' that document 1 (at 1:1) gives too, "
		     "with other keys outside its name (make the key that differs a list of "
		     "one, e.g. runtime: [60s])");
	snprintf(text, sizeof(text), "%s---\nruntime: 5x\n", base);
	expect_error(text, 9, 10, "runtime '5x' is not a duration (a decimal number of seconds, "
		     "or with a unit ms, s, m or h)");
	expect_error("testcase: t\nx: 1\n---\nx.y: 2\n", 4, 1,
		     "'x.y': 'x' is not a section (it is at 2:4)");
	expect_error("testcase: t\nx: 1\n---\nx-: [1]\n", 4, 1,
		     "'x-' deletes values of 'x', which is a single value (at 2:4); "
		     "write 'x-:' alone to delete it");
	expect_error("testcase: t\nx: 1\n---\n- a\n", 4, 1,
		     "a job's document must be a mapping of keys to values");
	expect_error("testcase: t\nx: 1\n---\na..b: 1\n", 4, 1,
		     "empty name in the dotted key 'a..b'");
}

/* An LKP run's job.yaml: the job file's keys only, named as job split names them. */
static void lkp_run(void **state)
{
	struct atomic_job j;
	struct job_error err;
	struct strmap keys = { 0 };

	(void)state;
	assert_int_equal(job_load_lkp_run(write_job(
		"suite: will-it-scale\ntestcase: will-it-scale\nnr_task: 100%\n"
		"will-it-scale:\n  mode: thread\n  test: futex3\njob_origin: w.yaml\n"
		"testbox: box-2\ntbox_group: box\nnr_cpu: 88\nextra: 1\nkmsg:\n"
		"perf-profile:\n  debug_mode: 0\nkconfig: x86_64-rhel-8.3\n"
		"kernel: /pkg/vmlinuz\nbootloader_append:\n- root=/dev/ram0\n"), &j, &keys, &err), 0);
	assert_string_equal(j.name, "will-it-scale-100%-thread-futex3");
	assert_int_equal(j.nr_params, 3);
	assert_string_equal(strmap_get(&j.recorded, "kconfig"), "x86_64-rhel-8.3");
	assert_string_equal(j.text, "suite: will-it-scale\ntestcase: will-it-scale\n"
			    "nr_task: 100%\nwill-it-scale:\n  mode: thread\n  test: futex3\n"
			    "kconfig: x86_64-rhel-8.3\n");
	assert_string_equal(strmap_get(&keys, "tbox_group"), "box");
	assert_string_equal(strmap_get(&keys, "nr_cpu"), "88");
	atomic_job_release(&j);
	strmap_release(&keys);

	/* without job_origin every key with a value is the job's, but LKP's own */
	assert_int_equal(job_load_lkp_run(write_job(
		"testcase: t\nx: 1\ncommit: abc\nmemory: 8G\n"), &j, &keys, &err), 0);
	assert_string_equal(j.name, "t-1");
	atomic_job_release(&j);
	strmap_release(&keys);

	/* a run is one atomic job */
	assert_int_equal(job_load_lkp_run(write_job("testcase: t\nx: [1, 2]\n"), &j, &keys,
					  &err), -EINVAL);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 4);
	assert_string_equal(err.msg.buf, "'x' is a list: an LKP run's job.yaml is one atomic job");
	job_error_release(&err);
	strmap_release(&keys);
	assert_int_equal(job_load_lkp_run(write_job("suite: s\nx: 1\n"), &j, &keys, &err),
			 -EINVAL);
	assert_string_equal(err.msg.buf, "no testcase: an LKP run's job.yaml names its testcase");
	job_error_release(&err);
	strmap_release(&keys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(section_replaced),
		cmocka_unit_test(order_and_text),
		cmocka_unit_test(special_keys),
		cmocka_unit_test(errors),
		cmocka_unit_test(lkp_run),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
