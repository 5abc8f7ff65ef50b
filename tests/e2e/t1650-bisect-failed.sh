#!/bin/bash
# perfbot bisect: a bisection that fails -- its good commit does not build,
# or its job fails on every commit -- is stored as failed with the reason:
# status names the state and why, with no empty field; report --bisect
# works in every format; a reset one too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

cd "$SANDBOX" || exit 1
# nothing here is measured: little work per commit
BISECT_WORK_ITERS=1000000 make_bisect_repo repo 10 99 --broken 2 ||
	{ echo "Bail out! cannot make the repository"; exit 1; }
write_bisect_job job.yaml

# 1. the good commit does not build
DB="$SANDBOX/nobuild.db"
run_perfbot 120 bisect start --repo repo --good "$BISECT_BROKEN" --bad "$BISECT_BAD" \
	--db "$DB" job.yaml
bisect_diag "bisect start (good does not build)"
check "good does not build: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "good does not build: one error line naming the good commit and the build" \
	bash -c 'grep -q "^perfbot: bisect: the good commit ${2:0:12} cannot be measured: build failed" "$1"' \
	_ "$SANDBOX/err" "$BISECT_BROKEN"
bisect_check_reports "$DB" 1 failed "good does not build"
check "good does not build: status says why (the build)" \
	grep -q "^  why: the good commit ${BISECT_BROKEN:0:12} cannot be measured: build failed" "$SANDBOX/status.txt"
check "good does not build: the reason is not repeated or cut" bash -c \
	'[ "$(grep -o "cannot be measured" "$1" | wc -l)" -eq 1 ] && ! grep -q ": og: " "$1"' _ "$SANDBOX/status.txt"
check "good does not build: the text report says why" \
	grep -q "^why: the good commit ${BISECT_BROKEN:0:12} cannot be measured: build failed" "$SANDBOX/report.text"
check "good does not build: the email says it failed, and why" bash -c \
	'grep -q "failed\." "$1" && grep -q "cannot be measured: build failed" "$1"' _ "$SANDBOX/report.email"
check "good does not build: the html report says why" grep -q "cannot be measured: build failed" "$SANDBOX/report.html"
bisect_status "$DB" 1
pycheck "good does not build: status --json: failed, the reason, both commits" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "failed", d["status"]
assert "cannot be measured: build failed" in d["message"], d["message"]
assert d["good"]["sha"] == sys.argv[2] and d["bad"]["sha"] == sys.argv[3], (d["good"], d["bad"])
assert d["repo"] and d["job_path"], d
' "$SANDBOX/status.json" "$BISECT_BROKEN" "$BISECT_BAD"
check "good does not build: only the main worktree left" [ "$(git -C repo worktree list | wc -l)" -eq 1 ]

# a reset failed bisection: status and reports still work, and say reset
run_perfbot 60 bisect reset 1 --db "$DB"
check "reset of the failed bisection: exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
bisect_check_reports "$DB" 1 reset "reset after failing"

# 2. the job fails on every commit
sed 's|^  cmd: \[\./prog\]|  cmd: [sh, -c, "exit 3"]|' job.yaml > fails.yaml
DB="$SANDBOX/jobfails.db"
run_perfbot 120 bisect start --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$DB" fails.yaml
bisect_diag "bisect start (the job fails)"
check "job fails: exit 1 (got $rc)" [ "$rc" -eq 1 ]
bisect_check_reports "$DB" 1 failed "job fails"
check "job fails: status says why (the benchmark's exit status)" \
	grep -q "^  why: the good commit ${BISECT_GOOD:0:12} cannot be measured: the benchmark failed (run 1: warm-up run 1 of 1: exit status 3)" \
	"$SANDBOX/status.txt"
check "job fails: the text report says why" \
	grep -q "^why: .*the benchmark failed (run 1: warm-up run 1 of 1: exit status 3)" "$SANDBOX/report.text"
pycheck "job fails: report json holds the reason" '
import json, sys
d = json.load(open(sys.argv[1]))
assert "exit status 3" in d["message"], d["message"]
' "$SANDBOX/report.json"
check "job fails: only the main worktree left" [ "$(git -C repo worktree list | wc -l)" -eq 1 ]

# a resume of a failed bisection fails again the same way, and says so
run_perfbot 120 bisect resume 1 --db "$DB"
check "resume of the failed bisection: exit 1, the same reason (got $rc)" bash -c \
	'[ "$2" -eq 1 ] && grep -q "exit status 3" "$1"' _ "$SANDBOX/err" "$rc"
bisect_check_reports "$DB" 1 failed "job fails, resumed"
check_nothing_left "failed bisections"
finish
