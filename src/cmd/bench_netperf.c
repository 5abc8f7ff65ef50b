/*
 * bench_netperf.c - the front end of `perfbot bench netperf`: the header,
 * the per-client table and LKP's stats, and the JSON (docs/netperf.md).
 * Options and checks are cmd/bench.c's, from the table (bench_cli.h,
 * bench/netperf_type.h).
 */
#define _GNU_SOURCE
#include "bench/netperf.h"
#include "bench/netperf_type.h"
#include "cmd/bench_cli.h"
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "util/cpus.h"
#include "util/interrupt.h"
#include "util/parse.h"
#include "version.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *family_name(int family)
{
	return family == AF_INET6 ? "IPv6 ::1" : "IPv4 127.0.0.1";
}

static void print_header(const struct netperf_config *cfg)
{
	bool rr = netperf_test_is_rr(cfg->test);

	printf("%s over loopback (%s): %u client%s, %g s, ", netperf_test_name(cfg->test),
	       family_name(cfg->family), cfg->clients,
	       cfg->clients == 1 ? "" : "s", cfg->duration_s);
	if (rr)
		printf("request %zu, response %zu bytes\n", netperf_send_size(cfg),
		       netperf_recv_size(cfg));
	else
		printf("send size %zu, receive size %zu bytes\n",
		       netperf_send_size(cfg), netperf_recv_size(cfg));
	fflush(stdout);
}

/* A netperf-like per-client table, then LKP's stats as "name value". */
static void print_result(const struct netperf_result *r)
{
	struct netperf_stat stats[NETPERF_MAX_STATS];
	size_t n = netperf_result_stats(r, stats, NETPERF_MAX_STATS);
	bool rr = netperf_test_is_rr(r->test), udp = r->test == NETPERF_UDP_STREAM;

	printf("status: %s", netperf_status_name(r->status));
	if (r->status != NETPERF_OK)
		printf(" (%s)", r->why);
	putchar('\n');
	if (!n)
		return;
	printf("measured %.3f s\n", r->measured_s);
	if (rr)
		printf("%6s %6s %14s %16s\n", "client", "port", "transactions",
		       "Throughput_tps");
	else
		printf("%6s %6s %14s %14s %16s%s\n", "client", "port", "sent_bytes",
		       "recv_bytes", "Throughput_Mbps",
		       udp ? "  ThroughputRecv_Mbps" : "");
	for (unsigned i = 0; i < r->clients; i++) {
		const struct netperf_client *c = &r->client[i];

		if (rr)
			printf("%6u %6u %14llu %16.2f\n", i + 1, c->port,
			       (unsigned long long)c->transactions,
			       netperf_client_rate(r, i, false));
		else if (udp)
			printf("%6u %6u %14llu %14llu %16.2f %20.2f\n", i + 1, c->port,
			       (unsigned long long)c->sent_bytes,
			       (unsigned long long)c->recv_bytes,
			       netperf_client_rate(r, i, false),
			       netperf_client_rate(r, i, true));
		else
			printf("%6u %6u %14llu %14llu %16.2f\n", i + 1, c->port,
			       (unsigned long long)c->sent_bytes,
			       (unsigned long long)c->recv_bytes,
			       netperf_client_rate(r, i, false));
	}
	for (size_t i = 0; i < n; i++)
		printf("%-28s %.2f\n", stats[i].name, stats[i].value);
}

