#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# html_view_test.sh XPERF - the session page in a real browser (Debian's chromium, headless):
# a session with known turn starts and gaps is analysed to HTML; Chromium lays the page out at
# two window widths and the test reads back the layout: every turn a bar on the time axis, at
# its start and as long as it lasted (to the pixel), the gaps between turns drawn, each bar
# linking to its turn's page (written next to the report, 0600, self-contained; Chromium
# follows the link of turn 2 and reads back the page's labelled lanes and its link back), the
# SVG as wide as the window allows (responsive, no horizontal scroll); the files stay
# self-contained (no script, no external reference). A screenshot of the page goes to the
# test's outputs (TEST_UNDECLARED_OUTPUTS_DIR) and must be a real 1280x900 PNG.
set -euo pipefail
xperf=$(readlink -f "$1")
tmp=${TEST_TMPDIR:-$(mktemp -d)}
outs=${TEST_UNDECLARED_OUTPUTS_DIR:-$tmp}
command -v chromium >/dev/null || { echo "FAIL: chromium is not installed (setup.sh)"; exit 1; }
fail() { echo "FAIL: $*"; exit 1; }

# Four turns: starts 1, 4, 7.5, 12 s; walls 0.5, 1, 1.5, 2 s (gaps 2.5, 2.5, 3 s).
python3 - "$tmp/sess" <<'PY'
import json, os, sys
d = sys.argv[1]
os.makedirs(d)
for k, (start, wall) in enumerate(((1.0, 0.5), (4.0, 1.0), (7.5, 1.5), (12.0, 2.0)), 1):
    s, e = int(start * 1e9), int((start + wall) * 1e9)
    mid = (s + e) // 2
    wall_tool = 100000000 if k == 2 else 0  # turn 2 ends with a 100 ms tool call
    turn = {"schema_version": "1.0", "session_id": "axis", "turn_index": k, "complete": True,
            "source": "sdk", "clock": "CLOCK_MONOTONIC", "start_ns": s, "end_ns": e,
            "agent": {"name": "a", "pid": 1},
            "spans": [{"id": 1, "parent": None, "stage": "prompt_assembly", "domain": "compute",
                       "category": "effective", "start_ns": s, "end_ns": mid},
                      {"id": 2, "parent": None, "stage": "llm_inference", "domain": "intelligent",
                       "category": "processing", "start_ns": mid, "end_ns": e - wall_tool,
                       "attributes": {"xperf.token_times_ns": [mid + 1000000 * i
                                                               for i in range(1, 4)]}}] +
                     ([{"id": 3, "parent": None, "stage": "tool_call", "domain": "compute",
                        "category": "processing", "start_ns": e - wall_tool, "end_ns": e,
                        "tid": 4242, "attributes": {"tool.name": "ls"}}] if wall_tool else []),
            "fused_marks": [], "waste_marks": [] if k != 2 else [
                {"kind": "retry", "l3": "intelligent.waste.retry", "span": 2, "t_ns": e}],
            "data_quality": {"tier": "sdk", "dropped_events": 0, "truncated_payloads": 0,
                             "warnings": []}}
    json.dump(turn, open(os.path.join(d, "turn_%03d.json" % k), "w"))
PY
"$xperf" validate "$tmp/sess" 2>/dev/null || fail "fixture turns invalid"
"$xperf" analyze session "$tmp/sess" --format html -o "$tmp/report.html"
for k in 1 2 3 4; do
	page="$tmp/report.turn_00$k.html"
	[ "$(stat -c %a "$page")" = 600 ] || fail "$page: not written 0600"
	cmp -s <("$xperf" analyze turn "$tmp/sess/turn_00$k.json" --format html) \
		<(sed 's|<p><a id="up" href="report.html">&#8592; session report</a></p>||' "$page") ||
		fail "$page: not the turn's own report (with a link back to report.html)"
done
[ "$(stat -c %a "$tmp/report.html")" = 600 ] || fail "report.html: not written 0600"
for f in "$tmp"/report*.html; do
	! grep -qiE '<script|src=|href="(https?:|//)' "$f" || fail "$f not self-contained"
done
# Written alone (stdout), the bars link to the rows of the same file.
"$xperf" analyze session "$tmp/sess" --format html | grep -q '<a href="#turn-2">' ||
	fail "stdout report: bars do not link to their rows"

# The turn page: labelled lanes (the tool's process has its own), its 3 token arrivals where
# they came, its waste mark.
"$xperf" analyze turn "$tmp/sess/turn_002.json" --format html -o "$tmp/turn.html"
python3 - "$tmp/turn.html" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
lanes = re.findall(r'class="lane"[^>]*>([^<]*)<', page)
assert lanes == ["compute", "intelligent", "fused", "tool ls (pid 4242)", "waste marks",
                 "tokens (3)"], lanes
tool = re.findall(r'<rect x="([0-9.]+)" y="89" width="([0-9.]+)"[^>]*><title>tool_call', page)
assert tool and abs(float(tool[0][0]) - (100 + 880 * 0.9)) < 0.01 and \
    abs(float(tool[0][1]) - 88) < 0.01, ("the tool's time on its own lane", tool)
