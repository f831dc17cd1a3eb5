#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""layering_check.py WORKSPACE GRAPH - the package order of docs/architecture.md,
enforced. GRAPH is `bazel query --output graph` over the production targets
(tests and testonly targets left out: a test may drive any binary). Fails,
naming each offender, when a package depends on a higher layer (by a Bazel
dep or by an #include in its non-test sources), when packages form a cycle,
when a package has no layer, or when bazel/layers.bzl (the visibility) and
the docs disagree. Prints one line per finding; exit 0 or 1."""

import os
import re
import sys

ws, graph = sys.argv[1], sys.argv[2]


def layers():
    """The ```layers block of docs/architecture.md: one layer per line, lowest first."""
    text = open(os.path.join(ws, "docs/architecture.md")).read()
    block = re.search(r"```layers\n(.*?)```", text, re.S).group(1)
    rank = {}
    for i, line in enumerate(block.splitlines()):
        for pkg in line.split("#")[0].split():
            rank[pkg] = i
    return rank


RANK = layers()


def bzl_layers():
    """LAYERS of bazel/layers.bzl (the visibility), as the same rank map."""
    text = open(os.path.join(ws, "bazel/layers.bzl")).read()
    block = re.search(r"LAYERS = \[\n(.*?)\n\]", text, re.S).group(1)
    return {p: i for i, line in enumerate(block.splitlines())
            for p in re.findall(r'"([^"]+)"', line)}


def layer(pkg):
    """The layer of a package: its own line, else its nearest listed parent."""
    p = pkg.strip("/")
    while p:
        if p in RANK:
            return RANK[p]
        p = p.rpartition("/")[0]
    return None


def package_edges():
    edges = {}
    for line in open(graph):
        m = re.findall(r'"([^"]*)"', line)
        if "->" not in line or len(m) != 2:
            continue
        for a in m[0].split("\\n"):
            for b in m[1].split("\\n"):
                pa, pb = a.split(":")[0], b.split(":")[0]
                if pa != pb and pb.startswith("//"):
                    edges.setdefault(pa, {}).setdefault(pb, (a, b))
    return edges


def include_edges():
    """#include "pkg/..." in each package's non-test C sources."""
    edges = {}
    for root, dirs, files in os.walk(ws):
        dirs[:] = [d for d in dirs if not d.startswith((".", "bazel-")) and d != "node_modules"]
        pkg = "//" + os.path.relpath(root, ws).replace(".", "")
        for f in files:
            if not f.endswith((".c", ".h")) or re.search(r"_(test|fuzz)\.c$|test", f):
                continue
            path = os.path.join(root, f)
            for n, line in enumerate(open(path, errors="replace"), 1):
                m = re.match(r'#include "([a-z_]+(?:/[a-z_]+)*)/[^/"]+"', line)
                if not m:
                    continue
                target = "//" + m.group(1)
                while target != "//" and not os.path.exists(
                        os.path.join(ws, target[2:], "BUILD")):
                    target = target.rpartition("/")[0]
                if target not in ("//", pkg.rstrip("/")):
                    edges.setdefault(pkg.rstrip("/"), {}).setdefault(
                        target, ("%s:%d" % (os.path.relpath(path, ws), n), line.strip()))
    return edges


def cycles(edges):
    """Strongly connected components of more than one package (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(edges):
        if v not in index:
            visit(v)
    return out


def main():
    bad = []
    if bzl_layers() != RANK:
        bad.append("bazel/layers.bzl (visibility) and docs/architecture.md list other layers")
    deps, incs = package_edges(), include_edges()
    for kind, edges in (("depends on", deps), ("includes", incs)):
        for a, targets in sorted(edges.items()):
            for b, (src, what) in sorted(targets.items()):
                la, lb = layer(a), layer(b)
                if la is None or lb is None:
                    bad.append("%s: no layer in docs/architecture.md" % (a if la is None else b))
                elif lb > la:
                    bad.append("%s %s %s, a higher layer (%s -> %s)" % (a, kind, b, src, what))
    for comp in cycles(deps) + cycles(incs):
        bad.append("package cycle: " + " -> ".join(comp))
    for line in sorted(set(bad)):
        print("FAIL " + line)
    print("%d package(s), %d finding(s)" % (len(set(deps) | set(incs)), len(set(bad))))
    return 1 if bad else 0


sys.exit(main())
