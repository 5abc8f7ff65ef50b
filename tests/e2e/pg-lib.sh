# pg-lib.sh - a throw-away PostgreSQL cluster for an e2e test (after
# lib.sh): pg_e2e_start sets $PG_URL (and $PG_TOP, the cluster's
# directory) or says why none can start (the test then ends there with a
# skip, after the checks it has made); the cluster is stopped and removed
# on exit, also on failure and ^C.  Its directory is outside the sandbox:
# the server runs as nobody when the test runs as root, and must reach it.
. "$(dirname "$0")/../pg/cluster.sh"

pg_e2e_start() {
	local why
	if why=$(pg_cluster_unavailable); then
		ok "# SKIP no PostgreSQL cluster: $why"
		finish
		exit 0
	fi
	PG_TOP=$(mktemp -d /tmp/perfbot-pg-e2e.XXXXXX) || exit 1
	# also on a Bail out or ^C, where finish (which removes the sandbox) is not reached
	trap 'pids=$(sandbox_pids); [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
		pg_cluster_stop; rm -rf "$SANDBOX" "$PERFBOT_SHMDIR"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	# from /: the server's programs run as nobody, who may not enter $PWD
	pushd / >/dev/null || exit 1
	pg_unmarked pg_cluster_start "$PG_TOP" ||
		{ echo "Bail out! cannot start PostgreSQL in $PG_TOP"; exit 1; }
	popd >/dev/null || exit 1
}

# The server is no process of perfbot's: without the sandbox's marker, so
# that its SysV segment and processes are not counted as left behind.
pg_unmarked() {
	local mark=$PERFBOT_E2E_MARK ret
	unset PERFBOT_E2E_MARK
	"$@"
	ret=$?
	export PERFBOT_E2E_MARK=$mark
	return $ret
}

# psql as the cluster's owner: one value per line, no headers
pg_sql() {
	(cd / && pg_as_owner "$PG_BIN/psql" -h "$PG_DIR" -U perfbot -d perfbot -XAqt -v ON_ERROR_STOP=1 -c "$1")
}
