#!/bin/bash
# perfbot results without runs: help, a missing database, files that are
# not perfbot databases (refused, left as they were), bad input (exit 2,
# one line naming the bad value) and the default location.
. "$(dirname "$0")/lib.sh"

run_perfbot 10 results --help
check "results --help exits 0" [ "$rc" -eq 0 ]
check "results --help documents every option and show" bash -c \
	'for o in --db --testcase --commit --job --testbox --json "results show RUN_ID"; do grep -q -- "$o" "$1" || exit 1; done' _ "$SANDBOX/out"
run_perfbot 10 help results
check "help results is results --help" grep -q '^usage: perfbot results' "$SANDBOX/out"
run_perfbot 10 help
check "help lists results" grep -q '^   results ' "$SANDBOX/out"

# no_results ARGS...: exit 1, "no results yet at PATH", nothing created
db="$SANDBOX/missing.db"
for args in "" "--json" "show 1" "show 1 --json" "--commit abcd"; do
	# shellcheck disable=SC2086
	run_perfbot 10 results --db "$db" $args
	if [ "$rc" -eq 1 ] && grep -qxF "perfbot: results: no results yet at $db" "$SANDBOX/err" &&
	   [ ! -s "$SANDBOX/out" ] && [ ! -e "$db" ]; then
		ok "results $args on a missing database: exit 1, 'no results yet', nothing created"
	else
		not_ok "results $args on a missing database: exit $rc"
		diag "$err"
	fi
done
run_perfbot 10 results --db "$SANDBOX/no/such/dir/results.db"
check "a missing directory is a missing database" \
	grep -qF "no results yet at $SANDBOX/no/such/dir/results.db" "$SANDBOX/err"
check "... and is not created" [ ! -e "$SANDBOX/no" ]

# refused FILE MESSAGE: exit 1 with the message, the file as it was
refused() {
	file=$1
	msg=$2
	sum=$(md5sum < "$file")
	mtime=$(stat -c %Y.%y "$file")
	for args in "" "show 1"; do
		# shellcheck disable=SC2086
		run_perfbot 10 results --db "$file" $args
		if [ "$rc" -eq 1 ] && grep -qF -- "$msg" "$SANDBOX/err" &&
		   grep -qF -- "$file" "$SANDBOX/err" &&
		   [ "$(md5sum < "$file")" = "$sum" ] &&
		   [ "$(stat -c %Y.%y "$file")" = "$mtime" ] &&
		   [ ! -e "$file-wal" ] && [ ! -e "$file-journal" ]; then
			ok "results $args on $(basename "$file"): exit 1, '$msg', file untouched"
		else
			not_ok "results $args on $(basename "$file"): exit $rc"
			diag "$err"
		fi
	done
}

if command -v sqlite3 >/dev/null; then
	sqlite3 "$SANDBOX/other.db" 'create table t(a); insert into t values (1);'
	refused "$SANDBOX/other.db" "is not a perfbot database (it holds other tables)"
else
	not_ok "a foreign SQLite database: no sqlite3 CLI (scripts/install-deps.sh installs it)"
fi
echo "my notes, not a database" > "$SANDBOX/notes.txt"
refused "$SANDBOX/notes.txt" "is not a perfbot database (not an SQLite file)"
mkdir "$SANDBOX/dir.db"
run_perfbot 10 results --db "$SANDBOX/dir.db"
check "a directory: exit 1" [ "$rc" -eq 1 ]
check "a directory: named" grep -qF "$SANDBOX/dir.db is a directory" "$SANDBOX/err"

# bad_input EXPECTED-MESSAGE ARGS...: exit 2, the message, nothing done
bad_input() {
	msg=$1
	shift
	run_perfbot 10 results --db "$SANDBOX/missing.db" "$@"
	if [ "$rc" -eq 2 ] && grep -qF -- "$msg" "$SANDBOX/err" &&
	   [ "$(wc -l < "$SANDBOX/err")" -eq 1 ] && [ ! -s "$SANDBOX/out" ]; then
		ok "results $*: exit 2, '$msg'"
	else
		not_ok "results $*: exit $rc"
		diag "$err"
	fi
}
bad_input "invalid run id 'abc'" show abc
bad_input "invalid run id '0'" show 0
bad_input "invalid run id '1x'" show 1x
bad_input "invalid run id '99999999999999999999'" show 99999999999999999999
bad_input "show needs a run id" show
bad_input "unexpected argument '2'" show 1 2
bad_input "unexpected argument 'list'" list
bad_input "--testcase is for listing, not for show" show 1 --testcase hackbench
bad_input "unknown option '--frob'" --frob
bad_input "unknown option '-x'" -x
bad_input "option '--db' needs a value" --db
bad_input "option '--commit' needs a value" --commit
bad_input "--db needs a path" --db ""

