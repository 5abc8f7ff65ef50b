/* Unit tests: bench/parsers (exec: parse: kv, json, gbench, hyperfine, time). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/parsers.h"
#include "util/quote.h"
#include "util/strbuf.h"

/* The last parse()'s message: errbuf is errsb's text. */
static struct strbuf errsb = STRBUF_INIT;
static const char *errbuf = "";

static int parse(const char *kind, const char *text, const struct strmap *paths,
		 const char *prefix, struct statmap *out)
{
	int ret;

	/* what err held is replaced, never kept */
	strbuf_release(&errsb);
	strbuf_addstr(&errsb, "left over");
	ret = exec_parse_output(kind, text, text ? strlen(text) : 0, paths,
				prefix, out, &errsb);
	errbuf = errsb.buf;
	statmap_finish(out);
	return ret;
}

static void check_stat(const struct statmap *m, const char *name, double want)
{
	const double *v = statmap_get(m, name);

	if (!v)
		fail_msg("no stat '%s'", name);
	/* relative: values span 1e-3 s .. 1e9 ns */
	if (fabs(*v - want) > 1e-9 * fmax(1, fabs(want)))
		fail_msg("%s = %.17g, want %.17g", name, *v, want);
}

static void check_no_stat(const struct statmap *m, const char *name)
{
	if (statmap_get(m, name))
		fail_msg("unexpected stat '%s'", name);
}

/* ---- kv ---- */

static const char kv_output[] =
	"Running the throughput test (8 threads)...\n"
	"threads: 8\n"
	"events per second: 12345.67\n"
	"latency avg: 0.65 ms\n"
	"  latency   95th percentile :   1.23 ms  \n"
	"throughput = 55\n"			/* '=' is not a separator */
	"version: 3.2.1\n"			/* not a number with a unit */
	"started at: 12:30:01\n"
	"status: ok\n"
	"total time:10.0003s\n"			/* unit glued on */
	"ops: 3 ops/s\n"
	"cpu usage: 97.5 %\n"
	"bad: nan\n"
	"huge: 1e999\n"
	"empty:\n"
	": 42\n"
	"fruit: 12 apples and pears\n"
	"grouped: 1,234\n"
	"crlf: 7\r\n"
	"\n"
	"dup: 1\n"
	"dup: 2\n"
	"last: -4.5e-3";

static void kv_sample(void **state)
{
	struct statmap m = { 0 };

	(void)state;
	assert_int_equal(parse("kv", kv_output, NULL, "sysbench", &m), 0);
	assert_string_equal(errbuf, "");
	check_stat(&m, "sysbench.threads", 8);
	check_stat(&m, "sysbench.events_per_second", 12345.67);
	check_stat(&m, "sysbench.latency_avg", 0.65);
	check_stat(&m, "sysbench.latency_95th_percentile", 1.23);
	check_stat(&m, "sysbench.total_time", 10.0003);
	check_stat(&m, "sysbench.ops", 3);
	check_stat(&m, "sysbench.cpu_usage", 97.5);
	check_stat(&m, "sysbench.crlf", 7);
	check_stat(&m, "sysbench.dup", 2);	/* the last one wins */
	check_stat(&m, "sysbench.last", -4.5e-3);
	check_no_stat(&m, "sysbench.throughput");
	check_no_stat(&m, "sysbench.version");
	check_no_stat(&m, "sysbench.started_at");
	check_no_stat(&m, "sysbench.bad");
	check_no_stat(&m, "sysbench.huge");
	check_no_stat(&m, "sysbench.fruit");
	check_no_stat(&m, "sysbench.grouped");
	assert_int_equal(m.n, 10);
	statmap_release(&m);
}

static void kv_length_is_respected(void **state)
{
	static const char text[] = "a: 1\nb: 2\nc: 3";
	struct statmap m = { 0 };

	(void)state;
	/* stop inside "b: 2": the parser must not read to the NUL */
	assert_int_equal(exec_parse_output("kv", text, 8, NULL, "x", &m, NULL), 0);
	statmap_finish(&m);
	check_stat(&m, "x.a", 1);
	check_no_stat(&m, "x.c");
	/* "b:" followed by nothing within the length: skipped */
	check_no_stat(&m, "x.b");
	assert_int_equal(m.n, 1);
	statmap_release(&m);
}

static void kv_no_prefix(void **state)
{
	struct statmap m = { 0 };

	(void)state;
	assert_int_equal(parse("kv", "a b: 1\n", NULL, NULL, &m), 0);
	check_stat(&m, "a_b", 1);
	statmap_release(&m);
	assert_int_equal(parse("kv", "a b: 1\n", NULL, "", &m), 0);
	check_stat(&m, "a_b", 1);
	statmap_release(&m);
}

static void kv_errors(void **state)
{
	struct statmap m = { 0 };

	(void)state;
	assert_int_equal(parse("kv", "hello\nstatus: ok\nx = 3\n", NULL, "t", &m),
			 -EPROTO);
	assert_string_equal(errbuf, "kv: no 'key: value' line with a number");
	assert_int_equal(parse("kv", "", NULL, "t", &m), -EPROTO);
	assert_string_equal(errbuf, "kv: no 'key: value' line with a number");
	assert_int_equal(parse("kv", NULL, NULL, "t", &m), -EPROTO);
	assert_int_equal(m.n, 0);
	statmap_release(&m);
}

