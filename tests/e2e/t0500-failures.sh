#!/bin/bash
# A benchmark that crashes is a failed run with the reason, not a hang or
# a number; an unsupported one says why and exits 77.
. "$(dirname "$0")/lib.sh"

for mode in process thread; do
	run_perfbot 20 bench selftest-crash -m "$mode" -t 2 -w 0 -d 5 -i 0.5
	check "crash ($mode): exit 1 (got $rc)" [ "$rc" -eq 1 ]
	check "crash ($mode): reports the signal" grep -q 'signal 11 (Segmentation fault)' "$SANDBOX/err"
	check "crash ($mode): status failed" grep -q '^status: failed' "$SANDBOX/out"
	check "crash ($mode): did not wait out the duration ($secs s)" [ "$(echo "$secs < 4" | bc)" -eq 1 ]
	check_nothing_left "crash $mode"
done

run_perfbot 20 bench selftest-unsupported --json
check "unsupported: exit 77 (got $rc)" [ "$rc" -eq 77 ]
check "unsupported: reason on stderr" grep -q 'selftest-unsupported: unsupported: harness self-test: never supported' "$SANDBOX/err"
check "unsupported: JSON says so, with no number" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["status"] == "unsupported" and j["reason"], j
assert j["per_process_ops"] is None and j["workload"] is None, j
' "$SANDBOX/out"
check_nothing_left "unsupported"
finish
