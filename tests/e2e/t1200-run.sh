#!/bin/bash
# perfbot run: atomic jobs repeated with monitors into the store; failures,
# timeouts, interrupts and bad jobs; --repo worktrees; perfbot install.
. "$(dirname "$0")/lib.sh"

DB="$SANDBOX/results.db"
cd "$SANDBOX" || exit 1

cat > wis.yaml <<'YAML'
suite: will-it-scale
testcase: will-it-scale
category: benchmark
runtime: 0.6s
repeat: 2
nr_task: 1
will-it-scale:
  mode: [process, thread]
  test: futex1
YAML

run_perfbot 60 run wis.yaml --dry-run --db "$DB"
check "--dry-run: exit 0" [ "$rc" -eq 0 ]
check "--dry-run: lists both atomic jobs x2" bash -c \
	'grep -q "will-it-scale-1-process-futex1  x2" "$1" && grep -q "will-it-scale-1-thread-futex1  x2" "$1"' _ "$SANDBOX/out"
check "--dry-run: writes no database" [ ! -e "$DB" ]

run_perfbot 120 run wis.yaml --db "$DB"
check "run: exit 0" [ "$rc" -eq 0 ]
check "run: four runs stored" [ "$(grep -c '^run [0-9]*: .* complete' "$SANDBOX/out")" -eq 4 ]
check "run: progress shows job i/n and repeat j/k" grep -q '^\[2/2\] will-it-scale-1-thread-futex1: repeat 2/2, about' "$SANDBOX/err"
run_perfbot 30 results --db "$DB" --json
check "results: two groups of two complete runs, with a KPI" python3 -c '
import json, sys
groups = json.load(open(sys.argv[1]))
assert len(groups) == 2, groups
for g in groups:
    assert g["runs_complete"] == 2 and g["runs_failed"] == 0, g
' "$SANDBOX/out"
run_perfbot 30 results show 1 --db "$DB" --json
check "results show: KPI, monitors, time, failure stats, environment" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
s, env = r["stats"], r["env"]
assert s["will-it-scale.per_process_ops"] > 0
assert s["will-it-scale.exit_fail"] == 0 and s["last_state.is_incomplete_run"] == 0
assert 0 <= s["mpstat.cpu.all.idle%"] <= 100, s["mpstat.cpu.all.idle%"]
assert "proc-vmstat.pgfault" in s and s["meminfo.MemTotal"] > 0
assert s["will-it-scale.time.user_time"] + s["will-it-scale.time.system_time"] > 0
assert "threads" in env["machine"] and "memory" in env["machine"], env["machine"]
assert r["params"]["nr_task"] == "1" and r["commit"] == env["kernel"]
' "$SANDBOX/out"

run_perfbot 60 run wis.yaml --db "$DB" -s mode=thread -r 1 --no-monitors --commit mylabel
check "-s narrows, -r 1, --commit labels, --no-monitors" bash -c \
	'[ "$(grep -c "^run " "$1")" -eq 1 ] && grep -q "thread-futex1 complete" "$1"' _ "$SANDBOX/out"
run_perfbot 30 results show 5 --db "$DB" --json
check "--no-monitors: no monitor stats, commit mylabel" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["commit"] == "mylabel"
assert not any(k.startswith("mpstat.") for k in r["stats"]), list(r["stats"])
' "$SANDBOX/out"

# a benchmark that fails, and one that outlives its timeout
cat > fail.yaml <<'YAML'
testcase: failer
repeat: 2
exec:
  cmd: [sh, -c, "echo 'score: 7'; exit 3"]
  parse: kv
YAML
run_perfbot 60 run fail.yaml --db "$DB" --no-monitors
check "failing benchmark: exit 1" [ "$rc" -eq 1 ]
# its warm-up fails (warmup: defaults to 1): each repeat is a failed run, with why
check "failing benchmark: both repeats stored as failed with the reason" \
	[ "$(grep -c 'failer failed  (warm-up run 1 of 1: exit status 3)' "$SANDBOX/out")" -eq 2 ]
cat > slow.yaml <<'YAML'
testcase: sleeper
repeat: 1
timeout: 0.5s
exec:
  cmd: [sleep, "30"]
