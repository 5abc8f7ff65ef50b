#!/bin/bash
# SIGKILL of perfbot at random points (seeded: T1900_SEED repeats a run)
# leaves nothing behind: no process of its own or of the benchmark's --
# grandchildren included, found by a marker they inherit -- no temp file
# (the watchdog removes them at once; with the watchdog killed too, the
# next perfbot's sweep does), no shm of theirs, and the user's repository
# lists the worktrees it had once the next `perfbot bisect reset` ran.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

cd "$SANDBOX" || exit 1
SEED=${T1900_SEED:-$(( $(date +%s%N) % 100000 ))}
RANDOM=$SEED
diag "seed $SEED (T1900_SEED=$SEED repeats these kill points)"
DB="$SANDBOX/results.db"
KILLS=10

cat > gc.yaml <<'YAML'
testcase: grandchild
repeat: 3
exec:
  cmd: [sh, -c, "sleep 300 & sleep 300"]
YAML
cat > wis.yaml <<'YAML'
testcase: will-it-scale
runtime: 20s
repeat: 2
nr_task: 2
will-it-scale:
  mode: process
  test: futex1
YAML

# pick MAX_MS: a random delay of 0..MAX_MS ms in $ms, as seconds in $d
# (in this shell: $RANDOM in a subshell would not advance the seed here)
pick() {
	ms=$((RANDOM % $1))
	d=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
}

# wait up to 2 s for no perfbot image of this sandbox to live
perfbots_gone() {
	for _ in $(seq 20); do
		[ -z "$(sandbox_pids)" ] && return 0
		sleep 0.1
	done
	return 1
}

# wait up to 2 s for no process to carry marker $1; what is left, if any
left_after_2s() {
	for _ in $(seq 20); do
		[ -z "$(marked_pids "$1")" ] && return 0
		sleep 0.1
	done
	marked_pids "$1"
}

