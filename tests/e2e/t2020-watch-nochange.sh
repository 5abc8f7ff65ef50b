#!/bin/bash
# perfbot watch on a branch whose pushes change nothing (issue 14): over
# many passes -- each pushing a few commits -- no alert is confirmed and no
# report is written at all, while the history grows a point per pass and
# the change-point search runs over it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

cd "$SANDBOX" || exit 1

# 9 commits, no slowdown (SLOW_AT past the end)
make_bisect_repo src 9 99 || { echo "Bail out! cannot make the repository"; exit 1; }
set -- $BISECT_MAIN
C=("" "$@")
git clone -q src repo || { echo "Bail out! cannot clone"; exit 1; }
write_bisect_job job.yaml
cat > registry.yaml <<YAML
trees:
  - name: quiet
    repo: repo
    branches: [main]
    jobs: [job.yaml]
    max_age: 3000d
report:
  outbox: outbox
YAML
DB="$SANDBOX/watch.db"

passes=0
for k in 1 3 5 7 9; do
	git -C repo update-ref refs/heads/main "${C[$k]}"
	run_perfbot 600 watch --db "$DB" --once registry.yaml
	passes=$((passes + 1))
	diag "pass $passes (main at commit $k): exit $rc in $secs s; $(grep -E 'perfbot watch: ' "$SANDBOX/err" | sed 's/^[^ ]* perfbot watch: //' | tr '\n' '|' | cut -c1-400)"
	check "pass $passes: exit 0 (got $rc)" [ "$rc" -eq 0 ]
done
check "no report in the outbox after $passes passes" \
	[ "$(ls outbox/new 2>/dev/null | wc -l)" -eq 0 ]
run_perfbot 30 alerts --db "$DB"
diag "alerts: $(tr '\n' '|' <<<"$out")"
# a comparison has its false positives (alpha 0.05 and a 1% floor: about
# 3% of identical pairs at 10 runs a side); what keeps them from becoming
# mail is the bisection's own baseline, which measures good and bad again
check "no alert led to a report: any alert is invalid or no-culprit" \
	bash -c '! grep -Eq "^[0-9]+ +(confirmed|bisecting|found|reported|explained) " <<<"$1"' _ "$out"
check "the history holds a point per pass" \
	bash -c '"$1" watch status --db "$2" | grep -q "quiet/main  5 points, last ${3:0:12}"' _ "$PERFBOT" "$DB" "${C[9]}"

check_nothing_left "perfbot watch, no change"
finish
