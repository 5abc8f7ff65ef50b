/*
 * Unit tests: bench/netperf -- test names, LKP job parameters, sizes, the
 * stats derived from per-client counts, and short real runs over loopback.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/netperf.h"
#include "bench/netperf_type.h"
#include "util/parse.h"
#include "util/strbuf.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef IPPROTO_SCTP
#define IPPROTO_SCTP 132
#endif

static void test_names(void **state)
{
	enum netperf_test t = NETPERF_NR_TESTS;

	(void)state;
	for (unsigned i = 0; i < NETPERF_NR_TESTS; i++) {
		assert_true(netperf_test_parse(netperf_test_name((enum netperf_test)i), &t));
		assert_int_equal(t, i);
	}
	/* netperf's -t is case-insensitive */
	assert_true(netperf_test_parse("tcp_rr", &t));
	assert_int_equal(t, NETPERF_TCP_RR);
	assert_true(netperf_test_parse("SCTP_STREAM_MANY", &t));
	assert_int_equal(t, NETPERF_SCTP_STREAM_MANY);
	t = NETPERF_UDP_RR;
	assert_false(netperf_test_parse("TCP_STRAEM", &t));
	assert_false(netperf_test_parse("", &t));
	assert_int_equal(t, NETPERF_UDP_RR);	/* untouched */

	assert_string_equal(netperf_test_suggest("TCP_STRAEM"), "TCP_STREAM");
	assert_string_equal(netperf_test_suggest("udp_rrr"), "UDP_RR");
	assert_string_equal(netperf_test_suggest("TCP_MAERT"), "TCP_MAERTS");
	assert_null(netperf_test_suggest("frobnicate-the-network"));

	assert_true(netperf_test_is_rr(NETPERF_TCP_CRR));
	assert_false(netperf_test_is_rr(NETPERF_TCP_MAERTS));
	assert_string_equal(netperf_unit(NETPERF_UDP_RR), "tps");
	assert_string_equal(netperf_unit(NETPERF_SCTP_STREAM), "Mbps");
}

static void test_defaults(void **state)
{
	struct netperf_config cfg;

	(void)state;
	netperf_config_init(&cfg);
	assert_int_equal(cfg.clients, 1);
	assert_true(cfg.duration_s == 10);
	assert_int_equal(cfg.family, AF_INET);
	assert_true(netperf_timeout(&cfg) == 50);	/* 10 x 2 + 30 */
	cfg.timeout_s = 7;
	assert_true(netperf_timeout(&cfg) == 7);

	cfg.test = NETPERF_TCP_STREAM;
	assert_int_equal(netperf_send_size(&cfg), 16384);
	assert_int_equal(netperf_recv_size(&cfg), 131072);
	cfg.test = NETPERF_UDP_STREAM;
	assert_int_equal(netperf_send_size(&cfg), 1024);
	assert_int_equal(netperf_recv_size(&cfg), 65536);
	cfg.test = NETPERF_TCP_RR;
	assert_int_equal(netperf_send_size(&cfg), 1);
	assert_int_equal(netperf_recv_size(&cfg), 1);
	cfg.send_size = 64;
	assert_int_equal(netperf_send_size(&cfg), 64);
}

/*
 * A value of a netperf job parameter or option through the table, as the
 * runner and `perfbot bench netperf` apply it: any row by its key (the
 * generic runtime too), the job's spelling.  A refused value changes
 * nothing.
 */
struct job_params {
	struct bench_args a;
	struct netperf_config cfg;
};

static void job_init(struct job_params *j, unsigned ncpus)
{
	bench_args_init(&j->a, &bench_type_netperf, ncpus, true);
	netperf_config_from_args(&j->a, &j->cfg);
}

static enum bench_param_status set_param(struct job_params *j, const char *key,
					 const char *value)
{
	enum bench_param_status st;

	for (size_t i = 0; i < bench_type_netperf.nr_params; i++) {
		if (strcmp(bench_type_netperf.params[i].key, key))
			continue;
		st = bench_args_set(&j->a, (int)i, value);
		if (st == BENCH_PARAM_OK)
			netperf_config_from_args(&j->a, &j->cfg);
		return st;
	}
	return BENCH_PARAM_UNKNOWN;
}

