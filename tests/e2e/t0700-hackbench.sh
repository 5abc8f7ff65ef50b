#!/bin/bash
# hackbench: tiny runs in every mode x ipc with throughput consistent with
# the printed times; --json; bad input (exit 2, one line naming the value,
# nothing started); a timeout (exit 1, says so); SIGINT (exit 130,
# incomplete); nothing left behind after any of them.
. "$(dirname "$0")/lib.sh"

G=2 F=4 L=400 S=100
# LKP's KiB per iteration: groups x 2 x fds x loops x bytes >> 10
KIB=$(( G * 2 * F * L * S >> 10 ))

# consistent THROUGHPUT TIME...: KIB / mean(TIME) is THROUGHPUT, allowing
# for Time: being truncated to milliseconds (and throughput to 0.01)
consistent() {
	python3 - "$KIB" "$@" <<'EOF'
import sys
kib, thr, times = float(sys.argv[1]), float(sys.argv[2]), [float(t) for t in sys.argv[3:]]
assert times and thr > 0, (thr, times)
lo = sum(times) / len(times)           # the printed times are truncated
hi = lo + 0.001
assert kib / hi - 0.01 <= thr <= kib / lo + 0.01 if lo > 0 else thr >= kib / hi, (kib, thr, times)
EOF
}

for mode in -P -T; do
	for ipc in socket pipe; do
		pipe=
		[ "$ipc" = pipe ] && pipe=--pipe
		what="$mode $ipc"
		run_perfbot 20 bench hackbench $mode $pipe -g $G -f $F -l $L -s $S -i 2
		check "$what: exit 0 (got $rc)" [ "$rc" -eq 0 ]
		[ "$rc" -eq 0 ] || diag "$out
$err"
		word=process
		[ "$mode" = -T ] && word=threaded
		check "$what: hackbench's parameter line" grep -qx \
			"Running in $word mode with $G groups using $((2 * F)) file descriptors each (== $((G * 2 * F)) tasks)" "$SANDBOX/out"
		check "$what: hackbench's message line" grep -qx \
			"Each sender will pass $L messages of $S bytes" "$SANDBOX/out"
		ntimes=$(grep -Ec '^Time: [0-9]+\.[0-9]{3}$' "$SANDBOX/out")
		check "$what: one Time: per iteration (saw $ntimes)" [ "$ntimes" -eq 2 ]
		check "$what: status complete" grep -qx 'status: complete' "$SANDBOX/out"
		thr=$(awk '$1 == "throughput" { print $2 }' "$SANDBOX/out")
		times=$(awk '$1 == "Time:" { print $2 }' "$SANDBOX/out")
		# shellcheck disable=SC2086
		check "$what: throughput $thr KiB/s > 0 and = $KIB KiB / mean Time" \
			consistent "${thr:-0}" $times
		mean=$(awk '$1 == "time" { print $2 }' "$SANDBOX/out")
		# shellcheck disable=SC2086
		check "$what: time $mean is the mean of the Time: lines" python3 -c '
import sys
m, t = float(sys.argv[1]), [float(x) for x in sys.argv[2:]]
assert sum(t) / len(t) <= m < sum(t) / len(t) + 0.001, (m, t)
' "${mean:-0}" $times
		check "$what: nothing on stderr" [ ! -s "$SANDBOX/err" ]
	done
done
check_nothing_left "runs"

run_perfbot 20 bench hackbench -T --pipe -g $G -f $F -l $L -s $S -i 3 --json
check "--json: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "--json: the documented fields, consistent" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
kib = int(sys.argv[2])
assert j["benchmark"] == "hackbench" and j["perfbot_version"], j
p = j["parameters"]
assert p == {"groups": 2, "fds": 4, "tasks": 16, "loops": 400, "datasize": 100,
             "mode": "threads", "ipc": "pipe", "iterations": 3,
             "timeout_s": 300.0}, p
assert j["status"] == "complete" and j["incomplete"] is False and j["reason"] is None, j
assert len(j["times"]) == 3 and all(t > 0 for t in j["times"]), j
assert abs(j["time"] - sum(j["times"]) / 3) < 1e-9, j
assert j["kib_per_iteration"] == kib, j
assert abs(j["throughput"] - kib / j["time"]) < 1e-6 * j["throughput"], j
' "$SANDBOX/out" "$KIB"
check_nothing_left "--json"

