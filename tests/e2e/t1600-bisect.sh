#!/bin/bash
# perfbot bisect: a slowdown (BISECT_SLOWDOWN_PCT, CPU time) planted in 40 generated commits is named,
# with a confirmed change, every run it used stored once, nothing left
# behind; status, log and reset; bad usage stops before anything starts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

DB="$SANDBOX/results.db"
cd "$SANDBOX" || exit 1

make_bisect_repo repo 40 23 || { echo "Bail out! cannot make the repository"; exit 1; }
write_bisect_job job.yaml
head_before=$(git -C repo rev-parse HEAD)
diag "good $BISECT_GOOD, bad $BISECT_BAD, planted $BISECT_PLANTED ($BISECT_PLANTED_SUBJECT)"

run_perfbot 300 bisect start --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$DB" job.yaml
bisect_diag "bisect start"
check "start: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "start: names exactly the planted commit, with its subject" bash -c '
	[ "$(grep -c "^first bad commit: " "$1")" -eq 1 ] &&
	grep -qx "first bad commit: $2 $3" "$1"' _ "$SANDBOX/out" "$BISECT_PLANTED" "$BISECT_PLANTED_SUBJECT"
check "start: no merge named" bash -c '! grep -q "^merged by: " "$1"' _ "$SANDBOX/out"
check "start: progress on stderr" grep -q '^bisect ' "$SANDBOX/err"
pycheck "start: the progress line's candidates left never go back up" '
import re, sys
left = [int(n) for n, m in re.findall(r"(\d+) of (\d+) candidates left", open(sys.argv[1]).read())]
assert left, "no progress line"
assert all(b <= a for a, b in zip(left, left[1:])), left
' "$SANDBOX/err"
check "start: well within its deadline ($secs s < 120 s)" [ "$(echo "$secs < 120" | bc)" -eq 1 ]

bisect_status "$DB"
store_runs=$(bisect_store_runs "$DB")
diag "the store holds $store_runs complete runs of bisect-demo"
diag "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d.get("confirmation", {})
print("status %s, culprit p %s, runs %s, builds %s, %d commits touched, confirmation %s%% [%s, %s] p %s n %s/%s"
      % (d.get("status"), d.get("culprit", {}).get("probability"), d.get("runs"), d.get("builds"),
         len(d.get("commits", [])), c.get("pct"), c.get("low"), c.get("high"), c.get("p"),
         c.get("parent", {}).get("n"), c.get("culprit", {}).get("n")))' "$SANDBOX/status.json" 2>/dev/null ||
	echo "no status document")"
pycheck "status --json: found, the planted commit, p >= 0.99" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "found", d["status"]
assert isinstance(d["id"], (int, str)) and str(d["id"]), d["id"]
c = d["culprit"]
assert c["sha"] == sys.argv[2], c
assert c["subject"] == sys.argv[3], c
assert 0.99 <= c["probability"] <= 1, c
' "$SANDBOX/status.json" "$BISECT_PLANTED" "$BISECT_PLANTED_SUBJECT"
pycheck "status --json: confirmation: changed, slower by about $BISECT_SLOWDOWN_PCT% (0.4x..2x), interval above 0" '
import json, sys
c = json.load(open(sys.argv[1]))["confirmation"]
assert c["verdict"] == "changed", c
assert c["pct"] > 0 and c["low"] > 0, c
assert c["low"] <= c["pct"] <= c["high"], c
planted = float(sys.argv[2])
assert 0.4 * planted < c["pct"] < 2 * planted, (planted, c)
assert 0 <= c["p"] < 0.05, c
assert c["parent"]["n"] >= 2 and c["culprit"]["n"] >= 2, c
' "$SANDBOX/status.json" "$BISECT_SLOWDOWN_PCT"
# the confirmation judges the last runs of the culprit and its parent,
# taken alternately (the search's, when they alternate, and new ones up
# to 5 each), never runs of theirs taken apart: in the log's order of the
# runs, its runs are the last ones of the two, with no streak of one side
"$PERFBOT" bisect log --db "$DB" > log.txt 2>&1
pycheck "status --json: confirmation on the last runs of the two, 5 or more each, alternating" '
import json, re, sys
d = json.load(open(sys.argv[1]))
c = d["confirmation"]
p, q = c["parent"]["sha"][:12], c["culprit"]["sha"][:12]
pn, qn = c["parent"]["n"], c["culprit"]["n"]
assert pn >= 5 and qn >= 5, c
order = [m.group(1) for m in re.finditer(r"run \d+ ([0-9a-f]{12}): ", open(sys.argv[2]).read())
         if m.group(1) in (p, q)]
tail = order[-(pn + qn):]
assert tail.count(p) == pn and tail.count(q) == qn, (pn, qn, tail)
streak = longest = 1
for a, b in zip(tail, tail[1:]):
    streak = streak + 1 if a == b else 1
    longest = max(longest, streak)