static void test_sizes(void **state)
{
	struct job_params j;

	(void)state;
	job_init(&j, 2);
	/* netperf's -m grammar, as the send_size row reads it */
	assert_int_equal(set_param(&j, "send_size", "1"), BENCH_PARAM_OK);
	assert_int_equal(j.cfg.send_size, 1);
	assert_int_equal(set_param(&j, "send_size", "16384"), BENCH_PARAM_OK);
	assert_int_equal(j.cfg.send_size, 16384);
	/* netperf's convert(): K is 1024, k is 1000 */
	assert_int_equal(set_param(&j, "send_size", "10K"), BENCH_PARAM_OK);
	assert_int_equal(j.cfg.send_size, 10240);
	assert_int_equal(set_param(&j, "send_size", "10k"), BENCH_PARAM_OK);
	assert_int_equal(j.cfg.send_size, 10000);
	assert_int_equal(set_param(&j, "send_size", "1M"), BENCH_PARAM_OK);
	assert_int_equal(j.cfg.send_size, 1 << 20);
	assert_int_equal(set_param(&j, "send_size", "16M"), BENCH_PARAM_OK);
	assert_int_equal(j.cfg.send_size, NETPERF_MAX_SIZE);
	assert_int_equal(set_param(&j, "send_size", "5"), BENCH_PARAM_OK);
	assert_int_equal(set_param(&j, "send_size", "0"), BENCH_PARAM_TOO_SMALL);
	assert_int_equal(set_param(&j, "send_size", "-3"), BENCH_PARAM_TOO_SMALL);
	assert_int_equal(set_param(&j, "send_size", "17M"), BENCH_PARAM_TOO_LARGE);
	assert_int_equal(set_param(&j, "send_size", "99999999999999999999999"),
			 BENCH_PARAM_TOO_LARGE);
	assert_int_equal(set_param(&j, "send_size", "1KB"), BENCH_PARAM_SYNTAX);
	assert_int_equal(set_param(&j, "send_size", "x"), BENCH_PARAM_SYNTAX);
	assert_int_equal(set_param(&j, "send_size", ""), BENCH_PARAM_SYNTAX);
	assert_int_equal(set_param(&j, "send_size", " 1"), BENCH_PARAM_SYNTAX);
	assert_int_equal(j.cfg.send_size, 5);	/* untouched on error */
}

static void test_config_check(void **state)
{
	struct netperf_config cfg;
	char why[256];

	(void)state;
	netperf_config_init(&cfg);
	assert_int_equal(netperf_config_check(&cfg, why, sizeof(why)), 0);
	cfg.test = NETPERF_UDP_STREAM;
	cfg.send_size = 65507;
	assert_int_equal(netperf_config_check(&cfg, why, sizeof(why)), 0);
	cfg.send_size = 65508;
	assert_int_equal(netperf_config_check(&cfg, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "65508"));
	cfg.family = AF_INET6;	/* IPv6's payload length excludes its header */
	assert_int_equal(netperf_config_check(&cfg, why, sizeof(why)), 0);
	cfg.send_size = 65528;
	assert_int_equal(netperf_config_check(&cfg, why, sizeof(why)), -1);
	cfg.send_size = 2048;
	cfg.recv_size = 1024;
	assert_int_equal(netperf_config_check(&cfg, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "cut"));
	netperf_config_init(&cfg);
	cfg.clients = 0;
	assert_int_equal(netperf_config_check(&cfg, why, sizeof(why)), -1);
	cfg.clients = NETPERF_MAX_CLIENTS + 1;
	assert_int_equal(netperf_config_check(&cfg, why, sizeof(why)), -1);
	cfg.clients = 1;
	cfg.duration_s = 0;
	assert_int_equal(netperf_config_check(&cfg, why, sizeof(why)), -1);
}