YAML
run_perfbot 30 run slow.yaml --db "$DB" --no-monitors
check "timeout: killed on time ($secs s), stored failed" bash -c \
	'[ "$(echo "$2 < 10" | bc)" -eq 1 ] && grep -q "sleeper failed  (warm-up run 1 of 1: timed out after 0.5 s)" "$1"' _ "$SANDBOX/out" "$secs"

printf 'testcase: crasher\nrepeat: 1\nexec:\n  cmd: [sh, -c, "kill -SEGV $$"]\n' > crash.yaml
run_perfbot 30 run crash.yaml --db "$DB" --no-monitors
check "crashing benchmark: stored failed with the signal" bash -c \
	'[ "$2" -eq 1 ] && grep -q "crasher failed  (warm-up run 1 of 1: killed by signal 11" "$1"' _ "$SANDBOX/out" "$rc"

# a monitor this machine cannot run is recorded unavailable; the run goes on
printf 'testcase: will-it-scale\nruntime: 0.5s\nrepeat: 1\nmonitors: [perf-stat, time]\nwill-it-scale:\n  test: getppid1\n' > perf.yaml
run_perfbot 30 run perf.yaml --db "$DB"
id=$(sed -n 's/^run \([0-9]*\): .*getppid1 complete.*/\1/p' "$SANDBOX/out")
run_perfbot 30 results show "${id:-0}" --db "$DB" --json
check "perf-stat: counted, or each event it cannot count recorded unavailable" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
s, env = r["stats"], r["env"]
assert s["perf-stat.total.context-switches"] > 0, s
cyc = env.get("monitor.perf-stat.cycles", "")
assert "perf-stat.total.cycles" in s or cyc.startswith("unavailable"), (cyc, sorted(s))
' "$SANDBOX/out"

# a database that is locked, or cannot be written: a clear error, exit 1
printf 'testcase: quick\nrepeat: 1\nexec:\n  cmd: [sh, -c, "echo v: 1"]\n  parse: kv\n' > quick.yaml
( echo 'BEGIN IMMEDIATE; INSERT INTO meta VALUES ("lock-test", 1);'; sleep 4; echo 'ROLLBACK;' ) | sqlite3 "$DB" &
locker=$!
sleep 0.5
PERFBOT_DB_BUSY_MS=300 run_perfbot 30 run quick.yaml --db "$DB" --no-monitors
check "locked database: exit 1, says it is locked" bash -c \
	'[ "$2" -eq 1 ] && grep -q "locked by another writer" "$1"' _ "$SANDBOX/err" "$rc"
wait $locker
touch notadir
run_perfbot 30 run quick.yaml --db notadir/r.db --no-monitors
check "unwritable location: exit 1, names it" bash -c \
	'[ "$2" -eq 1 ] && grep -q "notadir" "$1"' _ "$SANDBOX/err" "$rc"
check "after all that, the database is sound" [ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ]

cat > kv.yaml <<'YAML'
testcase: mybench
repeat: 1
exec:
  cmd: [sh, -c, "echo 'score: 42 ops/s'; echo 'latency: 1.5 ms'"]
  parse: kv
kpi: mybench.score
YAML
run_perfbot 30 run kv.yaml --db "$DB" --no-monitors
check "exec + kv: the KPI is the job's" grep -q 'mybench complete  mybench.score 42' "$SANDBOX/out"

# a benchmark that cannot run here is unsupported, not failed: stored with
# its reason, exit_fail 0, and exit 77 only when every run was unsupported
printf 'testcase: will-it-scale\nruntime: 0.2s\nrepeat: 2\nwill-it-scale:\n  test: selftest-unsupported\n' > unsup.yaml
printf 'testcase: will-it-scale\nruntime: 0.2s\nrepeat: 1\nwill-it-scale:\n  test: [getppid1, selftest-unsupported]\n' > mixed.yaml
run_perfbot 30 run unsup.yaml --db "$DB" --no-monitors
if [ "$rc" -eq 1 ] && grep -q "cannot store the run: .*CHECK constraint failed: status" "$SANDBOX/err"; then
	ok "# SKIP unsupported runs: this store does not take them yet (the store's part of issue 11)"
