#!/bin/bash
# perfbot report --format html: seed 001's numbers (three runs a side, so
# the KPI gets a verdict) imported for two commits; the page parses, holds
# the KPI's plot and no external reference, and a headless chromium renders
# it to a picture that is not blank (browser-lib.sh, pngcheck.py; without
# a Chromium that renders, those checks are skipped with the reason).
#
# The page is at least as complete as the email (issue 17, item 4): seed
# 001's other two jobs go in too -- malloc2 on another box with its machine
# line and parameters (the "In addition to that" table) and context_switch1,
# whose only change is its dmesg WARNINGs (2:2 against :2, two runs a side
# as the seed's) -- and the page leads with the email's sentence, shows
# the other box's job in the table, the dmesg rows, improvements not in
# the regression's class, and names every plot's axes.
. "$(dirname "$0")/lib.sh"

if ! "$PERFBOT" report --help >/dev/null 2>&1; then
	echo "ok 1 # SKIP perfbot report not built"
	tap_n=1
	check_nothing_left "report html"
	finish
	exit
fi

db="$SANDBOX/results.db"
job=will-it-scale-100%-thread-malloc1
kpi=will-it-scale.per_thread_ops
base=b121b341e5983bdc0123456789abcdef01234567
new=492e639f0c222784aaaabbbbccccddddeeeeffff
cat > "$SANDBOX/base.json" <<'JSON'
{
  "will-it-scale.per_thread_ops": [6105869, 6105969, 6106069],
  "will-it-scale.time.maximum_resident_set_size": [9850, 9860, 9855],
  "dmesg.WARNING:stack_recursion": [1, 1, 1]
}
JSON
cat > "$SANDBOX/new.json" <<'JSON'
{
  "will-it-scale.per_thread_ops": [6265464, 6265564, 6265664],
  "will-it-scale.time.maximum_resident_set_size": [10000, 245550, 10020]
}
JSON
for c in base new; do
	eval "sha=\$$c"
	run_perfbot 10 import lkp-matrix "$SANDBOX/$c.json" --commit "$sha" \
		--job "$job" --testbox lkp-box --db "$db"
	check "import $c: exit 0" [ "$rc" -eq 0 ] || diag "$err"
done

# seed 001's "In addition to that": malloc2, process mode, +2.5%, another box
cat > "$SANDBOX/base2.json" <<'JSON'
{ "will-it-scale.per_process_ops": [1000000, 1000100, 999900] }
JSON
cat > "$SANDBOX/new2.json" <<'JSON'
{ "will-it-scale.per_process_ops": [1025000, 1025100, 1024900] }
JSON
# seed 001's context_switch1: only the dmesg WARNINGs changed
cat > "$SANDBOX/base3.json" <<'JSON'
{
  "will-it-scale.per_thread_ops": [1917340, 1917360],
  "dmesg.WARNING:at#for_ip_swapgs_restore_regs_and_return_to_usermode/0x": [1, 1],
  "dmesg.WARNING:stack_recursion": [1, 1]
}
JSON
cat > "$SANDBOX/new3.json" <<'JSON'
{ "will-it-scale.per_thread_ops": [1917340, 1917360] }
JSON
box2_machine="288 threads Intel(R) Xeon Phi(TM) CPU 7295 @ 1.50GHz with 80G memory"
for c in base new; do
	eval "sha=\$$c"
	run_perfbot 10 import lkp-matrix "$SANDBOX/${c}2.json" --commit "$sha" \
		--job will-it-scale-100%-process-malloc2 --testbox lkp-knm01 \
		--machine "$box2_machine" --param nr_task=100% --param mode=process \
		--param test=malloc2 --param ucode=0x11 --db "$db"
	check "import $c of malloc2 on a second box: exit 0" [ "$rc" -eq 0 ] || diag "$err"
	run_perfbot 10 import lkp-matrix "$SANDBOX/${c}3.json" --commit "$sha" \
		--job will-it-scale-100%-thread-context_switch1 --testbox lkp-box --db "$db"
	check "import $c of context_switch1: exit 0" [ "$rc" -eq 0 ] || diag "$err"
done

html="$SANDBOX/r.html"
run_perfbot 30 report --format html --db "$db" "$base" "$new"
cp "$SANDBOX/out" "$html"
check "report --format html: exit 0" [ "$rc" -eq 0 ] || diag "$err"
check "starts with <!DOCTYPE html>" bash -c 'head -c 15 "$1" | grep -qx "<!DOCTYPE html>"' _ "$html"
check "has the KPI's plot" bash -c 'grep -q "<svg" "$1" && grep -qF "$2" "$1"' _ "$html" "$kpi"
check "no external reference" bash -c '! grep -Eq "https?://|src=|href=" "$1"' _ "$html"

# Parses, with every element closed that HTML requires closed.
check "python3 html.parser: balanced" python3 - "$html" <<'PY'
import sys
from html.parser import HTMLParser

VOID = {"meta", "br", "hr", "img", "input", "link", "col", "wbr", "area", "base",
        "source", "track", "embed", "param"}

