#!/bin/bash
# A store is untrusted input (docs/store.md, "Untrusted store files"): a
# (run, stat) value row planted twice, and 100 copies of a real store with
# 5 random bytes changed each.  Readers give an answer or one clear line,
# exit 1; never a signal, a sanitizer report or a false "out of memory".
. "$(dirname "$0")/lib.sh"

cd "$SANDBOX" || exit 1
DB="$SANDBOX/s.db"

# two commits of one job, 4 runs x 40 stats; the KPI makes `results` read samples
python3 - <<'PY'
import random
r = random.Random(7)
for name, shift in (("a.csv", 0), ("b.csv", 60)):
    with open(name, "w") as f:
        f.write("run,stat,value\n")
        for run in range(1, 5):
            f.write(f"{run},hackbench.throughput,{1000 + shift + r.random() * 5}\n")
            for s in range(40):
                f.write(f"{run},s.stat{s:02d},{100 + r.random()}\n")
PY
ok_setup=true
"$PERFBOT" import csv a.csv --commit aaaa1111 --job j --testcase hb --db "$DB" >/dev/null || ok_setup=false
"$PERFBOT" import csv b.csv --commit bbbb2222 --job j --testcase hb --db "$DB" >/dev/null || ok_setup=false
check "setup: a store of 8 runs" $ok_setup
run_perfbot 10 compare --db "$DB" aaaa1111 bbbb2222
check "setup: the intact store compares" [ "$rc" -eq 0 ]

# (a) a duplicated value row, planted as an attacker would: stat_value
# again without its primary key
cp "$DB" dup.db
sqlite3 dup.db "PRAGMA foreign_keys = OFF;
	CREATE TABLE v2 (run_id INTEGER, name_id INTEGER, value REAL);
	INSERT INTO v2 SELECT * FROM stat_value; DROP TABLE stat_value;
	ALTER TABLE v2 RENAME TO stat_value;
	INSERT INTO stat_value SELECT * FROM stat_value WHERE run_id = 2 AND name_id = 3;
	PRAGMA journal_mode = DELETE;" >/dev/null
damaged() {
	[ "$rc" -eq 1 ] && [ "$(wc -l < "$SANDBOX/err")" -eq 1 ] &&
		grep -q "dup.db: the database is damaged: run 2 holds stat 3 twice" "$SANDBOX/err" ||
		{ diag "rc=$rc: $(head -c 300 "$SANDBOX/err")"; return 1; }
}
damaged_show() {
	[ "$rc" -eq 1 ] && grep -q "dup.db: the database is damaged: run 2 holds a stat twice" "$SANDBOX/err" ||
		{ diag "rc=$rc: $(head -c 300 "$SANDBOX/err")"; return 1; }
}
run_perfbot 10 results --db dup.db
check "duplicated row: results exits 1, the database is damaged" damaged
run_perfbot 10 results show 2 --db dup.db
check "duplicated row: results show 2 exits 1, the database is damaged" damaged_show
run_perfbot 10 results show 1 --db dup.db
check "duplicated row: results show 1 (intact run) still exits 0" [ "$rc" -eq 0 ]
run_perfbot 10 compare --db dup.db aaaa1111 bbbb2222
check "duplicated row: compare exits 1, the database is damaged" damaged
run_perfbot 10 report --format json --db dup.db aaaa1111 bbbb2222
check "duplicated row: report --format json exits 1, the database is damaged" damaged

# (b) 100 copies, 5 random bytes each; the seed reproduces a failure
seed=${T1700_SEED:-1700}
diag "seed $seed (rerun with T1700_SEED=$seed)"
mkdir -p fuzz
python3 - "$DB" fuzz "$seed" <<'PY'
import random, sys
src, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
r = random.Random(seed)
for i in range(100):
    b = bytearray(data)
    for _ in range(5):
        b[r.randrange(len(b))] = r.randrange(256)
    open(f"{out}/{i:03d}.db", "wb").write(b)
PY
bad=0 nanswer=0 nerror=0
for f in fuzz/*.db; do
	for cmd in "results" "compare aaaa1111 bbbb2222" "report --format json aaaa1111 bbbb2222"; do
		cp "$f" cur.db
		# shellcheck disable=SC2086
		run_perfbot 20 $cmd --db cur.db
		why=""
		if [ "$rc" -eq 0 ]; then
			[ -s "$SANDBOX/out" ] || why="exit 0 without output"
			nanswer=$((nanswer + 1))
		elif [ "$rc" -eq 1 ]; then
			[ "$(wc -l < "$SANDBOX/err")" -eq 1 ] && grep -q '^perfbot: ' "$SANDBOX/err" ||
				why="not one 'perfbot: ' line"
			nerror=$((nerror + 1))
		elif [ "$rc" -eq 2 ] && grep -q "^perfbot: [a-z]*: unknown commit '" "$SANDBOX/err"; then
			nerror=$((nerror + 1))	# a changed byte in a commit: not there
		else
			why="exit $rc"
		fi
		grep -qiE 'sanitizer|runtime error|allocate memory|out of memory' "$SANDBOX/err" &&
			why="${why:+$why, }a sanitizer report or a false reason"
		if [ -n "$why" ]; then
			bad=$((bad + 1))
			[ "$bad" -le 5 ] && diag "$f: $cmd: $why: $(head -c 400 "$SANDBOX/err")"
			# T1700_KEEP=DIR keeps the store that failed, to reproduce it
			[ -n "${T1700_KEEP:-}" ] && cp "$f" "$T1700_KEEP/"
		fi
	done
done
diag "$nanswer answers, $nerror clear errors"
check "100 damaged copies x results/compare/report: an answer or one clear line, exit 0/1" [ "$bad" -eq 0 ]
finish
