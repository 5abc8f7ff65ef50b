#!/bin/bash
# perfbot bisect: good and bad run alike (20 commits, none slower): no
# culprit is made up; exit 1, status no-change, within --max-runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

DB="$SANDBOX/results.db"
cd "$SANDBOX" || exit 1

make_bisect_repo repo 20 99 || { echo "Bail out! cannot make the repository"; exit 1; }
write_bisect_job job.yaml
diag "good $BISECT_GOOD, bad $BISECT_BAD, no slowdown"

run_perfbot 300 bisect start --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--metric bisect-demo.time_ms --max-runs 60 --db "$DB" job.yaml
bisect_diag "bisect start" always
check "no change: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "no change: 'no reproducible change between' on stdout" grep -q '^no reproducible change between' "$SANDBOX/out"
check "no change: no culprit named" bash -c '! grep -q "^first bad commit" "$1"' _ "$SANDBOX/out"
check "no change: progress on stderr" grep -q '^bisect ' "$SANDBOX/err"
check "no change: well within its deadline ($secs s < 120 s)" [ "$(echo "$secs < 120" | bc)" -eq 1 ]

bisect_status "$DB"
store_runs=$(bisect_store_runs "$DB")
diag "the store holds $store_runs complete runs of bisect-demo"
pycheck "status --json: no-change, no culprit" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "no-change", d["status"]
assert not (d.get("culprit") or {}).get("sha"), d["culprit"]
' "$SANDBOX/status.json"
pycheck "status --json: runs = the complete runs in the store ($store_runs), at most --max-runs 60" '
import json, sys
runs, store = json.load(open(sys.argv[1]))["runs"], int(sys.argv[2])
if isinstance(runs, list):
    assert len(set(runs)) == len(runs), "a run counted twice"
    runs = len(runs)
assert runs == store, (runs, store)
assert 4 <= store <= 60, store
' "$SANDBOX/status.json" "$store_runs"
check "only the main worktree left" [ "$(git -C repo worktree list | wc -l)" -eq 1 ]
check_nothing_left "bisect without a change"
bisect_check_reports "$DB" 1 no-change "no change"
finish
