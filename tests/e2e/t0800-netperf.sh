#!/bin/bash
# perfbot bench netperf: every TCP/UDP test with 1 and 2 clients gives a
# number and total = sum over clients; IPv6; SCTP says unsupported where
# the kernel has none (and measures where it has); bad input; the timeout;
# a stopped server; SIGINT/SIGTERM -- and nothing left behind, no process
# and no socket owned by one.
. "$(dirname "$0")/lib.sh"

# check.py MODE JSON [CLIENTS]: assertions on a --json result
cat > "$SANDBOX/check.py" <<'EOF'
import json, sys

mode, path = sys.argv[1], sys.argv[2]
j = json.load(open(path))
if mode == "complete":
    n = int(sys.argv[3])
    assert j["status"] == "complete" and j["reason"] is None, j
    assert j["clients"] == n and len(j["per_client"]) == n, j
    unit = j["unit"]
    st, pc = j["stats"], j["per_client"]
    sides = ["Throughput"] + (["ThroughputRecv"] if j["test"] == "UDP_STREAM" else [])
    for side in sides:
        name = "%s_%s" % (side, unit)
        per = [c[name] for c in pc]
        assert all(v > 0 for v in per), (name, per)
        total = st["%s_total_%s" % (side, unit)]
        assert abs(total - sum(per)) <= 1e-6 * total, (name, total, per)
        assert abs(st[name] - total / n) <= 1e-6 * total, (name, st[name], total)
    both = sum(st["%s_total_%s" % (s, unit)] for s in sides)
    assert abs(st["ThroughputBoth_total_%s" % unit] - both) <= 1e-6 * both, st
    assert 0.9 < j["measured_s"] < 2, j["measured_s"]
    assert all(0 < c["port"] < 65536 for c in pc), pc
elif mode == "unsupported":
    assert j["status"] == "unsupported" and "SCTP" in j["reason"], j
    assert j["stats"] is None and j["measured_s"] is None, j
elif mode == "incomplete":
    assert j["status"] == "incomplete" and j["incomplete"] is True, j
    assert j["stats"]["Throughput_total_Mbps"] > 0, j["stats"]
    assert 0.5 < j["measured_s"] < 3, j["measured_s"]
    print(" ".join(str(c["port"]) for c in j["per_client"]))
elif mode == "ipv6":
    assert j["status"] == "complete" and j["ip"] == "ipv6", j
    assert j["stats"]["Throughput_Mbps"] > 0, j["stats"]
else:
    sys.exit("unknown mode " + mode)
EOF

json_ok() {
	python3 "$SANDBOX/check.py" "$@" 2>"$SANDBOX/pyerr" && return 0
	diag "$(tail -3 "$SANDBOX/pyerr")"
	return 1
}

# No socket on these ports may belong to a process any more; kernel-owned
# ones (TIME_WAIT, FIN_WAIT) have no users: field.  And no listener.
no_socket_on_ports() {
	for port in "$@"; do
		owned=$(ss -Htuanp "( sport = :$port or dport = :$port )" | grep 'users:')
		listen=$(ss -Htuln "sport = :$port")
		if [ -n "$owned$listen" ]; then
			diag "port $port: $owned $listen"
			return 1
		fi
	done
	return 0
}

# Sockets held by anything perfbot started in this sandbox.
no_sandbox_socket() {
	for pid in $(sandbox_pids); do
		ls -l "/proc/$pid/fd" 2>/dev/null | grep -q 'socket:' && return 1
	done
	return 0
}

# ---- every TCP and UDP test, 1 and 2 clients --------------------------------
for t in TCP_STREAM TCP_MAERTS TCP_RR TCP_CRR UDP_STREAM UDP_RR; do
	for n in 1 2; do
		run_perfbot 20 bench netperf -t "$t" -n "$n" -l 1 --json
		check "$t -n $n: exit 0 (got $rc)" [ "$rc" -eq 0 ]
		check "$t -n $n: > 0 per client, total = sum, mean = total/n" \
			json_ok complete "$SANDBOX/out" "$n"
	done
done
check_nothing_left "TCP and UDP tests"

run_perfbot 20 bench netperf -t TCP_RR -n 2 -l 0.5
check "text output: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "text output: the header names test, clients, length" \
	grep -q '^TCP_RR over loopback (IPv4 127.0.0.1): 2 clients, 0.5 s, request 1, response 1 bytes$' "$SANDBOX/out"