# the default location, from the environment
env_db() {
	want=$1
	shift
	timeout -s KILL 10 env "$@" "$PERFBOT" results >"$SANDBOX/out" 2>"$SANDBOX/err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -qxF "perfbot: results: no results yet at $want" "$SANDBOX/err"; then
		ok "default location $want"
	else
		not_ok "default location $want: exit $rc"
		diag "$(cat "$SANDBOX/err")"
	fi
}
env_db "$SANDBOX/env.db" PERFBOT_DB="$SANDBOX/env.db" XDG_DATA_HOME="$SANDBOX/xdg"
env_db "$SANDBOX/xdg/perfbot/results.db" -u PERFBOT_DB XDG_DATA_HOME="$SANDBOX/xdg"
env_db "$SANDBOX/home/.local/share/perfbot/results.db" -u PERFBOT_DB -u XDG_DATA_HOME HOME="$SANDBOX/home"
# a PostgreSQL server that is not there: said, with the password masked
run_perfbot 10 results --db "postgresql://u:hunter2@/perfbot?host=$SANDBOX/nosocket"
check "postgresql:// without a server: exit 1" [ "$rc" -eq 1 ]
check "postgresql:// without a server: cannot connect, the location named" \
	grep -qF "cannot connect to postgresql://u:***@/perfbot?host=$SANDBOX/nosocket" "$SANDBOX/err"
check "postgresql:// without a server: the password never printed" \
	bash -c '! grep -q hunter2 "$1" "$2"' _ "$SANDBOX/err" "$SANDBOX/out"

# an initialised database with one run: a missing run id is named
printf 'testcase: one\nrepeat: 1\nexec:\n  cmd: [sh, -c, "echo v: 1"]\n  parse: kv\n' > "$SANDBOX/one.yaml"
run_perfbot 30 run "$SANDBOX/one.yaml" --db "$SANDBOX/runs.db" --no-monitors
check "a run stored" [ "$rc" -eq 0 ]
run_perfbot 10 results show 2 --db "$SANDBOX/runs.db"
check "results show of a missing run: exit 2 (the user named it), named" bash -c \
	'[ "$2" -eq 2 ] && grep -q "no run 2 in" "$1"' _ "$SANDBOX/err" "$rc"
# an unknown commit is a usage error, as compare and report say it
run_perfbot 10 results --commit nope --db "$SANDBOX/runs.db"
check "results --commit of an unknown commit: exit 2, named as compare names it" bash -c \
	'[ "$2" -eq 2 ] && grep -q "^perfbot: results: unknown commit .nope." "$1"' _ "$SANDBOX/err" "$rc"
run_perfbot 10 compare nope other --db "$SANDBOX/runs.db"
check "compare of an unknown commit: the same exit status (2)" [ "$rc" -eq 2 ]
run_perfbot 10 results show 1 --db "$SANDBOX/runs.db"
check "results show 1: the run's stat" bash -c '[ "$2" -eq 0 ] && grep -q "one.v" "$1"' _ "$SANDBOX/out" "$rc"

# results delete: by id and by commit (+ filters), listed; only --yes deletes
ddb="$SANDBOX/del.db"
n=0
for c in aaaa1111 bbbb2222; do
	for box in box1 box2; do
		n=$((n + 1))	# each file its own content: the same one twice is refused
		printf 'run,stat,value\n1,x.ops,%d\n2,x.ops,%d.5\n' $n $n > "$SANDBOX/$c-$box.csv"
		"$PERFBOT" import csv "$SANDBOX/$c-$box.csv" --commit $c --job x-job --testbox $box \
			--param nr_task=1 --db "$ddb" > /dev/null || not_ok "import $c $box"
	done
