#!/usr/bin/env python3
# check_reports.py DIR SCHEMA - checks every report file in DIR by its suffix:
#   *.json  against the report schema (JSON Schema 2020-12, python3-jsonschema), plus
#           the invariant that a turn's L1 ns sum to its wall time;
#   *.html  parsed with html.parser: every tag closed in order, no script, no external
#           reference (no src/href/url() that is not a #fragment, except a link <a href>
#           to a page of the same report beside it: a plain file name that exists in DIR);
#   *.txt   every line at most 80 columns, printable ASCII only.
# Savings (analyze/README.md): every fired point's savings.ns + at_threshold_ns equals the
# ns charged to it, a waste count (threshold 0) saves all of it, the ranked list holds
# exactly the fired points, most first, and the text and HTML reports beside the JSON
# show each with the same ms.
# Prints one line per problem and exits 1 when there is any; 0 otherwise.
import html.parser
import json
import os
import re
import sys

import jsonschema  # Debian: python3-jsonschema (setup.sh)

VOID = {"meta", "br", "img", "hr", "input", "link", "area", "base", "col", "source", "wbr"}


class Strict(html.parser.HTMLParser):
    def __init__(self, folder):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.folder = [], [], folder

    def sibling(self, tag, k, v):
        """A link to a page beside this one (a session report's turn pages and back)."""
        return tag == "a" and k == "href" and re.fullmatch(r"[A-Za-z0-9._~-]+\.html", v) and \
            os.path.isfile(os.path.join(self.folder, v))

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.errors.append("script element")
        for k, v in attrs:
            if k in ("src", "href", "xlink:href", "action") and v and not v.startswith("#") \
                    and not self.sibling(tag, k, v):
                self.errors.append("external reference %s=%s" % (k, v))
            if k == "style" and v and "url(" in v:
                self.errors.append("url() in style")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("unbalanced </%s> (open: %s)" % (tag, self.stack[-3:]))
        else:
            self.stack.pop()


def check_savings(path, doc):
    errs, fired = [], {}
    for p in doc.get("l3", []):
        if p["state"] != "fired":
            continue
        sv = p["savings"]
        if sv["ns"]:  # a point that saves nothing (effective work) is not ranked
            fired[p["id"]] = sv["ns"]
        if sv["ns"] + sv["at_threshold_ns"] != p["ns"]:
            errs.append("%s: savings %d + at threshold %d != charged %d" %
                        (p["id"], sv["ns"], sv["at_threshold_ns"], p["ns"]))
        if p["threshold"] == 0 and p["fires"] == "above" and sv["ns"] != p["ns"]:
            errs.append("%s: a count fired above 0 saves %d, not all %d" %
                        (p["id"], sv["ns"], p["ns"]))
    ranked = [(s["id"], s["ns"]) for s in doc.get("savings", [])]
    if doc.get("options", {}).get("depth", 0) >= 3:
        if sorted(ranked) != sorted(fired.items()):
            errs.append("savings list %s != fired points %s" % (ranked, fired))
        if [n for _, n in ranked] != sorted((n for _, n in ranked), reverse=True):
            errs.append("savings not ranked")
    base = path[:-len(".json")]
    for ext in ("txt", "html"):
        if not os.path.exists(base + "." + ext):
            continue
        with open(base + "." + ext, encoding="utf-8") as f:
            text = f.read()
        for pid, ns in ranked:
            if not re.search(re.escape(pid) + r"(</code></td><td class=\"num\">|\s+)%.3f" %
                             (ns / 1e6), text):
                errs.append("%s.%s: no savings row for %s (%.3f ms)" % (base, ext, pid, ns / 1e6))
    return errs


def check_json(path, validator):
    with open(path) as f:
        doc = json.load(f)
    errs = ["%s: %s" % ("/".join(map(str, e.path)), e.message)
            for e in validator.iter_errors(doc)]
    errs += check_savings(path, doc)
    if doc.get("report") == "xperf.analyze.turn":
        total = sum(n["ns"] for n in doc["l1"])
        if total != doc["turn"]["wall_ns"]:
            errs.append("L1 ns sum %d != wall %d" % (total, doc["turn"]["wall_ns"]))
    return errs


def check_html(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    p = Strict(os.path.dirname(path))
    p.feed(text)
    p.close()
    errs = list(p.errors)
    if p.stack:
        errs.append("unclosed tags %s" % p.stack)
    if "http://" in text or "https://" in text or "<script" in text:
        errs.append("network reference or script in the text")
    if not text.startswith("<!DOCTYPE html>"):
        errs.append("no doctype")
    return errs


def check_text(path):
    errs = []
    with open(path, encoding="ascii", errors="replace") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if len(line) > 80:
                errs.append("line %d is %d columns" % (n, len(line)))
            if any(not (32 <= ord(c) < 127) for c in line):
                errs.append("line %d has non-printable or non-ASCII text" % n)
    return errs


def main():
    d, schema_path = sys.argv[1], sys.argv[2]
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    counts, bad = {"json": 0, "html": 0, "txt": 0}, 0
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        ext = name.rsplit(".", 1)[-1]
        if ext == "json":
            errs = check_json(path, validator)
        elif ext == "html":
            errs = check_html(path)
        elif ext == "txt":
            errs = check_text(path)
        else:
            continue
        counts[ext] += 1
        for e in errs:
            print("%s: %s" % (path, e))
        bad += bool(errs)
    print("checked %d json, %d html, %d text reports; %d bad" %
          (counts["json"], counts["html"], counts["txt"], bad))
    return 1 if bad or not all(counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
