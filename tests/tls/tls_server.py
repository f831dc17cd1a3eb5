#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tls_server.py CERTDIR LOGDIR - a local HTTPS/1.1 server for the TLS tests.

Logs exactly what it received and sent, byte for byte, per connection:
LOGDIR/conn-<client port>.in and .out, plus LOGDIR/events.tsv with one line
per request: client port, time.monotonic_ns() (CLOCK_MONOTONIC, the clock of
bpf_ktime_get_ns) of the request's first byte, of its last byte, and of the
response's send. Serves keep-alive requests; the response body is
`X-Resp-Bytes` bytes long (default 64). Prints the port on stdout.
With TLS_SERVER_DELAY_MS set, waits that long before answering a
ClientHello: the round trip of a remote provider.
"""
import os
import socket
import ssl
import sys
import threading
import time


def handle(conn, logdir, lock):
    port = conn.getpeername()[1]
    fin = open(os.path.join(logdir, "conn-%d.in" % port), "wb")
    fout = open(os.path.join(logdir, "conn-%d.out" % port), "wb")
    buf = b""
    first = None
    try:
        while True:
            while b"\r\n\r\n" not in buf:
                data = conn.recv(65536)
                if not data:
                    return
                first = first or time.monotonic_ns()
                fin.write(data)
                buf += data
            head, _, rest = buf.partition(b"\r\n\r\n")
            headers = {}
            for line in head.split(b"\r\n")[1:]:
                k, _, v = line.partition(b":")
                headers[k.strip().lower()] = v.strip()
            need = int(headers.get(b"content-length", b"0"))
            while len(rest) < need:
                data = conn.recv(65536)
                if not data:
                    return
                fin.write(data)
                rest += data
            last = time.monotonic_ns()
            buf = rest[need:]
            n = int(headers.get(b"x-resp-bytes", b"64"))
            body = bytes((i * 7 + 13) % 251 for i in range(n))
            resp = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Type: text/plain\r\n\r\n" % n
            sent = time.monotonic_ns()
            conn.sendall(resp + body)
            fout.write(resp + body)
            with lock:
                with open(os.path.join(logdir, "events.tsv"), "a") as ev:
                    ev.write("%d\t%d\t%d\t%d\n" % (port, first, last, sent))
            first = time.monotonic_ns() if buf else None
    except (ssl.SSLError, ConnectionError, OSError):
        pass
    finally:
        fin.close()
        fout.close()
        conn.close()


def main():
    certdir, logdir = sys.argv[1], sys.argv[2]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(certdir, "leaf.pem"), os.path.join(certdir, "leaf.key"))
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(64)
    print(lsock.getsockname()[1], flush=True)
    lock = threading.Lock()
    delay = int(os.environ.get("TLS_SERVER_DELAY_MS", "0")) / 1000.0
    while True:
        raw, _ = lsock.accept()
        threading.Thread(target=serve, args=(ctx, raw, delay, logdir, lock), daemon=True).start()


def serve(ctx, raw, delay, logdir, lock):
    time.sleep(delay)
    try:
        conn = ctx.wrap_socket(raw, server_side=True)
    except (ssl.SSLError, OSError):
        raw.close()
        return
    handle(conn, logdir, lock)


if __name__ == "__main__":
    main()