done
# runs 1,2 aaaa/box1; 3,4 aaaa/box2; 5,6 bbbb/box1; 7,8 bbbb/box2
ids() { sqlite3 "$ddb" 'SELECT group_concat(id) FROM (SELECT id FROM runs ORDER BY id)'; }
rows() { sqlite3 "$ddb" "SELECT (SELECT count(*) FROM run_param) || ',' || (SELECT count(*) FROM run_env)
	|| ',' || (SELECT count(*) FROM stat_value) || ',' || (SELECT count(*) FROM run_import)"; }
check "delete: 8 runs to start with" [ "$(ids)" = "1,2,3,4,5,6,7,8" ]
rows_before=$(rows)
run_perfbot 10 results delete 2 --commit bbbb --testbox box2 --db "$ddb"
check "delete without --yes: exit 2, lists the runs, deletes nothing" bash -c \
	'[ "$3" -eq 2 ] && [ "$(grep -c "^would delete run " "$1")" -eq 3 ] &&
	 grep -q "^would delete run 7: box2  x-job  bbbb2222  complete" "$1" &&
	 grep -q "3 runs not deleted: give --yes" "$2"' _ "$SANDBOX/out" "$SANDBOX/err" "$rc"
check "delete without --yes: nothing deleted" [ "$(ids)" = "1,2,3,4,5,6,7,8" ]
run_perfbot 10 results delete 2 --commit bbbb --testbox box2 -n --db "$ddb"
check "delete -n: exit 0, lists them, deletes nothing" bash -c \
	'[ "$2" -eq 0 ] && grep -q "^would delete 3 runs from .*(-n: nothing deleted)" "$1"' _ "$SANDBOX/out" "$rc"
check "delete -n: nothing deleted" [ "$(ids)" = "1,2,3,4,5,6,7,8" ]
run_perfbot 10 results delete 2 99 --yes --db "$ddb"
check "delete of an unknown id: exit 2, named, nothing deleted" bash -c \
	'[ "$3" -eq 2 ] && grep -q "no run 99 in" "$2" && [ ! -s "$1" ]' _ "$SANDBOX/out" "$SANDBOX/err" "$rc"
check "delete of an unknown id: run 2 still there" [ "$(ids)" = "1,2,3,4,5,6,7,8" ]
run_perfbot 10 results delete --commit cccc --yes --db "$ddb"
check "delete of an unknown commit: exit 2, as listing it" [ "$rc" -eq 2 ]
run_perfbot 10 results delete 2 --commit bbbb --testbox box2 --yes --db "$ddb"
check "delete --yes: exit 0, says what it deleted" bash -c \
	'[ "$2" -eq 0 ] && grep -q "^deleted 3 runs from " "$1"' _ "$SANDBOX/out" "$rc"
check "delete --yes: exactly runs 2, 7 and 8 are gone" [ "$(ids)" = "1,3,4,5,6" ]
check "delete --yes: every row they owned is gone, the others' kept" \
	[ "$(rows)" = "$(echo "$rows_before" | awk -F, -v OFS=, '{ for (i = 1; i <= NF; i++) $i = $i / 8 * 5 } 1')" ]
run_perfbot 10 results --db "$ddb" --json
check "delete --yes: the listing counts what is left" \
	jq -e '[.[] | "\(.commit)/\(.testbox)=\(.runs_complete)"] | sort == ["aaaa1111/box1=1", "aaaa1111/box2=2", "bbbb2222/box1=2"]' "$SANDBOX/out"
run_perfbot 10 results delete --commit bbbb --testbox box2 --yes --db "$ddb"
check "delete of a selection with no run: exit 0, says so" bash -c \
	'[ "$2" -eq 0 ] && grep -q "no run matches" "$1"' _ "$SANDBOX/out" "$rc"
run_perfbot 10 results delete --db "$ddb"
check "delete without a selection: exit 2" bash -c '[ "$2" -eq 2 ] && grep -q "delete what?" "$1"' _ "$SANDBOX/err" "$rc"
run_perfbot 10 results delete --job x-job --yes --db "$ddb"
check "delete --job without --commit: exit 2" bash -c '[ "$2" -eq 2 ] && grep -q "needs --commit" "$1"' _ "$SANDBOX/err" "$rc"
run_perfbot 10 results delete 1 --yes --db "$SANDBOX/none.db"
check "delete on a missing database: exit 1, nothing created" bash -c \
	'[ "$2" -eq 1 ] && [ ! -e "$1" ]' _ "$SANDBOX/none.db" "$rc"
check "after deleting, the database is sound" [ "$(sqlite3 "$ddb" 'PRAGMA integrity_check')" = ok ]

check_nothing_left "results"
finish
