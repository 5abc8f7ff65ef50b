#!/bin/bash
# perfbot db copy FROM TO (issue 16, docs/store.md "Copying a history"):
# a test box's SQLite history -- several jobs, two commits, a failed run,
# an imported file -- copied into a PostgreSQL store (a throw-away
# cluster, stopped and removed on exit and ^C) that holds another box's
# runs already: results and compare read the same from both; a second
# copy adds nothing; a copy killed with kill -9 between batches and run
# again leaves every run exactly once; PostgreSQL -> SQLite round trip;
# bad input is refused with clear words (a password never printed).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg-lib.sh"

pg_e2e_start
PG=$PG_URL
newdb() {	# a fresh database in the cluster: its URL
	(cd / && pg_as_owner "$PG_BIN/createdb" -h "$PG_DIR" -U perfbot "$1") || return 1
	echo "postgresql:///$1?host=$PG_DIR&user=perfbot"
}
diag "cluster at $PG_DIR"
cd "$SANDBOX" || exit 1
SRC=$SANDBOX/box.db
A=aaaa000000000000000000000000000000000000
B=bbbb000000000000000000000000000000000000

# ---- FROM: a test box's history ----
for j in one two; do
	cat > $j.yaml <<YAML
testcase: $j
repeat: 3
exec:
  cmd: [sh, -c, "echo \"score: \$\$\"; echo 'other: 1.5'"]
  parse: kv
YAML
	for c in $A $B; do
		run_perfbot 60 run $j.yaml --db "$SRC" --commit $c --no-monitors
		check "run $j at ${c:0:4}: exit 0 (got $rc: $(tail -1 "$SANDBOX/err"))" [ "$rc" -eq 0 ]
	done
done
printf 'testcase: failer\nrepeat: 1\nexec:\n  cmd: [sh, -c, "exit 3"]\n  parse: kv\n' > fail.yaml
run_perfbot 60 run fail.yaml --db "$SRC" --commit $A --no-monitors
check "a failed run: exit 1 (got $rc)" [ "$rc" -eq 1 ]
printf 'run,stat,value\n1,hb.throughput,100\n1,hb.time,2.5\n2,hb.throughput,110\n' > hb.csv
run_perfbot 30 import csv hb.csv --commit $A --job hb-pipe --testcase hb --db "$SRC"
check "import: exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
run_perfbot 30 results --db "$SRC" --json
cp "$SANDBOX/out" src.json
nsrc=$(python3 -c 'import json,sys; print(sum(g["runs_complete"]+g["runs_failed"]+g["runs_incomplete"]+g["runs_unsupported"] for g in json.load(open(sys.argv[1]))))' src.json)
check "FROM holds 15 runs (got $nsrc)" [ "$nsrc" -eq 15 ]
cp "$SRC" src-before.db

# ---- TO already holds another box's runs ----
run_perfbot 30 import csv hb.csv --commit $A --job hb-pipe --testcase hb --testbox otherbox --db "$PG"
check "another box's runs in TO: exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]

# groups of a results --json (no ids, no times: they are TO's), sorted
groups() {
	python3 -c '
import json, sys
for g in sorted(json.load(open(sys.argv[1])), key=lambda g: (g["testbox"], g["job"], g["commit"])):
    if g["testbox"] == "otherbox":
        continue
    k = g["kpi"] or {}
    print(g["testbox"], g["testcase"], g["job"], g["commit"], g["runs_complete"], g["runs_failed"],
          g["runs_incomplete"], k.get("name"), k.get("n"), k.get("mean"), k.get("stddev"))' "$1"
}

# ---- copy SQLite -> PostgreSQL ----
run_perfbot 60 db copy "$SRC" "$PG"
check "copy: exit 0, 15 copied, 0 already there (got $rc: $out $err)" bash -c '
	[ "$1" -eq 0 ] && grep -q "^15 copied, 0 already there (15 runs in " "$2"' _ "$rc" "$SANDBOX/out"