static json_t *result_json(const struct netperf_config *cfg,
			   const struct netperf_result *r)
{
	struct netperf_stat stats[NETPERF_MAX_STATS];
	size_t n = netperf_result_stats(r, stats, NETPERF_MAX_STATS);
	bool rr = netperf_test_is_rr(r->test), measured = n > 0;
	json_t *o, *js = json_object(), *clients = json_array();

	o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:s, s:f, s:f, s:I, s:I, s:s}",
		      "perfbot_version", PERFBOT_VERSION,
		      "benchmark", "netperf",
		      "test", netperf_test_name(cfg->test),
		      "clients", (json_int_t)cfg->clients,
		      "cpus_online", (json_int_t)online_cpus(),
		      "ip", cfg->family == AF_INET6 ? "ipv6" : "ipv4",
		      "duration_s", cfg->duration_s,
		      "timeout_s", netperf_timeout(cfg),
		      rr ? "request_size" : "send_size", (json_int_t)r->send_size,
		      rr ? "response_size" : "recv_size", (json_int_t)r->recv_size,
		      "unit", netperf_unit(cfg->test));
	/* o owns them from here: one decref on failure frees everything */
	if (!o || !js || !clients ||
	    json_object_set_new(o, "stats", measured ? json_incref(js) : json_null()) ||
	    json_object_set_new(o, "per_client", json_incref(clients)))
		goto fail;
	json_decref(js);
	json_decref(clients);
	for (size_t i = 0; i < n; i++)
		if (json_object_set_new(js, stats[i].name, json_real(stats[i].value)))
			goto fail_owned;
	for (unsigned i = 0; r->client && i < r->clients; i++) {
		const struct netperf_client *c = &r->client[i];
		json_t *jc = json_pack("{s:I, s:I}", "client", (json_int_t)i + 1,
				       "port", (json_int_t)c->port);
		int err;

		if (!jc || json_array_append_new(clients, jc))
			goto fail_owned;
		if (rr)
			err = json_object_set_new(jc, "transactions",
						  json_integer((json_int_t)c->transactions));
		else
			err = json_object_set_new(jc, "sent_bytes",
						  json_integer((json_int_t)c->sent_bytes)) ||
			      json_object_set_new(jc, "recv_bytes",
						  json_integer((json_int_t)c->recv_bytes));
		err = err || json_object_set_new(jc, rr ? "Throughput_tps" : "Throughput_Mbps",
						 measured ? json_real(netperf_client_rate(r, i, false))
							  : json_null());
		if (!err && r->test == NETPERF_UDP_STREAM)
			err = json_object_set_new(jc, "ThroughputRecv_Mbps",
						  measured ? json_real(netperf_client_rate(r, i, true))
							   : json_null());
		if (err)
			goto fail_owned;
	}
	if (json_object_set_new(o, "status", json_string(netperf_status_name(r->status))) ||
	    json_object_set_new(o, "incomplete", json_boolean(r->status == NETPERF_INCOMPLETE)) ||
	    json_object_set_new(o, "reason", r->status == NETPERF_OK ? json_null()
							 : json_string(r->why)) ||
	    json_object_set_new(o, "measured_s", measured ? json_real(r->measured_s)
							  : json_null()))
		goto fail_owned;
	return o;
fail:
	json_decref(js);
	json_decref(clients);
fail_owned:
	json_decref(o);
	return NULL;
}

static int run(const struct bench_type *t, const struct bench_args *a, bool json)
{
	struct netperf_config cfg;
	struct bench_run run = { .args = a, .stop = &interrupted };
	struct bench_result res;
	const struct netperf_result *r;
	int ret;

	netperf_config_from_args(a, &cfg);
	ret = bench_cli_start();
	if (ret)
		return ret;
	if (!json)
		print_header(&cfg);
	bench_type_run(t, &run, &res);
	r = res.detail;
	if (!r) {
		fprintf(stderr, "perfbot: bench: netperf: %s\n", res.why);
		bench_result_release(&res);
		return EXIT_FAILED;
	}
	if (json)
		ret = cmd_print_json("bench: netperf", result_json(&cfg, r));
	else
		print_result(r);
	if (r->status == NETPERF_UNSUPPORTED || r->status == NETPERF_ERROR ||
	    r->status == NETPERF_FAILED)
		fprintf(stderr, "perfbot: bench: netperf: %s: %s%s\n",
			netperf_test_name(cfg.test),
			r->status == NETPERF_UNSUPPORTED ? "unsupported: " : "", r->why);
	ret = ret ? EXIT_FAILED : bench_cli_exit(res.status);
	bench_result_release(&res);
	return ret;
}

const struct bench_cli bench_cli_netperf = {
	.type = "netperf",
	.run = run,
};