# kill_each NAME MAX_MS ARGS...: KILLS perfbots at once, each SIGKILLed
# after its own random delay; then nothing of theirs may live, and their
# temp roots must be gone without any other perfbot having run
kill_each() {
	name=$1 max=$2
	shift 2
	pids= when=
	for i in $(seq $KILLS); do
		PERFBOT_E2E_KILL="$SANDBOX/$name.$i" "$PERFBOT" "$@" \
			>/dev/null 2>&1 &
		pids="$pids $!"
	done
	for p in $pids; do
		pick "$max"
		when="$when $ms"
		(sleep "$d"; kill -KILL "$p" 2>/dev/null) &
	done
	wait
	diag "$name: killed after$when ms"
	left=
	for i in $(seq $KILLS); do
		left="$left$(left_after_2s "PERFBOT_E2E_KILL=$SANDBOX/$name.$i")"
	done
	if [ -z "$left" ]; then
		ok "$name: nothing of $KILLS SIGKILLed perfbots alive after 2 s"
	else
		not_ok "$name: nothing of $KILLS SIGKILLed perfbots alive after 2 s"
		diag "$(ps -o pid,ppid,pgid,stat,args -p "$(echo $left | tr ' ' ,)")"
		kill -KILL $left 2>/dev/null
	fi
	if [ -z "$(ls -A "$TMPDIR" "$PERFBOT_SHMDIR" | grep -v ':$' | grep .)" ]; then
		ok "$name: the watchdogs removed every temp root"
	else
		not_ok "$name: the watchdogs removed every temp root"
		diag "$(ls -lAR "$TMPDIR" "$PERFBOT_SHMDIR")"
		rm -rf "${TMPDIR:?}"/* "${PERFBOT_SHMDIR:?}"/*
	fi
}

kill_each run-exec 1500 run gc.yaml --db "$DB" --no-monitors
kill_each run-wis 2500 run wis.yaml --db "$DB" --no-monitors
kill_each bench-futex1 2500 bench futex1 -d 5 -w 1
kill_each stat 1500 stat -r 5 -- sh -c 'sleep 300 & sleep 300'

# kill_with_watchdog PID: SIGKILL perfbot and its watchdog at once
kill_with_watchdog() {
	wd=$(ps -o pid=,comm= --ppid "$1" | awk '$2 == "perfbot-watch" { print $1 }')
	kill -KILL "$1" $wd
}

# the watchdog killed with perfbot: the leftovers go with the next
# perfbot that makes a root, by their lock
"$PERFBOT" bench futex1 -d 5 -w 1 >/dev/null 2>&1 &
pg=$!
sleep 1
check "watchdog killed too: a root was left to sweep" \
	test -n "$(ls -A "$TMPDIR")"
kill_with_watchdog "$pg"
wait
perfbots_gone
"$PERFBOT" stat -r 1 -- true >/dev/null 2>&1
check "the next perfbot swept the dead roots" \
	bash -c '[ -z "$(ls -A "$1" "$2" | grep -v ":$" | grep .)" ]' _ "$TMPDIR" "$PERFBOT_SHMDIR"

# bisect start, killed at random points, one at a time (one repository)
make_bisect_repo repo 8 5 || { echo "Bail out! cannot make the repository"; exit 1; }
write_bisect_job job.yaml
git -C repo worktree add -q --detach "$SANDBOX/users-own" "$BISECT_GOOD"
rm -rf "$SANDBOX/users-own"	# the user's, on a disk not mounted now
wt_before=$(git -C repo worktree list --porcelain)
when= bad=0
for i in $(seq $KILLS); do
	mark="PERFBOT_E2E_KILL=$SANDBOX/bisect.$i"
	env "$mark" "$PERFBOT" bisect start --repo repo --good "$BISECT_GOOD" \
		--bad "$BISECT_BAD" --db "$DB" job.yaml >/dev/null 2>&1 &
	p=$!
	pick 3000
	when="$when $ms"
	sleep "$d"
	kill -KILL "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	left=$(left_after_2s "$mark")
	[ -n "$left" ] && { bad=1; diag "bisect.$i: left $(ps -o pid,args -p "$(echo $left | tr ' ' ,)")"; kill -KILL $left; }
	"$PERFBOT" bisect reset --db "$DB" >/dev/null 2>&1
	wt_now=$(git -C repo worktree list --porcelain)
	if [ "$wt_now" != "$wt_before" ]; then
		bad=$((bad | 2))
		diag "bisect.$i: worktrees after reset: $(diff <(echo "$wt_before") <(echo "$wt_now"))"
	fi
	if [ -n "$(ls -A "$TMPDIR" "$PERFBOT_SHMDIR" | grep -v ':$' | grep .)" ]; then
		bad=$((bad | 4))
		diag "bisect.$i: $(ls -A "$TMPDIR" "$PERFBOT_SHMDIR")"
	fi
done
diag "bisect start: killed after$when ms"
check "bisect start: nothing alive 2 s after each of $KILLS SIGKILLs" test $((bad & 1)) -eq 0
check "bisect start: the repository's worktrees as they were after the next reset (the user's missing one kept)" \
	test $((bad & 2)) -eq 0
check "bisect start: no temp root left" test $((bad & 4)) -eq 0

# and with its watchdog killed too: the checkouts stay registered until
# the next perfbot bisect prunes perfbot's own (a new store: the runs of
# the first one could spare it every checkout)
DB="$SANDBOX/results2.db"
# and an empty build cache: the killed ones above cached what they built
"$PERFBOT" cache clean >/dev/null 2>&1
"$PERFBOT" bisect start --repo repo --good "$BISECT_GOOD" \
	--bad "$BISECT_BAD" --db "$DB" job.yaml >/dev/null 2>&1 &
pg=$!
wait_for '[ "$(git -C repo worktree list | wc -l)" -gt 2 ]' 30 0.05 ||
	diag "no worktree of perfbot's appeared in 30 s"
kill_with_watchdog "$pg"
wait
perfbots_gone
check "watchdog killed too: a worktree of perfbot's was left registered" \
	test "$(git -C repo worktree list --porcelain)" != "$wt_before"
"$PERFBOT" bisect reset --db "$DB" >/dev/null 2>&1
check "the next bisect reset removed perfbot's worktrees only" \
	test "$(git -C repo worktree list --porcelain)" = "$wt_before"
"$PERFBOT" stat -r 1 -- true >/dev/null 2>&1
git -C repo worktree prune	# the user's own, now that the test is done

check_nothing_left "SIGKILLs"
finish
