#!/bin/bash
# The machine drifts, the code does not: perfbot watch must not mail it.
# 8 commits that all do the same work are pushed one a pass; from the 5th
# pass on the machine is 30% slower (the job's command scales the KPI it
# prints by a factor the test sets, as a hotter, busier or throttled box
# would).  The history then holds a step between its 4th and 5th points
# that only time separates.  The robot must see the step (the change-point
# search over the history finds it: the test fails when it does not, so it
# cannot pass by looking away), measure the points either side again,
# interleaved, find nothing, mark it invalid -- and write no report.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

cd "$SANDBOX" || exit 1

N=8 DRIFT_AT=5
make_bisect_repo src $N 99 || { echo "Bail out! cannot make the repository"; exit 1; }
set -- $BISECT_MAIN
C=("" "$@")	# C[1] .. C[8]
git clone -q src repo || { echo "Bail out! cannot clone"; exit 1; }

# the machine's speed: prog's own time_ms times the factor in drift.txt
echo 1.00 > drift.txt
cat > drift.sh <<EOF
#!/bin/sh
f=\$(cat "$SANDBOX/drift.txt")
./prog | awk -v f="\$f" '\$1 == "time_ms:" { \$2 = \$2 * f } { print }'
EOF
chmod +x drift.sh
cat > job.yaml <<YAML
testcase: bisect-demo
category: benchmark
timeout: 30s
monitors: []
build: $BISECT_BUILD
exec:
  cmd: [$SANDBOX/drift.sh]
  parse: kv
kpi: bisect-demo.time_ms
YAML
cat > registry.yaml <<YAML
trees:
  - name: drift
    repo: repo
    branches: [main]
    jobs: [job.yaml]
    max_age: 3000d          # the generated commits are dated 2023
report:
  outbox: outbox
YAML

DB="$SANDBOX/results.db"
start=$(date +%s)
passes_ok=1
for i in $(seq 1 $N); do
	[ "$i" -eq "$DRIFT_AT" ] && echo 1.30 > drift.txt
	git -C repo update-ref refs/heads/main "${C[$i]}"
	run_perfbot 300 watch --db "$DB" --once registry.yaml
	cat "$SANDBOX/err" >> passes.err
	[ "$rc" -eq 0 ] || { passes_ok=0; diag "pass $i: exit $rc: $(tail -5 "$SANDBOX/err")"; }
done
diag "$N passes in $(( $(date +%s) - start )) s"
diag "the robot's decisions: $(grep -E 'alert|change point|changed|confirm|invalid|baseline' passes.err | grep -Ev ': run [0-9]+ ' | sed 's/^[^ ]* perfbot watch: //' | tail -30 | tr '\n' '|' | cut -c1-2500)"
check "the robot's $N passes: exit 0" [ "$passes_ok" -eq 1 ]
check "the branch has $N points" \
	bash -c '"$1" watch status --db "$2" | grep -q "drift/main  $3 points"' _ "$PERFBOT" "$DB" "$N"

# the step is in the history: the points' stored runs before and after it
run_perfbot 60 history --db "$DB" bisect-demo --branch main --format json
cp "$SANDBOX/out" history.json
check "history json: exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
# Points 3 and 4 also hold runs made after the drift (the base of pass 5,
# the confirmations of a change point beside them), as many as the noise
# asks for: a busy host once left points 1-4 against 5-8 at +14.5%.  Points
# 1-2 and 6-8 hold runs of one side of the drift only.
pycheck "the history holds the drift: points 6-8 are 15% or more slower than points 1-2 (as stored)" '
import json, statistics, sys
d = json.load(open(sys.argv[1]))
pts = d["points"]
assert len(pts) == 8, len(pts)
def mean(p):
    return statistics.mean(p["runs"])
before = statistics.mean(mean(p) for p in pts[:2])
after = statistics.mean(mean(p) for p in pts[5:])
assert after > 1.15 * before, (before, after)
' history.json
pycheck "the robot saw the step (a change point or an alert on it) and refuted it: every alert invalid, not confirmed" '
import json, sys
d = json.load(open(sys.argv[1]))
alerts = d.get("alerts", [])
assert d["changes"] or alerts, "no change point and no alert: the step went unseen"
for a in alerts:
    assert a["state"] == "invalid", a
    assert a["note"].startswith("not confirmed"), a
' history.json
check "no report written" bash -c '[ -z "$(ls outbox/new 2>/dev/null)" ]'
run_perfbot 30 alerts list --db "$DB"
check "alerts list: no alert confirmed, found or reported" \
	bash -c '! grep -Eq "  (confirmed|found|reported|explained|no-culprit)  " <<<"$1"' _ "$out"
check_nothing_left "the robot over a drifting machine"
finish
