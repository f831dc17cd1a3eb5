#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_capture.py CAPDIR LOGDIR MODE [HOOKS] - compare what tlscap captured with what
tls_server.py logged (the ground truth), and exit 1 with the reasons if they
differ. MODE:
  plaintext   every TLS stream equals the server's bytes, byte for byte, on
              the right connection (sock_id -> local port = server's peer
              port); no gaps, drops or truncation; SNI right.
  truncated   the capture cap was hit: flagged, positions still exact.
  overflow    the ring was too small: drops counted, each stream's loss
              visible as gaps, stream lengths and every captured byte exact.
  timing      ciphertext tier only: each request's last send and response's
              first receive match the server's log in time.
  late        plaintext, for a libssl mapped after exec from a temp dir: also
              probed through XP_EV_MAP_EXEC (summary late_libs >= 1).
  attach      attached mid-connection, between two requests: each stream is
              exactly the tail of the server's bytes from the second request
              on (positions count from the first call seen).
HOOKS: the socket hooks asked for (tlscap -S); unless auto, the summary must name them.
"""
import glob
import json
import os
import sys

MS = 1000000


def load(capdir, logdir):
    summ = json.load(open(os.path.join(capdir, "summary.json")))
    rows = []
    for line in open(os.path.join(capdir, "sock.tsv")):
        f = line.split("\t")
        rows.append(dict(call=int(f[0]), ts=int(f[1]), sid=int(f[2]), dir=int(f[3]), len=int(f[4]),
                         ssl=f[5], sport=int(f[6]), dport=int(f[7]), tgid=int(f[8])))
    server = {}
    for path in glob.glob(os.path.join(logdir, "conn-*.in")):
        port = int(os.path.basename(path)[5:-3])
        server[port] = (open(path, "rb").read(), open(path[:-3] + ".out", "rb").read())
    return summ, rows, server


def check_sni(summ, server, errs):
    snis = {s["sport"]: s for s in summ["snis"]}
    for port in server:
        s = snis.get(port)
        if not s or s["result"] != "ok" or s["sni"] != "localhost":
            errs.append("port %d: SNI %r" % (port, s))
    for c in summ["conns"]:
        if c["sport"] in server and c["daddr"] != "::ffff:127.0.0.1":
            errs.append("connection %d: peer address %s" % (c["sock_id"], c["daddr"]))
    if not any(c["type"] == 24 and c["sport"] in server and c["fd"] >= 0 for c in summ["conns"]):
        errs.append("no connect record with an fd for the server's connection")


def check_streams(capdir, summ, rows, server, errs, mode):
    truncated = mode in ("truncated", "overflow")
    port_of = {r["sid"]: r["sport"] for r in rows}
    seen = set()
    for s in summ["streams"]:
        name, port = s["file"], port_of.get(s["sock_id"])
        if port not in server:
            errs.append("%s: sock_id %s joins no server connection" % (name, s["sock_id"]))
            continue
        seen.add(port)
        want = server[port][0 if name.endswith(".w") else 1]
        got = open(os.path.join(capdir, name), "rb").read()
        if mode == "attach":
            start = b"GET /py2" if name.endswith(".w") else b"HTTP/1.1 200"
            if not got.startswith(start) or not want.endswith(got):
                errs.append("%s: not the tail of the server's bytes from request 2" % name)
            continue
        if s["bytes"] != len(want):
            errs.append("%s: stream length %d, server %d" % (name, s["bytes"], len(want)))
        if truncated:
            # Captured bytes sit at their positions; the rest is zero-filled.
            if any(a != b and a != 0 for a, b in zip(got, want)):
                errs.append("%s: a captured byte is misplaced" % name)
            continue
        if got != want:
            n = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                     min(len(got), len(want)))
            errs.append("%s: differs from the server's bytes at %d (%d vs %d bytes)"
                        % (name, n, len(got), len(want)))
        if s["gaps"] or s["truncated"] or s["copy_failed"]:
            errs.append("%s: gaps %d truncated %s copy_failed %s"
                        % (name, s["gaps"], s["truncated"], s["copy_failed"]))
    if seen != set(server):
        errs.append("server connections %s, captured %s" % (sorted(server), sorted(seen)))
    # Connection identity: every socket I/O nested in an SSL call names that SSL*.
    ssl_of = {}
    for r in rows:
        if r["ssl"] != "0" and ssl_of.setdefault(r["sid"], r["ssl"]) != r["ssl"]:
            errs.append("socket %d used by two SSL*: %s %s"
                        % (r["sid"], ssl_of[r["sid"]], r["ssl"]))


def check_timing(logdir, rows, server, errs):
    events = [list(map(int, l.split())) for l in open(os.path.join(logdir, "events.tsv"))]
    if not events:
        errs.append("server logged no request")
    for port, first, last, sent in events:
        mine = [r for r in rows if r["sport"] == port]
        sends = [r["ts"] for r in mine if r["dir"] == 0 and r["ts"] <= last + MS]
        recvs = [r["ts"] for r in mine if r["dir"] == 1 and r["ts"] >= sent]
        # The request's last send returned before the server had all of it.
        if not sends or not (last - 50 * MS <= max(sends) <= last + MS):
            errs.append("port %d: request end %d, last client send %s"
                        % (port, last, sends[-1:] or None))
        # The response's first receive came after the server sent it.
        if not recvs or not (sent <= min(recvs) <= sent + 50 * MS):
            errs.append("port %d: response sent %d, first client recv %s"
                        % (port, sent, recvs[:1] or None))
    if len(events) and not rows:
        errs.append("no socket records")


def main():
    capdir, logdir, mode = sys.argv[1:4]
    hooks = sys.argv[4] if len(sys.argv) > 4 else "auto"
    summ, rows, server = load(capdir, logdir)
    errs = []
    if hooks != "auto" and summ["socket_hooks"] != hooks:
        errs.append("socket hooks %s, asked for %s" % (summ["socket_hooks"], hooks))
    if hooks == "syscalls" and summ.get("tls_copy", "scratch") != "scratch":
        errs.append("plaintext copy %s, asked for scratch (-C)" % summ["tls_copy"])
    if summ.get("exit_status", 0) != 0:
        errs.append("client exit status %s" % summ["exit_status"])
    if summ["drops"] and mode != "overflow":
        errs.append("%d records dropped" % summ["drops"])
    if not server:
        errs.append("the server saw no connection")
    if mode != "attach":	# the ClientHello went before the attach
        check_sni(summ, server, errs)
    if mode == "timing":
        if summ["streams"]:
            errs.append("plaintext captured with --no-plaintext")
        check_timing(logdir, rows, server, errs)
    else:
        check_streams(capdir, summ, rows, server, errs, mode)
        if mode == "late" and summ.get("late_libs", 0) < 1:
            errs.append("no library probed after exec (late_libs 0)")
        if mode == "truncated" and not any(s["truncated"] for s in summ["streams"]):
            errs.append("cap hit but no stream flagged truncated")
        if mode == "overflow":
            lost = sum(s["bytes"] - s["captured"] for s in summ["streams"])
            if not summ["drops"] or not lost or not any(s["gaps"] for s in summ["streams"]):
                errs.append("overflow: drops %d, bytes lost %d, no gap flagged"
                            % (summ["drops"], lost))
    for e in errs:
        print("FAIL:", e)
    total = sum(s["bytes"] for s in summ["streams"])
    print("%s (%s hooks): %d connection(s), %d TLS stream(s), %d plaintext bytes, %d socket records, "
          "%d error(s)" % (mode, summ["socket_hooks"], len(server), len(summ["streams"]), total, len(rows), len(errs)))
    sys.exit(1 if errs else 0)


if __name__ == "__main__":
    main()
