#!/bin/bash
# --format csv|markdown and --stat PATTERN (issue 18, items 2 and 4): CSV
# reads back (Python's csv module) to the --json numbers, every Markdown
# row has the header's cells, a cell with '|', ',' or '"' round-trips,
# --stat filters compare, report and results show; bad values exit 2.
. "$(dirname "$0")/lib.sh"

export PERFBOT_DB="$SANDBOX/results.db"
job=will-it-scale-100%-thread-malloc1
odd='odd|name,"q"'
comma='comma,only'
cat > "$SANDBOX/base.json" <<'JSON'
{"will-it-scale.per_thread_ops": [1000, 1010, 990, 1005],
 "odd|name,\"q\"": [5.5, 5.6, 5.4, 5.5],
 "time.elapsed_time": [10, 10.1, 9.9, 10],
 "comma,only": [1, 1.1, 0.9, 1],
 "meminfo.Active": [100, 101, 99, 100]}
JSON
cat > "$SANDBOX/new.json" <<'JSON'
{"will-it-scale.per_thread_ops": [1200, 1210, 1190, 1205],
 "odd|name,\"q\"": [7.5, 7.6, 7.4, 7.5],
 "time.elapsed_time": [12, 12.1, 11.9, 12],
 "comma,only": [2, 2.1, 1.9, 2],
 "meminfo.Active": [100, 101, 99, 100.5]}
JSON
for c in base new; do
	"$PERFBOT" import lkp-matrix "$SANDBOX/$c.json" --commit $c --job "$job" \
		--testbox box1 >/dev/null || not_ok "import $c"
done

# csv_vs_json CSV JSON: every CSV row's numbers are the JSON's, and the
# rows are the JSON's shown rows (--all: every row); prints what differs
csv_vs_json() {
	python3 - "$1" "$2" "$3" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
doc = json.load(open(sys.argv[2]))
every = sys.argv[3] == 'all'
head, body = rows[0], rows[1:]
want = [r for j in doc['jobs'] for r in j['rows'] if every or r['shown']]
assert head[:5] == ['testbox', 'job', 'stat', 'unit', 'mean base'], head
assert head[5:] == ['%change new', 'mean new', 'verdict new'], head
assert [r[2] for r in body] == [r['name'] for r in want], ([r[2] for r in body], [r['name'] for r in want])
for got, r in zip(body, want):
    v = r['vs'][0]
    assert float(got[4]) == r['base']['mean'], (got, r['base'])
    assert float(got[5]) == v['mean_pct'], (got, v['mean_pct'])
    assert float(got[6]) == v['summary']['mean'], (got, v['summary'])
    assert got[7] == (v['words'] if every else v['words'].replace('changed  ', '')), (got, v['words'])
assert len(body) >= 3
PY
}

for all in "" --all; do
	run_perfbot 20 compare base new --format csv $all
	cp "$SANDBOX/out" "$SANDBOX/c.csv"
	check "compare --format csv $all: exit 0, nothing on stderr" \
		bash -c '[ "$1" -eq 0 ] && [ ! -s "$2" ]' _ "$rc" "$SANDBOX/err"
	run_perfbot 20 compare base new --json $all
	check "compare --format csv $all: the numbers and rows of --json" \
		csv_vs_json "$SANDBOX/c.csv" "$SANDBOX/out" "${all:+all}"
done
check "csv: the odd stats are one quoted field each that reads back whole" \
	python3 -c 'import csv,sys; n = [r[2] for r in csv.reader(open(sys.argv[1]))]; assert sys.argv[2] in n and sys.argv[3] in n, n' \
	"$SANDBOX/c.csv" "$odd" "$comma"

# md_cells MD: each row has the header's number of cells, the second line
# is the separator; prints the cells of the stat column, unescaped
md_cells() {
	python3 - "$1" <<'PY'
import html, re, sys
lines = open(sys.argv[1]).read().split('\n')
assert lines[-1] == '', 'no newline at the end'
lines = lines[:-1]
def cells(line):
    # as GitHub splits a row: at every '|' not escaped by a backslash
    assert line.startswith('| ') and line.endswith(' |'), line
    parts, cur, i = [], '', 1
    while i < len(line):
        if line[i] == '\\' and i + 1 < len(line):
            cur += line[i:i + 2]
            i += 2
            continue
        if line[i] == '|':
            parts.append(cur.strip())
            cur = ''
        else:
            cur += line[i]
        i += 1
    assert cur == '', line
    return [html.unescape(re.sub(r'\\(.)', r'\1', p).replace('<br>', '\n')) for p in parts]
head = cells(lines[0])
assert re.fullmatch(r'(\| ---:? )+\|', lines[1]), lines[1]
assert len(cells(lines[1])) == len(head)
for l in lines[2:]:
    assert len(cells(l)) == len(head), (l, head)
col = head.index('stat') if 'stat' in head else 0
for l in lines[2:]:
    print(cells(l)[col])
PY
}