/* LKP's netperf job parameters, as in the seed report (128 CPUs). */
static void test_lkp_params(void **state)
{
	static const struct { const char *pct; unsigned n2, n128; } counts[] = {
		{ "1", 1, 1 }, { "50%", 1, 64 }, { "100%", 2, 128 }, { "200%", 4, 256 },
	};
	struct job_params j, j128, before;
	struct strbuf sb = STRBUF_INIT;
	const char *msg;

	(void)state;
	job_init(&j, 2);
	job_init(&j128, 128);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		assert_int_equal(set_param(&j, "nr_threads", counts[i].pct),
				 BENCH_PARAM_OK);
		assert_int_equal(j.cfg.clients, counts[i].n2);
		assert_int_equal(set_param(&j128, "nr_threads", counts[i].pct),
				 BENCH_PARAM_OK);
		assert_int_equal(j128.cfg.clients, counts[i].n128);
	}
	assert_int_equal(set_param(&j128, "test", "SCTP_STREAM"), BENCH_PARAM_OK);
	assert_int_equal(j128.cfg.test, NETPERF_SCTP_STREAM);
	assert_int_equal(set_param(&j128, "runtime", "300s"), BENCH_PARAM_OK);
	assert_true(j128.cfg.duration_s == 300);
	assert_true(netperf_timeout(&j128.cfg) == 630);
	assert_int_equal(set_param(&j128, "runtime", "300"), BENCH_PARAM_OK);
	assert_true(j128.cfg.duration_s == 300);
	assert_int_equal(set_param(&j128, "ip", "ipv6"), BENCH_PARAM_OK);
	assert_int_equal(j128.cfg.family, AF_INET6);
	assert_int_equal(set_param(&j128, "ip", "ipv4"), BENCH_PARAM_OK);
	assert_int_equal(j128.cfg.family, AF_INET);
	assert_int_equal(set_param(&j128, "send_size", "10K"), BENCH_PARAM_OK);
	assert_int_equal(j128.cfg.send_size, 10240);
	assert_int_equal(set_param(&j128, "cluster", "cs-localhost"), BENCH_PARAM_OK);

	/* errors leave the parameters as they were and say which kind */
	before = j128;
	assert_int_equal(set_param(&j128, "nr_threads", "0"), BENCH_PARAM_TOO_SMALL);
	assert_int_equal(set_param(&j128, "nr_threads", "lots"), BENCH_PARAM_SYNTAX);
	assert_int_equal(set_param(&j128, "nr_threads", "5000"), BENCH_PARAM_TOO_LARGE);
	assert_int_equal(set_param(&j128, "test", "TCP_STRAEM"), BENCH_PARAM_BAD_CHOICE);
	assert_int_equal(set_param(&j128, "runtime", "0s"), BENCH_PARAM_TOO_SMALL);
	assert_int_equal(set_param(&j128, "runtime", "soon"), BENCH_PARAM_SYNTAX);
	assert_int_equal(set_param(&j128, "ip", "ipv5"), BENCH_PARAM_BAD_CHOICE);
	assert_int_equal(set_param(&j128, "send_size", "0"), BENCH_PARAM_TOO_SMALL);
	assert_int_equal(set_param(&j128, "cluster", "cs-s1-a1-c1"), BENCH_PARAM_BAD_CHOICE);
	assert_int_equal(set_param(&j128, "cpufreq_governor", "performance"),
			 BENCH_PARAM_UNKNOWN);
	assert_memory_equal(&j128, &before, sizeof(j128));
	bench_param_message(&j128.a, -1, "cpufreq_governor", BENCH_PARAM_UNKNOWN,
			    false, &sb);
	msg = sb.buf;
	assert_string_equal(msg, "unknown parameter 'cpufreq_governor' for netperf");
	strbuf_reset(&sb);
	bench_param_message(&j128.a, NP_P_CLUSTER, "cs-s1-a1-c1",
			    BENCH_PARAM_BAD_CHOICE, false, &sb);
	msg = sb.buf;
	assert_non_null(strstr(msg, "cs-localhost"));
	strbuf_release(&sb);
}