run_perfbot 30 results --db "$PG" --json
cp "$SANDBOX/out" pg.json
check "results --json: the same groups, counts and KPIs in both" diff <(groups src.json) <(groups pg.json)
check "TO keeps the other box's runs" bash -c 'python3 -c "
import json, sys
g = [g for g in json.load(open(sys.argv[1])) if g[\"testbox\"] == \"otherbox\"]
assert len(g) == 1 and g[0][\"runs_complete\"] == 2, g" "$1"' _ pg.json
run_perfbot 60 compare --db "$SRC" --json --all $A $B
cp "$SANDBOX/out" cmp-src.json; src_rc=$rc
run_perfbot 60 compare --db "$PG" --json --all $A $B
cp "$SANDBOX/out" cmp-pg.json
# every job, stat, count, number and verdict the same
check "compare A B: the same jobs, stats, numbers and verdicts from both (rc $src_rc, $rc)" bash -c '
	[ "$1" -eq 0 ] && [ "$2" -eq 0 ] && python3 -c "
import json, sys
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in (\"run_ids\", \"db\")}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
a, b = (strip(json.load(open(f))) for f in sys.argv[1:3])
assert a == b, (a, b)
assert \"one.score\" in json.dumps(a) or \"score\" in json.dumps(a), a" cmp-src.json cmp-pg.json' _ "$src_rc" "$rc"
run_perfbot 30 results --db "$PG" --testbox "$(hostname)" --testcase hb --json
imported_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["last_run_id"])' "$SANDBOX/out")
run_perfbot 30 results show "$imported_id" --db "$PG"
check "a copied run carries its origin (<store id>:<run id>)" \
	grep -qE '^ +store\.origin +[0-9a-f]{32}:[0-9]+$' "$SANDBOX/out"
run_perfbot 30 import csv hb.csv --commit $A --job hb-pipe --testcase hb --db "$PG"
check "the import hash went with the runs: TO refuses the file again (got $rc: $err)" bash -c '
	[ "$1" -ne 0 ] && grep -qi "imported already\|already imported" "$2"' _ "$rc" "$SANDBOX/err"
check "FROM is unchanged by the copy" cmp "$SRC" src-before.db

# ---- again: nothing ----
run_perfbot 60 db copy "$SRC" "$PG"
check "copy again: '0 copied, 15 already there' (got $rc: $out $err)" bash -c '
	[ "$1" -eq 0 ] && grep -q "^0 copied, 15 already there" "$2"' _ "$rc" "$SANDBOX/out"
run_perfbot 30 results --db "$PG" --json
check "copy again: TO unchanged" cmp pg.json "$SANDBOX/out"

# ---- PostgreSQL -> SQLite and back ----
run_perfbot 60 db copy "$PG" "$SANDBOX/rt.db"
check "PostgreSQL -> SQLite: exit 0, 17 copied (got $rc: $out $err)" bash -c '
	[ "$1" -eq 0 ] && grep -q "^17 copied, 0 already there" "$2"' _ "$rc" "$SANDBOX/out"
run_perfbot 30 results --db "$SANDBOX/rt.db" --json
check "the round trip reads as the PostgreSQL store" diff <(groups pg.json) <(groups "$SANDBOX/out")
run_perfbot 60 db copy "$SANDBOX/rt.db" "$PG"
check "copy of the copy back: '0 copied, 17 already there' (first origins kept) (got $out $err)" \
	grep -q "^0 copied, 17 already there" "$SANDBOX/out"
run_perfbot 60 db copy "$PG" "$SRC"
check "PostgreSQL -> the box: only the other box's 2 runs are new (got $out $err)" \
	grep -q "^2 copied, 15 already there" "$SANDBOX/out"

# ---- a copy killed mid-way, then run again ----
python3 -c '
print("run,stat,value")
for r in range(1, 401):
    for s in range(20):
        print(f"{r},big.s{s},{r * 20 + s}")' > big.csv
run_perfbot 60 import csv big.csv --commit $B --job big --testcase big --db "$SANDBOX/big.db"
check "a big FROM: 400 runs imported (got $rc: $err)" [ "$rc" -eq 0 ]
BIG=$(newdb big) || { echo "Bail out! createdb big"; exit 1; }
PERFBOT_TEST_COPY_DELAY_MS=100 "$PERFBOT" db copy "$SANDBOX/big.db" "$BIG" --batch 10 \
	>kill.out 2>kill.err &
pid=$!
sleep 1.5
kill -KILL $pid
wait $pid 2>/dev/null
run_perfbot 30 results --db "$BIG" --json
half=$(python3 -c 'import json,sys; print(sum(g["runs_complete"] for g in json.load(open(sys.argv[1]))))' "$SANDBOX/out" 2>/dev/null)
check "the killed copy left whole batches: some, not all (got ${half:-none})" bash -c '
	[ -n "$1" ] && [ "$1" -gt 0 ] && [ "$1" -lt 400 ] && [ $(( $1 % 10 )) -eq 0 ]' _ "$half"
run_perfbot 120 db copy "$SANDBOX/big.db" "$BIG" --batch 50
check "the copy run again finishes: $((400 - ${half:-0})) copied, ${half:-0} already there (got $rc: $out $err)" \
	grep -q "^$((400 - ${half:-0})) copied, ${half:-0} already there" "$SANDBOX/out"
run_perfbot 30 results --db "$BIG" --json
check "every run exactly once: 400 runs, the numbers of FROM" bash -c 'python3 -c "
import json, sys
g = json.load(open(sys.argv[1]))
assert len(g) == 1 and g[0][\"runs_complete\"] == 400, g" "$1"' _ "$SANDBOX/out"
run_perfbot 60 compare --db "$BIG" --json --job big $B $B
run_perfbot 60 results show 400 --db "$BIG" --json
check "the last run's values came whole" bash -c 'python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r[\"stats\"]) == 20, r[\"stats\"]" "$1"' _ "$SANDBOX/out"

# ---- bad input ----
run_perfbot 30 db copy "$SANDBOX/nosuch.db" "$SANDBOX/x.db"
check "FROM missing: exit 1, 'no results yet at' it, TO not made (got $rc: $err)" bash -c '
	[ "$1" -eq 1 ] && grep -qF "no results yet at $2" "$3" && [ ! -e "$4" ]' \
	_ "$rc" "$SANDBOX/nosuch.db" "$SANDBOX/err" "$SANDBOX/x.db"
: > "$SANDBOX/afile"
run_perfbot 30 db copy "$SRC" "$SANDBOX/afile/x.db"
check "TO cannot be made: exit 1, says why (got $rc: $err)" bash -c '
	[ "$1" -eq 1 ] && grep -q "afile" "$2"' _ "$rc" "$SANDBOX/err"
run_perfbot 30 db copy "$SRC" "$SANDBOX/../$(basename "$SANDBOX")/box.db"
check "FROM == TO (spelled otherwise): exit 2 (got $rc: $err)" bash -c '
	[ "$1" -eq 2 ] && grep -q "one store" "$2"' _ "$rc" "$SANDBOX/err"
run_perfbot 30 db copy "$PG" "$(echo "$PG" | sed 's|///perfbot|///perfbot|')&application_name=x"
check "FROM == TO (another URL of one database): exit 2, the store id said (got $rc: $err)" bash -c '
	[ "$1" -eq 2 ] && grep -q "one store (store id [0-9a-f]*)" "$2"' _ "$rc" "$SANDBOX/err"
url_pw="postgresql://perfbot:s3cret-pw@/nosuchdb?host=$PG_DIR"
run_perfbot 30 db copy "$SRC" "$url_pw"
check "a URL with a password: exit 1, masked (got $rc: $err)" bash -c '
	[ "$1" -eq 1 ] && grep -qF "postgresql://perfbot:***@/nosuchdb" "$2" &&
	! grep -q s3cret "$2" "$3"' _ "$rc" "$SANDBOX/err" "$SANDBOX/out"
run_perfbot 30 db copy "$SRC"
check "one store only: exit 2, usage (got $rc)" bash -c '
	[ "$1" -eq 2 ] && grep -q "usage: perfbot db copy" "$2"' _ "$rc" "$SANDBOX/err"
run_perfbot 30 db copy "$SRC" "$SANDBOX/y.db" --batch 0
check "--batch 0: exit 2 (got $rc)" [ "$rc" -eq 2 ]
run_perfbot 10 db --help
check "db --help: exit 0, every option" bash -c '
	[ "$1" -eq 0 ] && for o in copy --runs-only --batch; do grep -q -- "$o" "$2" || exit 1; done' \
	_ "$rc" "$SANDBOX/out"
run_perfbot 10 help
check "help lists db" grep -q '^   db ' "$SANDBOX/out"

pg_cluster_stop
left=$(for p in $(pgrep -x postgres); do
	grep -qF "$PG_TOP" "/proc/$p/cmdline" 2>/dev/null && echo "$p"; done)
check "the cluster stopped: no server process, its directory removed (left: $left)" \
	bash -c '[ -z "$1" ] && [ ! -e "$2" ]' _ "$left" "$PG_TOP"
check_nothing_left "t2530"
cd / || exit 1
finish