/* ---- json ---- */

static const char json_output[] =
	"{\n"
	"  \"name\": \"redis-benchmark\",\n"
	"  \"ok\": true,\n"
	"  \"results\": [\n"
	"    {\"test\": \"SET\", \"rps\": 123456.5, \"latency\": {\"p50\": 0.2, \"p99\": 1}},\n"
	"    {\"test\": \"GET\", \"rps\": 150000, \"latency\": {\"p50\": 0.15, \"p99\": 0.9}}\n"
	"  ],\n"
	"  \"total ops\": 2000000,\n"
	"  \"note\": null\n"
	"}\n";

static void json_with_paths(void **state)
{
	struct strmap paths = { 0 };
	struct statmap m = { 0 };

	(void)state;
	assert_int_equal(strmap_set(&paths, "set_rps", "results.0.rps"), 0);
	assert_int_equal(strmap_set(&paths, "get_p99", "results.1.latency.p99"), 0);
	assert_int_equal(strmap_set(&paths, "ops", "total ops"), 0);
	assert_int_equal(parse("json", json_output, &paths, "redis", &m), 0);
	assert_string_equal(errbuf, "");
	check_stat(&m, "redis.set_rps", 123456.5);
	check_stat(&m, "redis.get_p99", 0.9);
	check_stat(&m, "redis.ops", 2000000);
	assert_int_equal(m.n, 3);
	statmap_release(&m);
	strmap_release(&paths);
}

static void json_flattened(void **state)
{
	struct statmap m = { 0 };

	(void)state;
	assert_int_equal(parse("json", json_output, NULL, "redis", &m), 0);
	check_stat(&m, "redis.results.0.rps", 123456.5);
	check_stat(&m, "redis.results.0.latency.p50", 0.2);
	check_stat(&m, "redis.results.0.latency.p99", 1);
	check_stat(&m, "redis.results.1.rps", 150000);
	check_stat(&m, "redis.results.1.latency.p50", 0.15);
	check_stat(&m, "redis.results.1.latency.p99", 0.9);
	check_stat(&m, "redis.total_ops", 2000000);
	/* strings, booleans and null are not stats */
	assert_int_equal(m.n, 7);
	statmap_release(&m);

	/* a bare number is the whole document */
	assert_int_equal(parse("json", " 42.5\n", NULL, "answer", &m), 0);
	check_stat(&m, "answer.value", 42.5);
	assert_int_equal(m.n, 1);
	statmap_release(&m);
}

static void json_errors(void **state)
{
	struct strmap paths = { 0 };
	struct statmap m = { 0 };

	(void)state;
	assert_int_equal(strmap_set(&paths, "mean", "results.2.mean"), 0);
	assert_int_equal(parse("json", json_output, &paths, "r", &m), -EPROTO);
	assert_string_equal(errbuf, "json: no value at results.2.mean");

	assert_int_equal(strmap_set(&paths, "mean", "results.0.test"), 0);
	assert_int_equal(parse("json", json_output, &paths, "r", &m), -EPROTO);
	assert_string_equal(errbuf,
			    "json: value at results.0.test is a string, not a number");

	assert_int_equal(strmap_set(&paths, "mean", "results.0.latency"), 0);
	assert_int_equal(parse("json", json_output, &paths, "r", &m), -EPROTO);
	assert_string_equal(errbuf,
			    "json: value at results.0.latency is an object, not a number");

	assert_int_equal(strmap_set(&paths, "mean", "ok"), 0);
	assert_int_equal(parse("json", json_output, &paths, "r", &m), -EPROTO);
	assert_string_equal(errbuf, "json: value at ok is a boolean, not a number");

	assert_int_equal(strmap_set(&paths, "mean", "note"), 0);
	assert_int_equal(parse("json", json_output, &paths, "r", &m), -EPROTO);
	assert_string_equal(errbuf, "json: value at note is null, not a number");

	/* array indexes are plain decimal */
	assert_int_equal(strmap_set(&paths, "mean", "results.-1.rps"), 0);
	assert_int_equal(parse("json", json_output, &paths, "r", &m), -EPROTO);
	assert_string_equal(errbuf, "json: no value at results.-1.rps");
	assert_int_equal(strmap_set(&paths, "mean", "results.x.rps"), 0);
	assert_int_equal(parse("json", json_output, &paths, "r", &m), -EPROTO);
	assert_string_equal(errbuf, "json: no value at results.x.rps");
	/* below a number */
	assert_int_equal(strmap_set(&paths, "mean", "total ops.x"), 0);
	assert_int_equal(parse("json", json_output, &paths, "r", &m), -EPROTO);
	assert_string_equal(errbuf, "json: no value at total ops.x");

	assert_int_equal(parse("json", "{\"a\": 1,\n \"b\": }\n", NULL, "r", &m),
			 -EPROTO);
	assert_non_null(strstr(errbuf, "json: line 2 column "));
	assert_int_equal(parse("json", "  \n", NULL, "r", &m), -EPROTO);
	assert_string_equal(errbuf, "json: empty output");
	assert_int_equal(parse("json", "{\"a\": \"1\", \"b\": [true]}", NULL, "r", &m),
			 -EPROTO);
	assert_string_equal(errbuf, "json: no number in the document");
	assert_int_equal(m.n, 0);
	statmap_release(&m);
	strmap_release(&paths);
}

