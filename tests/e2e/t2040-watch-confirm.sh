#!/bin/bash
# The robot asks twice before it alerts: a head whose first interleaved
# measurement shows a change that its second, afresh, does not -- a
# false positive of the first -- gives no alert and no report.  The job's
# command is slow (110 ms instead of 100) on the head's first 11
# executions only (its warm-up and the first round's 10 runs), then as
# fast as the base: what a verdict at alpha 0.05 that happens to be wrong
# looks like, made certain.  A change that stays (the same job, slow on
# every run) is an alert, confirmed the second time too.
. "$(dirname "$0")/lib.sh"

cd "$SANDBOX" || exit 1
SHM_BEFORE=$(shm_listing)

git init -q -b main src
cd src || exit 1
export GIT_AUTHOR_NAME=Dev GIT_AUTHOR_EMAIL=dev@example.invalid GIT_COMMITTER_NAME=Dev \
	GIT_COMMITTER_EMAIL=dev@example.invalid GIT_AUTHOR_DATE=2026-11-01T10:00:00Z \
	GIT_COMMITTER_DATE=2026-11-01T10:00:00Z
echo normal > mode && git add mode && git commit -q -m base
echo flaky > mode && git commit -q -a -m "looks slower, is not"
echo slow > mode && git commit -q -a -m "is slower"
mapfile -t C < <(echo; git rev-list --reverse main)
cd "$SANDBOX" || exit 1
git clone -q src repo

cat > job.yaml <<YAML
testcase: confirm-demo
timeout: 30s
monitors: []
exec:
  cmd: [sh, -c, 'm=\$(cat mode); n=0; if [ "\$m" = flaky ]; then n=\$(cat $SANDBOX/flaky 2>/dev/null || echo 0); echo \$((n + 1)) > $SANDBOX/flaky; fi; if [ "\$m" = slow ] || { [ "\$m" = flaky ] && [ "\$n" -lt 11 ]; }; then ms=110; else ms=100; fi; printf "time_ms: %d.%03d ms\\\\n" "\$ms" "\$((\$(od -An -N2 -tu2 /dev/urandom) % 1000))"']
  parse: kv
kpi: confirm-demo.time_ms
YAML
cat > registry.yaml <<YAML
trees:
  - name: demo
    repo: repo
    branches: [main]
    jobs: [job.yaml]
    max_age: 3000d
report:
  outbox: outbox
YAML
DB="$SANDBOX/watch.db"
log() { grep -E 'perfbot watch: ' "$SANDBOX/err" | sed 's/^[^ ]* perfbot watch: //' | grep -Ev '^(run [0-9]+:|bisect [0-9]+: run )' | tr '\n' '|' | cut -c1-1200; }

git -C repo update-ref refs/heads/main "${C[1]}"
run_perfbot 300 watch --db "$DB" --once registry.yaml
check "pass 1: the baseline (exit $rc)" [ "$rc" -eq 0 ]

git -C repo update-ref refs/heads/main "${C[2]}"
run_perfbot 300 watch --db "$DB" --once registry.yaml
diag "pass 2: $(log)"
check "pass 2: the first measurement saw a change, and measured again afresh" \
	grep -q "changed against ${C[1]:0:12}; measuring again, afresh, to confirm" "$SANDBOX/err"
check "pass 2: it did not change again: no alert, said" \
	grep -q "did not change again on fresh runs: no alert" "$SANDBOX/err"
check "pass 2: exit 0, no report" bash -c '[ "$1" -eq 0 ] && [ -z "$(ls outbox/new 2>/dev/null)" ]' _ "$rc"
run_perfbot 30 alerts list --db "$DB"
check "pass 2: no confirmed alert" bash -c '! grep -q "confirmed" <<<"$1"' _ "$out"

git -C repo update-ref refs/heads/main "${C[3]}"
run_perfbot 600 watch --db "$DB" --once registry.yaml
diag "pass 3: $(log)"
check "pass 3: a change that stays is confirmed afresh: an alert" \
	bash -c 'grep -q "measuring again, afresh" "$1" && ! grep -q "did not change again" "$1" &&
		 grep -q "alert [0-9]*: confirm-demo.*+\(9\|1[0-9]\)\.[0-9]%" "$1"' _ "$SANDBOX/err"
check "pass 3: exit 0, one report naming the slow commit" \
	bash -c '[ "$1" -eq 0 ] && [ "$(ls outbox/new | wc -l)" -eq 1 ] && grep -q "${2:0:10}" outbox/new/*' _ "$rc" "${C[3]}"
check_nothing_left "watch confirm"
finish
