#!/bin/bash
# The persistent build cache (docs/build-cache.md): a bisection run twice
# on one repository (a fresh store the second time, so every run is made
# again) builds no commit twice; nor does a resume after ^C, nor `perfbot
# run --repo` of a cached commit; another CC builds again; a build killed
# with SIGKILL is never used, is built again next time and leaves no
# registered worktree; a small cap evicts the least recently used entry;
# `perfbot cache list` shows the entries and `perfbot cache clean` empties
# the directory.  Every build appends its commit's rev.txt to a counter
# file outside the tree, so the builds are counted whatever perfbot says.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

cd "$SANDBOX" || exit 1
CACHE=$PERFBOT_BUILD_CACHE
COUNT="$SANDBOX/builds.count"
SLOW="$SANDBOX/slow-build"

make_bisect_repo repo 40 23 || { echo "Bail out! cannot make the repository"; exit 1; }
write_bisect_job job.yaml
# the build: note the commit, sleep when $SLOW exists (to be killed), compile
sed -i "s|^build: .*|build: [sh, -c, 'cat rev.txt >> $COUNT; if [ -e $SLOW ]; then sleep 60; fi; cc -O2 -o prog prog.c']|" job.yaml
grep -q "rev.txt >> $COUNT" job.yaml || { echo "Bail out! cannot write the job"; exit 1; }
: > "$COUNT"
diag "good $BISECT_GOOD, bad $BISECT_BAD, planted $BISECT_PLANTED"

count() { wc -l < "$COUNT"; }
# no commit built twice (the counter's lines are the commits' rev.txt)
no_rebuild() { [ -z "$(sort "$COUNT" | uniq -d)" ]; }
status_field() { bisect_json "$SANDBOX/status.json" "$1"; }
# commits a status.json measured or skipped, one a line, sorted
status_commits() {
	python3 -c '
import json, sys
print("\n".join(sorted(c["sha"] for c in json.load(open(sys.argv[1]))["commits"])))' "$1"
}
cache_json() {
	"$PERFBOT" cache list --json > "$SANDBOX/cache.json" 2>"$SANDBOX/cache.err"
}
# the shas of the complete entries, sorted
cached_shas() {
	cache_json && python3 -c '
import json, sys
print("\n".join(sorted(e["sha"] for e in json.load(open(sys.argv[1]))["entries"] if e["complete"])))' \
		"$SANDBOX/cache.json"
}
only_main_worktree() { [ "$(git -C repo worktree list | wc -l)" -eq 1 ]; }

# 1. the first bisection builds, the second (a fresh store) builds nothing new
run_perfbot 300 bisect start --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$SANDBOX/one.db" job.yaml
bisect_diag "first bisection"
check "first bisection: exit 0, the planted commit (got $rc)" bash -c \
	'[ "$1" -eq 0 ] && grep -q "^first bad commit: $2" "$3"' _ "$rc" "$BISECT_PLANTED" "$SANDBOX/out"
bisect_status "$SANDBOX/one.db"
builds1=$(status_field 'd["builds"]')
status_commits "$SANDBOX/status.json" > "$SANDBOX/commits1"
n1=$(count)
diag "first bisection: builds $builds1, $n1 counted, $(wc -l < "$SANDBOX/commits1") commits"
check "first bisection: builds ($builds1) = the builds counted ($n1) > 0" \
	bash -c '[ "$1" -gt 0 ] && [ "$1" -eq "$2" ]' _ "$builds1" "$n1"
check "first bisection: no commit built twice" no_rebuild
check "first bisection: the cache holds every commit it built, complete" bash -c \
	'[ "$(sort -u "$1" | wc -l)" -eq "$(echo "$2" | grep -c .)" ]' _ "$COUNT" "$(cached_shas)"
check "first bisection: only the main worktree (cached builds are detached)" only_main_worktree
check "first bisection: no cached tree has a .git" bash -c \
	'[ -z "$(find "$1" -maxdepth 3 -name .git)" ]' _ "$CACHE"

run_perfbot 300 bisect start --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$SANDBOX/two.db" job.yaml
bisect_diag "second bisection"
check "second bisection: exit 0, the planted commit (got $rc)" bash -c \
	'[ "$1" -eq 0 ] && grep -q "^first bad commit: $2" "$3"' _ "$rc" "$BISECT_PLANTED" "$SANDBOX/out"
bisect_status "$SANDBOX/two.db"
builds2=$(status_field 'd["builds"]')
status_commits "$SANDBOX/status.json" > "$SANDBOX/commits2"
new2=$(comm -13 "$SANDBOX/commits1" "$SANDBOX/commits2" | wc -l)
diag "second bisection: builds $builds2, $(( $(count) - n1 )) counted, $new2 commits the first did not touch"
check "second bisection: builds only the commits the first did not ($builds2 = $new2; counted $(( $(count) - n1 )))" \
	bash -c '[ "$1" -eq "$2" ] && [ "$(( $3 - $4 ))" -eq "$2" ]' _ "$builds2" "$new2" "$(count)" "$n1"