/* ---- Google Benchmark ---- */

/*
 * As ./bench --benchmark_format=json --benchmark_repetitions=... writes it
 * (v1.8): context, plain runs with counters, repetitions with their
 * aggregates (including the ratio-valued _cv), complexity rows, a skip.
 */
static const char gbench_output[] =
	"{\n"
	"  \"context\": {\n"
	"    \"date\": \"2024-03-12T14:05:31+00:00\",\n"
	"    \"host_name\": \"lkp-icl-2sp2\",\n"
	"    \"executable\": \"./build/bench_hash\",\n"
	"    \"num_cpus\": 8,\n"
	"    \"mhz_per_cpu\": 3600,\n"
	"    \"cpu_scaling_enabled\": false,\n"
	"    \"caches\": [\n"
	"      {\"type\": \"Data\", \"level\": 1, \"size\": 49152, \"num_sharing\": 2},\n"
	"      {\"type\": \"Unified\", \"level\": 3, \"size\": 12582912, \"num_sharing\": 8}\n"
	"    ],\n"
	"    \"load_avg\": [0.42, 0.31, 0.2],\n"
	"    \"library_version\": \"v1.8.3\",\n"
	"    \"library_build_type\": \"release\",\n"
	"    \"json_schema_version\": 1\n"
	"  },\n"
	"  \"benchmarks\": [\n"
	"    {\n"
	"      \"name\": \"BM_Hash/64\",\n"
	"      \"family_index\": 0,\n"
	"      \"per_family_instance_index\": 0,\n"
	"      \"run_name\": \"BM_Hash/64\",\n"
	"      \"run_type\": \"iteration\",\n"
	"      \"repetitions\": 1,\n"
	"      \"repetition_index\": 0,\n"
	"      \"threads\": 1,\n"
	"      \"iterations\": 41234567,\n"
	"      \"real_time\": 1.6975e+01,\n"
	"      \"cpu_time\": 1.6969e+01,\n"
	"      \"time_unit\": \"ns\",\n"
	"      \"bytes_per_second\": 3.7716e+09,\n"
	"      \"items_per_second\": 5.8931e+07\n"
	"    },\n"
	"    {\n"
	"      \"name\": \"BM_Lookup/threads:4\",\n"
	"      \"family_index\": 1,\n"
	"      \"per_family_instance_index\": 0,\n"
	"      \"run_name\": \"BM_Lookup/threads:4\",\n"
	"      \"run_type\": \"iteration\",\n"
	"      \"repetitions\": 1,\n"
	"      \"repetition_index\": 0,\n"
	"      \"threads\": 4,\n"
	"      \"iterations\": 280000,\n"
	"      \"real_time\": 2.5e+00,\n"
	"      \"cpu_time\": 9.75e+00,\n"
	"      \"time_unit\": \"us\",\n"
	"      \"hits\": 1024,\n"
	"      \"miss rate\": 0.125,\n"
	"      \"label\": \"warm cache\"\n"
	"    },\n"
	"    {\n"
	"      \"name\": \"BM_Sort/1024\",\n"
	"      \"family_index\": 2,\n"
	"      \"per_family_instance_index\": 0,\n"
	"      \"run_name\": \"BM_Sort/1024\",\n"
	"      \"run_type\": \"iteration\",\n"
	"      \"repetitions\": 3,\n"
	"      \"repetition_index\": 0,\n"
	"      \"threads\": 1,\n"
	"      \"iterations\": 700,\n"
	"      \"real_time\": 1.01e+00,\n"
	"      \"cpu_time\": 1.00e+00,\n"
	"      \"time_unit\": \"ms\"\n"
	"    },\n"
	"    {\n"
	"      \"name\": \"BM_Sort/1024\",\n"
	"      \"family_index\": 2,\n"
	"      \"per_family_instance_index\": 0,\n"
	"      \"run_name\": \"BM_Sort/1024\",\n"
	"      \"run_type\": \"iteration\",\n"
	"      \"repetitions\": 3,\n"
	"      \"repetition_index\": 1,\n"
	"      \"threads\": 1,\n"
	"      \"iterations\": 700,\n"
	"      \"real_time\": 1.03e+00,\n"
	"      \"cpu_time\": 1.02e+00,\n"
	"      \"time_unit\": \"ms\"\n"
	"    },\n"
	"    {\n"
	"      \"name\": \"BM_Sort/1024_mean\",\n"
	"      \"family_index\": 2,\n"
	"      \"per_family_instance_index\": 0,\n"
	"      \"run_name\": \"BM_Sort/1024\",\n"
	"      \"run_type\": \"aggregate\",\n"
	"      \"repetitions\": 3,\n"
	"      \"threads\": 1,\n"
	"      \"aggregate_name\": \"mean\",\n"
	"      \"aggregate_unit\": \"time\",\n"
	"      \"iterations\": 3,\n"
	"      \"real_time\": 1.02e+00,\n"
	"      \"cpu_time\": 1.01e+00,\n"
	"      \"time_unit\": \"ms\"\n"
	"    },\n"
	"    {\n"
	"      \"name\": \"BM_Sort/1024_cv\",\n"
	"      \"family_index\": 2,\n"
	"      \"per_family_instance_index\": 0,\n"
	"      \"run_name\": \"BM_Sort/1024\",\n"
	"      \"run_type\": \"aggregate\",\n"
	"      \"repetitions\": 3,\n"
	"      \"threads\": 1,\n"
	"      \"aggregate_name\": \"cv\",\n"
	"      \"aggregate_unit\": \"percentage\",\n"
	"      \"iterations\": 3,\n"
	"      \"real_time\": 9.8e-03,\n"
	"      \"cpu_time\": 9.9e-03,\n"
	"      \"time_unit\": \"ms\"\n"
	"    },\n"
	"    {\n"
	"      \"name\": \"BM_Sort_BigO\",\n"
	"      \"family_index\": 3,\n"
	"      \"per_family_instance_index\": 0,\n"
	"      \"run_name\": \"BM_Sort\",\n"
	"      \"run_type\": \"aggregate\",\n"
	"      \"repetitions\": 1,\n"
	"      \"threads\": 1,\n"
	"      \"aggregate_name\": \"BigO\",\n"
	"      \"aggregate_unit\": \"time\",\n"
	"      \"cpu_coefficient\": 9.5e-02,\n"
	"      \"real_coefficient\": 9.6e-02,\n"
	"      \"big_o\": \"NlgN\",\n"
	"      \"time_unit\": \"us\"\n"
	"    },\n"
	"    {\n"
	"      \"name\": \"BM_Sort_RMS\",\n"
	"      \"family_index\": 3,\n"
	"      \"per_family_instance_index\": 0,\n"
	"      \"run_name\": \"BM_Sort\",\n"
	"      \"run_type\": \"aggregate\",\n"
	"      \"repetitions\": 1,\n"
	"      \"threads\": 1,\n"
	"      \"aggregate_name\": \"RMS\",\n"
	"      \"aggregate_unit\": \"percentage\",\n"
	"      \"rms\": 3.1e-02\n"
	"    },\n"
	"    {\n"
	"      \"name\": \"BM_Slow\",\n"
	"      \"family_index\": 4,\n"
	"      \"per_family_instance_index\": 0,\n"
	"      \"run_name\": \"BM_Slow\",\n"
	"      \"run_type\": \"iteration\",\n"
	"      \"repetitions\": 1,\n"
	"      \"repetition_index\": 0,\n"
	"      \"threads\": 1,\n"
	"      \"iterations\": 1,\n"
	"      \"real_time\": 1.25e+00,\n"
	"      \"cpu_time\": 1.5e-01,\n"
	"      \"time_unit\": \"s\"\n"
	"    },\n"
	"    {\n"
	"      \"name\": \"BM_NeedsAVX512\",\n"
	"      \"family_index\": 5,\n"
	"      \"per_family_instance_index\": 0,\n"
	"      \"run_name\": \"BM_NeedsAVX512\",\n"
	"      \"run_type\": \"iteration\",\n"
	"      \"repetitions\": 1,\n"
	"      \"repetition_index\": 0,\n"
	"      \"threads\": 1,\n"
	"      \"skipped\": true,\n"
	"      \"skip_message\": \"no avx512\"\n"
	"    }\n"
	"  ]\n"
	"}\n";