else
	check "unsupported: exit 77 when every run is (got $rc)" [ "$rc" -eq 77 ]
	check "unsupported: each run says so, with the reason" \
		[ "$(grep -c '^run [0-9]*: will-it-scale-selftest-unsupported unsupported here: harness self-test: never supported$' "$SANDBOX/out")" -eq 2 ]
	run_perfbot 30 run mixed.yaml --db "$DB" --no-monitors
	check "unsupported beside a complete run: exit 0 (got $rc)" [ "$rc" -eq 0 ]
	check "unsupported beside a complete run: both stored" bash -c \
		'grep -q "getppid1 complete" "$1" && grep -q "selftest-unsupported unsupported here" "$1"' _ "$SANDBOX/out"
fi

# bad jobs: file:line:column, exit 2, nothing stored
cat > bad.yaml <<'YAML'
testcase: will-it-scale
runtime: 1s
nr_tsk: 1
will-it-scale:
  test: futex1
YAML
before=$(stat -c %Y "$DB")
run_perfbot 30 run bad.yaml --db "$DB"
check "unknown parameter: exit 2" [ "$rc" -eq 2 ]
check "unknown parameter: file:line:column and a suggestion" grep -q "bad.yaml:3:9: unknown parameter 'nr_tsk' for will-it-scale (did you mean 'nr_task'?)" "$SANDBOX/err"
printf 'testcase: will-it-scale\nwill-it-scale:\n  test: futx1\n' > bad2.yaml
run_perfbot 30 run bad2.yaml --db "$DB"
check "bad value: exit 2 with position" bash -c '[ "$2" -eq 2 ] && grep -q "bad2.yaml:3:9: invalid test .futx1." "$1"' _ "$SANDBOX/err" "$rc"
printf 'testcase: will-it-scale\nwill-it-scale:\n  test: futex1\n  nr_task: 010\n' > bad3.yaml
run_perfbot 30 run bad3.yaml --db "$DB"
check "nr_task 010 (a leading zero): exit 2 with position" bash -c \
	'[ "$2" -eq 2 ] && grep -q "bad3.yaml:4:12: invalid nr_task .010." "$1"' _ "$SANDBOX/err" "$rc"
check "bad jobs stored nothing" [ "$(stat -c %Y "$DB")" = "$before" ]

# ^C in the middle: incomplete or nothing, never complete; the db is sound
printf 'testcase: will-it-scale\nruntime: 20s\nrepeat: 1\nnr_task: 2\nwill-it-scale:\n  test: getppid1\n' > long.yaml
"$PERFBOT" run long.yaml --db "$DB" >"$SANDBOX/out" 2>"$SANDBOX/err" &
pid=$!
sleep 3
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: exit 130 (got $rc)" [ "$rc" -eq 130 ]
check "SIGINT: the partial run stored as incomplete" grep -q 'getppid1 incomplete' "$SANDBOX/out"
check "SIGINT: no complete run of it" bash -c '! grep -q "getppid1 complete" "$1"' _ "$SANDBOX/out"
check "SIGINT: database integrity" [ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ]

