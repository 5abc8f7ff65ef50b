#!/bin/bash
# SIGINT/SIGTERM in the middle of a 30 s run: out within 2 s, what was
# measured printed and marked incomplete, nothing left behind.
. "$(dirname "$0")/lib.sh"

# interrupt SIGNAL MODE [--json]
interrupt() {
	sig=$1
	mode=$2
	shift 2
	"$PERFBOT" bench futex1 -t 2 -m "$mode" -w 0.2 -d 30 -i 0.5 "$@" \
		>"$SANDBOX/out" 2>"$SANDBOX/err" &
	pid=$!
	sleep 1.5
	t0=$(date +%s.%N)
	kill -"$sig" $pid
	# wait up to 2 s, then give up on it
	for _ in $(seq 20); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	if kill -0 $pid 2>/dev/null; then
		not_ok "$sig $mode $*: still running 2 s after the signal"
		kill -KILL $pid
		wait $pid
		return
	fi
	wait $pid
	rc=$?
	secs=$(echo "$(date +%s.%N) - $t0" | bc)
	ok "$sig $mode $*: exited ${secs} s after the signal"
}

interrupt INT process
check "SIGINT: exit status 130 (got $rc)" [ "$rc" -eq 130 ]
check "SIGINT: marked incomplete" grep -q '^status: incomplete' "$SANDBOX/out"
check "SIGINT: the samples so far are printed" grep -Eq '^ +2 +[0-9.]+ +[0-9]+' "$SANDBOX/out"
check "SIGINT: a result is printed" grep -q '^per_process_ops ' "$SANDBOX/out"
check_nothing_left "SIGINT process"

interrupt INT thread --json
check "SIGINT --json: exit status 130 (got $rc)" [ "$rc" -eq 130 ]
check "SIGINT --json: incomplete is true" grep -q '"incomplete": true' "$SANDBOX/out"
check "SIGINT --json: samples kept" grep -q '"per_thread_ops": [0-9]' "$SANDBOX/out"
check_nothing_left "SIGINT thread"

interrupt TERM thread
check "SIGTERM: exit status 143 (got $rc)" [ "$rc" -eq 143 ]
check "SIGTERM: marked incomplete" grep -q '^status: incomplete' "$SANDBOX/out"
check_nothing_left "SIGTERM thread"

# a stop during warm-up: no samples, still a clean incomplete
"$PERFBOT" bench futex1 -m thread -w 30 -d 1 >"$SANDBOX/out" 2>&1 &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
check "SIGINT in warm-up: exit 130 (got $rc)" [ "$rc" -eq 130 ]
check "SIGINT in warm-up: says so" grep -q 'incomplete (stopped during warm-up)' "$SANDBOX/out"
check_nothing_left "SIGINT warm-up"

# perfbot killed outright: its tasks die with it (PR_SET_PDEATHSIG)
"$PERFBOT" bench getppid1 -t 2 -m process -w 0 -d 30 >/dev/null 2>&1 &
pid=$!
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
sleep 0.5
left=$(sandbox_pids)
check "SIGKILL of perfbot: no task survives it" [ -z "$left" ]
# the temp dirs of a SIGKILLed perfbot cannot be removed by it
rm -rf "${TMPDIR:?}"/* "${PERFBOT_SHMDIR:?}"/*
finish