static void gbench_sample(void **state)
{
	struct statmap m = { 0 };

	(void)state;
	assert_int_equal(parse("gbench", gbench_output, NULL, "hashbench", &m), 0);
	assert_string_equal(errbuf, "");
	/* ns: as is */
	check_stat(&m, "hashbench.BM_Hash/64.iterations", 41234567);
	check_stat(&m, "hashbench.BM_Hash/64.real_time", 16.975);
	check_stat(&m, "hashbench.BM_Hash/64.cpu_time", 16.969);
	check_stat(&m, "hashbench.BM_Hash/64.bytes_per_second", 3.7716e9);
	check_stat(&m, "hashbench.BM_Hash/64.items_per_second", 5.8931e7);
	/* us -> ns; user counters, whitespace in a counter name */
	check_stat(&m, "hashbench.BM_Lookup/threads:4.iterations", 280000);
	check_stat(&m, "hashbench.BM_Lookup/threads:4.real_time", 2500);
	check_stat(&m, "hashbench.BM_Lookup/threads:4.cpu_time", 9750);
	check_stat(&m, "hashbench.BM_Lookup/threads:4.hits", 1024);
	check_stat(&m, "hashbench.BM_Lookup/threads:4.miss_rate", 0.125);
	/* repetitions: only the aggregates; ms -> ns */
	check_no_stat(&m, "hashbench.BM_Sort/1024.real_time");
	check_stat(&m, "hashbench.BM_Sort/1024_mean.iterations", 3);
	check_stat(&m, "hashbench.BM_Sort/1024_mean.real_time", 1.02e6);
	check_stat(&m, "hashbench.BM_Sort/1024_mean.cpu_time", 1.01e6);
	/* the coefficient of variation is a ratio: not converted */
	check_stat(&m, "hashbench.BM_Sort/1024_cv.iterations", 3);
	check_stat(&m, "hashbench.BM_Sort/1024_cv.real_time", 9.8e-3);
	check_stat(&m, "hashbench.BM_Sort/1024_cv.cpu_time", 9.9e-3);
	/* complexity: coefficients in time_unit, rms a ratio */
	check_stat(&m, "hashbench.BM_Sort_BigO.cpu_coefficient", 95);
	check_stat(&m, "hashbench.BM_Sort_BigO.real_coefficient", 96);
	check_stat(&m, "hashbench.BM_Sort_RMS.rms", 3.1e-2);
	/* s -> ns */
	check_stat(&m, "hashbench.BM_Slow.iterations", 1);
	check_stat(&m, "hashbench.BM_Slow.real_time", 1.25e9);
	check_stat(&m, "hashbench.BM_Slow.cpu_time", 1.5e8);
	/* descriptive fields and the skipped benchmark give nothing */
	check_no_stat(&m, "hashbench.BM_Hash/64.threads");
	check_no_stat(&m, "hashbench.BM_Hash/64.family_index");
	check_no_stat(&m, "hashbench.BM_Sort/1024_mean.repetitions");
	assert_int_equal(m.n, 22);
	statmap_release(&m);
}

