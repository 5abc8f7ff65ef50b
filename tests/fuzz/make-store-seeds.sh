#!/bin/bash
# Regenerate the store target's seeds in tests/fuzz/corpus/store/ (after a
# schema change, say).  Run from the source tree with build-fuzz built:
#   tests/fuzz/make-store-seeds.sh [BUILD_DIR]
# store.db        as perfbot writes it (4 KiB pages, WAL), a bisection too
# store-small.db  the same with 512-byte pages and a rollback journal:
#                 8x fewer bytes for the fuzzer to find the structure in
# crash-dup-value.db  crafted: one (run, stat) value row twice (issue 10,
#                 defect 1; stat_value rebuilt without its primary key)
# Reproducers the fuzzer found (crash-*.db) are kept as they are.
set -euo pipefail
build=${1:-build-fuzz}
out=tests/fuzz/corpus/store
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$build/make_store_seed" "$tmp/store.db" tests/fixtures/bisect-result.json
cp "$tmp/store.db" "$tmp/small.db"
sqlite3 "$tmp/small.db" 'PRAGMA journal_mode = DELETE; PRAGMA page_size = 512; VACUUM;' >/dev/null
cp "$tmp/small.db" "$tmp/dup.db"
sqlite3 "$tmp/dup.db" <<'SQL'
ALTER TABLE stat_value RENAME TO old_value;
CREATE TABLE stat_value (run_id INTEGER NOT NULL, name_id INTEGER NOT NULL, value REAL);
INSERT INTO stat_value SELECT run_id, name_id, value FROM old_value;
INSERT INTO stat_value SELECT run_id, name_id, value FROM old_value LIMIT 1;
DROP TABLE old_value;
VACUUM;
SQL
mkdir -p "$out"
cp "$tmp/store.db" "$out/store.db"
cp "$tmp/small.db" "$out/store-small.db"
cp "$tmp/dup.db" "$out/crash-dup-value.db"
ls -l "$out"
