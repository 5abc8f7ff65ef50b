#!/bin/bash
# perfbot bisect: a commit that does not build is skipped (and named in a
# range when the culprit cannot be told apart from it); a slowdown merged
# from a side branch is bisected again inside the branch.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

cd "$SANDBOX" || exit 1
write_bisect_job job.yaml

# (a) commit 21 of 41 does not build: it is the first commit a bisection
# of the 40 candidates measures (P(first bad <= 21) = 1/2), so it is
# skipped for sure; the slowdown at 30 is still named
make_bisect_repo broken 41 30 --broken 21 || { echo "Bail out! cannot make the repository"; exit 1; }
diag "(a) broken $BISECT_BROKEN, planted $BISECT_PLANTED"
run_perfbot 300 bisect start --repo broken --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$SANDBOX/a.db" job.yaml
bisect_diag "(a) bisect start"
check "build failure: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "build failure: the planted commit is still named" bash -c '
	[ "$(grep -c "^first bad commit: " "$1")" -eq 1 ] &&
	grep -qx "first bad commit: $2 $3" "$1"' _ "$SANDBOX/out" "$BISECT_PLANTED" "$BISECT_PLANTED_SUBJECT"
bisect_status "$SANDBOX/a.db"
pycheck "build failure: status found, the commit that does not build is skipped" '
import json, sys
d = json.load(open(sys.argv[1]))
broken, planted = sys.argv[2], sys.argv[3]
assert d["status"] == "found", d["status"]
assert d["culprit"]["sha"] == planted, d["culprit"]
state = {c["sha"]: c["state"] for c in d["commits"]}
assert state.get(broken) == "skipped", ("broken", state.get(broken))
assert [s for s, st in state.items() if st == "skipped"] == [broken], state
assert state.get(planted) == "measured", state.get(planted)
' "$SANDBOX/status.json" "$BISECT_BROKEN" "$BISECT_PLANTED"
pycheck "build failure: no complete run of the commit that does not build" '
import json, subprocess, sys
groups = json.loads(subprocess.run([sys.argv[1], "results", "--db", sys.argv[2], "--json"],
                                   capture_output=True, check=True).stdout)
assert groups and not [g for g in groups if g["commit"] == sys.argv[3] and g["runs_complete"]], groups
' "$PERFBOT" "$SANDBOX/a.db" "$BISECT_BROKEN"
check "build failure: only the main worktree left" [ "$(git -C broken worktree list | wc -l)" -eq 1 ]
check_nothing_left "bisect with a build failure"

# (c) the culprit's parent does not build (the culprit fixes the build and
# slows down): the first bad commit is one of the two
make_bisect_repo range 16 9 --broken 8 || { echo "Bail out! cannot make the repository"; exit 1; }
diag "(c) broken $BISECT_BROKEN, planted $BISECT_PLANTED"
broken_subject=$(git -C range log -1 --format=%s "$BISECT_BROKEN")
run_perfbot 300 bisect start --repo range --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$SANDBOX/c.db" job.yaml
bisect_diag "(c) bisect start"
check "range: exit 0 (got $rc)" [ "$rc" -eq 0 ]
pycheck "range: 'first bad commit is one of:' the skipped parent and the culprit" '
import sys
lines = open(sys.argv[1]).read().splitlines()
i = lines.index("first bad commit is one of:")
want = ["  %s %s (skipped: build failed)" % (sys.argv[2], sys.argv[3]),
        "  %s %s" % (sys.argv[4], sys.argv[5])]
assert lines[i + 1:i + 3] == want, lines[i + 1:i + 4]
assert not (len(lines) > i + 3 and lines[i + 3].startswith("  ")), lines[i + 3]
assert not any(l.startswith("first bad commit: ") for l in lines), lines
' "$SANDBOX/out" "$BISECT_BROKEN" "$broken_subject" "$BISECT_PLANTED" "$BISECT_PLANTED_SUBJECT"
bisect_status "$SANDBOX/c.db"
pycheck "range: status found-range, the parent skipped" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "found-range", d["status"]
state = {c["sha"]: c["state"] for c in d["commits"]}
assert state.get(sys.argv[2]) == "skipped" and state.get(sys.argv[3]) == "measured", state
' "$SANDBOX/status.json" "$BISECT_BROKEN" "$BISECT_PLANTED"
check "range: only the main worktree left" [ "$(git -C range worktree list | wc -l)" -eq 1 ]

# (b) the slowdown is the second of three commits on a side branch that
# main merges as its commit 15: the merge is found along main, then the
# branch is bisected
make_bisect_repo merged 30 15 --merge-branch || { echo "Bail out! cannot make the repository"; exit 1; }
diag "(b) merge $BISECT_MERGE, planted on the branch $BISECT_PLANTED"
run_perfbot 300 bisect start --repo merged --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$SANDBOX/b.db" job.yaml
bisect_diag "(b) bisect start"
check "merge: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "merge: the commit on the branch is the first bad one" bash -c '
	[ "$(grep -c "^first bad commit: " "$1")" -eq 1 ] &&
	grep -qx "first bad commit: $2 $3" "$1"' _ "$SANDBOX/out" "$BISECT_PLANTED" "$BISECT_PLANTED_SUBJECT"
check "merge: merged by the merge commit" grep -qx "merged by: $BISECT_MERGE $BISECT_MERGE_SUBJECT" "$SANDBOX/out"
bisect_status "$SANDBOX/b.db"
pycheck "merge: status --json has the merge and the culprit inside it" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "found", d["status"]
m = d["merge"]
assert m["sha"] == sys.argv[2], m
assert m["inner"]["culprit"]["sha"] == sys.argv[3], m["inner"]
' "$SANDBOX/status.json" "$BISECT_MERGE" "$BISECT_PLANTED"
check "merge: only the main worktree left" [ "$(git -C merged worktree list | wc -l)" -eq 1 ]
check_nothing_left "bisect of a merge"
finish