# perfbot killed outright: its tasks die with it, the database stays sound
"$PERFBOT" run long.yaml --db "$DB" >/dev/null 2>&1 &
pid=$!
sleep 3
kill -KILL $pid
wait $pid 2>/dev/null
sleep 0.5
check "SIGKILL: no task survives perfbot" [ -z "$(sandbox_pids)" ]
check "SIGKILL: database integrity" [ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ]
rm -rf "${TMPDIR:?}"/* "${PERFBOT_SHMDIR:?}"/*

# --repo: the commit resolved to a sha, built in a worktree, $PERFBOT_SRC
git init -q repo
printf '#!/bin/sh\necho "value: $(cat built)"\n' > repo/bench.sh
chmod +x repo/bench.sh
git -C repo add bench.sh
git -C repo -c user.name=t -c user.email=t@example.invalid commit -qm one
sha=$(git -C repo rev-parse HEAD)
cat > repo.yaml <<'YAML'
testcase: repobench
repeat: 1
build: [sh, -c, "echo 5 > built"]
exec:
  cmd: [sh, -c, "$PERFBOT_SRC/bench.sh"]
  parse: kv
YAML
run_perfbot 60 run repo.yaml --db "$DB" --repo repo --commit HEAD --no-monitors
check "--repo: exit 0" [ "$rc" -eq 0 ]
check "--repo: the build ran in the worktree, the command found it" grep -q 'repobench complete' "$SANDBOX/out"
run_perfbot 30 results --db "$DB" --json --testcase repobench
check "--repo: the full sha is the commit" python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
assert len(g) == 1 and g[0]["commit"] == sys.argv[2], g
' "$SANDBOX/out" "$sha"
check "--repo: the worktree is gone afterwards" [ "$(git -C repo worktree list | wc -l)" -eq 1 ]
run_perfbot 30 run repo.yaml --db "$DB" --repo repo --commit nosuchrev
check "--repo: an unknown revision is named, exit 2" bash -c '[ "$2" -eq 2 ] && grep -q nosuchrev "$1"' _ "$SANDBOX/err" "$rc"

# a job's build: without --repo would build nothing: refused with its position
printf 'testcase: repobench\nrepeat: 1\nbuild: [sh, -c, "echo 5 > built"]\nexec:\n  cmd: [sh, -c, "echo value: 1"]\n  parse: kv\n' > build-norepo.yaml
before=$(sqlite3 "$DB" 'SELECT count(*) FROM runs')
run_perfbot 30 run build-norepo.yaml --db "$DB" --no-monitors
check "build: without --repo: exit 2, file:line:column, why" bash -c \
	'[ "$2" -eq 2 ] && grep -q "^perfbot: build-norepo.yaml:3:1: build: needs --repo: without a repository nothing is built" "$1"' \
	_ "$SANDBOX/err" "$rc"
run_perfbot 30 run build-norepo.yaml --db "$DB" --no-monitors --commit v1 --dry-run
check "build: without --repo: refused in a dry run too" [ "$rc" -eq 2 ]
check "build: without --repo: nothing stored" [ "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" = "$before" ]

# a Linux kernel tree: the runs would measure the running kernel, filed
# under the commit; refused before anything is built or run
kernel_like() {	# DIR DIRS...: Kbuild, Kconfig, a kernel's Makefile and DIRS
	dir=$1
	shift
	git init -q "$dir"
	printf 'VERSION = 6\nPATCHLEVEL = 8\nSUBLEVEL = 0\nEXTRAVERSION =\n' > "$dir/Makefile"
	echo 'obj-y += kernel/' > "$dir/Kbuild"
	echo 'source "init/Kconfig"' > "$dir/Kconfig"
	for d in "$@"; do mkdir "$dir/$d" && echo x > "$dir/$d/x.c"; done
	cp repo/bench.sh "$dir/"
	git -C "$dir" add -A
	git -C "$dir" -c user.name=t -c user.email=t@example.invalid commit -qm one
	git -C "$dir" tag v6.8
}
kernel_like linux kernel mm init
kernel_like uboot kernel init arch	# U-Boot's layout: no mm/
printf 'testcase: repobench\nrepeat: 1\nbuild: [sh, -c, "echo 5 > built; touch $BUILT_MARK"]\nexec:\n  cmd: [sh, -c, "$PERFBOT_SRC/bench.sh"]\n  parse: kv\n' > kernel.yaml
before=$(sqlite3 "$DB" 'SELECT count(*) FROM runs')
BUILT_MARK="$SANDBOX/built-mark" run_perfbot 60 run kernel.yaml --db "$DB" --repo linux --commit v6.8 --no-monitors
check "kernel tree: exit 2, says it would measure the running kernel" bash -c \
	'[ "$2" -eq 2 ] && grep -q "^perfbot: run: linux at v6.8 is a Linux kernel tree, and the job has no kernel: section (docs/kernel.md) to build and boot it: the runs would measure the running kernel ($(uname -r)) and be stored under v6.8 " "$1"' \
	_ "$SANDBOX/err" "$rc"
check "kernel tree: nothing built, run or stored, no worktree left" bash -c \
	'[ ! -e "$1" ] && [ "$(sqlite3 "$2" "SELECT count(*) FROM runs")" = "$3" ] &&
	 [ "$(git -C linux worktree list | wc -l)" -eq 1 ] && [ ! -s "$4" ]' \
	_ "$SANDBOX/built-mark" "$DB" "$before" "$SANDBOX/out"
run_perfbot 60 run kernel.yaml --db "$DB" --repo linux --commit v6.8 --dry-run
check "kernel tree: refused in a dry run too" [ "$rc" -eq 2 ]
BUILT_MARK="$SANDBOX/built-mark" run_perfbot 60 run kernel.yaml --db "$DB" --repo uboot --commit v6.8 --no-monitors
check "a tree with Kbuild, Kconfig and a VERSION = Makefile but no mm/: not a kernel, runs" bash -c \
	'[ "$2" -eq 0 ] && grep -q "repobench complete" "$1"' _ "$SANDBOX/out" "$rc"

# the time estimate: an exec job says no runtime, so its length is unknown
# until a run has been measured (not the 10 s default it does not run for)
printf 'testcase: quick5\nrepeat: 5\nexec:\n  cmd: [sh, -c, "sleep 0.2; echo v: 1"]\n  parse: kv\n' > quick5.yaml
run_perfbot 30 run quick5.yaml --db "$DB" --no-monitors --dry-run
check "estimate of an exec job: 'about ?', not a made-up time" bash -c \
	'grep -q "^about ?: 5 runs of jobs that do not say how long they take" "$1" && ! grep -q "1m18s" "$1"' _ "$SANDBOX/out"
run_perfbot 30 run wis.yaml --db "$DB" --dry-run
check "estimate of a will-it-scale job: from its runtime (4 x (0.6 s x 1.5 + 0.5) = 6 s)" grep -qx "about 6s" "$SANDBOX/out"
run_perfbot 60 run quick5.yaml --db "$DB" --no-monitors
check "progress of an exec job: unknown before the first run" \
	grep -qx "\[1/1\] quick5: repeat 1/5, time left unknown until a run has been measured" "$SANDBOX/err"
check "progress of an exec job: then measured, a few seconds at most" bash -c \
	'grep -q "^\[1/1\] quick5: repeat 2/5, about [0-4]s left$" "$1" && ! grep -q "[0-9]m[0-9]" "$1"' _ "$SANDBOX/err"

# perfbot install
printf 'testcase: x\npackages: [coreutils]\nexec:\n  cmd: [true]\n' > pkg.yaml
if command -v setpriv >/dev/null; then
	chmod 755 "$SANDBOX"	# readable by the unprivileged user
	chmod 644 pkg.yaml
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PERFBOT" install pkg.yaml > "$SANDBOX/out" 2>&1
	rc=$?
	check "install without root: prints the command, exit 1" bash -c \
		'[ "$2" -eq 1 ] && grep -q "apt-get install -y coreutils" "$1"' _ "$SANDBOX/out" "$rc"
fi
run_perfbot 120 install pkg.yaml
check "install as root: apt-get installs what the job lists" bash -c \
	'[ "$2" -eq 0 ] && grep -q "^packages: coreutils" "$1"' _ "$SANDBOX/out" "$rc"
run_perfbot 10 install --help
check "install --help" bash -c '[ "$2" -eq 0 ] && grep -q "usage: perfbot install" "$1"' _ "$SANDBOX/out" "$rc"
run_perfbot 10 install --frob pkg.yaml
check "install: an unknown option is named, exit 2" bash -c \
	'[ "$2" -eq 2 ] && grep -q "unknown option .--frob." "$1"' _ "$SANDBOX/err" "$rc"
run_perfbot 10 run
check "run without a job file: exit 2" bash -c '[ "$2" -eq 2 ] && grep -q "no job file" "$1"' _ "$SANDBOX/err" "$rc"
run_perfbot 10 run wis.yaml -r 0
check "run -r 0: exit 2, the value named" bash -c '[ "$2" -eq 2 ] && grep -q "invalid repeat count .0." "$1"' _ "$SANDBOX/err" "$rc"
# -s says one thing in every command that takes it: no '=', or no key
for cmd in "run wis.yaml" "install pkg.yaml" "submit wis.yaml" \
	"bisect start --repo . --good A --bad B wis.yaml" "compare A B" "report A B"; do
	for bad in nr_task =1; do
		# shellcheck disable=SC2086 # the command's words
		run_perfbot 10 $cmd -s "$bad"
		check "${cmd%% *} -s $bad: exit 2, the one message for -s" bash -c \
			'[ "$2" -eq 2 ] && grep -q "^perfbot: $3: invalid -s .$4.: expected KEY=VALUE$" "$1"' \
			_ "$SANDBOX/err" "$rc" "${cmd%% *}" "$bad"
	done
done
check_nothing_left "run"
finish
