#!/bin/bash
# --sweep: 1..N tasks in each mode, will-it-scale's runtest table and CSV,
# linear from the best 1-task result, and scalability.
. "$(dirname "$0")/lib.sh"

run_perfbot 60 bench getppid1 --sweep --max 2 -w 0 -d 0.2 -i 0.1
check "sweep exits 0" [ "$rc" -eq 0 ]
check "table header" grep -Eq '^tasks +processes +processes_idle +threads +threads_idle +linear$' "$SANDBOX/out"
check "progress on stderr, one line per run" [ "$(grep -Ec '^sweep: getppid1 (1 process|1 thread|2 processes|2 threads): [0-9]+ ops/s$' "$SANDBOX/err")" -eq 4 ]
check "two rows" [ "$(grep -Ec '^ +[12] ' "$SANDBOX/out")" -eq 2 ]
check "scalability of both modes" bash -c 'grep -q "^scalability processes" "$1" && grep -q "^scalability threads" "$1"' _ "$SANDBOX/out"
# linear at 2 tasks is twice linear at 1
check "linear = best 1-task result x tasks" awk '
	$1 == 1 && NF == 6 { l1 = $6; best = ($2 > $4 ? $2 : $4) }
	$1 == 2 && NF == 6 { l2 = $6 }
	END { exit !(l1 > 0 && (l2 - 2 * l1) ^ 2 <= 1 && (l1 - best) ^ 2 <= 1) }' "$SANDBOX/out"

run_perfbot 60 bench getppid1 --sweep --max 2 -m thread --csv -w 0 -d 0.2 -i 0.1
check "CSV sweep exits 0" [ "$rc" -eq 0 ]
check "CSV header" [ "$(head -1 "$SANDBOX/out")" = "tasks,processes,processes_idle,threads,threads_idle,linear" ]
check "CSV rows: no process columns with -m thread" \
	awk -F, 'NR > 1 { n++; if (NF != 6 || $2 != "" || $4 == "" || $6 == "") bad = 1 } END { exit bad || n != 2 }' "$SANDBOX/out"
check "CSV stdout is only CSV" [ "$(wc -l < "$SANDBOX/out")" -eq 3 ]
check "scalability goes to stderr with --csv" grep -q '^scalability threads' "$SANDBOX/err"

run_perfbot 60 bench getppid1 --sweep --max 2 -m process --json -w 0 -d 0.2 -i 0.1
check "JSON sweep" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
rows = j["rows"]
assert j["status"] == "complete", j
assert [r["tasks"] for r in rows] == [1, 2]
assert all(r["processes"] > 0 and "threads" not in r for r in rows)
assert abs(rows[1]["linear"] - 2 * rows[0]["processes"]) < 1e-6 * rows[1]["linear"]
assert 0 < j["scalability"]["processes"]
' "$SANDBOX/out"

# an unsupported test stops the sweep with its reason
run_perfbot 60 bench selftest-unsupported --sweep --max 2 -w 0 -d 0.2 -i 0.1
check "unsupported sweep: exit 77" [ "$rc" -eq 77 ]
check "unsupported sweep: says why" grep -q 'unsupported: .*never supported' "$SANDBOX/err"
check_nothing_left "sweep"
finish