check "second bisection: no commit built twice" no_rebuild
# a "building" line only for what was built: never for a commit the cache had
check "second bisection: no 'building' progress line for a cached commit" bash -c \
	'[ "$(grep -c "^bisect [0-9]*: building " "$1")" -le "$2" ]' _ "$SANDBOX/err" "$builds2"
diag "second bisection's building lines: $(grep "^bisect [0-9]*: building " "$SANDBOX/err" | tr '\n' '|'); new commits: $(comm -13 "$SANDBOX/commits1" "$SANDBOX/commits2" | cut -c1-12 | tr '\n' ' ')"
check "second bisection: only the main worktree" only_main_worktree
check_nothing_left "two bisections"

# 2. ^C in a bisection, then resume: nothing built twice
"$PERFBOT" bisect start --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$SANDBOX/three.db" job.yaml >"$SANDBOX/out" 2>"$SANDBOX/err" &
pid=$!
wait_for '"$PERFBOT" bisect log --db "$SANDBOX/three.db" 2>/dev/null | grep -q "baseline: " || ! kill -0 $pid 2>/dev/null' 120
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
check "third bisection: interrupted by ^C (exit 130, got $rc)" [ "$rc" -eq 130 ]
run_perfbot 300 bisect resume --db "$SANDBOX/three.db"
bisect_diag "resume"
check "resume: exit 0, the planted commit (got $rc)" bash -c \
	'[ "$1" -eq 0 ] && grep -q "^first bad commit: $2" "$3"' _ "$rc" "$BISECT_PLANTED" "$SANDBOX/out"
check "resume: no commit built twice ($(count) builds counted)" no_rebuild
check "resume: only the main worktree" only_main_worktree

# 3. perfbot run --repo of a cached commit builds nothing; another CC builds
n=$(count)
run_perfbot 120 run job.yaml --repo repo --commit "$BISECT_PLANTED" --db "$SANDBOX/run.db"
check "run --repo of a cached commit: exit 0, nothing built (got $rc: $err)" bash -c \
	'[ "$1" -eq 0 ] && [ "$2" -eq "$3" ]' _ "$rc" "$(count)" "$n"
CC=perfbot-other-cc run_perfbot 120 run job.yaml --repo repo --commit "$BISECT_PLANTED" \
	--db "$SANDBOX/run.db"
check "run --repo with another CC: exit 0, built once more (got $rc: $err)" bash -c \
	'[ "$1" -eq 0 ] && [ "$2" -eq $(( $3 + 1 )) ]' _ "$rc" "$(count)" "$n"
check "run --repo with MAKEFLAGS set: nothing built" bash -c '
	MAKEFLAGS="-j2 --jobserver-auth=3,4" "$1" run job.yaml --repo repo --commit "$2" \
		--db "$3" >/dev/null 2>&1 && [ "$(wc -l < "$4")" -eq $(( $5 + 1 )) ]' \
	_ "$PERFBOT" "$BISECT_PLANTED" "$SANDBOX/run.db" "$COUNT" "$n"

# 4. a build killed with SIGKILL is never used, and leaves no worktree behind
victim=$(echo "$BISECT_MAIN" | awk '{ print $2 }')	# never measured: not cached
check "the victim commit is not cached yet" bash -c '! echo "$1" | grep -qx "$2"' _ "$(cached_shas)" "$victim"
touch "$SLOW"
n=$(count)
"$PERFBOT" run job.yaml --repo repo --commit "$victim" --db "$SANDBOX/run.db" \
	>"$SANDBOX/out" 2>"$SANDBOX/err" &
pid=$!
wait_for '[ "$(count)" -gt "$n" ] || ! kill -0 $pid 2>/dev/null' 60 0.1
sleep 0.3
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
wait_for '[ -z "$(sandbox_pids)" ]' 10 0.1
rm -f "$SLOW"
cache_json
pycheck "SIGKILL during a build: its entry is a leftover, not complete" '
import json, sys
es = json.load(open(sys.argv[1]))["entries"]
left = [e for e in es if not e["complete"]]
assert len(left) == 1, es
assert not any(e["complete"] and e["sha"] == sys.argv[2] for e in es), es
' "$SANDBOX/cache.json" "$victim"
check "SIGKILL during a build: the worktree is still registered (the owner is dead)" \
	[ "$(git -C repo worktree list | wc -l)" -eq 2 ]
run_perfbot 120 run job.yaml --repo repo --commit "$victim" --db "$SANDBOX/run.db"
check "after SIGKILL: built again, exit 0 (got $rc: $err)" bash -c \
	'[ "$1" -eq 0 ] && [ "$2" -eq $(( $3 + 2 )) ]' _ "$rc" "$(count)" "$n"