static void gbench_spaces_in_name(void **state)
{
	struct statmap m = { 0 };

	(void)state;
	assert_int_equal(parse("gbench",
		"{\"benchmarks\": [{\"name\": \" BM_x<int, 8>/4 \", \"iterations\": 10,"
		" \"real_time\": 2, \"cpu_time\": 1, \"time_unit\": \"ms\"}]}",
		NULL, "b", &m), 0);
	check_stat(&m, "b.BM_x<int,_8>/4.real_time", 2e6);
	check_stat(&m, "b.BM_x<int,_8>/4.cpu_time", 1e6);
	check_stat(&m, "b.BM_x<int,_8>/4.iterations", 10);
	assert_int_equal(m.n, 3);
	statmap_release(&m);
}

static void gbench_errors(void **state)
{
	struct statmap m = { 0 };

	(void)state;
	assert_int_equal(parse("gbench", "{\"context\": {}}", NULL, "b", &m), -EPROTO);
	assert_string_equal(errbuf, "gbench: no \"benchmarks\" array");
	assert_int_equal(parse("gbench", "[1, 2]", NULL, "b", &m), -EPROTO);
	assert_string_equal(errbuf, "gbench: no \"benchmarks\" array");
	assert_int_equal(parse("gbench", "{\"benchmarks\": []}", NULL, "b", &m),
			 -EPROTO);
	assert_string_equal(errbuf, "gbench: no benchmark result in the output");
	assert_int_equal(parse("gbench",
		"{\"benchmarks\": [{\"name\": \"BM_a\", \"skipped\": true}]}",
		NULL, "b", &m), -EPROTO);
	assert_string_equal(errbuf, "gbench: no benchmark result in the output");
	assert_int_equal(parse("gbench",
		"{\"benchmarks\": [{\"name\": \"BM_a\", \"iterations\": 1},"
		" {\"name\": \"BM_open\", \"run_type\": \"iteration\","
		" \"error_occurred\": true, \"error_message\": \"open: ENOENT\","
		" \"iterations\": 0}]}", NULL, "b", &m), -EPROTO);
	assert_string_equal(errbuf, "gbench: BM_open: error: open: ENOENT");
	assert_int_equal(parse("gbench",
		"{\"benchmarks\": [{\"name\": \"BM_a\", \"error_occurred\": true}]}",
		NULL, "b", &m), -EPROTO);
	assert_string_equal(errbuf, "gbench: BM_a: error: (no message)");
	assert_int_equal(parse("gbench",
		"{\"benchmarks\": [{\"name\": \"BM_a\", \"real_time\": 1,"
		" \"time_unit\": \"min\"}]}", NULL, "b", &m), -EPROTO);
	assert_string_equal(errbuf, "gbench: BM_a: unknown time_unit 'min'");
	assert_int_equal(parse("gbench",
		"{\"benchmarks\": [{\"name\": \"BM_a\", \"iterations\": 1},"
		" {\"iterations\": 1}]}", NULL, "b", &m), -EPROTO);
	assert_string_equal(errbuf, "gbench: benchmarks.1 has no name");
	assert_int_equal(parse("gbench", "{\"benchmarks\": [3]}", NULL, "b", &m),
			 -EPROTO);
	assert_string_equal(errbuf, "gbench: benchmarks.0 is not an object");
	/* the console format instead of JSON */
	assert_int_equal(parse("gbench",
		"-----------------------------------------------------\n"
		"Benchmark           Time             CPU   Iterations\n"
		"-----------------------------------------------------\n"
		"BM_Hash/64       17.0 ns         17.0 ns     41234567\n",
		NULL, "b", &m), -EPROTO);
	assert_non_null(strstr(errbuf, "gbench: line 1 column "));
	assert_int_equal(m.n, 0);
	statmap_release(&m);
}

