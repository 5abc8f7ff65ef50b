#!/bin/bash
# perfbot report across machines (issue 16 item 6, docs/report.md "Several
# test boxes"): one store with the runs of three test boxes, each with its
# own test machine line (perfbot import --machine), of the same commits.
# Box 1's KPI changed most: the email's headline is box 1's; box 2's change
# is in the "In addition to that" table with box 2's machine line and
# parameters; box 3, unchanged, is not listed; runs of one box are never
# compared with another's (the same job on each box has very different
# values, and a job that ran on box 2 at the base and on box 3 at the other
# commit is no job of the report); text, json and html name each job's box
# and machine line.  --testbox and --headline-testbox choose
# the box.  The same report from a PostgreSQL copy (perfbot db copy; a
# throw-away cluster, skipped when none can start) is the same text.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg-lib.sh"

cd "$SANDBOX" || exit 1
db="$SANDBOX/fleet.db"
A=aaaa000000000000000000000000000000000001
B=bbbb000000000000000000000000000000000002
M1="112 threads Intel(R) Xeon(R) Platinum 8170 CPU @ 2.10GHz with 128G memory"
M2="88 threads Intel(R) Xeon(R) CPU E5-2699 v4 @ 2.20GHz with 64G memory"
M3="160 threads Intel(R) Xeon(R) CPU E7-8890 v4 @ 2.20GHz with 256G memory"

# matrix FILE MEAN: six runs of per_process_ops close to MEAN
matrix() {
	python3 -c 'import json, sys
m = float(sys.argv[1])
print(json.dumps({"will-it-scale.per_process_ops":
	[m * (1 + d) for d in (0, 0.001, -0.001, 0.0005, -0.0005, 0.0002)]}))' "$2" > "$1"
}
# imp FILE COMMIT JOB BOX MACHINE [--param K=V ...]
imp() {
	local f=$1 c=$2 j=$3 box=$4 m=$5
	shift 5
	"$PERFBOT" import lkp-matrix "$f" --commit "$c" --job "$j" --testbox "$box" \
		--machine "$m" --testcase will-it-scale --param mode=process \
		--param test=futex3 --param cpufreq_governor=performance "$@" \
		--db "$db" >/dev/null 2>"$SANDBOX/imp.err" || { cat "$SANDBOX/imp.err"; return 1; }
}

ok_imp=true
# box 1: +10%; box 2: twice box 1's values, +4%; box 3: thrice, unchanged
matrix b1a.json 1000;   matrix b1b.json 1100
matrix b2a.json 2000.5; matrix b2b.json 2080.5
matrix b3a.json 3000.2; matrix b3b.json 3000.3
imp b1a.json $A wis-futex3 box1 "$M1" --param nr_task=100% || ok_imp=false
imp b1b.json $B wis-futex3 box1 "$M1" --param nr_task=100% || ok_imp=false
imp b2a.json $A wis-futex3 box2 "$M2" --param nr_task=50% --param ucode=0xb00002e || ok_imp=false
imp b2b.json $B wis-futex3 box2 "$M2" --param nr_task=50% --param ucode=0xb00002e || ok_imp=false
imp b3a.json $A wis-futex3 box3 "$M3" --param nr_task=16 || ok_imp=false
imp b3b.json $B wis-futex3 box3 "$M3" --param nr_task=16 || ok_imp=false
# a job on box 2 at A and on box 3 at B only: 500 against 5000 between boxes
matrix x2.json 500.1; matrix x3.json 5000.1
imp x2.json $A wis-apart box2 "$M2" --param nr_task=50% || ok_imp=false
imp x3.json $B wis-apart box3 "$M3" --param nr_task=50% || ok_imp=false
check "setup: three boxes imported with their machine lines" $ok_imp

run_perfbot 30 results show 1 --db "$db"
check "import --machine: the run's env machine" grep -qF "$M1" "$SANDBOX/out"

# ---- the email: box 1's headline, box 2 in the table ----
run_perfbot 30 report --db "$db" --format email $A $B
check "email: exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
cp "$SANDBOX/out" "$SANDBOX/email.sqlite"
check "email: the headline is box 1's, the table box 2's only" python3 - "$SANDBOX/out" "$M1" "$M2" "$M3" <<'PY'
import email, re, sys
m1, m2, m3 = sys.argv[2:5]
m = email.message_from_bytes(open(sys.argv[1], 'rb').read())
assert m['Subject'] == '[perfbot] bbbb000000: will-it-scale.per_process_ops +10.0% improvement', m['Subject']
body = m.get_payload(decode=True).decode('utf-8')
head, sep, rest = body.partition('\nIn addition to that, the commit also has significant impact on the following tests:\n')
assert sep, 'no "In addition to that" table'
assert 'perfbot noticed a 10.0% improvement of will-it-scale.per_process_ops on:' in head
assert '\ntest machine: %s\n' % m1 in head, head
assert '\tnr_task: 100%\n' in head and 'ucode' not in head, head
table, sep, details = rest.partition('\nDetails are as below:\n')
assert sep
blocks = [b for b in table.strip().split('\n+') if '| testcase: change' in b]
assert len(blocks) == 1, table
b = blocks[0]
cells = [l.strip('| ').rstrip() for l in b.split('\n') if l.startswith('|')]
cells = [re.sub(r'\s*\|\s*', '|', c) for c in cells]
assert cells[0] == 'testcase: change|will-it-scale: will-it-scale.per_process_ops 4.0% improvement', cells
assert cells[1] == 'test machine|' + m2, cells
assert cells[2:] == ['test parameters|cpufreq_governor=performance', 'mode=process',
                     'nr_task=50%', 'test=futex3', 'ucode=0xb00002e'], cells