xs = [float(x) for x in re.findall(r'class="token" x1="([0-9.]+)"', page)]
want = [100 + 880 * (0.5e9 + 1e6 * i) / 1e9 for i in range(1, 4)]  # wall 1 s, tokens after mid
assert all(abs(a - b) < 0.01 for a, b in zip(xs, want)) and len(xs) == 3, (xs, want)
assert re.findall(r'<title>waste: ([^<]*)</title>', page) == ["intelligent.waste.retry"], page
print("turn page: lanes %s, the tool's 100 ms on its lane, 3 token arrivals at their times, "
      "the retry waste mark" % lanes)
PY

# The layout Chromium computes, read back through a copy of the page with a measuring script.
measure() { # WIDTH -> $tmp/layout-WIDTH.json
	sed 's|</body>|<script>addEventListener("load", () => {\
const box = (e) => e.getBoundingClientRect(), svg = document.getElementById("axis");\
const turns = [...svg.querySelectorAll("g.turn")].map((g) => ({turn: +g.dataset.turn,\
  start: +g.dataset.startNs, wall: +g.dataset.wallNs, x: box(g).left - box(svg).left,\
  w: box(g).width, href: g.parentNode.getAttribute("href"),\
  target: new URL(g.parentNode.getAttribute("href"), location.href).href}));\
document.body.dataset.layout = JSON.stringify({window: innerWidth, svg: box(svg).width,\
  scroll: document.documentElement.scrollWidth, gaps: svg.querySelectorAll(".gap").length,\
  unit: box(svg).width / 1000, turns});});</script></body>|' "$tmp/report.html" >"$tmp/measure.html"
	chromium --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chrome" \
		--window-size="$1,900" --virtual-time-budget=5000 --dump-dom "file://$tmp/measure.html" \
		2>/dev/null | python3 -c '
import html, re, sys
m = re.search(r"data-layout=\"([^\"]*)\"", sys.stdin.read())
print(html.unescape(m.group(1)) if m else "{}")' >"$tmp/layout-$1.json"
}
measure 700
measure 1400
python3 - "$tmp" <<'PY'
import json, sys
narrow, wide = (json.load(open("%s/layout-%d.json" % (sys.argv[1], w))) for w in (700, 1400))
for lay in (narrow, wide):
    assert lay.get("turns"), "no turns on the axis: %s" % lay
    assert lay["scroll"] <= lay["window"], "horizontal scroll at %d px: %s" % (lay["window"], lay)
    ts = lay["turns"]
    assert [t["turn"] for t in ts] == [1, 2, 3, 4], ts
    assert lay["gaps"] == 3, "gaps drawn: %d" % lay["gaps"]
    span = ts[-1]["start"] + ts[-1]["wall"]  # ns from the first start to the last end
    px = 920 * lay["unit"]                   # the axis' pixels
    for t in ts:
        assert abs(t["x"] - (60 * lay["unit"] + px * t["start"] / span)) < 1.0, ("start", t, lay)
        assert abs(t["w"] - px * t["wall"] / span) < 1.0, ("width", t, lay)
        assert t["href"] == "report.turn_%03d.html" % t["turn"], ("link", t)
        assert t["target"].endswith("/report.turn_%03d.html" % t["turn"]), ("link", t)
assert wide["svg"] > 1.5 * narrow["svg"], "axis does not grow with the window: %s %s" % (
    narrow["svg"], wide["svg"])
print("session page in chromium: 4 turns at their starts and lengths (< 1 px), 3 gaps, links "
      "to their pages; axis %.0f px at 700, %.0f px at 1400, no horizontal scroll" %
      (narrow["svg"], wide["svg"]))
PY

# Follow turn 2's bar in Chromium (a click on it, the page loaded in its place) and read the
# turn page's lanes and its link back to the session report.
sed 's|</body>|<script>addEventListener("load", () => {\
document.querySelector("g.turn[data-turn=\\"2\\"]")\
  .dispatchEvent(new MouseEvent("click", {bubbles: true}));});</script></body>|' \
	"$tmp/report.html" >"$tmp/follow.html"
sed -i 's|</body>|<script>addEventListener("load", () => { document.body.dataset.page =\
JSON.stringify({url: location.pathname, h1: document.querySelector("h1").textContent,\
lanes: [...document.querySelectorAll("#timeline .lane")].map((e) => e.textContent),\
up: document.getElementById("up").href}); });</script></body>|' "$tmp/report.turn_002.html"
chromium --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chrome" \
	--virtual-time-budget=5000 --dump-dom "file://$tmp/follow.html" 2>/dev/null | python3 -c '
import html, json, re, sys
m = re.search(r"data-page=\"([^\"]*)\"", sys.stdin.read())
page = json.loads(html.unescape(m.group(1))) if m else {}
assert page.get("url", "").endswith("/report.turn_002.html"), ("the click did not load turn 2", page)
assert page["h1"] == "xperf turn 2", page
assert page["lanes"] == ["compute", "intelligent", "fused", "tool ls (pid 4242)", "waste marks",
                         "tokens (3)"], page
assert page["up"].endswith("/report.html"), page
print("followed turn 2 in chromium: %s, lanes %s, links back to %s" % (page["url"], page["lanes"],
                                                                     page["up"]))'

chromium --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chrome" --hide-scrollbars \
	--window-size=1280,900 --screenshot="$outs/session_page.png" "file://$tmp/report.html" 2>/dev/null
python3 - "$outs/session_page.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
assert (w, h) == (1280, 900) and len(data) > 10000, (w, h, len(data))
print("screenshot: %s, %dx%d, %d bytes" % (sys.argv[1], w, h, len(data)))
PY