/*
 * A refused value is quoted whole in its message, however long (a fixed
 * 512-byte buffer cut such messages short).
 */
static void test_long_value_whole(void **state)
{
	struct strbuf value = STRBUF_INIT, msg = STRBUF_INIT, want = STRBUF_INIT;
	struct job_params j;

	(void)state;
	job_init(&j, 4);
	strbuf_addchars(&value, 'x', 2000);
	assert_int_equal(set_param(&j, "test", value.buf), BENCH_PARAM_BAD_CHOICE);
	bench_param_message(&j.a, NP_P_TEST, value.buf, BENCH_PARAM_BAD_CHOICE, false,
			    &msg);
	strbuf_addf(&want, "invalid test '%s': not a netperf test ('perfbot bench netperf --help' lists them)",
		    value.buf);
	assert_string_equal(msg.buf, want.buf);

	/* as `perfbot bench netperf -m` words it: a 2,000-digit size */
	strbuf_reset(&value);
	strbuf_addchars(&value, '9', 2000);
	assert_int_equal(set_param(&j, "send_size", value.buf), BENCH_PARAM_TOO_LARGE);
	strbuf_reset(&msg);
	bench_param_message(&j.a, NP_P_SEND_SIZE, value.buf, BENCH_PARAM_TOO_LARGE, true,
			    &msg);
	strbuf_reset(&want);
	strbuf_addf(&want, "invalid send size '%s': at most %u bytes", value.buf,
		    NETPERF_MAX_SIZE);
	assert_string_equal(msg.buf, want.buf);
	assert_int_equal(strbuf_error(&msg), 0);
	strbuf_release(&value);
	strbuf_release(&msg);
	strbuf_release(&want);
}

static void fake_result(struct netperf_result *r, enum netperf_test test,
			unsigned n, struct netperf_client *c, double secs)
{
	memset(r, 0, sizeof(*r));
	r->status = NETPERF_OK;
	r->test = test;
	r->clients = n;
	r->client = c;
	r->measured_s = secs;
	r->send_size = 1000;
}

static double stat_of(const struct netperf_result *r, const char *name)
{
	struct netperf_stat st[NETPERF_MAX_STATS];
	size_t n = netperf_result_stats(r, st, NETPERF_MAX_STATS);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(st[i].name, name))
			return st[i].value;
	return -1;
}

static void test_stats_stream(void **state)
{
	/* 125e6 and 375e6 bytes in 2 s: 500 and 1500 Mbit/s */
	struct netperf_client c[2] = {
		{ .sent_bytes = 125000000 + 4096, .recv_bytes = 125000000 },
		{ .sent_bytes = 375000000, .recv_bytes = 375000000 },
	};
	struct netperf_result r;
	struct netperf_stat st[NETPERF_MAX_STATS];

	(void)state;
	fake_result(&r, NETPERF_TCP_STREAM, 2, c, 2.0);
	netperf_result_summarize(&r);
	assert_int_equal(r.status, NETPERF_OK);
	/* the receiver's view: bytes still in flight do not count */
	assert_float_equal(netperf_client_rate(&r, 0, false), 500, 1e-9);
	assert_float_equal(netperf_client_rate(&r, 1, false), 1500, 1e-9);
	assert_float_equal(r.throughput_total, 2000, 1e-9);
	assert_float_equal(r.throughput, 1000, 1e-9);	/* mean per client */
	assert_float_equal(r.both, r.throughput, 1e-9);
	/* LKP: messages of the send size, 500e6 bytes / 1000 */
	assert_float_equal(r.workload, 500000, 1e-6);
	assert_int_equal(netperf_result_stats(&r, st, NETPERF_MAX_STATS), 5);
	assert_string_equal(st[0].name, "Throughput_Mbps");
	assert_float_equal(stat_of(&r, "Throughput_Mbps"), 1000, 1e-9);
	assert_float_equal(stat_of(&r, "Throughput_total_Mbps"), 2000, 1e-9);
	assert_float_equal(stat_of(&r, "ThroughputBoth_total_Mbps"), 2000, 1e-9);
	assert_true(stat_of(&r, "ThroughputRecv_Mbps") == -1);

	/* MAERTS: the client receives, the same figure */
	fake_result(&r, NETPERF_TCP_MAERTS, 2, c, 2.0);
	netperf_result_summarize(&r);
	assert_float_equal(r.throughput_total, 2000, 1e-9);
}