check "text output: status complete" grep -q '^status: complete$' "$SANDBOX/out"
check "text output: LKP stat lines" grep -Eq '^Throughput_total_tps +[0-9]+\.[0-9]+$' "$SANDBOX/out"
check "text output: a line per client" [ "$(grep -Ec '^ +[12] +[0-9]+ +[0-9]+ +[0-9.]+$' "$SANDBOX/out")" -eq 2 ]

# ---- IPv6 -------------------------------------------------------------------
if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
	run_perfbot 20 bench netperf -t TCP_STREAM -6 -l 0.5 --json
	check "-6: exit 0 (got $rc)" [ "$rc" -eq 0 ]
	check "-6: measured over ::1" json_ok ipv6 "$SANDBOX/out"
else
	ok "# SKIP -6: this machine has no ::1"
	run_perfbot 20 bench netperf -t TCP_STREAM -6 -l 1
	check "-6 without ::1: unsupported, exit 77 (got $rc)" [ "$rc" -eq 77 ]
fi

# ---- SCTP: unsupported exactly where the kernel has none ---------------------
for t in SCTP_STREAM SCTP_RR SCTP_STREAM_MANY; do
	type=SOCK_STREAM
	[ "$t" = SCTP_STREAM_MANY ] && type=SOCK_SEQPACKET
	if python3 -c "import socket; socket.socket(socket.AF_INET, socket.$type, 132)" 2>/dev/null; then
		run_perfbot 20 bench netperf -t "$t" -l 1 --json
		check "$t (kernel has SCTP): exit 0 (got $rc)" [ "$rc" -eq 0 ]
		check "$t (kernel has SCTP): a real number" json_ok complete "$SANDBOX/out" 1
	else
		run_perfbot 20 bench netperf -t "$t" -l 1 --json
		check "$t (no SCTP here): exit 77 (got $rc)" [ "$rc" -eq 77 ]
		check "$t (no SCTP here): says unsupported and why" \
			grep -q "^perfbot: bench: netperf: $t: unsupported: no SCTP over IPv4 in this kernel: socket(AF_INET, $type, IPPROTO_SCTP): " "$SANDBOX/err"
		check "$t (no SCTP here): no number in the JSON" json_ok unsupported "$SANDBOX/out"
		check "$t (no SCTP here): nothing was started (${secs} s)" [ "$(echo "$secs < 0.5" | bc)" -eq 1 ]
	fi
done

# ---- bad input: one line naming the value, exit 2, nothing started ----------
# bad EXPECTED-TEXT ARGS...
bad() {
	want=$1
	shift
	run_perfbot 10 bench netperf "$@"
	if [ "$rc" -eq 2 ] && [ "$(wc -l < "$SANDBOX/err")" -eq 1 ] &&
	   grep -qF -- "$want" "$SANDBOX/err" && [ ! -s "$SANDBOX/out" ]; then
		ok "bad input $*: exit 2, one line naming it"
	else
		not_ok "bad input $*: exit 2, one line naming it (rc $rc)"
		diag "$err"
	fi
}
bad "unknown test 'TCP_STRAEM' (did you mean 'TCP_STREAM'?)" -t TCP_STRAEM
bad "unknown test 'PING'" -t PING
bad "-t TEST is required" -n 2
bad "invalid client count '0'" -t TCP_RR -n 0
bad "invalid client count 'many'" -t TCP_RR -n many
bad "-n 5000 is more than 4096 clients" -t TCP_RR -n 5000
bad "invalid length '0'" -t TCP_RR -l 0
bad "invalid length '-1'" -t TCP_RR -l -1
bad "invalid length '10x'" -t TCP_RR -l 10x
bad "invalid timeout '0'" -t TCP_RR --timeout 0
bad "invalid send size '0'" -t TCP_STREAM -m 0
bad "invalid send size '17M'" -t TCP_STREAM -m 17M
bad "invalid receive size '1KB'" -t TCP_STREAM -M 1KB
bad "send size 65508 is over the largest UDP/IPv4 datagram" -t UDP_STREAM -m 65508
bad "-4 and -6 do not go together" -t TCP_RR -4 -6
bad "unknown option '--frob'" -t TCP_RR --frob
bad "unexpected argument 'extra'" -t TCP_RR extra
bad "option '-t' needs a value" -t
check_nothing_left "SCTP and bad input"

