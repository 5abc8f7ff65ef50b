/*
 * bench_netperf.c - perfbot bench netperf: the built-in netperf over
 * loopback (src/bench/netperf.h; docs/netperf.md).
 */
#define _GNU_SOURCE
#include "bench/netperf.h"
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "util/cpus.h"
#include "util/interrupt.h"
#include "util/parse.h"
#include "version.h"

#include <getopt.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char netperf_usage[] =
	"usage: perfbot bench netperf -t TEST [-n CLIENTS|N%%] [-l TIME] [-4|-6]\n"
	"                             [-m SIZE] [-M SIZE] [--timeout TIME] [--json]\n"
	"\n"
	"A netperf client and server over loopback (127.0.0.1 or ::1), no external\n"
	"netperf: CLIENTS concurrent client/server pairs, measured together.\n"
	"\n"
	"  -t, --test TEST        the test, below (required)\n"
	"  -n, --clients N|N%%     client/server pairs: N, or N%% of the online CPUs\n"
	"                         rounded down, at least 1 (LKP's nr_threads;\n"
	"                         default 1; at most %d)\n"
	"  -l, --length TIME      the measured window (default 10s; LKP uses 300s)\n"
	"  -4, --ipv4             over 127.0.0.1 (the default)\n"
	"  -6, --ipv6             over ::1\n"
	"  -m, --send-size SIZE   streams: bytes per send (default 16384; UDP_STREAM\n"
	"                         1024); RR tests: the request size (default 1)\n"
	"  -M, --recv-size SIZE   streams: bytes per receive (default 131072; UDP_STREAM\n"
	"                         65536); RR tests: the response size (default 1)\n"
	"      --timeout TIME     kill the run and fail after this long, setup\n"
	"                         included (default: length x 2 + 30 s)\n"
	"      --json             print the result as one JSON object (docs/netperf.md)\n"
	"  -h, --help             show this help\n"
	"\n"
	"Tests:\n"
	"  TCP_STREAM        client sends, Throughput = what the server received\n"
	"  TCP_MAERTS        server sends, Throughput = what the client received\n"
	"  TCP_RR            one request, one response per transaction\n"
	"  TCP_CRR           connect, request, response, close per transaction\n"
	"  UDP_STREAM        client sends datagrams: Throughput = sent,\n"
	"                    ThroughputRecv = received by the server\n"
	"  UDP_RR            one datagram each way per transaction\n"
	"  SCTP_STREAM       as TCP_STREAM over one-to-one SCTP\n"
	"  SCTP_RR           as TCP_RR over one-to-one SCTP\n"
	"  SCTP_STREAM_MANY  as SCTP_STREAM over a one-to-many (SOCK_SEQPACKET) socket\n"
	"\n"
	"TIME is seconds, or a number with ms, s, m or h.  SIZE is bytes, or a\n"
	"number with K (1024), M (2^20), k (1000) or m (10^6), as netperf's -m.\n"
	"Stats are LKP's: Throughput_Mbps (mean per client, 10^6 bits/s) and\n"
	"Throughput_total_Mbps (sum over clients), _tps for the RR tests.\n"
	"Exit status: 0 done, 1 the run failed, 2 bad usage, 77 the test is\n"
	"unsupported here (no SCTP, no ::1), 128+signal when interrupted (what was\n"
	"measured is printed first).\n";

struct netperf_opts {
	const char *test, *clients, *length, *send_size, *recv_size, *timeout;
	bool v4, v6, json;
};

#define usage_error(...) cmd_usage_error("bench: netperf", __VA_ARGS__)

