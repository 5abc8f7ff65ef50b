#!/bin/bash
# perfbot bisect run-step: one verdict on the checked-out commit for
# `git bisect run` (0 good, 1 bad, 125 skip, >= 128 error); git bisect run
# with it finds the planted slowdown.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

DB="$SANDBOX/results.db"
cd "$SANDBOX" || exit 1

make_bisect_repo repo 24 13 --broken 5 || { echo "Bail out! cannot make the repository"; exit 1; }
write_bisect_job "$SANDBOX/job.yaml"
diag "good $BISECT_GOOD, bad $BISECT_BAD, planted $BISECT_PLANTED, broken $BISECT_BROKEN"

t0=$(date +%s.%N)
git -C repo bisect start "$BISECT_BAD" "$BISECT_GOOD" >/dev/null &&
timeout -s KILL 600 git -C repo bisect run "$PERFBOT" bisect run-step \
	--baseline-good "$BISECT_GOOD" --baseline-bad "$BISECT_BAD" --db "$DB" "$SANDBOX/job.yaml" \
	>"$SANDBOX/git.out" 2>"$SANDBOX/git.err"
rc=$?
secs=$(echo "$(date +%s.%N) - $t0" | bc)
diag "git bisect run: exit $rc in $secs s"
diag "$(git -C repo bisect log | grep -v '^#')"
check "git bisect run: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "git bisect run: the planted commit is the first bad commit" \
	grep -q "^$BISECT_PLANTED is the first bad commit" "$SANDBOX/git.out" ||
	diag "$(tail -n 20 "$SANDBOX/git.out" "$SANDBOX/git.err")"
check "git bisect run: within its deadline ($secs s < 180 s)" [ "$(echo "$secs < 180" | bc)" -eq 1 ]
git -C repo bisect reset -q main >/dev/null 2>&1
pycheck "the runs are stored: the planted commit and the baselines" '
import json, subprocess, sys
groups = json.loads(subprocess.run([sys.argv[1], "results", "--db", sys.argv[2], "--json"],
                                   capture_output=True, check=True).stdout)
have = {g["commit"]: g["runs_complete"] for g in groups if g["job"] == "bisect-demo"}
for sha in sys.argv[3:]:
    assert have.get(sha, 0) >= 1, (sha, have)
' "$PERFBOT" "$DB" "$BISECT_PLANTED" "$BISECT_GOOD" "$BISECT_BAD"

# one step at a time, on the checkout --repo names
step() {
	git -C repo checkout -q "$1" || return 1
	run_perfbot 300 bisect run-step --repo repo --baseline-good "$BISECT_GOOD" \
		--baseline-bad "$BISECT_BAD" --db "$DB" "$SANDBOX/job.yaml"
	diag "run-step at $(git -C repo log -1 --format='%h %s'): exit $rc in $secs s"
}
step "$BISECT_BROKEN"
check "run-step, a commit that does not build: 125 (got $rc)" [ "$rc" -eq 125 ]
step "$BISECT_PLANTED"
check "run-step, the planted commit: 1, bad (got $rc)" [ "$rc" -eq 1 ]
step "$BISECT_PLANTED^"
check "run-step, its parent: 0, good (got $rc)" [ "$rc" -eq 0 ]
run_perfbot 60 bisect run-step --repo repo --baseline-good "$BISECT_GOOD" --db "$DB" "$SANDBOX/job.yaml"
check "run-step without --baseline-bad: >= 128, git bisect run would stop (got $rc)" bash -c \
	'[ "$2" -ge 128 ] && grep -q -- "--baseline-bad" "$1"' _ "$SANDBOX/err" "$rc"
run_perfbot 60 bisect run-step --repo repo --baseline-good nosuchrev --baseline-bad "$BISECT_BAD" \
	--db "$DB" "$SANDBOX/job.yaml"
check "run-step with an unknown revision: >= 128, naming it (got $rc)" bash -c \
	'[ "$2" -ge 128 ] && grep -q nosuchrev "$1"' _ "$SANDBOX/err" "$rc"
git -C repo checkout -q main

check "the repository: only the main worktree, the tree clean" bash -c \
	'[ "$(git -C repo worktree list | wc -l)" -eq 1 ] && [ -z "$(git -C repo status --porcelain)" ]'
check_nothing_left "bisect run-step"
finish
