#!/bin/bash
# perfbot watch (issue 14): the robot on a generated repository whose
# branch is pushed between passes.  The first head is the baseline; ten
# pushed commits, one of which plants a 10% slowdown in two jobs, give
# exactly one report in the outbox -- naming the planted commit, with its
# confirmation, the tip column, the second job "In addition", a parseable
# RFC 5322 message; pushes without a change give no second report; ^C in
# the middle of a pass and a restart write no report twice and resume the
# bisection; a bad registry stops before anything starts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

cd "$SANDBOX" || exit 1

BISECT_SLOWDOWN_PCT=10
# 16 commits on main, the slowdown planted at 7
make_bisect_repo src 16 7 || { echo "Bail out! cannot make the repository"; exit 1; }
set -- $BISECT_MAIN
C=("" "$@")	# C[1] .. C[16]
diag "planted ${C[7]} ($BISECT_PLANTED_SUBJECT)"

# the watched repository: a clone whose main the test moves ("pushes")
git clone -q src repo || { echo "Bail out! cannot clone"; exit 1; }
push() { git -C repo update-ref refs/heads/main "$1"; }
push "${C[1]}"

write_bisect_job job.yaml
sed 's/bisect-demo/bisect-demo2/g' job.yaml > job2.yaml

cat > registry.yaml <<YAML
trees:
  - name: demo
    repo: repo
    branches: [main]
    jobs: [job.yaml, job2.yaml]
    max_age: 3000d          # the generated commits are dated 2023
report:
  outbox: outbox
  to: [author, perf@example.invalid]
  cc: [list@example.invalid]
  reported_by: perfbot <perfbot@example.invalid>
YAML

messages() { ls outbox/new 2>/dev/null | wc -l; }
watch() {
	local db=$1
	shift
	run_perfbot 900 watch --db "$db" --once "$@"
	diag "watch: exit $rc in $secs s; $(grep -E 'perfbot watch: ' "$SANDBOX/err" | sed 's/^[^ ]* perfbot watch: //' | grep -Ev '^bisect [0-9]+: run ' | tr '\n' '|' | cut -c1-1500)"
}

# ---- bad registries: exit 2 with the position, nothing started ----
printf 'trees:\n  - name: demo\n    repo: repo\n    branchs: [main]\n    jobs: [job.yaml]\n' > bad.yaml
run_perfbot 30 watch --db "$SANDBOX/bad.db" --once bad.yaml
check "a misspelt key: exit 2, file:line:column, did you mean" \
	bash -c '[ "$1" -eq 2 ] && grep -q "bad.yaml:4:5" <<<"$2" && grep -q "branches" <<<"$2"' _ "$rc" "$err"
check "a bad registry stored nothing" [ ! -e "$SANDBOX/bad.db" ]
run_perfbot 30 watch check registry.yaml
check "watch check: exit 0, the registry resolved" bash -c '[ "$1" -eq 0 ] && grep -q "name: demo" <<<"$2"' _ "$rc" "$out"
printf 'testcase: bisect-demo\nexec:\n  cmd: [./prog]\n  parse: kv\n  warmup: lots\n' > badjob.yaml
sed 's/jobs: \[job.yaml, job2.yaml\]/jobs: [badjob.yaml]/' registry.yaml > badjobs.yaml
run_perfbot 30 watch check badjobs.yaml
check "watch check: a job file that would not run: exit 2, its file:line:column" \
	bash -c '[ "$1" -eq 2 ] && grep -q "badjob.yaml:5:[0-9]*" <<<"$2"' _ "$rc" "$err"

DB="$SANDBOX/watch.db"

# ---- pass 1: the first head is the baseline ----
watch "$DB" registry.yaml
check "pass 1: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "pass 1: no report" [ "$(messages)" -eq 0 ]
check "pass 1: the head is the branch's first point" \
	bash -c '"$1" watch status --db "$2" | grep -q "demo/main  1 points, last ${3:0:12}"' _ "$PERFBOT" "$DB" "${C[1]}"

