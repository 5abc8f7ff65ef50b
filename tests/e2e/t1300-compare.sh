#!/bin/bash
# perfbot compare: exact inputs from kv exec jobs run with --commit labels;
# the table's layout, the default/--all/--ci/--json/perf-stat outputs, too
# few runs, and bad commits.
. "$(dirname "$0")/lib.sh"

DB="$SANDBOX/db"
cd "$SANDBOX" || exit 1

# t.throughput is the KPI and moves ~10%; t.other stays within noise
cat > j.yaml <<YAML
testcase: t
kpi: t.throughput
exec:
  cmd: [sh, -c, "echo \"throughput: \$(cat $SANDBOX/value)\"; echo \"other: \$(cat $SANDBOX/other)\""]
  parse: kv
YAML

# one run of commit $1 with throughput $2 and other $3
run1() {
	echo "$2" > value
	echo "$3" > other
	"$PERFBOT" run j.yaml --db "$DB" -r 1 --no-monitors --commit "$1" >/dev/null 2>&1
}

# base and new interleaved (base new base new ...), as a change that
# leads to a report must be measured; two after them
ok_runs=true
set -- "1000 50" "1100 50.2" "1010 51" "1110 49.2" "990 49" "1090 51.2" \
	"1005 50.5" "1105 50.7" "995 49.5" "1095 49.7"
side=base
for v in "$@"; do
	run1 $side $v || ok_runs=false
	if [ $side = base ]; then side=new; else side=base; fi
done
for v in "1100 50" "1110 51"; do
	run1 two $v || ok_runs=false
done
check "setup: 12 runs stored" $ok_runs

run_perfbot 30 compare --db "$DB" base new
check "default: exit 0" [ "$rc" -eq 0 ]
check "default: commits line, base first, right-aligned as LKP's" grep -qx \
	'            base                         new' "$SANDBOX/out"
check "default: the rule" grep -qx -- '---------------- ---------------------------' "$SANDBOX/out"
check "default: %stddev header and guides" bash -c \
	'grep -qx "         %stddev     %change         %stddev" "$1" &&
	 grep -qx "             \\\\          |                \\\\" "$1"' _ "$SANDBOX/out"
check "default: the changed KPI with +10.0% and improvement" grep -qE \
	'^      1000 +\+10\.0% +1100 +t\.throughput  improvement$' "$SANDBOX/out"
check "default: the unchanged stat is not shown" bash -c '! grep -q t.other "$1"' _ "$SANDBOX/out"
check "default: no failure block (nothing failed)" bash -c '! grep -q fail:runs "$1"' _ "$SANDBOX/out"

run_perfbot 30 compare --db "$DB" base new --all
check "--all: every stat with its verdict" bash -c \
	'grep -q "t\.throughput  changed  improvement$" "$1" &&
	 grep -qE "^ +50\.00 +\+0\.4% +50\.20 +t\.other  same$" "$1"' _ "$SANDBOX/out"
check "--all: failure rows as fail:runs with guides" bash -c \
	'grep -qx "       fail:runs  %reproduction    fail:runs" "$1" &&
	 grep -qx "           |             |             |" "$1" &&
	 grep -qx "           :5            0%            :5     t.exit_fail  same" "$1"' _ "$SANDBOX/out"
check "--all: KPI first" bash -c \
	'[ "$(grep -n t.throughput "$1" | cut -d: -f1)" -lt "$(grep -n t.other "$1" | cut -d: -f1)" ]' _ "$SANDBOX/out"

run_perfbot 30 compare --db "$DB" base new --ci
check "--ci: interval and p" grep -qE \
	't\.throughput  improvement  \[\+[0-9.]+%, \+[0-9.]+%\]  p=[0-9.e-]+$' "$SANDBOX/out"