# bad_input EXPECTED-MESSAGE ARGS...: exit 2, the message, nothing started
bad_input() {
	msg=$1
	shift
	run_perfbot 10 bench hackbench "$@"
	if [ "$rc" -eq 2 ] && grep -qF -- "perfbot: bench: hackbench: $msg" "$SANDBOX/err" &&
	   [ "$(wc -l < "$SANDBOX/err")" -eq 1 ] && [ ! -s "$SANDBOX/out" ]; then
		ok "hackbench $*: exit 2, '$msg'"
	else
		not_ok "hackbench $*: exit $rc"
		diag "$out
$err"
	fi
}
bad_input "invalid group count '0'" -g 0
bad_input "invalid group count '0%'" -g 0%
bad_input "invalid group count 'ten'" -g ten
bad_input "invalid group count '70000'" -g 70000
bad_input "invalid fd count '0'" -f 0
bad_input "invalid fd count '-3'" -f -3
bad_input "invalid loop count '1e3'" -l 1e3
bad_input "invalid loop count '0'" -l 0
bad_input "invalid message size '0'" -s 0
bad_input "invalid message size '99999999999'" -s 99999999999
bad_input "invalid iteration count '0'" -i 0
bad_input "invalid iteration count '5000'" --iterations 5000
bad_input "invalid timeout '0'" --timeout 0
bad_input "invalid timeout '-1s'" --timeout -1s
bad_input "invalid timeout 'soon'" --timeout soon
bad_input "2000 groups of 2 x 1000 tasks is 4000000 tasks" -g 2000 -f 1000
bad_input "unknown option '--frob'" --frob
bad_input "option '-g' needs a value" -g
bad_input "unexpected argument 'extra'" extra
check_nothing_left "bad input"

run_perfbot 10 bench hackbench --help
check "--help: exit 0" [ "$rc" -eq 0 ]
check "--help documents every option" bash -c \
	'for o in --groups --fds --loops --datasize --pipe --threads --processes --iterations --timeout --json --help; do grep -q -- "$o" "$1" || exit 1; done' _ "$SANDBOX/out"

# a run that cannot finish in time: the whole group is killed
for mode in -P -T; do
	run_perfbot 20 bench hackbench $mode -g 2 -f 4 -l 1000000000 --timeout 0.05
	check "timeout $mode: exit 1 (got $rc)" [ "$rc" -eq 1 ]
	check "timeout $mode: says it timed out" grep -q \
		'^perfbot: bench: hackbench: timeout: the workers had not finished after 0.05 s$' "$SANDBOX/err"
	check "timeout $mode: status failed" grep -q '^status: failed (timeout' "$SANDBOX/out"
	check "timeout $mode: no Time: line" bash -c '! grep -q "^Time:" "$1"' _ "$SANDBOX/out"
	check "timeout $mode: did not run long ($secs s)" [ "$(echo "$secs < 3" | bc)" -eq 1 ]
	check_nothing_left "timeout $mode"
done

# SIGINT in the middle of the second iteration
"$PERFBOT" bench hackbench -g 1 -f 2 -l 20 -i 2 --json >/dev/null 2>&1	# warm the page cache
"$PERFBOT" bench hackbench -T -g 2 -f 4 -l 1000000000 -i 2 --json \
	>"$SANDBOX/out" 2>"$SANDBOX/err" &
pid=$!
sleep 0.5
kill -INT $pid
for _ in $(seq 30); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
	not_ok "SIGINT: still running 3 s after the signal"
	kill -KILL $pid
fi
wait $pid
rc=$?
check "SIGINT: exit 130 (got $rc)" [ "$rc" -eq 130 ]
check "SIGINT: JSON says incomplete, nothing measured" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["status"] == "incomplete" and j["incomplete"] is True, j
assert j["reason"] == "stopped during iteration 1 of 2", j
assert j["times"] == [] and j["time"] is None and j["throughput"] is None, j
' "$SANDBOX/out"
check_nothing_left "SIGINT"

"$PERFBOT" bench hackbench -g 2 -f 4 -l 1000000000 >"$SANDBOX/out" 2>"$SANDBOX/err" &
pid=$!
sleep 0.5
kill -TERM $pid
wait $pid
rc=$?
check "SIGTERM: exit 143 (got $rc)" [ "$rc" -eq 143 ]
check "SIGTERM: status incomplete" grep -qx 'status: incomplete (stopped during iteration 1 of 1)' "$SANDBOX/out"
check_nothing_left "SIGTERM"
finish