/* ---- hyperfine ---- */

/* hyperfine -N --export-json out.json -P t 1 4 ... 'grep -r foo src' 'rg --threads={t} foo src' */
static const char hyperfine_output[] =
	"{\n"
	"  \"results\": [\n"
	"    {\n"
	"      \"command\": \"grep -r foo src\",\n"
	"      \"mean\": 0.012637465,\n"
	"      \"stddev\": 0.000419612,\n"
	"      \"median\": 0.0125543,\n"
	"      \"user\": 0.0052345,\n"
	"      \"system\": 0.0071234,\n"
	"      \"min\": 0.0120011,\n"
	"      \"max\": 0.0139876,\n"
	"      \"times\": [\n"
	"        0.0120011,\n"
	"        0.0125543,\n"
	"        0.0139876,\n"
	"        0.0124069\n"
	"      ],\n"
	"      \"exit_codes\": [0, 0, 0, 0]\n"
	"    },\n"
	"    {\n"
	"      \"command\": \"rg  --threads=4 foo src\",\n"
	"      \"mean\": 0.0031234,\n"
	"      \"stddev\": 0.0002,\n"
	"      \"median\": 0.0031,\n"
	"      \"user\": 0.0061,\n"
	"      \"system\": 0.0042,\n"
	"      \"min\": 0.0029,\n"
	"      \"max\": 0.0034,\n"
	"      \"times\": [0.0029, 0.0031, 0.0034],\n"
	"      \"exit_codes\": [0, 0, 0],\n"
	"      \"parameters\": {\"t\": \"4\"}\n"
	"    }\n"
	"  ]\n"
	"}\n";

static void check_hyperfine(const struct statmap *m)
{
	check_stat(m, "hf.grep_-r_foo_src.mean", 0.012637465);
	check_stat(m, "hf.grep_-r_foo_src.stddev", 0.000419612);
	check_stat(m, "hf.grep_-r_foo_src.median", 0.0125543);
	check_stat(m, "hf.grep_-r_foo_src.user", 0.0052345);
	check_stat(m, "hf.grep_-r_foo_src.system", 0.0071234);
	check_stat(m, "hf.grep_-r_foo_src.min", 0.0120011);
	check_stat(m, "hf.grep_-r_foo_src.max", 0.0139876);
	check_stat(m, "hf.grep_-r_foo_src.runs", 4);
	check_stat(m, "hf.rg_--threads=4_foo_src.mean", 0.0031234);
	check_stat(m, "hf.rg_--threads=4_foo_src.stddev", 0.0002);
	check_stat(m, "hf.rg_--threads=4_foo_src.median", 0.0031);
	check_stat(m, "hf.rg_--threads=4_foo_src.user", 0.0061);
	check_stat(m, "hf.rg_--threads=4_foo_src.system", 0.0042);
	check_stat(m, "hf.rg_--threads=4_foo_src.min", 0.0029);
	check_stat(m, "hf.rg_--threads=4_foo_src.max", 0.0034);
	check_stat(m, "hf.rg_--threads=4_foo_src.runs", 3);
	assert_int_equal(m->n, 16);
}

static void hyperfine_sample(void **state)
{
	struct statmap m = { 0 };

	(void)state;
	assert_int_equal(parse("hyperfine", hyperfine_output, NULL, "hf", &m), 0);
	assert_string_equal(errbuf, "");
	check_hyperfine(&m);
	statmap_release(&m);
}

/* --export-json /dev/stdout: the human report comes first */
static void hyperfine_after_report(void **state)
{
	char text[sizeof(hyperfine_output) + 512];
	struct statmap m = { 0 };

	(void)state;
	snprintf(text, sizeof(text), "%s%s",
		 "Benchmark 1: grep -r foo src\n"
		 "  Time (mean \xc2\xb1 \xcf\x83):      12.6 ms \xc2\xb1   0.4 ms\n"
		 "  Range (min \xe2\x80\xa6 max):    12.0 ms \xe2\x80\xa6  14.0 ms    4 runs\n"
		 "\n"
		 "Summary\n"
		 "  rg --threads=4 foo src ran 4.05 \xc2\xb1 0.29 times faster\n",
		 hyperfine_output);
	assert_int_equal(parse("hyperfine", text, NULL, "hf", &m), 0);
	check_hyperfine(&m);
	statmap_release(&m);
}