run_perfbot 30 compare --db "$DB" base new --json
check "--json: the documented fields (docs/report.md, version 3)" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "perfbot-compare" and r["version"] == 3
assert [c["id"] for c in r["commits"]] == ["base", "new"] and r["opts"]["alpha"] == 0.05
assert [c["given"] for c in r["commits"]] == ["base", "new"]
assert r["opts"]["kpi_min_pct"] == 1 and r["opts"]["other_min_pct"] == 5 and r["opts"]["level"] == 0.95
j, = r["jobs"]
assert j["kpi"] == "t.throughput" and j["runs"] == [5, 5] and j["testbox"]
assert j["unsupported"] == [None, None]
s = {x["name"]: x for x in j["rows"]}
k = s["t.throughput"]
assert k["family"] == "kpi" and k["base"]["mean"] == 1000 and k["base"]["n"] == 5
assert k["kpi"] is True and k["better"] == "higher" and k["changed"] is True
v, = k["vs"]
assert abs(v["pct"] - 10) < 1e-9 and v["low"] < 10 < v["high"] and v["p"] < 0.001
assert v["q"] == v["p"] and 0 <= v["mwu_p"] < 0.05 and v["verdict"] == "changed"
assert v["direction"] == "improvement" and v["summary"]["mean"] == 1100 and "stddev" in v["summary"]
o = s["t.other"]["vs"][0]
assert s["t.other"]["family"] == "other" and o["verdict"] == "same" and o["q"] >= o["p"]
assert o["direction"] is None and s["t.other"]["better"] is None
f = s["t.exit_fail"]
assert f["family"] == "failure" and f["base"]["fails"] == 0 and f["base"]["runs"] == 5
assert f["vs"][0]["fails"] == 0 and f["vs"][0]["runs"] == 5 and f["vs"][0]["mwu_p"] is None
' "$SANDBOX/out"
cp "$SANDBOX/out" "$SANDBOX/compare.json"
run_perfbot 30 report --db "$DB" --format json base new
check "--json is report --format json: one writer, one document" \
	cmp -s "$SANDBOX/out" "$SANDBOX/compare.json"

run_perfbot 30 compare --db "$DB" base two
check "2 runs a side: exit 0, numbers shown" bash -c \
	'[ "$2" -eq 0 ] && grep -qE "^      1000 +\+10\.5% +1105 .*t\.throughput  few runs$" "$1"' _ "$SANDBOX/out" "$rc"
check "2 runs a side: says more runs are needed" grep -qx \
	'verdicts need 3 runs a side: commit two has 2 (1 more needed)' "$SANDBOX/out"

run_perfbot 30 compare --db "$DB" base new two
check "3 commits: two column pairs" bash -c \
	'grep -qx -- "---------------- --------------------------- ---------------------------" "$1" &&
	 grep -qx "         %stddev     %change         %stddev     %change         %stddev" "$1"' _ "$SANDBOX/out"

run_perfbot 30 compare --db "$DB" base new --format perf-stat
check "perf-stat: mean +- stderr per commit" grep -qE \
	'^base +1000 \+- 3\.536 +t\.throughput \( \+- 0\.35% \)$' "$SANDBOX/out"
check "perf-stat: the ratio line" grep -qE \
	'^1100 / 1000 = 1\.1000 \( 10\.00% \) improvement, 95% interval of the change \+[89]\.[0-9]+% \.\. \+1[01]\.[0-9]+% \[changed\]$' "$SANDBOX/out"

# the same +10% measured apart -- every run of 'late' after base's --
# is not mailed: drift of the machine alone can separate runs taken apart
for v in "1100 50.2" "1110 49.2" "1090 51.2" "1105 50.7" "1095 49.7"; do
	run1 late $v
done
run_perfbot 30 compare --db "$DB" base late --json
check "apart: compare still calls it changed (the table is the numbers')" python3 -c '
import json, sys
j, = json.load(open(sys.argv[1]))["jobs"]
r, = [r for r in j["rows"] if r["name"] == "t.throughput"]
assert r["vs"][0]["verdict"] == "changed", r
' "$SANDBOX/out"
run_perfbot 30 compare --db "$DB" base late
check "apart: the table says the runs were taken apart" grep -qx \
	"commit late: runs taken apart from the base's (every run of one commit before the other's): not confirmed on interleaved runs, no email" "$SANDBOX/out"
run_perfbot 30 compare --db "$DB" base new
check "interleaved: no such line" bash -c '! grep -q "taken apart" "$1"' _ "$SANDBOX/out"
run_perfbot 30 report --db "$DB" --format email base late
check "apart: report --format email writes no email, says why, exit 0" bash -c \
	'[ "$2" -eq 0 ] && ! grep -q "^Subject:" "$1" &&
	 grep -q "only on runs taken one commit after the other" "$3"' _ "$SANDBOX/out" "$rc" "$SANDBOX/err"