run_perfbot 20 compare base new --format markdown --all
check "compare --format markdown: exit 0" [ "$rc" -eq 0 ]
md_cells "$SANDBOX/out" > "$SANDBOX/md-stats"
check "markdown: every row has the header's cells, then the separator" [ $? -eq 0 ]
check "markdown: '|', ',' and '\"' in a cell round-trip" bash -c \
	'grep -qxF "$2" "$1" && grep -qxF "$3" "$1"' _ "$SANDBOX/md-stats" "$odd" "$comma"
check "markdown: every stat with --all" [ "$(wc -l < "$SANDBOX/md-stats")" -eq 5 ]

# --stat: globs, repeated, any matches; in every format
run_perfbot 20 compare base new --format csv --stat 'will-it-scale.*' --stat 'time.*' --all
check "compare --stat twice: the two stats' rows" bash -c \
	'[ "$(python3 -c "import csv,sys; print(\" \".join(r[2] for r in list(csv.reader(open(sys.argv[1])))[1:]))" "$1")" = "will-it-scale.per_thread_ops time.elapsed_time" ]' \
	_ "$SANDBOX/out"
run_perfbot 20 compare base new --stat 'time.*'
check "compare --stat (text): only that row" bash -c \
	'grep -q "time.elapsed_time" "$1" && ! grep -q "per_thread_ops\|odd" "$1"' _ "$SANDBOX/out"
run_perfbot 20 compare base new --json --stat '*ops'
check "compare --stat --json: only the listed stats' rows" bash -c \
	'[ "$(jq -c "[.jobs[].rows[].name]" "$1")" = "[\"will-it-scale.per_thread_ops\"]" ]' _ "$SANDBOX/out"
run_perfbot 20 compare base new --stat 'nothing*' --format csv
check "compare --stat matching nothing: exit 0, said on stderr, header only" bash -c \
	'[ "$2" -eq 0 ] && grep -qF "no stat matches --stat nothing*" "$3" && [ "$(wc -l < "$1")" -eq 1 ]' \
	_ "$SANDBOX/out" "$rc" "$SANDBOX/err"

run_perfbot 20 report base new --stat 'time.*'
check "report --stat (text): only that row" bash -c \
	'grep -q "time.elapsed_time" "$1" && ! grep -q "^ .*per_thread_ops" "$1"' _ "$SANDBOX/out"
run_perfbot 20 report base new --format markdown --stat '*ops'
check "report --format markdown --stat: one row" bash -c \
	'[ "$2" -eq 0 ] && [ "$(wc -l < "$1")" -eq 3 ] && grep -q "per\\\\_thread\\\\_ops" "$1"' \
	_ "$SANDBOX/out" "$rc"
run_perfbot 20 report base new --format html --stat 'time.*'
check "report --format html --stat: the row listed, another changed stat's not" bash -c \
	'grep -q "time.elapsed_time" "$1" && ! grep -qF "odd|name" "$1"' _ "$SANDBOX/out"

run_perfbot 20 results show 1 --stat 'time.*' --stat 'odd*'
check "results show --stat: the two stats" bash -c \
	'grep -q "^stats (5, 2 shown)" "$1" && grep -q "time.elapsed_time" "$1" &&
	 grep -qF "odd|name" "$1" && ! grep -q "per_thread_ops\|meminfo" "$1"' _ "$SANDBOX/out"
run_perfbot 20 results show 1 --format csv
cp "$SANDBOX/out" "$SANDBOX/s.csv"
run_perfbot 20 results show 1 --json
check "results show --format csv: the --json stats, exactly" python3 -c '
import csv, json, sys
got = {r[0]: float(r[1]) for r in list(csv.reader(open(sys.argv[1])))[1:]}
assert got == json.load(open(sys.argv[2]))["stats"], got' "$SANDBOX/s.csv" "$SANDBOX/out"
run_perfbot 20 results --format csv
cp "$SANDBOX/out" "$SANDBOX/l.csv"
run_perfbot 20 results --json
check "results --format csv: the --json list's KPIs" python3 -c '
import csv, json, sys
got = list(csv.DictReader(open(sys.argv[1])))
want = json.load(open(sys.argv[2]))
assert len(got) == len(want) == 2
for g, w in zip(got, want):
    assert g["commit"] == w["commit"] and int(g["runs_complete"]) == w["runs_complete"]
    assert float(g["kpi_mean"]) == w["kpi"]["mean"], (g, w)
    assert float(g["kpi_stddev_pct"]) == w["kpi"]["stddev_pct"], (g, w)' "$SANDBOX/l.csv" "$SANDBOX/out"