run_perfbot 10 bench netperf --help
check "--help: exit 0" [ "$rc" -eq 0 ]
check "--help documents every option and test" bash -c '
	for w in --test --clients --length --ipv4 --ipv6 --send-size --recv-size \
		 --timeout --json --help TCP_STREAM TCP_MAERTS TCP_RR TCP_CRR \
		 UDP_STREAM UDP_RR SCTP_STREAM SCTP_RR SCTP_STREAM_MANY; do
		grep -q -- "$w" "$1" || { echo "missing $w"; exit 1; }
	done' _ "$SANDBOX/out"

# ---- the timeout: the whole group killed, a failure, nothing left -----------
run_perfbot 20 bench netperf -t TCP_STREAM -n 2 -l 10 --timeout 1
check "--timeout 1 with -l 10: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "--timeout: says it timed out" grep -q '^perfbot: bench: netperf: TCP_STREAM: timed out: the 1 s timeout ran out' "$SANDBOX/err"
check "--timeout: no number for a failed run" bash -c '! grep -q "^Throughput" "$1"' _ "$SANDBOX/out"
check "--timeout: killed at the timeout (${secs} s)" [ "$(echo "$secs < 3" | bc)" -eq 1 ]

# the same watchdog while pairs are still starting: 1000 pairs are not
# forked and connected in 50 ms, so it fires in setup, half-started pairs
# and all
run_perfbot 20 bench netperf -t TCP_RR -n 1000 -l 1 --timeout 0.05
check "--timeout in setup: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "--timeout in setup: says who was not ready" grep -Eq 'timed out after 0.05 s: [0-9]+ of 2000 servers and clients were not ready' "$SANDBOX/err"
check "--timeout in setup: out at once (${secs} s)" [ "$(echo "$secs < 3" | bc)" -eq 1 ]
check_nothing_left "timeouts"

# ---- a stopped (stuck) server cannot hold up the end of the run --------------
"$PERFBOT" bench netperf -t TCP_RR -n 1 -l 2 >"$SANDBOX/out" 2>"$SANDBOX/err" &
pid=$!
sleep 0.7
for p in $(sandbox_pids); do
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = perfbot-netsrv ] && kill -STOP "$p"
done
t0=$(date +%s.%N)
for _ in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
	not_ok "stopped server: perfbot still running 5 s later"
	kill -KILL $pid
fi
wait $pid
rc=$?
secs=$(echo "$(date +%s.%N) - $t0" | bc)
check "stopped server: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "stopped server: the run ended on time (${secs} s after the stop)" \
	[ "$(echo "$secs < 3" | bc)" -eq 1 ]
check "stopped server: what was done before the stop is reported" grep -Eq '^Throughput_tps +[1-9]' "$SANDBOX/out"
check_nothing_left "stopped server"

# ---- SIGINT and SIGTERM mid-run ---------------------------------------------
# interrupt SIGNAL ARGS...: sets rc, secs
interrupt() {
	sig=$1
	shift
	"$PERFBOT" bench netperf "$@" >"$SANDBOX/out" 2>"$SANDBOX/err" &
	pid=$!
	sleep 1
	t0=$(date +%s.%N)
	kill -"$sig" $pid
	for _ in $(seq 20); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	if kill -0 $pid 2>/dev/null; then
		not_ok "$sig: still running 2 s after the signal"
		kill -KILL $pid
	fi
	wait $pid
	rc=$?
	secs=$(echo "$(date +%s.%N) - $t0" | bc)
}

interrupt INT -t TCP_STREAM -n 2 -l 10 --json
check "SIGINT: exit 130 (got $rc, ${secs} s after the signal)" [ "$rc" -eq 130 ]
ports=$(python3 "$SANDBOX/check.py" incomplete "$SANDBOX/out" 2>"$SANDBOX/pyerr")
check "SIGINT: incomplete, with what was measured" [ -n "$ports" ]
[ -n "$ports" ] || diag "$(cat "$SANDBOX/pyerr")"
check "SIGINT: no process owns a socket on the run's ports ($ports)" no_socket_on_ports $ports
check "SIGINT: no socket held by a leftover process" no_sandbox_socket
check_nothing_left "SIGINT"

interrupt TERM -t UDP_RR -n 2 -l 10
check "SIGTERM: exit 143 (got $rc)" [ "$rc" -eq 143 ]
check "SIGTERM: marked incomplete" grep -q '^status: incomplete (stopped after' "$SANDBOX/out"
check "SIGTERM: what was measured is printed" grep -Eq '^Throughput_total_tps +[1-9]' "$SANDBOX/out"
check_nothing_left "SIGTERM"
finish