run_perfbot 30 report --db "$DB" --format email --all base late
check "apart: --all writes it, marked not confirmed on interleaved runs" bash -c \
	'grep -q "^Subject:" "$1" && grep -q "NOT CONFIRMED on interleaved runs" "$1"' _ "$SANDBOX/out"
run_perfbot 30 report --db "$DB" --format email base new
check "interleaved: the email says the runs were interleaved" bash -c \
	'grep -q "^Subject:" "$1" && grep -q "runs of both commits were interleaved" "$1"' _ "$SANDBOX/out"

run_perfbot 30 compare --db "$DB" base base
check "nothing changed: says so" grep -qx \
	'no stat changed (4 compared; --all shows them)' "$SANDBOX/out"
run_perfbot 30 compare --db "$DB" base new --min-change 20 --all
check "--min-change 20: the 10% change is no longer 'changed'" bash -c \
	'! grep -q "t\.throughput  changed" "$1"' _ "$SANDBOX/out"
run_perfbot 30 compare --db "$DB" base new --min-change 't.*=20' --all
check "--min-change t.*=20: the pattern's floor hides the 10% change" bash -c \
	'[ "$2" -eq 0 ] && grep -q "t\.throughput" "$1" && ! grep -qE "t\.throughput  (changed|improvement)" "$1"' _ "$SANDBOX/out" "$rc"
run_perfbot 30 compare --db "$DB" base new --min-change 't.*=20' --min-change 't.throughput=1'
check "--min-change: the last matching rule wins" grep -q "t\.throughput  improvement" "$SANDBOX/out"
for bad in abc 't.*=' '=5' -1 't.*=-1'; do
	run_perfbot 30 compare --db "$DB" base new --min-change "$bad"
	check "bad --min-change '$bad': exit 2 naming the value" bash -c \
		'[ "$2" -eq 2 ] && grep -qF -- "invalid --min-change '"'"'$3'"'"'" "$1"' _ "$SANDBOX/err" "$rc" "$bad"
done
run_perfbot 30 compare --db "$DB" base new -s testcase=nope
check "-s matching nothing: exit 1, names the commits" bash -c \
	'[ "$2" -eq 1 ] && grep -q "no atomic job has complete runs on all of base, new" "$1"' _ "$SANDBOX/err" "$rc"

run_perfbot 30 compare --db "$DB" base nope
check "unknown commit: exit 2 naming it" bash -c \
	'[ "$2" -eq 2 ] && grep -q "unknown commit .nope." "$1"' _ "$SANDBOX/err" "$rc"
run_perfbot 30 compare --db "$DB" base new --alpha 2
check "bad --alpha: exit 2 naming the value" bash -c \
	'[ "$2" -eq 2 ] && grep -q "invalid --alpha .2." "$1"' _ "$SANDBOX/err" "$rc"
run_perfbot 30 compare --db "$DB" base
check "one commit: exit 2" [ "$rc" -eq 2 ]
run_perfbot 30 compare --help
check "--help: exit 0 with usage" bash -c '[ "$2" -eq 0 ] && grep -q "^usage: perfbot compare" "$1"' _ "$SANDBOX/out" "$rc"
check "--help: the thresholds the code uses (stats/compare.h)" bash -c \
	'grep -q "at alpha with a 1% floor" "$1" && grep -q "q = alpha with a 5% floor" "$1" &&
	 grep -q "(default 0.05)" "$1" && grep -q "the 95% interval" "$1" &&
	 grep -q "Verdicts need 3 runs a side" "$1"' _ "$SANDBOX/out"

