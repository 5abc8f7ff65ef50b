#!/bin/bash
# The A/A case of the trust issue, measured with compare --measure (issue
# 13): two commits with the same code, the first measured on a quiet
# machine, then CPU hogs started on every core and the second measured
# beside them.  The KPI is the wall clock, which the hogs slow by a third
# and more.  compare --measure must not call the pair changed: the runs
# taken apart get interleaved runs of both sides, and sides disturbed
# differently get no verdict -- "same" or "unknown", never "changed".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

DB="$SANDBOX/results.db"
cd "$SANDBOX" || exit 1

HOGS=
stop_hogs() {
	[ -n "$HOGS" ] && kill $HOGS 2>/dev/null && wait $HOGS 2>/dev/null
	HOGS=
}
trap stop_hogs EXIT

# three commits, no slowdown anywhere (SLOW_AT past the end)
make_bisect_repo repo 3 99 || { echo "Bail out! cannot make the repository"; exit 1; }
set -- $BISECT_MAIN
A=$1 B=$2
cat > job.yaml <<YAML
testcase: bisect-demo
timeout: 30s
monitors: []
build: $BISECT_BUILD
exec:
  cmd: [./prog]
  parse: kv
kpi: bisect-demo.wall_ms
YAML

run_perfbot 300 run --repo repo --commit "$A" -r 10 --db "$DB" job.yaml
check "A (quiet): 10 runs stored (exit $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || diag "$err"

# three hogs a CPU: the benchmark gets about a quarter of a CPU beside
# them, whatever the scheduler does (one a CPU left it a whole one at times)
for _ in $(seq $((3 * $(nproc)))); do
	sh -c 'while :; do :; done' &
	HOGS="$HOGS $!"
done
sleep 0.5
# alpha 0.001: at 0.05 one interleaved A/A pair in twenty is "changed" by
# chance alone -- not what this test is about (the hogs and the runs
# taken apart are); it would be a flaky test
run_perfbot 600 compare --measure --repo repo --max-runs 20 --alpha 0.001 --db "$DB" --json \
	job.yaml "$A" "$B"
stop_hogs
cp "$SANDBOX/out" aa.json
cp "$SANDBOX/err" aa.err
diag "compare --measure beside $((3 * $(nproc))) hogs: exit $rc in $secs s; $(grep -E '^perfbot: compare: ' aa.err | tr '\n' '|')"
check "measure: exit 0 (got $rc)" [ "$rc" -eq 0 ]
# A's quiet runs are runs 1-10
for id in $(seq 1 10); do
	"$PERFBOT" results show "$id" --db "$DB" --json 2>/dev/null
done | python3 -c '
import json, sys
dec = json.JSONDecoder()
text, vals = sys.stdin.read(), []
i = 0
while i < len(text):
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    r, i = dec.raw_decode(text, i)
    vals.append(r["stats"]["bisect-demo.wall_ms"])
print(sum(vals) / len(vals))' > quiet_mean 2>/dev/null
diag "A's quiet runs: wall_ms mean $(cat quiet_mean)"
pycheck "measure: the hogs slowed the runs measured beside them (the test means something)" '
import json, sys
d = json.load(open(sys.argv[1]))
quiet = float(open(sys.argv[2]).read())
(job,) = d["jobs"]
(row,) = [r for r in job["rows"] if r["name"] == "bisect-demo.wall_ms"]
print("# window: A %.1f ms (n %d), B %.1f ms (n %d), verdict %s: %s" % (
    row["base"]["mean"], row["base"]["n"], row["vs"][0]["summary"]["mean"],
    row["vs"][0]["summary"]["n"], row["vs"][0]["verdict"], row["vs"][0]["words"]))
assert row["vs"][0]["summary"]["mean"] > 1.2 * quiet, (quiet, row["vs"][0]["summary"])
' aa.json quiet_mean
pycheck "measure: the A/A pair is same or unknown, never changed" '
import json, sys
d = json.load(open(sys.argv[1]))
(job,) = d["jobs"]
for row in job["rows"]:
    if row["family"] == "kpi":
        v = row["vs"][0]["verdict"]
        assert v in ("same", "unknown"), (row["name"], v, row["vs"][0]["words"])
' aa.json
pycheck "measure: judged on a window of alternating runs; A's quiet runs left out (at most 2 kept)" '
import json, sys
d = json.load(open(sys.argv[1]))
(job,) = d["jobs"]
assert job["since"] is not None, job["since"]
(row,) = [r for r in job["rows"] if r["name"] == "bisect-demo.wall_ms"]
a, b = row["base"]["n"], row["vs"][0]["summary"]["n"]
assert 10 <= a <= 20 and 10 <= b <= 20, (a, b)
(o,) = job["order"]
assert o["order"] == "interleaved", o
assert o["base_outside"] <= 2, o
' aa.json
check "measure: the table says which runs it judged" bash -c '
	"$1" compare --measure --repo repo --max-runs 20 --alpha 0.001 --db "$2" job.yaml "$3" "$4" 2>/dev/null |
	grep -q "^bisect-demo: the runs since .*, which alternate between the commits"' _ "$PERFBOT" "$DB" "$A" "$B"

check_nothing_left "compare --measure beside hogs"
finish