static int parse_args(int argc, char **argv, struct netperf_opts *o)
{
	enum { OPT_TIMEOUT = 256, OPT_JSON };
	static const struct option longopts[] = {
		{ "test", required_argument, NULL, 't' },
		{ "clients", required_argument, NULL, 'n' },
		{ "length", required_argument, NULL, 'l' },
		{ "ipv4", no_argument, NULL, '4' },
		{ "ipv6", no_argument, NULL, '6' },
		{ "send-size", required_argument, NULL, 'm' },
		{ "recv-size", required_argument, NULL, 'M' },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":t:n:l:46m:M:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			o->test = optarg;
			break;
		case 'n':
			o->clients = optarg;
			break;
		case 'l':
			o->length = optarg;
			break;
		case '4':
			o->v4 = true;
			break;
		case '6':
			o->v6 = true;
			break;
		case 'm':
			o->send_size = optarg;
			break;
		case 'M':
			o->recv_size = optarg;
			break;
		case OPT_TIMEOUT:
			o->timeout = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case 'h':
			printf(netperf_usage, NETPERF_MAX_CLIENTS);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

static int parse_time(const char *what, const char *arg, double *out)
{
	if (cmd_parse_duration("bench: netperf", what, arg, out))
		return EXIT_USAGE;
	if (!(*out > 0))
		return usage_error("invalid %s '%s': must be above 0", what, arg);
	return 0;
}

static int parse_size(const char *what, const char *arg, size_t *out)
{
	switch (netperf_parse_size(arg, out)) {
	case PARSE_OK:
		return 0;
	case PARSE_TOO_SMALL:
		return usage_error("invalid %s '%s': must be at least 1 byte", what, arg);
	case PARSE_TOO_LARGE:
		return usage_error("invalid %s '%s': at most %u bytes", what, arg,
				   NETPERF_MAX_SIZE);
	default:
		return usage_error("invalid %s '%s': expected bytes, or a number with K, M, k or m",
				   what, arg);
	}
}

/* Everything that can be checked before anything starts. */
static int validate(const struct netperf_opts *o, struct netperf_config *cfg)
{
	char why[256];

	if (!o->test)
		return usage_error("no test: -t TEST is required ('perfbot bench netperf --help' lists them)");
	if (!netperf_test_parse(o->test, &cfg->test)) {
		const char *near = netperf_test_suggest(o->test);

		if (near)
			return usage_error("unknown test '%s' (did you mean '%s'?)",
					   o->test, near);
		return usage_error("unknown test '%s' ('perfbot bench netperf --help' lists them)",
				   o->test);
	}
	if (o->clients) {
		switch (parse_task_count(o->clients, online_cpus(),
					 NETPERF_MAX_CLIENTS, &cfg->clients)) {
		case PARSE_OK:
			break;
		case PARSE_TOO_LARGE:
			return usage_error("-n %s is more than %d clients", o->clients,
					   NETPERF_MAX_CLIENTS);
		case PARSE_TOO_SMALL:
			return usage_error("invalid client count '%s': must be at least 1 (or a percentage above 0%%)",
					   o->clients);
		default:
			return usage_error("invalid client count '%s': expected N or N%%",
					   o->clients);
		}
	}
	if (o->length && parse_time("length", o->length, &cfg->duration_s))
		return EXIT_USAGE;
	if (o->timeout && parse_time("timeout", o->timeout, &cfg->timeout_s))
		return EXIT_USAGE;
	if (o->v4 && o->v6)
		return usage_error("-4 and -6 do not go together");
	cfg->family = o->v6 ? AF_INET6 : AF_INET;
	if (o->send_size && parse_size("send size", o->send_size, &cfg->send_size))
		return EXIT_USAGE;
	if (o->recv_size && parse_size("receive size", o->recv_size, &cfg->recv_size))
		return EXIT_USAGE;
	if (netperf_config_check(cfg, why, sizeof(why)))
		return usage_error("%s", why);
	cfg->stop = &interrupted;
	return 0;
}

static int exit_status(enum netperf_status st)
{
	if (interrupted)
		return 128 + interrupted;
	switch (st) {
	case NETPERF_OK:
		return EXIT_OK;
	case NETPERF_UNSUPPORTED:
		return EXIT_UNSUPPORTED;
	default:
		return EXIT_FAILED;
	}
}

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

int cmd_bench_netperf(int argc, char **argv)
{
	struct netperf_opts o = { 0 };
	struct netperf_config cfg;
	struct netperf_result r;
	enum netperf_status st;
	int ret = parse_args(argc, argv, &o);

	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	netperf_config_init(&cfg);
	ret = validate(&o, &cfg);
	if (ret)
		return ret;
	ret = cmd_lifetime_start("bench");
	if (ret)
		return ret;

	interrupt_install();
	if (!o.json)
		print_header(&cfg);
	st = netperf_run(&cfg, &r);
	if (o.json)
		ret = cmd_print_json("bench: netperf", result_json(&cfg, &r));
	else
		print_result(&r);
	if (st == NETPERF_UNSUPPORTED || st == NETPERF_ERROR || st == NETPERF_FAILED)
		fprintf(stderr, "perfbot: bench: netperf: %s: %s%s\n",
			netperf_test_name(cfg.test),
			st == NETPERF_UNSUPPORTED ? "unsupported: " : "", r.why);
	netperf_result_release(&r);
	return ret ? EXIT_FAILED : exit_status(st);
}
