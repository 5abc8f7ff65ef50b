#!/bin/bash
# Write the store target's seeds for the current schema into
# tests/fuzz/corpus/store/ (after a schema change, say).  Run from the
# source tree with build-fuzz built:
#   tests/fuzz/make-store-seeds.sh [BUILD_DIR]
# store-vN.db         as perfbot writes it (4 KiB pages, WAL), a bisection too
# store-vN-small.db   the same with 512-byte pages and a rollback journal:
#                     8x fewer bytes for the fuzzer to find the structure in
# dup-meta-vN.db      crafted: one run's declaration of a stat twice
#                     (run_stat_meta rebuilt without its primary key)
# N is the schema version.  The seeds of older schemas stay as they are,
# as inputs a reader of an older file meets: store.db, store-small.db and
# crash-dup-value.db (one (run, stat) value row twice: issue 10, defect 1)
# are schema 2.  Reproducers the fuzzer found (crash-*.db) are kept too.
set -euo pipefail
build=${1:-build-fuzz}
out=tests/fuzz/corpus/store
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$build/make_store_seed" "$tmp/store.db" tests/fixtures/bisect-result.json
v=$(sqlite3 "$tmp/store.db" "SELECT value FROM meta WHERE key = 'schema_version'")
cp "$tmp/store.db" "$tmp/small.db"
sqlite3 "$tmp/small.db" 'PRAGMA journal_mode = DELETE; PRAGMA page_size = 512; VACUUM;' >/dev/null
cp "$tmp/small.db" "$tmp/dup-meta.db"
sqlite3 "$tmp/dup-meta.db" <<'SQL'
ALTER TABLE run_stat_meta RENAME TO old_meta;
CREATE TABLE run_stat_meta (run_id INTEGER NOT NULL, name_id INTEGER NOT NULL,
	unit TEXT NOT NULL, better INTEGER NOT NULL, kpi INTEGER NOT NULL);
INSERT INTO run_stat_meta SELECT * FROM old_meta;
INSERT INTO run_stat_meta SELECT * FROM old_meta WHERE run_id = 2 LIMIT 1;
DROP TABLE old_meta;
VACUUM;
SQL
mkdir -p "$out"
cp "$tmp/store.db" "$out/store-v$v.db"
cp "$tmp/small.db" "$out/store-v$v-small.db"
cp "$tmp/dup-meta.db" "$out/dup-meta-v$v.db"
ls -l "$out"
