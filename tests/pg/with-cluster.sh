#!/bin/bash
# with-cluster.sh CMD [ARG...] - run CMD with a throw-away PostgreSQL
# cluster: PERFBOT_TEST_PG_URL names its database, and the cluster is
# stopped and removed when CMD ends, fails or is interrupted.  Where no
# cluster can start, CMD runs without PERFBOT_TEST_PG_URL and
# PERFBOT_TEST_PG_SKIP says why (the tests report a skip with that reason).
set -u
. "$(dirname "$0")/cluster.sh"

if why=$(pg_cluster_unavailable); then
	export PERFBOT_TEST_PG_SKIP="$why"
	exec "$@"
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/perfbot-pg.XXXXXX") || exit 1
trap 'pg_cluster_stop' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
pg_cluster_start "$dir" || { echo "with-cluster.sh: cannot start PostgreSQL in $dir" >&2; exit 1; }
export PERFBOT_TEST_PG_URL="$PG_URL"
"$@"