assert longest <= 2, tail
for side in ("parent", "culprit"):
    # prog runs ~0.1 s: too short for /proc/stat jiffies, often unrecorded
    assert 0 <= c[side].get("others_cpu", 0) < 64, c[side]
assert not c.get("disturbed"), c
assert re.search(r"confirm %s against %s: changed, .* on %d \+ %d alternating runs" % (q, p, pn, qn),
                 open(sys.argv[2]).read()), "no confirm line"
' "$SANDBOX/status.json" log.txt
pycheck "status --json: runs = the complete runs in the store ($store_runs): none unused, none counted twice" '
import json, sys
d = json.load(open(sys.argv[1]))
runs, store = d["runs"], int(sys.argv[2])
if isinstance(runs, list):
    assert len(set(runs)) == len(runs), "a run counted twice"
    runs = len(runs)
assert runs == store, (runs, store)
assert store >= 6, store
' "$SANDBOX/status.json" "$store_runs"
pycheck "status --json: commits in order, the culprit and its parent measured" '
import json, sys
d = json.load(open(sys.argv[1]))
main = sys.argv[2].split()
planted = sys.argv[3]
commits = d["commits"]
assert commits, "no commits"
pos = {s: i for i, s in enumerate(main)}
for c in commits:
    assert c["sha"] in pos, ("not on main", c)
    assert c["state"] in ("measured", "skipped"), c
    assert c["state"] == "measured", ("nothing is broken here", c)
    assert c["n"] >= 1, c
order = [c["sha"] for c in sorted(commits, key=lambda c: c["index"])]
assert order == sorted(order, key=pos.get), "index is not the order along main"
byname = {c["sha"]: c for c in commits}
parent = main[pos[planted] - 1]
assert planted in byname and (parent in byname or parent == main[0]), (planted, parent)
' "$SANDBOX/status.json" "$BISECT_MAIN" "$BISECT_PLANTED"
pycheck "status --json: a bisection, not a scan: 2 <= builds <= 20 of 40 commits" '
import json, sys
b = json.load(open(sys.argv[1]))["builds"]
b = len(b) if isinstance(b, list) else b
assert 2 <= b <= 20, b
' "$SANDBOX/status.json"
pycheck "every measured commit has its runs in the store" '
import json, sys, subprocess
d = json.load(open(sys.argv[1]))
groups = json.loads(subprocess.run([sys.argv[2], "results", "--db", sys.argv[3], "--json"],
                                   capture_output=True, check=True).stdout)
have = {g["commit"]: g["runs_complete"] for g in groups if g["job"] == "bisect-demo"}
for c in d["commits"]:
    assert have.get(c["sha"], 0) >= c["n"], (c, have.get(c["sha"]))
' "$SANDBOX/status.json" "$PERFBOT" "$DB"
bisect_id=$(bisect_json "$SANDBOX/status.json" 'd["id"]' 2>/dev/null)

run_perfbot 60 bisect status --db "$DB"
check "status (text): exit 0, names the culprit" bash -c \
	'[ "$2" -eq 0 ] && grep -q "$3" "$1"' _ "$SANDBOX/out" "$rc" "${BISECT_PLANTED:0:7}"
run_perfbot 60 bisect status "${bisect_id:-1}" --db "$DB" --json
pycheck "status ID --json: the same bisection" '
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["id"] == b["id"] and a["culprit"] == b["culprit"] and a["runs"] == b["runs"], (a, b)
' "$SANDBOX/out" "$SANDBOX/status.json"
run_perfbot 60 bisect log --db "$DB"
check "log: exit 0, some lines" bash -c '[ "$2" -eq 0 ] && [ "$(wc -l < "$1")" -ge 3 ]' _ "$SANDBOX/out" "$rc"

check "the repository: only the main worktree" [ "$(git -C repo worktree list | wc -l)" -eq 1 ]
check "the repository: HEAD, branch and tree as they were" bash -c '
	[ "$(git -C repo rev-parse HEAD)" = "$1" ] &&
	[ "$(git -C repo symbolic-ref -q HEAD)" = refs/heads/main ] &&
	[ -z "$(git -C repo status --porcelain --ignored)" ] &&
	[ -z "$(git -C repo for-each-ref refs/bisect)" ]' _ "$head_before"
check_nothing_left "bisect start"

# report --bisect: the culprit, how sure, the evidence, in every format
id=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["id"])' "$SANDBOX/status.json")
run_perfbot 60 report --db "$DB" --bisect "$id" --format email --reported-by 'perfbot <bot@example.org>'
check "report --bisect email: exit 0" [ "$rc" -eq 0 ]
pycheck "report --bisect email: a message naming the culprit, its probability and the evidence" '
import email, sys
raw = open(sys.argv[1], "rb").read()
m = email.message_from_bytes(raw)
assert m["Subject"] == "[perfbot] %s: bisect-demo.time_ms +" % sys.argv[2][:10] + m["Subject"].split("+", 1)[1], m["Subject"]
assert m["Subject"].endswith(" regression"), m["Subject"]
body = m.get_payload()
assert sys.argv[2] in body, "culprit sha"
assert "How sure" in body and "Reported-by: perfbot <bot@example.org>" in body, body[:400]
assert all(len(l) <= 998 for l in raw.split(b"\n"))
' "$SANDBOX/out" "$BISECT_PLANTED"
run_perfbot 60 report --db "$DB" --bisect "$id" --format html
check "report --bisect html: one page with its plot" bash -c \
	'[ "$2" -eq 0 ] && head -c 15 "$1" | grep -q "<!DOCTYPE html>" && grep -q "<svg" "$1"' _ "$SANDBOX/out" "$rc"