run_perfbot 20 results --format markdown
check "results --format markdown: a table" md_cells "$SANDBOX/out"

# perfbot stat: a row per command and measure, the JSON's numbers
run_perfbot 60 stat -r 3 --format csv --vs 'sleep 0' -- true
cp "$SANDBOX/out" "$SANDBOX/st.csv"
check "stat --format csv: exit 0" [ "$rc" -eq 0 ]
python3 -c '
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
measures = ("elapsed_s", "user_s", "sys_s", "maxrss_kib")
times = [r for r in rows if r["measure"] in measures]
assert [(r["command"], r["measure"]) for r in times] == [(c, m) for c in ("true", "sleep 0")
	for m in measures], rows
assert all(int(r["n"]) == 3 and float(r["min"]) <= float(r["mean"]) <= float(r["max"]) for r in times), rows
# the events: counted (n, numbers) or said unavailable, never both
events = [r for r in rows if r["measure"] not in measures]
assert all((int(r["n"]) > 0) != (r["unavailable"] != "") for r in events), events
' "$SANDBOX/st.csv"
check "stat --format csv: each command's 4 measures over 3 runs, its events counted or unavailable" [ $? -eq 0 ]
run_perfbot 60 stat -r 3 --format markdown -- true
check "stat --format markdown: a table" md_cells "$SANDBOX/out"
bad "invalid --format 'xml': expected text, json, csv or markdown" stat --format xml -- true

# bench --sweep: the same table writer; --csv is --format csv
run_perfbot 60 bench getppid1 --sweep --max 2 -d 0.2 -i 0.1 -w 0 --format markdown
check "bench --sweep --format markdown: exit 0" [ "$rc" -eq 0 ]
check "bench --sweep --format markdown: a table of the 2 task counts" bash -c \
	'[ "$(sed -n 1p "$1")" = "| tasks | processes | processes\\_idle | threads | threads\\_idle | linear |" ] &&
	 [ "$(wc -l < "$1")" -eq 4 ] && ! grep -q scalability "$1"' _ "$SANDBOX/out"
md_cells "$SANDBOX/out" > /dev/null
check "bench --sweep --format markdown: every row has the header's cells" [ $? -eq 0 ]
run_perfbot 60 bench getppid1 --sweep --max 2 -d 0.2 -i 0.1 -w 0 -m thread --csv
check "bench --sweep --csv: runtest's CSV, a mode not run as empty fields" bash -c \
	'[ "$2" -eq 0 ] && [ "$(sed -n 1p "$1")" = "tasks,processes,processes_idle,threads,threads_idle,linear" ] &&
	 grep -Eq "^1,,,[0-9]+,[0-9]+\.[0-9]{2},[0-9]+$" "$1" && grep -Eq "^2,,,[0-9]+,[0-9]+\.[0-9]{2},[0-9]+$" "$1" &&
	 [ "$(wc -l < "$1")" -eq 3 ]' _ "$SANDBOX/out" "$rc"
bad "invalid format 'xml': expected text, csv or markdown" bench getppid1 --sweep --format xml

# bad values: exit 2, naming the value and what is accepted
bad() {
	local msg=$1
	shift
	run_perfbot 20 "$@"
	check "$* exits 2 naming the value" bash -c \
		'[ "$2" -eq 2 ] && grep -qF -- "$3" "$1"' _ "$SANDBOX/err" "$rc" "$msg"
}
bad "invalid --format 'xml': expected text, perf-stat, csv or markdown" compare base new --format xml
bad "invalid --format 'CSV': expected text, email, html, json, csv or markdown" report base new --format CSV
bad "invalid --format 'tsv': expected text, json, csv or markdown" results --format tsv
bad "invalid --stat '': expected a stat name or a glob" compare base new --stat ''
bad "invalid --stat '': expected a stat name or a glob" report base new --stat ''
bad "invalid --stat '': expected a stat name or a glob" results show 1 --stat ''
bad "--json and --format csv do not go together" compare base new --json --format csv
bad "--stat is for show" results --stat x

finish