static void test_stats_udp(void **state)
{
	/* 2000 Mbit/s sent by each; 1000 and 200 Mbit/s received */
	struct netperf_client c[2] = {
		{ .sent_bytes = 250000000, .recv_bytes = 125000000 },
		{ .sent_bytes = 250000000, .recv_bytes = 25000000 },
	};
	struct netperf_result r;

	(void)state;
	fake_result(&r, NETPERF_UDP_STREAM, 2, c, 1.0);
	netperf_result_summarize(&r);
	assert_int_equal(r.status, NETPERF_OK);
	assert_float_equal(stat_of(&r, "Throughput_Mbps"), 2000, 1e-9);
	assert_float_equal(stat_of(&r, "Throughput_total_Mbps"), 4000, 1e-9);
	assert_float_equal(stat_of(&r, "ThroughputRecv_Mbps"), 600, 1e-9);
	assert_float_equal(stat_of(&r, "ThroughputRecv_total_Mbps"), 1200, 1e-9);
	/* LKP: Both = send + receive */
	assert_float_equal(stat_of(&r, "ThroughputBoth_Mbps"), 2600, 1e-9);
	assert_float_equal(stat_of(&r, "ThroughputBoth_total_Mbps"), 5200, 1e-9);
	assert_float_equal(netperf_client_rate(&r, 1, true), 200, 1e-9);

	/* a server that received nothing at all is a failure, not a zero */
	c[1].recv_bytes = 0;
	fake_result(&r, NETPERF_UDP_STREAM, 2, c, 1.0);
	netperf_result_summarize(&r);
	assert_int_equal(r.status, NETPERF_FAILED);
	assert_non_null(strstr(r.why, "client 2 made no progress"));
	assert_int_equal(netperf_result_stats(&r, NULL, 0), 0);
}

static void test_stats_rr(void **state)
{
	struct netperf_client c[3] = {
		{ .transactions = 30000 }, { .transactions = 10000 },
		{ .transactions = 20000 },
	};
	struct netperf_result r;

	(void)state;
	fake_result(&r, NETPERF_TCP_RR, 3, c, 0.5);
	netperf_result_summarize(&r);
	assert_int_equal(r.status, NETPERF_OK);
	assert_float_equal(stat_of(&r, "Throughput_tps"), 40000, 1e-6);
	assert_float_equal(stat_of(&r, "Throughput_total_tps"), 120000, 1e-6);
	assert_float_equal(stat_of(&r, "ThroughputBoth_tps"), 40000, 1e-6);
	assert_float_equal(stat_of(&r, "workload"), 60000, 1e-6);
	assert_true(stat_of(&r, "Throughput_Mbps") == -1);

	/* no transaction by one client: failed and named */
	c[0].transactions = 0;
	fake_result(&r, NETPERF_TCP_CRR, 3, c, 0.5);
	netperf_result_summarize(&r);
	assert_int_equal(r.status, NETPERF_FAILED);
	assert_non_null(strstr(r.why, "client 1 made no progress"));

	/* stopped early: zeros are what was measured, not a failure */
	fake_result(&r, NETPERF_TCP_CRR, 3, c, 0.001);
	r.status = NETPERF_INCOMPLETE;
	netperf_result_summarize(&r);
	assert_int_equal(r.status, NETPERF_INCOMPLETE);
	assert_true(stat_of(&r, "Throughput_total_tps") > 0);

	/* nothing measured: no stats at all */
	fake_result(&r, NETPERF_TCP_RR, 3, c, 0);
	netperf_result_summarize(&r);
	assert_int_equal(netperf_result_stats(&r, NULL, 0), 0);
}

