#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""speedscope_check.py SPEEDSCOPE_DIR TRACE.json - load a Chrome trace into speedscope (npm,
third_party/npm), an independent viewer, in headless Chromium, as `speedscope FILE` would, and
require a clean import: the Trace Event Format importer, its profile shown, and not one console
warning or error (speedscope warns for every slice that ends out of stack order, "Tried to end
frame" / "still open at end of profile", which the floating-point ts + dur of microseconds with
nanosecond decimals, or zero-length slices, cause). Prints one line; exits 1 on failure."""
import base64
import html
import json
import os
import re
import subprocess
import sys
import tempfile

# Chromium's own messages about the headless machine (no GPU, no dbus), not speedscope's.
BENIGN = re.compile(r"WebGL|GL Driver|GPU stall|swiftshader", re.I)


def main():
    ss_dir, trace = sys.argv[1], sys.argv[2]
    index = os.path.abspath(os.path.join(ss_dir, "dist", "release", "index.html"))
    with tempfile.TemporaryDirectory() as tmp:
        profile = os.path.join(tmp, "profile.js")
        data = base64.b64encode(open(trace, "rb").read()).decode()
        with open(profile, "w") as f:
            # every console message speedscope writes, kept on the page for --dump-dom
            f.write("""window.xperfLog = [];
for (const level of ["log", "warn", "error"]) {
  const orig = console[level];
  console[level] = (...a) => { window.xperfLog.push([level, a.map(String).join(" ")]); orig.apply(console, a); };
}
window.addEventListener("error", (e) => window.xperfLog.push(["error", String(e.message)]));
speedscope.loadFileFromBase64("trace.json", %s);
setTimeout(() => document.body.setAttribute("data-xperf-log", JSON.stringify(window.xperfLog)), 5000);
""" % json.dumps(data))
        cmd = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + tmp,
               "--virtual-time-budget=20000", "--dump-dom",
               "file://%s#localProfilePath=%s" % (index, profile)]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                             env=dict(os.environ, HOME=tmp)).stdout
    m = re.search(r'data-xperf-log="([^"]*)"', out)
    if not m:
        print("FAIL: speedscope: no log on the page (did it load?)")
        sys.exit(1)
    log = json.loads(html.unescape(m.group(1)))
    how = [msg for level, msg in log if msg.startswith("Importing as")]
    bad = [msg for level, msg in log if level != "log" and not BENIGN.search(msg)]
    title = re.search(r"<title>([^<]*)", out)
    if how != ["Importing as Trace Event Format profile"] or bad or \
            not title or title.group(1) != "trace.json - speedscope" or "Something went wrong" in out:
        print("FAIL: speedscope: %s, title %r, %d warnings: %s" %
              (how, title and title.group(1), len(bad), "; ".join(m[:160] for m in bad[:5])))
        sys.exit(1)
    print("speedscope: imported as Trace Event Format profile, 0 warnings")


if __name__ == "__main__":
    main()
