#!/bin/bash
# perfbot compare's verdicts at the edges (issue 12): one outlier run a
# side, a zero base, a negative base, stats on one side only, 1e300,
# failure counts -- imported from tests/fixtures/verdicts/*.csv, compared
# with --json; each row's verdict, direction, and that the interval agrees
# with the verdict (changed/small: 0 outside it, same: inside +-floor).
. "$(dirname "$0")/lib.sh"

db="$SANDBOX/db"
fix="$(dirname "$0")/../fixtures/verdicts"

run_perfbot 30 import csv "$fix/base.csv" --commit base --job verdicts --testcase hackbench --db "$db"
check "import base: exit 0" [ "$rc" -eq 0 ]
run_perfbot 30 import csv "$fix/new.csv" --commit new --job verdicts --testcase hackbench --db "$db"
check "import new: exit 0" [ "$rc" -eq 0 ]

run_perfbot 30 compare --db "$db" --json base new
check "compare --json: exit 0" [ "$rc" -eq 0 ]
cp "$SANDBOX/out" "$SANDBOX/cmp.json"

# row NAME VERDICT DIRECTION ABSOLUTE SIGN: the row's first column
# (DIRECTION, ABSOLUTE: "-" is not checked; SIGN of pct: + - or any)
row() {
	python3 - "$SANDBOX/cmp.json" "$@" <<'PY'
import json, math, sys
path, name, verdict, direction, absolute, sign = sys.argv[1:]
j = json.load(open(path))
rows = {r["name"]: r for job in j["jobs"] for r in job["rows"]}
r = rows[name]
v = r["vs"][0]
def fail(why):
    sys.exit("%s: %s: %s" % (name, why, json.dumps(v)))
if v["verdict"] != verdict:
    fail("verdict %s, want %s" % (v["verdict"], verdict))
if direction != "-" and v["direction"] != (None if direction == "null" else direction):
    fail("direction %s, want %s" % (v["direction"], direction))
if absolute != "-" and v["absolute"] != (absolute == "true"):
    fail("absolute %s, want %s" % (v["absolute"], absolute))
pct, low, high = v["pct"], v["low"], v["high"]
if sign == "+" and not pct > 0 or sign == "-" and not pct < 0:
    fail("pct %s, want sign %s" % (pct, sign))
if verdict in ("changed", "small") and r["family"] != "failure":
    # the interval agrees: 0 outside it, on pct's side, pct inside it
    if low is None or high is None or not (low <= pct <= high):
        fail("pct outside its interval")
    if not (low > 0 or high < 0) or (pct > 0) != (low > 0):
        fail("interval [%s, %s] holds 0 or disagrees with pct" % (low, high))
if verdict == "same":
    floor = j["opts"]["kpi_min_pct"] if r["kpi"] else j["opts"]["other_min_pct"]
    if low is None or not (-floor < low and high < floor):
        fail("same, but the interval is not inside +-%s" % floor)
for x in (pct, low, high):
    if x is not None and not math.isfinite(x):
        fail("a number is not finite")
PY
}

check "the KPI is hackbench.throughput" python3 -c '
import json, sys
r = {r["name"]: r for job in json.load(open(sys.argv[1]))["jobs"] for r in job["rows"]}["hackbench.throughput"]
assert r["kpi"] and r["family"] == "kpi", r' "$SANDBOX/cmp.json"
check "outlier runs: the KPI's -5% is changed, a regression, 0 outside the interval" \
	row hackbench.throughput changed regression false -
check "zero base: a count 0 -> 3 is changed, in absolute values" \
	row t.count changed - true +
check "zero base: the difference is 3, interval [3, 3]" python3 -c '
import json, sys
v = {r["name"]: r for job in json.load(open(sys.argv[1]))["jobs"] for r in job["rows"]}["t.count"]["vs"][0]
assert v["pct"] == 3 and v["low"] == 3 and v["high"] == 3 and v["p"] == 0, v' "$SANDBOX/cmp.json"
check "negative base: -1e6 -> -0.9e6 is +10%, an improvement of a _ops stat" \
	row t.neg_ops changed improvement false +
check "negative base: +10%" python3 -c '
import json, sys
v = {r["name"]: r for job in json.load(open(sys.argv[1]))["jobs"] for r in job["rows"]}["t.neg_ops"]["vs"][0]
assert 9 < v["pct"] < 11, v' "$SANDBOX/cmp.json"
check "one side only: the base's stat is gone, -100%" row t.only_base gone - false -
check "one side only: gone has no interval" python3 -c '
import json, sys
v = {r["name"]: r for job in json.load(open(sys.argv[1]))["jobs"] for r in job["rows"]}["t.only_base"]["vs"][0]
assert v["pct"] == -100 and v["low"] is None and v["high"] is None, v' "$SANDBOX/cmp.json"
check "one side only: the new side's stat is new, its mean in absolute values" \
	row t.only_new new - true +
check "1e300: +10% changed, every number finite" row t.big changed - false +
check "1e300: the summaries are finite" python3 -c '
import json, sys
r = {r["name"]: r for job in json.load(open(sys.argv[1]))["jobs"] for r in job["rows"]}["t.big"]
assert r["base"]["stddev"] is not None and r["vs"][0]["summary"]["stddev"] is not None, r
assert 9 < r["vs"][0]["pct"] < 11, r' "$SANDBOX/cmp.json"
check "a stat that does not move: same, its interval inside the floor" row t.flat same null - any
check "failure counts: 0:10 -> 8:10 (values >= 1; 0.5 is no failure), changed" \
	row dmesg.WARNING:at_foo changed regression - +
check "failure counts: 8 failed runs of 10" python3 -c '
import json, sys
v = {r["name"]: r for job in json.load(open(sys.argv[1]))["jobs"] for r in job["rows"]}["dmesg.WARNING:at_foo"]["vs"][0]
assert v["fails"] == 8 and v["runs"] == 10 and abs(v["reproduction"] - 80) < 1e-9, v' "$SANDBOX/cmp.json"

# the text table shows the rows that changed, whatever the words the report uses
run_perfbot 30 compare --db "$db" --all base new
check "compare --all: exit 0, every stat a row" bash -c \
	'[ "$2" -eq 0 ] && for s in hackbench.throughput t.count t.neg_ops t.only_base t.only_new t.big t.flat; do grep -qF "$s" "$1" || exit 1; done' \
	_ "$SANDBOX/out" "$rc"

finish