static void assert_no_children(void)
{
	/* every process the run started was reaped */
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_run_tcp_stream(void **state)
{
	struct netperf_config cfg;
	struct netperf_result r;

	(void)state;
	netperf_config_init(&cfg);
	cfg.test = NETPERF_TCP_STREAM;
	cfg.clients = 2;
	cfg.duration_s = 0.3;
	assert_int_equal(netperf_run(&cfg, &r), NETPERF_OK);
	assert_int_equal(r.status, NETPERF_OK);
	assert_true(r.measured_s >= 0.3 && r.measured_s < 1.0);
	for (unsigned i = 0; i < 2; i++) {
		assert_true(r.client[i].recv_bytes > 0);
		/* the receiver cannot have more than was sent */
		assert_true(r.client[i].recv_bytes <= r.client[i].sent_bytes + 16384 * 64);
		assert_true(r.client[i].port > 0);
	}
	assert_true(r.throughput > 0);
	assert_float_equal(r.throughput_total,
			   netperf_client_rate(&r, 0, false) + netperf_client_rate(&r, 1, false),
			   1e-6);
	netperf_result_release(&r);
	assert_no_children();
}

static void test_run_udp_rr_ipv6(void **state)
{
	struct netperf_config cfg;
	struct netperf_result r;
	enum netperf_status st;

	(void)state;
	netperf_config_init(&cfg);
	cfg.test = NETPERF_UDP_RR;
	cfg.family = AF_INET6;
	cfg.duration_s = 0.2;
	st = netperf_run(&cfg, &r);
	/* where ::1 is missing, it must say so rather than fail */
	if (st == NETPERF_UNSUPPORTED)
		assert_non_null(strstr(r.why, "::1"));
	else
		assert_int_equal(st, NETPERF_OK);
	if (st == NETPERF_OK)
		assert_true(r.client[0].transactions > 0);
	netperf_result_release(&r);
	assert_no_children();
}

static void test_run_sctp(void **state)
{
	struct netperf_config cfg;
	struct netperf_result r;
	int fd = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
	enum netperf_status st;

	(void)state;
	if (fd >= 0)
		close(fd);
	netperf_config_init(&cfg);
	cfg.test = NETPERF_SCTP_STREAM;
	cfg.duration_s = 0.2;
	st = netperf_run(&cfg, &r);
	if (fd < 0) {
		/* never a number where the kernel has no SCTP */
		assert_int_equal(st, NETPERF_UNSUPPORTED);
		assert_non_null(strstr(r.why, "SCTP"));
		assert_int_equal(netperf_result_stats(&r, NULL, 0), 0);
	} else {
		assert_int_equal(st, NETPERF_OK);
		assert_true(r.throughput > 0);
	}
	netperf_result_release(&r);
	assert_no_children();
}

static void test_run_stopped(void **state)
{
	volatile sig_atomic_t stop = SIGINT;
	struct netperf_config cfg;
	struct netperf_result r;

	(void)state;
	netperf_config_init(&cfg);
	cfg.stop = &stop;
	assert_int_equal(netperf_run(&cfg, &r), NETPERF_INCOMPLETE);
	netperf_result_release(&r);
	cfg.stop = NULL;
	cfg.clients = 0;
	assert_int_equal(netperf_run(&cfg, &r), NETPERF_ERROR);
	netperf_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_config_check),
		cmocka_unit_test(test_lkp_params),
		cmocka_unit_test(test_long_value_whole),
		cmocka_unit_test(test_stats_stream),
		cmocka_unit_test(test_stats_udp),
		cmocka_unit_test(test_stats_rr),
		cmocka_unit_test(test_run_tcp_stream),
		cmocka_unit_test(test_run_udp_rr_ipv6),
		cmocka_unit_test(test_run_sctp),
		cmocka_unit_test(test_run_stopped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