class P(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.svgs = [], [], 0
    def handle_starttag(self, tag, attrs):
        if tag == "svg":
            self.svgs += 1
        if tag not in VOID:
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        pass
    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes %s" % (tag, self.stack[-1:] or "nothing"))
        else:
            self.stack.pop()

p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
p.close()
if p.errors or p.stack or not p.svgs:
    print("# errors:", p.errors[:5], "unclosed:", p.stack, "svgs:", p.svgs)
    sys.exit(1)
PY

# What the email says, the page says: its first sentence word for word.
run_perfbot 30 report --format email --db "$db" "$base" "$new"
check "report --format email: exit 0" [ "$rc" -eq 0 ] || diag "$err"
lead=$(grep -m1 '^perfbot noticed ' "$SANDBOX/out")
check "the email leads with seed 001's sentence" \
	[ "$lead" = "perfbot noticed a 2.6% improvement of will-it-scale.per_thread_ops on:" ] ||
	diag "$lead"

check "the page: the email's lead, its In addition table, dmesg rows, colours, axes" \
	python3 - "$html" "$lead" "$box2_machine" <<'PY'
import sys
from html.parser import HTMLParser

html, lead, machine = sys.argv[1], sys.argv[2], sys.argv[3]

class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.kids = tag, dict(attrs), parent, []
    def text(self):
        return "".join(k if isinstance(k, str) else k.text() for k in self.kids)
    def classes(self):
        return (self.attrs.get("class") or "").split()
    def elements(self):
        return [k for k in self.kids if not isinstance(k, str)]
    def find(self, tag=None, cls=None):
        for k in self.elements():
            if (tag is None or k.tag == tag) and (cls is None or cls in k.classes()):
                yield k
            yield from k.find(tag, cls)

VOID = {"meta", "br", "hr", "img", "input", "link", "col", "wbr"}

class P(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.cur = Node("#root", [], None)
    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.kids.append(n)
        if tag == "br":
            n.kids.append("\n")
        if tag not in VOID:
            self.cur = n
    def handle_startendtag(self, tag, attrs):
        self.cur.kids.append(Node(tag, attrs, self.cur))
    def handle_endtag(self, tag):
        if tag not in VOID:
            self.cur = self.cur.parent
    def handle_data(self, d):
        self.cur.kids.append(d)

p = P()
p.feed(open(html, encoding="utf-8").read())
root, bad = p.root, []

def need(cond, what):
    if not cond:
        bad.append(what)

heads = list(root.find("p", "headline"))
need(len(heads) == 1 and heads[0].text() == lead, "headline %r" % [h.text() for h in heads])
need(heads and "improvement" in heads[0].classes(), "the headline's class")
dl = {}
for sec in root.find("section", "lead"):
    dl = dict(zip((dt.text() for dt in sec.find("dt")), (dd.text() for dd in sec.find("dd"))))
need(dl.get("commit", "").startswith("492e639f0c222784"), "lead's commit %r" % dl)
need(dl.get("test machine") == "lkp-box", "lead's test machine %r" % dl)

# the "In addition to that" table: the other box's job, its machine and parameters
impact = list(root.find("table", "impact"))
need(len(impact) == 1, "one In addition table")
cells = {}
for t in impact:
    for tr in t.find("tr"):
        th, td = tr.elements()
        cells[th.text()] = td
change = cells.get("testcase: change")
need(change is not None and change.text() ==
     "will-it-scale: will-it-scale.per_process_ops 2.5% improvement",
     "impact %r" % {k: v.text() for k, v in cells.items()})
need(change is not None and change.classes() == ["improvement"], "the impact's class")
need("test machine" in cells and cells["test machine"].text() == machine, "impact machine")
need("test parameters" in cells and cells["test parameters"].text().split("\n") ==
     ["mode=process", "nr_task=100%", "test=malloc2", "ucode=0x11"], "impact parameters")

# the job whose only change is its dmesg WARNINGs: the rows, never "no stat changed"
for sec in root.find("section"):
    h2 = list(sec.find("h2"))
    if not h2 or "context_switch1" not in h2[0].text():
        continue
    names = [td.text() for td in sec.find("td", "name")]
    need("dmesg.WARNING:stack_recursion" in names, "context_switch1 rows %r" % names)
    need("dmesg.WARNING:at#for_ip_swapgs_restore_regs_and_return_to_usermode/0x" in names,
         "context_switch1 rows %r" % names)
    need("no stat changed" not in sec.text(), "context_switch1 says no stat changed")
    need(any("verdicts need 3 runs a side" in q.text() for q in sec.find("p", "few-runs")),
         "context_switch1's few-runs lines")
    break
else:
    need(False, "no context_switch1 section")

# verdicts: an improvement is never in the regression's class
improvements = 0
for td in root.find("td"):
    c, words = td.classes(), td.text().split()
    if "v-changed" in c and "improvement" in words:
        improvements += 1
        need("regression" not in c and "improvement" in c, "improvement cell %r" % c)
    if "v-changed" in c and "regression" in words:
        need("regression" in c and "improvement" not in c, "regression cell %r" % c)
need(improvements == 2, "%d improvement cells, not 2" % improvements)

# every plot names its axes: x "commit", y the stat
svgs = list(root.find("svg"))
need(len(svgs) == 3, "%d plots, not 3" % len(svgs))
for svg in svgs:
    axes = [t.text() for t in svg.find("text", "axis")]
    title = next(svg.find("title")).text()
    need(axes == ["commit", title], "axes %r of %s" % (axes, title))

if bad:
    for b in bad:
        print("#", b)
    sys.exit(1)
PY

# ---- rendering (browser-lib.sh: headless Chromium without network) ----
. "$(dirname "$0")/browser-lib.sh"
if ! skip_render=$(browser_available); then
	ok "render to PNG # SKIP $skip_render"
	ok "the picture is not blank # SKIP $skip_render"
	ok "chromium leaves no process # SKIP $skip_render"
else
	browser_screenshot "$html" "$SANDBOX/r.png" 1200,2000
	crc=$?
	check "render to PNG" [ "$crc" -eq 0 ] ||
		diag "chromium exit $crc; $(tail -5 "$SANDBOX/browser.log")"
	check "the picture is not blank" python3 "$(dirname "$0")/pngcheck.py" "$SANDBOX/r.png"
	check "chromium leaves no process" [ -z "$(browser_pids)" ]
fi

check_nothing_left "report html"
finish