static void hyperfine_single_run(void **state)
{
	struct statmap m = { 0 };

	(void)state;
	/* one run: stddev is null; an old hyperfine without median */
	assert_int_equal(parse("hyperfine",
		"{\"results\": [{\"command\": \"make\", \"mean\": 12.5,"
		" \"stddev\": null, \"user\": 40.1, \"system\": 3.2, \"min\": 12.5,"
		" \"max\": 12.5, \"times\": [12.5]}]}", NULL, "hf", &m), 0);
	check_stat(&m, "hf.make.mean", 12.5);
	check_stat(&m, "hf.make.user", 40.1);
	check_stat(&m, "hf.make.system", 3.2);
	check_stat(&m, "hf.make.min", 12.5);
	check_stat(&m, "hf.make.max", 12.5);
	check_stat(&m, "hf.make.runs", 1);
	assert_int_equal(m.n, 6);
	statmap_release(&m);
}

static void hyperfine_errors(void **state)
{
	struct statmap m = { 0 };

	(void)state;
	assert_int_equal(parse("hyperfine", "{}", NULL, "hf", &m), -EPROTO);
	assert_string_equal(errbuf, "hyperfine: no \"results\" array");
	assert_int_equal(parse("hyperfine", "{\"results\": []}", NULL, "hf", &m),
			 -EPROTO);
	assert_string_equal(errbuf, "hyperfine: no result in \"results\"");
	assert_int_equal(parse("hyperfine",
		"{\"results\": [{\"command\": \"a\", \"mean\": 1},"
		" {\"command\": \"b c\", \"stddev\": 1}]}", NULL, "hf", &m), -EPROTO);
	assert_string_equal(errbuf, "hyperfine: results.1 ('b c'): no mean");
	assert_int_equal(parse("hyperfine",
		"{\"results\": [{\"command\": \"a\", \"mean\": 1, \"max\": \"2\"}]}",
		NULL, "hf", &m), -EPROTO);
	assert_string_equal(errbuf, "hyperfine: results.0.max is a string, not a number");
	assert_int_equal(parse("hyperfine",
		"{\"results\": [{\"command\": \"\", \"mean\": 1}]}", NULL, "hf", &m),
		-EPROTO);
	assert_string_equal(errbuf, "hyperfine: results.0 has no command");
	assert_int_equal(parse("hyperfine", "{\"results\": [null]}", NULL, "hf", &m),
			 -EPROTO);
	assert_string_equal(errbuf, "hyperfine: results.0 is not an object");
	assert_int_equal(parse("hyperfine", "", NULL, "hf", &m), -EPROTO);
	assert_string_equal(errbuf, "hyperfine: empty output");
	assert_int_equal(m.n, 0);
	statmap_release(&m);
}

/* ---- the rest ---- */

static void time_adds_nothing(void **state)
{
	struct statmap m = { 0 };

	(void)state;
	assert_int_equal(parse("time", "anything: 1\n", NULL, "t", &m), 0);
	assert_string_equal(errbuf, "");
	assert_int_equal(m.n, 0);
	assert_int_equal(parse("time", NULL, NULL, "t", &m), 0);
	assert_int_equal(m.n, 0);
	statmap_release(&m);
}

static void kinds(void **state)
{
	struct statmap m = { 0 };

	(void)state;
	assert_true(exec_parse_kind_known("kv"));
	assert_true(exec_parse_kind_known("json"));
	assert_true(exec_parse_kind_known("gbench"));
	assert_true(exec_parse_kind_known("hyperfine"));
	assert_true(exec_parse_kind_known("time"));
	assert_false(exec_parse_kind_known("KV"));
	assert_false(exec_parse_kind_known(""));
	assert_false(exec_parse_kind_known("xml"));
	assert_false(exec_parse_kind_known(NULL));
	assert_int_equal(parse("xml", "<a/>", NULL, "t", &m), -EINVAL);
	assert_string_equal(errbuf,
		"unknown parse kind 'xml' (kv, json, gbench, hyperfine, time)");
	assert_int_equal(parse(NULL, "a: 1", NULL, "t", &m), -EINVAL);
	assert_string_equal(errbuf,
		"unknown parse kind '(null)' (kv, json, gbench, hyperfine, time)");
	assert_int_equal(m.n, 0);
	statmap_release(&m);
}