# box 3 did not change: not in the table (its runs are in the details)
assert m3 not in table and '160 threads' not in table
# never one box against another: no change but +10% and +4% anywhere
for pct in re.findall(r'[-+]\d+\.\d+%', body):
    assert pct in ('+10.0%', '+4.0%'), pct
assert 'wis-apart' not in body
PY

# ---- text: each job under its own box and machine line ----
run_perfbot 30 report --db "$db" --format text $A $B
check "text: exit 0" [ "$rc" -eq 0 ]
cp "$SANDBOX/out" "$SANDBOX/text.sqlite"
check "text: three jobs, one a box, each with its machine line" python3 - "$SANDBOX/out" "$M1" "$M2" "$M3" <<'PY'
import sys
t = open(sys.argv[1]).read()
jobs = t.split('\ntestbox: ')[1:]
assert [j.split('\n')[0] for j in jobs] == ['box1', 'box2', 'box3'], t
for j, m in zip(jobs, sys.argv[2:5]):
    assert '\ntest machine: %s\n' % m in j, j
assert '+10.0%' in jobs[0] and '+4.0%' in jobs[1] and 'no stat changed' in jobs[2]
assert 'wis-apart' not in t
PY

run_perfbot 30 report --db "$db" --format json $A $B
check "json: each job its testbox and machine" python3 - "$SANDBOX/out" "$M1" "$M2" "$M3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [(j['testbox'], j['machine']) for j in r['jobs']] == list(zip(['box1', 'box2', 'box3'], sys.argv[2:5]))
PY

run_perfbot 30 report --db "$db" --format html $A $B
check "html: a section a box, each with its testbox and machine" python3 - "$SANDBOX/out" "$M1" "$M2" "$M3" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
secs = h.split('<section>')[1:]
found = [(re.search(r'<dt>testbox</dt><dd>([^<]*)</dd>', s), re.search(r'<dt>machine</dt><dd>([^<]*)</dd>', s)) for s in secs]
found = [(t.group(1), m.group(1)) for t, m in found if t and m]
assert found == list(zip(['box1', 'box2', 'box3'], sys.argv[2:5])), found
PY

# ---- which box is the report's ----
run_perfbot 30 report --db "$db" --format email --testbox box2 $A $B
check "--testbox box2: box 2's headline, no table (only box 2's runs)" python3 - "$SANDBOX/out" "$M2" <<'PY'
import email, sys
m = email.message_from_bytes(open(sys.argv[1], 'rb').read())
assert m['Subject'].endswith('per_process_ops +4.0% improvement'), m['Subject']
body = m.get_payload(decode=True).decode('utf-8')
assert '\ntest machine: %s\n' % sys.argv[2] in body and 'In addition to that' not in body
assert 'testbox: box1' not in body
PY
run_perfbot 30 report --db "$db" --format email --headline-testbox box2 $A $B
check "--headline-testbox box2: box 2's headline, box 1's change in the table" python3 - "$SANDBOX/out" "$M1" "$M2" <<'PY'
import email, sys
m1, m2 = sys.argv[2:4]
m = email.message_from_bytes(open(sys.argv[1], 'rb').read())
assert m['Subject'].endswith('per_process_ops +4.0% improvement'), m['Subject']
body = m.get_payload(decode=True).decode('utf-8')
head, sep, rest = body.partition('\nIn addition to that')
assert sep and '\ntest machine: %s\n' % m2 in head, body
table = rest.partition('\nDetails are as below:\n')[0]
assert '10.0% improvement' in table and m1 in table and m2 not in table, table
PY
run_perfbot 30 report --db "$db" --format email --headline-testbox box3 $A $B
check "--headline-testbox box3 (unchanged): nothing to report, exit 0 ($err)" bash -c \
	'[ "$1" -eq 0 ] && [ ! -s "$2" ] && grep -q "nothing to report: no KPI changed on box3" "$3"' \
	_ "$rc" "$SANDBOX/out" "$SANDBOX/err"
run_perfbot 30 report --db "$db" --format email --headline-testbox nosuchbox $A $B
check "--headline-testbox of a box without runs: usage error ($err)" bash -c \
	'[ "$1" -eq 2 ] && grep -q "nosuchbox" "$2"' _ "$rc" "$SANDBOX/err"

# ---- the same report from PostgreSQL ----
pg_e2e_start
run_perfbot 60 db copy "$db" "$PG_URL"
check "db copy into PostgreSQL: exit 0 ($err)" [ "$rc" -eq 0 ]
run_perfbot 60 report --db "$PG_URL" --format text $A $B
check "PostgreSQL: the same text report" cmp -s "$SANDBOX/out" "$SANDBOX/text.sqlite"
run_perfbot 60 report --db "$PG_URL" --format email $A $B
# the Date and Message-ID are the moment's
check "PostgreSQL: the same email but for Date and Message-ID" bash -c \
	'diff <(grep -v "^\(Date\|Message-ID\): " "$1") <(grep -v "^\(Date\|Message-ID\): " "$2")' \
	_ "$SANDBOX/out" "$SANDBOX/email.sqlite"
finish
