#!/bin/bash
# Hostile names (issue 10: points 2, 3, 8): '../', '/', newline, ESC, BEL,
# CR, invalid UTF-8 and <script> through job split, import, run, compare,
# report and results.  Files stay under -o DIR, a planted symlink is not
# written through, JSON is valid, HTML is valid UTF-8, terminal output has
# no raw control byte, and a store holding bad bytes (planted with sqlite3,
# as an old database would) still gives valid output with the stat in it.
. "$(dirname "$0")/lib.sh"

cd "$SANDBOX" || exit 1
db="$SANDBOX/results.db"

# raw_controls FILE: exit 0 when FILE has no control byte but \n and \t
no_raw_controls() {
	python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
bad = [b for b in d if (b < 0x20 and b not in (9, 10)) or b == 0x7f]
sys.exit(1 if bad else 0)' "$1"
}
json_ok() { python3 -m json.tool "$1" >/dev/null 2>&1; }
utf8_ok() { python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8", "strict")' "$1" 2>/dev/null; }

# ---- job split -o DIR ----
mkdir -p split/a/b/dir
printf 'testcase: "../../x"\nexec:\n  cmd: [true]\n' > dots.yaml
run_perfbot 10 job split dots.yaml -o split/a/b/dir
check "split: '../../x' is written (rc $rc)" [ "$rc" -eq 0 ]
check "split: nothing escapes DIR" bash -c \
	'[ ! -e split/a/x.yaml ] && [ ! -e split/x.yaml ] && [ ! -e x.yaml ] &&
	 [ "$(find split -type f | wc -l)" -eq 1 ] &&
	 [ "$(find split -type f)" = "split/a/b/dir/.._.._x.yaml" ]'

printf 'testcase: "a/b\\nc\\e]0;pwn\\a\\rd<script>"\nruntime: [1s, 2s]\nexec:\n  cmd: [true]\n' > ctl.yaml
run_perfbot 10 job split ctl.yaml
check "split stream: exit 0 (rc $rc)" [ "$rc" -eq 0 ]
check "split stream: one '--- #' line per job (2)" [ "$(grep -c '^--- # ' out)" -eq 2 ]
check "split stream: no raw control byte" no_raw_controls out
check "split stream: each document loads back (testcase line intact)" \
	[ "$(grep -c '^testcase: ' out)" -eq 2 ]
mkdir -p ctldir
run_perfbot 10 job split ctl.yaml -o ctldir
check "split -o: control characters in the name become '_'" bash -c \
	'[ "$(ls ctldir | wc -l)" -eq 2 ] && ! ls ctldir | LC_ALL=C grep -q "[[:cntrl:]]"'
check "split -o: printed paths have no raw control byte" no_raw_controls out

printf 'testcase: victim\nexec:\n  cmd: [true]\n' > victim.yaml
mkdir -p trap
ln -s "$SANDBOX/target" trap/victim.yaml
run_perfbot 10 job split victim.yaml -o trap
check "split -o: a planted symlink is refused, exit 1 (rc $rc)" [ "$rc" -eq 1 ]
check "split -o: ... and not written through" [ ! -e "$SANDBOX/target" ]
check "split -o: the error names the file" grep -q 'trap/victim.yaml' err
run_perfbot 10 job split victim.yaml -o trap2
run_perfbot 10 job split victim.yaml -o trap2
check "split -o: a regular file of the same name is replaced (rc $rc)" \
	[ "$rc" -eq 0 -a -f trap2/victim.yaml ]
printf 'testcase: ".."\nexec:\n  cmd: [true]\n' > dotdot.yaml
run_perfbot 10 job split dotdot.yaml -o dd
check "split -o: a name '..' is an error naming the job file (rc $rc)" \
	bash -c '[ "$1" -eq 2 ] && grep -q "dotdot.yaml: atomic job name \"..\"" err && [ ! -e dd ]' _ "$rc"

# ---- import ----
printf 'run,stat,value\n0,ok.stat,1\n0,"foo\377",2\n' > bad-utf8.csv
run_perfbot 10 import csv bad-utf8.csv --commit c1 --job j1 --db "$db"
check "import csv: invalid UTF-8 refused, exit 1 (rc $rc)" [ "$rc" -eq 1 ]
check "import csv: the error names file:line and the name escaped" \
	grep -qF 'bad-utf8.csv:3: stat name "foo\377" is not valid UTF-8' err
check "import csv: the error is one line" [ "$(wc -l < err)" -eq 1 ]
check "import csv: the error has no raw control byte" no_raw_controls err
printf 'run,stat,value\n0,"a\033[31mb",2\n' > esc.csv
run_perfbot 10 import csv esc.csv --commit c1 --job j1 --db "$db"
check "import csv: ESC refused, exit 1, shown as \\033 (rc $rc)" \
	bash -c '[ "$1" -eq 1 ] && grep -qF "esc.csv:2: stat name \"a\\033[31mb\" contains a control character" err' _ "$rc"
echo '{"ok.stat": [1], "bel\u0007": [2]}' > bel.json
run_perfbot 10 import lkp-matrix bel.json --commit c1 --job j1 --db "$db"
check "import lkp-matrix: BEL refused, exit 1 (rc $rc)" \
	bash -c '[ "$1" -eq 1 ] && grep -qF "stat name \"bel\\a\" contains a control character" err' _ "$rc"
run_perfbot 10 import lkp-matrix bel.json --commit c1 --job "$(printf 'j\377')" --db "$db"
check "import --job with invalid UTF-8 refused, exit 1 (rc $rc)" [ "$rc" -eq 1 ]
check "nothing was stored by the refused imports" [ ! -e "$db" ] ||
	[ "$(sqlite3 "$db" 'SELECT count(*) FROM runs')" -eq 0 ]

# names the rule allows: '<script>', '/', '..', non-ASCII -- stored as they are
for c in base new; do
	v=1; [ $c = new ] && v=2
	printf 'run,stat,value\n' > $c.csv
	for r in 0 1 2 3; do
		printf '%s,<script>alert(1)</script>,%s%s\n%s,../../etc/passwd,%s\n%s,caf\303\251.ops,%s\n' \
			$r $v $r $r $v $r $v >> $c.csv
	done
	run_perfbot 10 import csv $c.csv --commit $c --job '<b>job</b>' --testcase tc --db "$db"
	check "import csv of names the rule allows ($c, rc $rc)" [ "$rc" -eq 0 ]
done

# ---- run: an exec job printing hostile stat names ----
cat > kv.yaml <<'YAML'
testcase: hostile
repeat: 1
exec:
  cmd: [printf, "good: 1\\nba\\033]0;x\\ad: 2\\nin\\377v: 3\\n<script>: 4\\ncr\\rx: 5\\n"]
  parse: kv
YAML
run_perfbot 60 run kv.yaml --db "$db"
check "run: an exec job printing bad stat names completes (rc $rc)" [ "$rc" -eq 0 ]
id=$(sqlite3 "$db" "SELECT max(id) FROM runs WHERE testcase = 'hostile'")
run_perfbot 10 results show "$id" --db "$db" --json
cp out show.json
check "run: results show --json is valid JSON" json_ok show.json
check "run: the good stats are kept" \
	python3 -c 'import json,sys; s = json.load(open("show.json"))["stats"]; sys.exit(0 if "hostile.good" in s and "hostile.<script>" in s else 1)'
check "run: the dropped names are recorded in env parse.dropped" \
	python3 -c 'import json,sys; e = json.load(open("show.json"))["env"]; sys.exit(0 if "dropped 2 stats" in e.get("parse.dropped", "") else 1)'
printf 'testcase: "t\\e[31m"\nrepeat: 1\nexec:\n  cmd: [true]\n' > badtc.yaml
run_perfbot 10 run badtc.yaml --db "$db"
# "cr\rx" is a name with a blank: it becomes cr_x, as blanks do (exec-parsers.md)
check "run: a CR in a kv name becomes '_'" \
	python3 -c 'import json,sys; sys.exit(0 if "hostile.cr_x" in json.load(open("show.json"))["stats"] else 1)'
check "run: a testcase with ESC is refused before running, exit 2 (rc $rc)" \
	bash -c '[ "$1" -eq 2 ] && grep -qF "testcase \"t\\033[31m\" contains a control character" err' _ "$rc"
check "run: ... on one line" [ "$(wc -l < err)" -eq 1 ]
check "run: ... without raw control bytes" no_raw_controls err

# ---- long names: whole where they are data, marked where they are cut ----
long=$(printf 'c%.0s' $(seq 400))
run_perfbot 60 run kv.yaml --db "$db" --commit "$long"
check "run --commit of 400 bytes: exit 0 (rc $rc)" [ "$rc" -eq 0 ]
check "run --commit of 400 bytes: recorded whole" \
	[ "$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE \"commit\" = '$long'")" -eq 1 ]
# a name over 4096 bytes of 2-byte characters: dropped, its quoted head cut
# between characters, so the warning (and the run) can be stored; the 'x'
# puts a character across byte 200 of '"longname.x...'
cat > longname.yaml <<'YAML'
testcase: longname
repeat: 1
exec:
  cmd: [python3, -c, "print('ok: 1'); print('x' + '\\u00e9' * 2100 + ': 2')"]
  parse: kv
YAML
run_perfbot 60 run longname.yaml --db "$db"
check "run: a dropped 4,200-byte name of 2-byte characters: stored (rc $rc)" [ "$rc" -eq 0 ]
id=$(sqlite3 "$db" "SELECT max(id) FROM runs WHERE testcase = 'longname'")
run_perfbot 10 results show "$id" --db "$db" --json
cp out longname.json
check "run: parse.dropped quotes the name's head, marked '...'" \
	python3 -c 'import json,sys; e = json.load(open("longname.json"))["env"]["parse.dropped"]
sys.exit(0 if "dropped 1 stat" in e and "\u00e9... is longer than 4096 bytes" in e else 1)'

# ---- plant bad bytes directly, as an old database would hold them ----
sqlite3 "$db" "UPDATE stat_name SET name = CAST(X'6261641b5b33316dff07' AS TEXT) || '.ops' WHERE name = 'café.ops';
UPDATE runs SET job = CAST(X'3c623e6a6f623c2f623eff0d' AS TEXT) WHERE job = '<b>job</b>';
UPDATE run_env SET value = CAST(X'ff1b5d' AS TEXT) WHERE key = 'imported_from';"

run_perfbot 10 results --db "$db"
check "results (text) on planted bytes: exit 0 (rc $rc)" [ "$rc" -eq 0 ]
check "results (text): no raw control byte" no_raw_controls out
check "results (text): the job is shown escaped" grep -qF '"<b>job</b>\377\r"' out
run_perfbot 10 results --db "$db" --json
cp out results.json
check "results --json on planted bytes: exit 0, valid JSON (rc $rc)" \
	bash -c '[ "$1" -eq 0 ]' _ "$rc"
check "results --json: valid JSON" json_ok results.json
check "results --json: the job is there, bad bytes as U+FFFD" \
	python3 -c 'import json,sys; sys.exit(0 if any(g["job"] == "<b>job</b>\ufffd\r" for g in json.load(open("results.json"))) else 1)'
pid=$(sqlite3 "$db" "SELECT min(id) FROM runs WHERE testcase = 'tc' AND \"commit\" = 'base'")
run_perfbot 10 results show "$pid" --db "$db" --json
cp out rshow.json
check "results show --json on planted bytes: exit 0 (rc $rc)" [ "$rc" -eq 0 ]
check "results show --json: valid JSON with the planted stat (escaped)" \
	python3 -c 'import json,sys; s = json.load(open("rshow.json"))["stats"]; sys.exit(0 if "bad\x1b[31m\ufffd\x07.ops" in s and len(s) == 3 else 1)'
run_perfbot 10 results show "$pid" --db "$db"
check "results show (text): exit 0, no raw control byte (rc $rc)" \
	bash -c '[ "$1" -eq 0 ]' _ "$rc"
check "results show (text): no raw control byte" no_raw_controls out
check "results show (text): the planted stat shown quoted" grep -qF '"bad\033[31m\377\a.ops"' out

run_perfbot 10 compare base new --db "$db" --all
check "compare on planted bytes: exit 0 (rc $rc)" [ "$rc" -eq 0 ]
check "compare: no raw control byte" no_raw_controls out
check "compare: the planted stat is a row" grep -qF '"bad\033[31m\377\a.ops"' out
run_perfbot 10 compare base new --db "$db" --all --json
cp out compare.json
check "compare --json: valid JSON (rc $rc)" json_ok compare.json
check "compare --json: the planted stat and job, bad bytes as U+FFFD" \
	python3 -c 'import json,sys; j = json.load(open("compare.json"))["jobs"][0]
sys.exit(0 if j["job"] == "<b>job</b>\ufffd\r" and any(r["name"] == "bad\x1b[31m\ufffd\x07.ops" for r in j["rows"]) else 1)'


for fmt in text email html json; do
	# --all: every row, and the email although no KPI changed
	run_perfbot 10 report --db "$db" --format $fmt --all base new
	cp out report.$fmt
	check "report --format $fmt on planted bytes: exit 0 (rc $rc)" [ "$rc" -eq 0 ]
	check "report --format $fmt: the planted stat is in it" \
		grep -q 'bad.*31m.*ops' report.$fmt
done
check "report text: no raw control byte" no_raw_controls report.text
check "report email: no raw control byte" no_raw_controls report.email
check "report email: parses, headers single-line" python3 -c '
import email, sys
m = email.message_from_bytes(open("report.email", "rb").read())
sys.exit(0 if m["Subject"] and "\n" not in m["Subject"] and m.get_payload() else 1)'
check "report html: valid UTF-8" utf8_ok report.html
check "report html: <script> is escaped" bash -c \
	'! grep -q "<script>alert" report.html && grep -qF "&lt;script&gt;alert(1)&lt;/script&gt;" report.html'
check "report html: no raw control byte" no_raw_controls report.html
check "report json: valid JSON" json_ok report.json
check "report json: the planted stat, bad byte as U+FFFD" \
	python3 -c 'import json,sys; d = json.load(open("report.json"))
sys.exit(0 if any(r["name"] == "bad\x1b[31m\ufffd\x07.ops" for j in d["jobs"] for r in j["rows"]) else 1)'

check_nothing_left "hostile names"
finish