check "after SIGKILL: only the main worktree" only_main_worktree
cache_json
pycheck "after SIGKILL: the commit cached, complete, no leftover" '
import json, sys
es = json.load(open(sys.argv[1]))["entries"]
assert all(e["complete"] for e in es), es
assert any(e["sha"] == sys.argv[2] for e in es), es
' "$SANDBOX/cache.json" "$victim"

# 5. list and clean
run_perfbot 60 cache list
check "cache list: exit 0, a line per entry with its commit, the total (got $rc)" bash -c '
	[ "$1" -eq 0 ] && grep -q "^total .*, cap 20.0 GiB, in $3$" "$2" &&
	grep -q "  ${4:0:12}  .*  $5  sh -c " "$2"' _ "$rc" "$SANDBOX/out" "$CACHE" "$BISECT_PLANTED" \
	"$(cd repo && pwd -P)"
diag "$(head -n 4 "$SANDBOX/out")"
run_perfbot 60 cache clean
check "cache clean: exit 0, says what it removed (got $rc)" bash -c \
	'[ "$1" -eq 0 ] && grep -q "^removed [0-9]* entries" "$2" && grep -q "^removed  *[0-9a-f]\{12\} " "$2"' \
	_ "$rc" "$SANDBOX/out"
check "cache clean: the directory is empty" bash -c '[ -z "$(ls -A "$1")" ]' _ "$CACHE"
run_perfbot 60 cache list
check "cache list after clean: no builds cached" bash -c \
	'[ "$1" -eq 0 ] && grep -qx "no builds cached" "$2"' _ "$rc" "$SANDBOX/out"

# 6. a cap for two entries: the least recently used goes, never one in use
A=$(echo "$BISECT_MAIN" | awk '{ print $5 }')
B=$(echo "$BISECT_MAIN" | awk '{ print $6 }')
C=$(echo "$BISECT_MAIN" | awk '{ print $7 }')
run_perfbot 120 run job.yaml --repo repo --commit "$A" --db "$SANDBOX/run.db"
size=$(cache_json && bisect_json "$SANDBOX/cache.json" 'd["entries"][0]["size"]')
diag "one entry: $size bytes"
export PERFBOT_BUILD_CACHE_MAX=$(( size * 5 / 2 ))
run_perfbot 120 run job.yaml --repo repo --commit "$B" --db "$SANDBOX/run.db"
sleep 1.1	# last use has the file system's time resolution
n=$(count)
run_perfbot 120 run job.yaml --repo repo --commit "$A" --db "$SANDBOX/run.db"	# A used again
check "cap: A used again, not built" [ "$(count)" -eq "$n" ]
run_perfbot 120 run job.yaml --repo repo --commit "$C" --db "$SANDBOX/run.db"
check "cap: C built (exit $rc)" bash -c '[ "$1" -eq 0 ] && [ "$2" -eq $(( $3 + 1 )) ]' _ "$rc" "$(count)" "$n"
check "cap of 2.5 entries: B (least recently used) evicted, A and C kept" \
	[ "$(cached_shas | tr '\n' ' ')" = "$(printf '%s\n' "$A" "$C" | sort | tr '\n' ' ')" ]
check "bad PERFBOT_BUILD_CACHE_MAX: run refuses, naming it" bash -c '
	PERFBOT_BUILD_CACHE_MAX=lots "$1" run job.yaml --repo repo --commit "$2" --db "$3" 2>"$4"
	[ $? -ne 0 ] && grep -q "PERFBOT_BUILD_CACHE_MAX: .lots. is not a size" "$4"' \
	_ "$PERFBOT" "$A" "$SANDBOX/run.db" "$SANDBOX/err"
check "bad PERFBOT_BUILD_CACHE_MAX: cache list exits 2" bash -c \
	'PERFBOT_BUILD_CACHE_MAX=12Q "$1" cache list 2>/dev/null; [ $? -eq 2 ]' _ "$PERFBOT"

# 7. off: builds live in a temporary directory, nothing added to the cache
"$PERFBOT" cache clean >/dev/null
n=$(count)
PERFBOT_BUILD_CACHE_MAX=off run_perfbot 120 run job.yaml --repo repo --commit "$A" --db "$SANDBOX/run.db"
check "off: built, exit 0, nothing cached (got $rc: $err)" bash -c \
	'[ "$1" -eq 0 ] && [ "$2" -eq $(( $3 + 1 )) ] && [ -z "$(ls -A "$4")" ]' _ "$rc" "$(count)" "$n" "$CACHE"
check "off: only the main worktree" only_main_worktree
check "perfbot cache alone: usage, exit 2" bash -c '"$1" cache 2>/dev/null; [ $? -eq 2 ]' _ "$PERFBOT"
check_nothing_left "build cache"
finish
