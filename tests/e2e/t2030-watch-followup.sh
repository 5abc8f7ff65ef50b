#!/bin/bash
# perfbot watch: a culprit is reported once (issue 14).  A later change
# the same culprit explains is added to its record; with `follow_up:
# true` it is mailed as a follow-up of the report (Re:, In-Reply-To) only
# when the record has no alert of its (job, testbox, direction) yet --
# the job already reported is not mailed again.  Also `base: {upstream:}`:
# a head is compared with the previous head and with the merge base.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

cd "$SANDBOX" || exit 1

BISECT_SLOWDOWN_PCT=10
make_bisect_repo src 8 4 || { echo "Bail out! cannot make the repository"; exit 1; }
set -- $BISECT_MAIN
C=("" "$@")
git clone -q src repo || { echo "Bail out! cannot clone"; exit 1; }
git -C repo update-ref refs/heads/base "${C[1]}"
push() { git -C repo update-ref refs/heads/main "$1"; }
write_bisect_job job.yaml
sed 's/bisect-demo/bisect-demo2/g' job.yaml > job2.yaml

registry() {
	cat <<YAML
trees:
  - name: demo
    repo: repo
    branches: [main]
    jobs: [$1]
    base: {upstream: base}
    max_age: 3000d
report:
  outbox: outbox
  follow_up: true
YAML
}
registry 'job.yaml' > one.yaml
registry 'job.yaml, job2.yaml' > two.yaml
DB="$SANDBOX/watch.db"
messages() { ls outbox/new 2>/dev/null | wc -l; }
watch() {
	run_perfbot 900 watch --db "$DB" --once "$1"
	diag "watch $1: exit $rc in $secs s; $(grep -E 'perfbot watch: ' "$SANDBOX/err" | sed 's/^[^ ]* perfbot watch: //' | grep -Ev '^bisect [0-9]+: ' | tr '\n' '|' | cut -c1-1200)"
}

push "${C[1]}"
watch one.yaml
check "pass 1 (baseline): exit 0, no report" bash -c '[ "$1" -eq 0 ] && [ "$2" -eq 0 ]' _ "$rc" "$(messages)"
push "${C[6]}"
watch one.yaml
check "pass 2: one report, of the planted commit" bash -c '
	[ "$1" -eq 1 ] && grep -q "^Subject: .*${2:0:10}" outbox/new/*' _ "$(messages)" "${C[4]}"
first=$(ls outbox/new/*)

# the second job joins; the head moves past nothing new
push "${C[8]}"
watch two.yaml
check "pass 3: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "pass 3: the head compared with the merge base with upstream too" \
	grep -q "against ${C[1]:0:12}" "$SANDBOX/err"
check "pass 3: one follow-up, not a second report" [ "$(messages)" -eq 2 ]
follow=$(ls outbox/new/* | grep -- '-followup-' | head -1)
pycheck "pass 3: the follow-up answers the report (Re:, In-Reply-To, References) about the second job" '
import email, email.policy, sys
first = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
f = email.message_from_binary_file(open(sys.argv[2], "rb"), policy=email.policy.default)
assert str(f["Subject"]).startswith("Re: "), f["Subject"]
assert f["In-Reply-To"] == first["Message-ID"], (f["In-Reply-To"], first["Message-ID"])
assert f["References"] == first["Message-ID"]
assert "bisect-demo2" in f.get_content()
' "$first" "$follow"
run_perfbot 30 alerts --db "$DB"
diag "alerts: $(tr '\n' '|' <<<"$out")"
check "alerts: the first job's later change explained (recorded, not mailed again)" \
	bash -c 'grep -Eq "^[0-9]+ +explained +demo/main bisect-demo bisect-demo.time_ms .*culprit ${2:0:12} report 1" <<<"$1"' _ "$out" "${C[4]}"
check "alerts: the second job's change explained by the same culprit, in report 1" \
	bash -c 'grep -Eq "^[0-9]+ +explained +demo/main bisect-demo2 .*culprit ${2:0:12} report 1" <<<"$1"' _ "$out" "${C[4]}"
check "one bisection for the three alerts" [ "$(sqlite3 "$DB" 'SELECT count(*) FROM bisect')" -eq 1 ]

watch two.yaml
check "pass 4 (nothing new): no message more" [ "$(messages)" -eq 2 ]

check_nothing_left "perfbot watch, follow-up"
finish
