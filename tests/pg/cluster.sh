# cluster.sh - a throw-away PostgreSQL cluster for perfbot's tests.
#
# Source it, then:
#   pg_cluster_start DIR   initdb in DIR/data, a server listening only on a
#                          Unix socket in DIR, database "perfbot"; sets
#                          PG_URL (postgresql://...) and PG_DIR.
#   pg_cluster_stop        stop it (immediate) and remove DIR.
#   pg_cluster_restart     stop and start again, the data kept (tests of a
#                          database that goes away mid-run).
#   pg_cluster_halt        stop it, the data kept.
# The server runs as an unprivileged user: PostgreSQL refuses root, and CI
# runs as root, so there it is nobody's (DIR is handed over to nobody).
# Nothing listens on TCP; trust authentication over the private socket.
# Needs Debian's postgresql-15 (scripts/install-deps.sh installs it).
# The caller owns cleanup (trap ... pg_cluster_stop), as with-cluster.sh does.

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

# Why no cluster can start here, or nothing.
pg_cluster_unavailable() {
	[ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ] ||
		{ echo "no PostgreSQL 15 server programs in $PG_BIN (Debian's postgresql-15)"; return 0; }
	if [ "$(id -u)" -eq 0 ] && ! command -v setpriv >/dev/null; then
		echo "running as root without setpriv to drop to nobody"
		return 0
	fi
	return 1
}

# Run as the cluster's owner.
pg_as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
	else
		"$@"
	fi
}

pg_cluster_start() {
	PG_DIR=$1
	mkdir -p "$PG_DIR" || return 1
	[ "$(id -u)" -eq 0 ] && chown nobody:nogroup "$PG_DIR"
	chmod 700 "$PG_DIR"
	pg_as_owner "$PG_BIN/initdb" -D "$PG_DIR/data" -U perfbot -A trust \
		-E UTF8 --locale=C.UTF-8 --no-sync >"$PG_DIR/initdb.log" 2>&1 || {
		cat "$PG_DIR/initdb.log" >&2
		return 1
	}
	cat >>"$PG_DIR/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$PG_DIR'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 100
log_min_messages = warning
CONF
	pg_cluster_up || return 1
	pg_as_owner "$PG_BIN/createdb" -h "$PG_DIR" -U perfbot perfbot || return 1
	# root reaches the socket in a directory only nobody may enter
	[ "$(id -u)" -eq 0 ] && chmod 711 "$PG_DIR"
	PG_URL="postgresql:///perfbot?host=$PG_DIR&user=perfbot"
	export PG_URL PG_DIR
}

pg_cluster_up() {
	pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" \
		-w -t 60 start >/dev/null || {
		cat "$PG_DIR/server.log" >&2
		return 1
	}
}

pg_cluster_halt() {
	[ -n "${PG_DIR:-}" ] && [ -f "$PG_DIR/data/postmaster.pid" ] &&
		pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1
	return 0
}

pg_cluster_restart() {
	pg_cluster_halt
	pg_cluster_up
}

pg_cluster_stop() {
	[ -n "${PG_DIR:-}" ] || return 0
	pg_cluster_halt
	rm -rf "$PG_DIR"
	PG_DIR=
}
