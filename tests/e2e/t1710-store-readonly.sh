#!/bin/bash
# Stores on read-only media (docs/store.md, "Untrusted store files"):
# readers work and print what they print on a writable copy, a writer is
# refused clearly; /dev/null and other non-regular files are refused, and
# a store that cannot be created leaves no file behind.
. "$(dirname "$0")/lib.sh"

cd "$SANDBOX" || exit 1
DB="$SANDBOX/rw/s.db"
mkdir -p rw ro
printf 'run,stat,value\n1,hackbench.throughput,100\n2,hackbench.throughput,101\n3,hackbench.throughput,99\n' > a.csv
printf 'run,stat,value\n1,hackbench.throughput,120\n2,hackbench.throughput,121\n3,hackbench.throughput,119\n' > b.csv
ok_setup=true
"$PERFBOT" import csv a.csv --commit aaaa1111 --job j --testcase hb --db "$DB" >/dev/null || ok_setup=false
"$PERFBOT" import csv b.csv --commit bbbb2222 --job j --testcase hb --db "$DB" >/dev/null || ok_setup=false
check "setup: a WAL store of 6 runs" $ok_setup

readers() {	# $1: the store; one file of every reader's output
	for cmd in "results" "results show 1" "compare aaaa1111 bbbb2222" \
		   "report --format json aaaa1111 bbbb2222" "bisect status"; do
		echo "== $cmd"
		# shellcheck disable=SC2086
		"$PERFBOT" $cmd --db "$1" 2>&1
		echo "rc=$?"
	done
}
readers "$DB" > writable.out

# a read-only bind mount of the store's directory: nobody can make -shm there
mounted=false
if mount --bind "$SANDBOX/rw" "$SANDBOX/ro" 2>/dev/null; then
	if mount -o remount,ro,bind "$SANDBOX/ro" 2>/dev/null && ! touch ro/probe 2>/dev/null; then
		mounted=true
	else
		umount "$SANDBOX/ro"
	fi
fi
if $mounted; then
	readers "$SANDBOX/ro/s.db" | sed "s|$SANDBOX/ro/|$SANDBOX/rw/|g" > readonly.out
	check "read-only mount: results/compare/report/bisect status print as on the writable copy" \
		diff writable.out readonly.out
	check "read-only mount: the readers succeeded there" bash -c \
		'[ "$(grep -c "^rc=0$" "$1")" -eq 4 ]' _ readonly.out
	run_perfbot 10 import csv a.csv --commit cccc --job j --testcase hb --db "$SANDBOX/ro/s.db"
	check "read-only mount: a writer is refused: read-only file system" bash -c \
		'[ "$1" -eq 1 ] && grep -q "cannot write in .*/ro: Read-only file system" "$2"' _ "$rc" "$SANDBOX/err"
	run_perfbot 10 import csv a.csv --commit cccc --job j --testcase hb --db "$SANDBOX/ro/new.db"
	check "read-only mount: creating a store there fails, no file made" bash -c \
		'[ "$1" -eq 1 ] && [ ! -e "$2/ro/new.db" ] && [ "$(ls -A "$2/ro")" = s.db ]' _ "$rc" "$SANDBOX"
	umount "$SANDBOX/ro"
else
	ok "read-only mount # skip mount --bind/remount,ro not permitted here"
	ok "read-only mount # skip"
	ok "read-only mount # skip"
	ok "read-only mount # skip"
fi

# a full filesystem: the store cannot be created and leaves nothing
mkdir -p full
if mount -t tmpfs -o size=8k tmpfs "$SANDBOX/full" 2>/dev/null; then
	dd if=/dev/zero of=full/fill bs=1k count=64 2>/dev/null
	run_perfbot 10 import csv a.csv --commit cccc --job j --testcase hb --db "$SANDBOX/full/n.db"
	check "full filesystem: a new store fails, exit 1, no n.db* left" bash -c \
		'[ "$1" -eq 1 ] && [ "$(ls -A "$2")" = fill ]' _ "$rc" "$SANDBOX/full"
	umount "$SANDBOX/full"
else
	ok "full filesystem # skip mount -t tmpfs not permitted here"
fi

# /dev/null and a fifo are no stores: refused before SQLite opens them
had_journal=false
[ -e /dev/null-journal ] && had_journal=true
for cmd in "results" "import csv a.csv --commit c --job j --testcase hb"; do
	# shellcheck disable=SC2086
	run_perfbot 10 $cmd --db /dev/null
	check "--db /dev/null: $cmd refused, not a regular file" bash -c \
		'[ "$1" -eq 1 ] && grep -q "/dev/null is not a regular file" "$2"' _ "$rc" "$SANDBOX/err"
done
if $had_journal; then
	ok "--db /dev/null: no /dev/null-journal made # skip one was there before"
else
	check "--db /dev/null: no /dev/null-journal made" [ ! -e /dev/null-journal ]
fi
mkfifo fifo
run_perfbot 10 results --db "$SANDBOX/fifo"
check "--db FIFO: refused at once, not a regular file" bash -c \
	'[ "$1" -eq 1 ] && grep -q "fifo is not a regular file" "$2"' _ "$rc" "$SANDBOX/err"

finish