# "unsupported here": runs the store keeps as unsupported, planted with
# sqlite3 as an older or another perfbot would have written them (the
# store keeps the status from h11-store on; before, its schema refuses it)
if sqlite3 "$DB" "
INSERT INTO runs (testbox, testcase, job, \"commit\", status, started, duration_s)
	SELECT testbox, 'u', 'u-job', \"commit\", 'unsupported', max(started) + 1, 0
	FROM runs WHERE \"commit\" IN ('base', 'new') GROUP BY \"commit\";
INSERT INTO runs (testbox, testcase, job, \"commit\", status, started, duration_s)
	SELECT testbox, 'u', 'u2-job', \"commit\",
	       CASE \"commit\" WHEN 'base' THEN 'complete' ELSE 'unsupported' END,
	       max(started) + 1, 0
	FROM runs WHERE \"commit\" IN ('base', 'new') AND job = 'u-job' GROUP BY \"commit\";
INSERT INTO run_env (run_id, key, value)
	SELECT id, 'last_state.reason', 'needs io_uring' FROM runs WHERE status = 'unsupported';
" 2>"$SANDBOX/sqlerr"; then
	run_perfbot 30 compare --db "$DB" base new
	check "unsupported: exit 0, the job named, 'unsupported here: REASON'" bash -c \
		'[ "$2" -eq 0 ] && grep -qx "job: u-job" "$1" &&
		 grep -qx "unsupported here: needs io_uring" "$1" &&
		 grep -qx "commit new: unsupported here: needs io_uring" "$1" &&
		 grep -q "t\.throughput  improvement" "$1"' _ "$SANDBOX/out" "$rc"
	check "unsupported: not a failure (no fail:runs row for it)" bash -c \
		'! grep -q "fail:runs" "$1"' _ "$SANDBOX/out"
	run_perfbot 30 compare --db "$DB" base new --json
	check "unsupported: in JSON, per commit" python3 -c '
import json, sys
j = {x["job"]: x for x in json.load(open(sys.argv[1]))["jobs"]}
assert j["u-job"]["unsupported"] == ["needs io_uring"] * 2 and j["u-job"]["rows"] == []
assert j["u2-job"]["unsupported"] == [None, "needs io_uring"]
' "$SANDBOX/out"
	for fmt in text email html; do
		run_perfbot 30 report --db "$DB" --format $fmt base new
		check "unsupported: report --format $fmt says so" bash -c \
			'[ "$2" -eq 0 ] && grep -q "unsupported here: needs io_uring" "$1"' _ "$SANDBOX/out" "$rc"
	done
	run_perfbot 30 results --db "$DB"
	check "unsupported: results lists the runs as such" bash -c \
		'grep -q " unsupported  kpi" "$1" &&
		 grep -qE "^\S+ +u-job +base +0 +0 +0 +1  unsupported here: needs io_uring$" "$1"' _ "$SANDBOX/out"
	run_perfbot 30 results --db "$DB" --json
	check "unsupported: results --json counts them" python3 -c '
import json, sys
g = [x for x in json.load(open(sys.argv[1])) if x["job"] == "u-job"]
assert len(g) == 2 and all(x["runs_unsupported"] == 1 and x["runs_failed"] == 0 for x in g), g
assert all(x["unsupported"] == "needs io_uring" for x in g)
' "$SANDBOX/out"
else
	ok "unsupported runs # SKIP the store does not keep them yet: $(head -c 200 "$SANDBOX/sqlerr")"
fi

rm -f value other j.yaml
# tags of a repository: --repo resolves them to the shas the store holds
git init -q "$SANDBOX/repo"
for v in 1 2; do
	echo "$v" > "$SANDBOX/repo/v"
	git -C "$SANDBOX/repo" add v
	git -C "$SANDBOX/repo" -c user.name=t -c user.email=t@example.invalid commit -qm "v$v"
	git -C "$SANDBOX/repo" tag "v$v"
done
printf 'testcase: tagged\nrepeat: 3\nexec:\n  cmd: [sh, -c, "echo \\"score: $(cat v)\\""]\n  parse: kv\n' > "$SANDBOX/tagged.yaml"
for v in v1 v2; do
	run_perfbot 60 run "$SANDBOX/tagged.yaml" --db "$SANDBOX/tags.db" --repo "$SANDBOX/repo" --commit "$v" --no-monitors
done
run_perfbot 30 compare --db "$SANDBOX/tags.db" v1 v2
check "a tag the store does not know: exit 2" [ "$rc" -eq 2 ]
run_perfbot 30 compare --db "$SANDBOX/tags.db" --repo "$SANDBOX/repo" v1 v2 --all
check "--repo resolves tags: exit 0, the stat compared" bash -c \
	'[ "$2" -eq 0 ] && grep -q "tagged.score" "$1"' _ "$SANDBOX/out" "$rc"
check_nothing_left "compare"
finish
