# lib.sh - shared by the e2e tests: TAP output, a private sandbox, and the
# "nothing left behind" checks.  Source it; it expects $PERFBOT (CTest sets
# it) or finds build/perfbot.
#
# Each test runs in its own sandbox: TMPDIR and PERFBOT_SHMDIR point into
# fresh directories, and an environment marker identifies every process
# perfbot starts, so leftovers can be found even with other tests running.

set -u

: "${PERFBOT:=$(cd "$(dirname "$0")/../.." && pwd)/build/perfbot}"
PERFBOT=$(readlink -f "$PERFBOT")
[ -x "$PERFBOT" ] || { echo "Bail out! no perfbot binary at $PERFBOT"; exit 1; }

SANDBOX=$(mktemp -d "${TMPDIR:-/tmp}/perfbot-e2e.XXXXXX")
export TMPDIR="$SANDBOX/tmp"
export PERFBOT_SHMDIR
PERFBOT_SHMDIR=$(mktemp -d /dev/shm/perfbot-e2e.XXXXXX)
mkdir -p "$TMPDIR"
export PERFBOT_E2E_MARK="$SANDBOX"
# perfbot's persistent build cache (docs/build-cache.md) inside the
# sandbox: no test reads or fills the user's, and it goes with the sandbox
export PERFBOT_BUILD_CACHE="$SANDBOX/build-cache"
# Only what perfbot made counts, never the machine's other files: its
# shm files live under PERFBOT_SHMDIR (checked with TMPDIR); straight in
# /dev/shm only a perfbot that ignored PERFBOT_SHMDIR would put something,
# and it names everything perfbot* (other tests' sandboxes excepted).
# A temp root whose lock is held belongs to a live perfbot elsewhere (a
# leftover of ours has a dead owner; a live one is a process left).
shm_listing() {
	ls -A /dev/shm | grep -E '^perfbot' | grep -Ev '^perfbot-(e2e|unit)\.' |
		sort | while read -r f; do
			l=/dev/shm/${f%.lock}.lock
			[ -f "$l" ] && ! flock -n "$l" true 2>/dev/null && continue
			echo "$f"
		done
}
SHM_BEFORE=$(shm_listing)
# SysV segments: those whose creator or last user is one of ours
sysv_ours() {
	tail -n +2 /proc/sysvipc/shm 2>/dev/null | while read -r _ id _ _ cpid lpid _; do
		for p in $cpid $lpid; do
			tr '\0' '\n' 2>/dev/null < "/proc/$p/environ" |
				grep -qx "PERFBOT_E2E_MARK=$SANDBOX" && { echo "$id"; break; }
		done
	done
	return 0
}

tap_n=0
tap_failed=0

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
}

# check DESCRIPTION COMMAND...: one TAP line from a command's status
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; return 1; fi
}

diag() {
	echo "$*" | sed 's/^/# /'
}

# The pids of processes perfbot started in this sandbox that still live
# (perfbot itself, its leader, tasks and partners are all perfbot images).
sandbox_pids() {
	local pid
	for pid in $(marked_pids "PERFBOT_E2E_MARK=$SANDBOX"); do
		[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$PERFBOT" ] && echo "$pid"
	done
	return 0
}

# The live (non-zombie) processes whose environment holds NAME=VALUE: a
# marker set on one perfbot command is inherited by everything it starts,
# grandchildren of other images (sh, sleep) too.
marked_pids() {
	# one grep over every environ (0.04 s; a tr and a grep per process
	# took 3 s on a loaded machine).  The list is made here, before the
	# pipeline's own processes exist; this shell and a $(...) around the
	# call carry the marker too and are left out.
	local envs=(/proc/[0-9]*/environ)
	grep -lzxsF -- "$1" "${envs[@]}" | sed -n 's#^/proc/\([0-9]*\)/environ$#\1#p' |
		grep -vx -e "$$" -e "$BASHPID"
	return 0
}

# Nothing left behind: no process, no temp file or dir, no shm entry.
check_nothing_left() {
	what=$1
	left=$(sandbox_pids)
	if [ -n "$left" ]; then
		not_ok "$what: no process left"
		diag "$(ps -o pid,ppid,stat,comm -p "$(echo $left | tr ' ' ,)")"
	else
		ok "$what: no process left"
	fi
	if [ -n "$(ls -A "$TMPDIR")" ] || [ -n "$(ls -A "$PERFBOT_SHMDIR")" ]; then
		not_ok "$what: no temp file left"
		diag "$(ls -lAR "$TMPDIR" "$PERFBOT_SHMDIR")"
	else
		ok "$what: no temp file left"
	fi
	shm_now=$(shm_listing)
	sysv=$(sysv_ours)
	if [ "$shm_now" != "$SHM_BEFORE" ] || [ -n "$sysv" ]; then
		not_ok "$what: no shared-memory entry left"
		diag "$(diff <(echo "$SHM_BEFORE") <(echo "$shm_now"); echo "SysV: $sysv")"
	else
		ok "$what: no shared-memory entry left"
	fi
}

# Run perfbot with a deadline; sets $out, $err, $rc and $secs.
run_perfbot() {
	limit=$1
	shift
	t0=$(date +%s.%N)
	timeout -s KILL "$limit" "$PERFBOT" "$@" >"$SANDBOX/out" 2>"$SANDBOX/err"
	rc=$?
	secs=$(echo "$(date +%s.%N) - $t0" | bc)
	out=$(cat "$SANDBOX/out")
	err=$(cat "$SANDBOX/err")
}

finish() {
	pids=$(sandbox_pids)
	[ -n "$pids" ] && kill -KILL $pids 2>/dev/null
	rm -rf "$SANDBOX" "$PERFBOT_SHMDIR"
	echo "1..$tap_n"
	echo "$((tap_n - tap_failed)) passed, $tap_failed failed"
	[ "$tap_failed" -eq 0 ]
}