# ---- pass 2: ten commits pushed, one slows both jobs ----
push "${C[11]}"
watch "$DB" registry.yaml
cp "$SANDBOX/err" pass2.err
# the robot's decisions, whole (the diag above is cut at 1500 characters):
# what a wrong culprit would be explained by
diag "pass 2 decisions: $(grep -E 'alert [0-9]+|bisect [0-9]+: (baseline|found|confirm|level|[0-9]+ of [0-9]+ candidates)|changed|explains' pass2.err | grep -Ev 'bisect [0-9]+: run ' | sed 's/^[^ ]* perfbot watch: //' | tail -40 | tr '\n' '|')"
check "pass 2: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "pass 2: exactly one report" [ "$(messages)" -eq 1 ]
msg=$(ls outbox/new/* 2>/dev/null | head -1)
pycheck "pass 2: an RFC 5322 message naming the planted commit, to its author and the list" '
import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
for h in ("From", "To", "Subject", "Date", "Message-ID"):
    assert m[h], "no " + h
subj, planted = str(m["Subject"]), sys.argv[2]
assert planted[:10] in subj, subj
assert "regression" in subj and "bisect-demo" in subj, subj
assert "perf@example.invalid" in str(m["To"]) and "e2e@perfbot.invalid" in str(m["To"]), m["To"]
assert str(m["Cc"]) == "list@example.invalid", m["Cc"]
assert subj.startswith("[demo:main] "), subj
body = m.get_content()
assert ("commit: " + planted) in body, body[:600]
assert "Reported-by: perfbot <perfbot@example.invalid>" in body
' "$msg" "${C[7]}"
pycheck "pass 2: the tip column (the pushed head) and the parent, culprit, tip commits" '
import sys
body = open(sys.argv[1], encoding="utf-8", errors="replace").read()
parent, culprit, tip = sys.argv[2:5]
for sha in (parent, culprit, tip):
    assert sha[:10] in body, sha
' "$msg" "${C[6]}" "${C[7]}" "${C[11]}"
check "pass 2: the second job is in the same report (In addition), not a second mail" \
	bash -c 'grep -q "In addition to that" "$1" && grep -q "bisect-demo2" "$1"' _ "$msg"
check "pass 2: the report says how its runs were taken (interleaved)" grep -q "interleaved" "$msg"
check "pass 2: How sure: the bisection's P(first bad) and the confirmation against the parent" \
	bash -c 'grep -q "P(first bad)" "$1" && grep -q "confirmed against its parent ${2:0:12}" "$1"' _ "$msg" "${C[6]}"
check "pass 2: To reproduce names the repository and the commit" \
	bash -c 'grep -q -- "--repo .* --commit" "$1"' _ "$msg"
check "pass 2: one bisection, not two (the second job's change is explained by the culprit)" \
	[ "$(grep -c ': bisect [0-9]* of ' pass2.err)" -eq 1 ]

run_perfbot 30 alerts --db "$DB"
check "alerts: both alerts listed, reported, with the culprit and report 1" bash -c '
	[ "$(grep -c "reported .*culprit ${2:0:12} report 1" <<<"$1")" -eq 2 ]' _ "$out" "${C[7]}"
run_perfbot 30 alerts show 1 --db "$DB"
check "alerts show 1: the bisection and the message" bash -c '
	grep -q "^bisection  1" <<<"$1" && grep -q "^message    .*outbox/new/" <<<"$1"' _ "$out"
run_perfbot 30 alerts show 99 --db "$DB"
check "alerts show 99: exit 2, no such alert" bash -c '[ "$1" -eq 2 ] && grep -q "no alert 99" <<<"$2"' _ "$rc" "$err"

# ---- pass 3 and 4: pushes without a change ----
push "${C[14]}"
watch "$DB" registry.yaml
check "pass 3 (no change pushed): exit 0, no second report" bash -c '[ "$1" -eq 0 ] && [ "$2" -eq 1 ]' _ "$rc" "$(messages)"
push "${C[16]}"
watch "$DB" registry.yaml
check "pass 4 (no change pushed): no second report" [ "$(messages)" -eq 1 ]
check "pass 4: the head moved on" \
	bash -c '"$1" watch status --db "$2" | grep -q "demo/main  4 points, last ${3:0:12}"' _ "$PERFBOT" "$DB" "${C[16]}"
watch "$DB" registry.yaml
check "pass 5 (nothing pushed): nothing measured, no report" \
	bash -c '[ "$1" -eq 0 ] && ! grep -q "measured" "$2" && [ "$3" -eq 1 ]' _ "$rc" "$SANDBOX/err" "$(messages)"

# ---- ^C in the middle of a pass, and a restart ----
DB2="$SANDBOX/watch2.db"
rm -rf outbox2
sed 's|outbox: outbox|outbox: outbox2|' registry.yaml > registry2.yaml
push "${C[1]}"
watch "$DB2" registry2.yaml
cp "$SANDBOX/err" base2.err
push "${C[11]}"
"$PERFBOT" watch --db "$DB2" --once registry2.yaml > int.out 2> int.err &
pid=$!
wait_for 'grep -q ": bisect [0-9]* of " int.err || ! kill -0 $pid 2>/dev/null' 600 0.2
sleep 1
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
check "^C: exit 130 (got $rc)" [ "$rc" -eq 130 ]
check "^C: no report yet" [ "$(ls outbox2/new 2>/dev/null | wc -l)" -eq 0 ]
check "^C: no worktree left" [ "$(git -C repo worktree list | wc -l)" -eq 1 ]
run_perfbot 900 watch --db "$DB2" --once registry2.yaml
cp "$SANDBOX/err" resumed.err
check "restart: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "restart: exactly one report" [ "$(ls outbox2/new 2>/dev/null | wc -l)" -eq 1 ]
# (a second bisection, of alert 2, is right only when the first one's
# culprit was refused by its confirmation: a noisy machine once made it so)
check "restart: the bisection went on (the same one), not a second of the same change" \
	bash -c '[ "$(sqlite3 "$1" "SELECT count(*) FROM bisect WHERE json_extract(spec, '"'\$.metric'"') = '"'bisect-demo.time_ms'"'")" -eq 1 ] &&
		grep -q "alert 1: bisect 1 of" "$2" &&
		{ [ "$(sqlite3 "$1" "SELECT count(*) FROM bisect")" -eq 1 ] || grep -q "alert 1: bisect 1 named .*, refused" "$2"; }' \
	_ "$DB2" resumed.err
diag "restart decisions: $(grep -E 'alert [0-9]+|bisect [0-9]+: (baseline|found|confirm|level|undecided|the baseline)|explains|refused' resumed.err | grep -Ev 'bisect [0-9]+: run ' | sed 's/^[^ ]* perfbot watch: //' | tail -20 | tr '\n' '|')"
# every complete run stored was reported by one of the three invocations,
# once: the restart added to what the cut pass stored
printed=$(cat base2.err int.err resumed.err | grep -oE '(^run |: run )[0-9]+' | grep -oE '[0-9]+$' | sort -un | wc -l)
stored=$(sqlite3 "$DB2" "SELECT count(*) FROM runs WHERE status = 'complete'")
check "restart: the complete runs stored ($stored) are the runs the three invocations reported ($printed)" \
	[ "$stored" -eq "$printed" ]
run_perfbot 300 watch --db "$DB2" --once registry2.yaml
check "restart again: no report written twice" [ "$(ls outbox2/new 2>/dev/null | wc -l)" -eq 1 ]

# ---- a tree given by url: fetched into its mirror ----
cat > registry3.yaml <<YAML
trees:
  - name: remote
    url: file://$SANDBOX/src
    repo: mirror.git
    branches: [main]
    jobs: [job.yaml]
    max_age: 3000d
report:
  outbox: outbox3
YAML
run_perfbot 300 watch --db "$SANDBOX/watch3.db" --once registry3.yaml
check "url: exit 0, the mirror cloned, main's head the first point" bash -c '
	[ "$1" -eq 0 ] && [ -d mirror.git ] &&
	"$2" watch status --db "$3" | grep -q "remote/main  1 points, last ${4:0:12}"' _ "$rc" "$PERFBOT" "$SANDBOX/watch3.db" "${C[16]}"

# ---- as a service: SIGTERM ends the loop with exit 0 ----
"$PERFBOT" watch --db "$DB" registry.yaml > svc.out 2> svc.err &
pid=$!
wait_for 'grep -q "watching 1 tree" svc.err || ! kill -0 $pid 2>/dev/null' 60 0.2
sleep 0.5
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
check "SIGTERM: the service exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "SIGTERM: says so, with a timestamp" \
	grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z perfbot watch: SIGTERM' svc.err

check_nothing_left "perfbot watch"
finish