run_perfbot 60 report --db "$DB" --bisect "$id" --format json
pycheck "report --bisect json: the stored result" '
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a == b, [k for k in a if a.get(k) != b.get(k)]
' "$SANDBOX/out" "$SANDBOX/status.json"
run_perfbot 60 report --db "$DB" --bisect 999 --format text
check "report --bisect of no bisection: exit 2, named" bash -c \
	'[ "$1" -eq 2 ] && grep -q "no bisection 999" "$2"' _ "$rc" "$SANDBOX/err"

bisect_check_reports "$DB" 1 found "found"

# a culprit its confirmation did not show is a suspect, exit 3: the same
# bisection, its confirmation's verdict made "unknown" in a copy
cp "$DB" suspect.db
python3 - suspect.db "$id" <<'PY' || not_ok "unconfirm the copy's result"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
r = json.loads(db.execute("SELECT result FROM bisect WHERE id = ?", (int(sys.argv[2]),)).fetchone()[0])
r["confirmation"]["verdict"] = "unknown"
db.execute("UPDATE bisect SET result = ? WHERE id = ?", (json.dumps(r), int(sys.argv[2])))
db.commit()
PY
run_perfbot 60 bisect resume "$id" --db suspect.db
check "resume, confirmation unknown: exit 3, a suspect (got $rc)" bash -c '[ "$1" -eq 3 ] &&
	grep -q "^not confirmed: bisect-demo.time_ms .*: unknown, on" "$2" &&
	grep -q "did not show the change: a suspect" "$2" && ! grep -q "^confirmed:" "$2"' \
	_ "$rc" "$SANDBOX/out"
run_perfbot 60 bisect resume "$id" --db "$DB"
check "resume, confirmation changed: exit 0, confirmed (got $rc)" bash -c '[ "$1" -eq 0 ] &&
	grep -q "^confirmed: bisect-demo.time_ms .*: changed, on" "$2" && ! grep -q suspect "$2"' \
	_ "$rc" "$SANDBOX/out"
run_perfbot 60 report --db suspect.db --bisect "$id" --format text
check "report --bisect of the suspect: says so" grep -q "treat this commit as a suspect" "$SANDBOX/out"

# reset: the bisection is marked reset; its runs stay in the store
run_perfbot 60 bisect reset --db "$DB"
check "reset: exit 0" [ "$rc" -eq 0 ]
bisect_status "$DB"
pycheck "reset: status reset" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "reset", d["status"]
' "$SANDBOX/status.json"
check "reset: the runs stay in the store" [ "$(bisect_store_runs "$DB")" = "$store_runs" ]

# bad usage: exit 2, the culprit named, nothing started
U="$SANDBOX/usage.db"
run_perfbot 30 bisect start --repo repo --bad "$BISECT_BAD" --db "$U" job.yaml
check "missing --good: exit 2 naming --good (got $rc)" bash -c \
	'[ "$2" -eq 2 ] && grep -q -- "--good" "$1"' _ "$SANDBOX/err" "$rc"
run_perfbot 30 bisect start --repo repo --good nosuchrev --bad "$BISECT_BAD" --db "$U" job.yaml
check "unknown revision: exit 2 naming it (got $rc)" bash -c \
	'[ "$2" -eq 2 ] && grep -q nosuchrev "$1"' _ "$SANDBOX/err" "$rc"
printf 'testcase: bisect-demo\nexec:\n  cmd: [./prog]\n  parse: xml\n' > bad.yaml
run_perfbot 30 bisect start --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" --db "$U" bad.yaml
check "job file error: exit 2 with file:line:col (got $rc)" bash -c \
	'[ "$2" -eq 2 ] && grep -q "bad.yaml:4:10: invalid parse .xml." "$1"' _ "$SANDBOX/err" "$rc"
run_perfbot 30 bisect start --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" --db "$U" nosuch.yaml
check "missing job file: exit 2 naming it (got $rc)" bash -c \
	'[ "$2" -eq 2 ] && grep -q "nosuch.yaml" "$1"' _ "$SANDBOX/err" "$rc"
check "bad usage: no database written, no worktree" bash -c \
	'[ ! -e "$1" ] && [ "$(git -C repo worktree list | wc -l)" -eq 1 ]' _ "$U"
check_nothing_left "bisect bad usage"
finish
