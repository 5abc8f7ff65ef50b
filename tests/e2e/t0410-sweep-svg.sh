#!/bin/bash
# bench --sweep --svg FILE: will-it-scale's scaling plot as a standalone SVG
# (issue 18, item 6): valid XML, one polyline per mode plus linear, axis
# labels, a <title> per point; a path that cannot be written is refused
# before the sweep starts.
. "$(dirname "$0")/lib.sh"

svg="$SANDBOX/sweep.svg"
run_perfbot 60 bench getppid1 --sweep --max 2 -w 0 -d 0.2 -i 0.1 --svg "$svg"
check "sweep --svg exits 0" [ "$rc" -eq 0 ]
check "the table still on stdout" grep -q '^tasks ' "$SANDBOX/out"
check "the SVG is XML (htmlcheck --xml)" python3 "$(dirname "$0")/htmlcheck.py" --xml "$svg"
check "the plot: one polyline per mode, linear, labels, a title per point" python3 -c '
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
assert "getppid1" in root.find("s:title", ns).text
modes = [p.get("data-mode") for p in root.iter("{http://www.w3.org/2000/svg}polyline") if p.get("data-mode")]
assert sorted(modes) == ["processes", "threads"], modes
lin = [p for p in root.iter("{http://www.w3.org/2000/svg}polyline") if p.get("class") == "linear"]
assert len(lin) == 1 and len(lin[0].get("points").split()) == 2, lin
for p in root.iter("{http://www.w3.org/2000/svg}polyline"):
    assert len(p.get("points").split()) == 2, p.attrib
texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
assert "number of tasks" in texts and "operations per second (ops/s)" in texts, texts
assert "processes" in texts and "threads" in texts, texts      # the legend
titles = [c.find("s:title", ns).text for c in root.iter("{http://www.w3.org/2000/svg}circle")]
assert len(titles) == 4, titles
assert any(t.startswith("threads, 2 tasks: ") and t.endswith(" ops/s") for t in titles), titles
' "$svg"

# one mode: one polyline of a mode
run_perfbot 60 bench getppid1 --sweep --max 2 -m thread -w 0 -d 0.2 -i 0.1 --json --svg "$svg"
check "-m thread --json --svg: exit 0, the JSON as before" bash -c \
	'[ "$1" -eq 0 ] && jq -e ".rows | length == 2 and .[1].tasks == 2" "$2" >/dev/null' _ "$rc" "$SANDBOX/out" ||
	diag "$(head -c 400 "$SANDBOX/out")"
check "-m thread: one mode's polyline" python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
modes = [p.get("data-mode") for p in root.iter("{http://www.w3.org/2000/svg}polyline") if p.get("data-mode")]
assert modes == ["threads"], modes
' "$svg"

# a path that cannot be written: exit 2 before anything runs
run_perfbot 20 bench getppid1 --sweep --max 2 -w 0 -d 0.2 -i 0.1 --svg "$SANDBOX/no/such/dir/x.svg"
check "bad --svg path: exit 2 naming it, before the sweep" bash -c \
	'[ "$1" -eq 2 ] && grep -qF "cannot write --svg '"'"'$3'"'"'" "$2" && ! grep -q "^sweep:" "$2" && [ ! -s "$4" ]' \
	_ "$rc" "$SANDBOX/err" "$SANDBOX/no/such/dir/x.svg" "$SANDBOX/out"
run_perfbot 20 bench getppid1 -w 0 -d 0.2 -i 0.1 --svg "$svg"
check "--svg without --sweep: exit 2" bash -c \
	'[ "$1" -eq 2 ] && grep -qF -- "--svg is only for --sweep" "$2"' _ "$rc" "$SANDBOX/err"
run_perfbot 20 bench getppid1 --sweep --svg ""
check "--svg '': exit 2" [ "$rc" -eq 2 ]

check_nothing_left "sweep --svg"
finish