/* A failure leaves the caller's stats as they were, even half-way through. */
static void all_or_nothing(void **state)
{
	struct strmap paths = { 0 };
	struct statmap m = { 0 };
	struct strbuf small = STRBUF_INIT;

	(void)state;
	assert_int_equal(statmap_add(&m, "dmesg.WARNING:at_kernel/foo.c", 1), 0);
	assert_int_equal(parse("kv", "a: 1\n", NULL, "t", &m), 0);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.sorted, 1);
	/* the first path gives a stat, the second fails */
	assert_int_equal(strmap_set(&paths, "ok", "results.0.rps"), 0);
	assert_int_equal(strmap_set(&paths, "bad", "results.9.rps"), 0);
	assert_int_equal(parse("json", json_output, &paths, "t", &m), -EPROTO);
	assert_int_equal(m.n, 2);
	check_stat(&m, "dmesg.WARNING:at_kernel/foo.c", 1);
	check_stat(&m, "t.a", 1);
	check_no_stat(&m, "t.ok");
	/* gbench: stats of BM_a added before BM_b's error */
	assert_int_equal(parse("gbench",
		"{\"benchmarks\": [{\"name\": \"BM_a\", \"iterations\": 1},"
		" {\"name\": \"BM_b\", \"error_occurred\": true}]}", NULL, "g",
		&m), -EPROTO);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.sorted, 1);
	/* the message replaces what the buffer held, whole */
	strbuf_addstr(&small, "kv: no 'key");
	assert_int_equal(exec_parse_output("kv", "x", 1, NULL, "t", &m, &small),
			 -EPROTO);
	assert_string_equal(small.buf, "kv: no 'key: value' line with a number");
	strbuf_release(&small);
	assert_int_equal(m.n, 2);
	statmap_release(&m);
	strmap_release(&paths);
}

/* Every cut of every sample, read as every kind: 0 or -EPROTO, no leak, no overrun. */
static void truncated_outputs(void **state)
{
	static const char *const kinds[] = { "kv", "json", "gbench", "hyperfine", "time" };
	const char *samples[] = { kv_output, json_output, gbench_output, hyperfine_output };

	(void)state;
	for (size_t s = 0; s < sizeof(samples) / sizeof(samples[0]); s++) {
		size_t len = strlen(samples[s]);

		for (size_t cut = 0; cut <= len; cut++) {
			/* a heap copy of exactly cut bytes: ASan sees any over-read */
			char *copy = malloc(cut ? cut : 1);

			assert_non_null(copy);
			memcpy(copy, samples[s], cut);
			for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
				struct statmap m = { 0 };
				int ret = exec_parse_output(kinds[k], copy, cut, NULL, "p",
							    &m, &errsb);

				assert_true(ret == 0 || ret == -EPROTO);
				if (ret)
					assert_int_equal(m.n, 0);
				statmap_release(&m);
			}
			free(copy);
		}
	}
}

/*
 * A message quoting the output says it whole: a 2,000-byte gbench error
 * (a 256-byte buffer cut it).  A dropped name is quoted by its head, cut
 * between characters and marked, so the warning stays storable.
 */
static void long_messages_whole(void **state)
{
	struct strbuf text = STRBUF_INIT, want = STRBUF_INIT, msg = STRBUF_INIT;
	struct statmap m = { 0 };

	(void)state;
	strbuf_addstr(&text, "{\"benchmarks\": [{\"name\": \"BM_a\", \"error_occurred\": true,"
			     " \"error_message\": \"");
	strbuf_addchars(&text, 'e', 2000);
	strbuf_addstr(&text, "\"}]}");
	assert_int_equal(parse("gbench", text.buf, NULL, "b", &m), -EPROTO);
	strbuf_addstr(&want, "gbench: BM_a: error: ");
	strbuf_addchars(&want, 'e', 2000);
	assert_string_equal(errbuf, want.buf);
	statmap_release(&m);

	/* a name over 4096 bytes, of 2-byte characters: dropped, head quoted */
	strbuf_reset(&text);
	strbuf_addstr(&text, "ok: 1\n");
	for (int i = 0; i < 2100; i++)
		strbuf_addstr(&text, "\xc3\xa9");
	strbuf_addstr(&text, ": 2\n");
	assert_int_equal(exec_parse_output("kv", text.buf, text.len, NULL, NULL, &m,
					   &msg), 0);
	statmap_finish(&m);
	check_stat(&m, "ok", 1);
	assert_int_equal(m.n, 1);
	assert_non_null(strstr(msg.buf, "kv: dropped 1 stat with a bad name, the first: \"\xc3\xa9"));
	assert_non_null(strstr(msg.buf, "\xc3\xa9... is longer than 4096 bytes"));
	assert_null(value_problem(msg.buf));	/* valid UTF-8: the store takes it */
	statmap_release(&m);
	strbuf_release(&text);
	strbuf_release(&want);
	strbuf_release(&msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kv_sample),
		cmocka_unit_test(kv_length_is_respected),
		cmocka_unit_test(kv_no_prefix),
		cmocka_unit_test(kv_errors),
		cmocka_unit_test(json_with_paths),
		cmocka_unit_test(json_flattened),
		cmocka_unit_test(json_errors),
		cmocka_unit_test(gbench_sample),
		cmocka_unit_test(gbench_spaces_in_name),
		cmocka_unit_test(gbench_errors),
		cmocka_unit_test(hyperfine_sample),
		cmocka_unit_test(hyperfine_after_report),
		cmocka_unit_test(hyperfine_single_run),
		cmocka_unit_test(hyperfine_errors),
		cmocka_unit_test(time_adds_nothing),
		cmocka_unit_test(kinds),
		cmocka_unit_test(all_or_nothing),
		cmocka_unit_test(truncated_outputs),
		cmocka_unit_test(long_messages_whole),
	};

	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	strbuf_release(&errsb);
	return failed;
}
