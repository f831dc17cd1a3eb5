#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""h2_server.py CERTDIR LOGDIR - an HTTP/2-only TLS server (ALPN h2, Debian's
python3-h2) for the Go client's HTTP/2 run: answers each POST with a short
Anthropic-style SSE stream, and logs each connection's plaintext, both
directions, into LOGDIR/conn-PORT.in/.out (h2 is sans-IO: the bytes it is
fed and the bytes it hands out are exactly the TLS plaintext). Prints the
port once listening."""
import os
import socket
import ssl
import sys
import threading

import h2.config
import h2.connection
import h2.events

SSE = (b'event: message_start\ndata: {"type":"message_start","message":{"model":"claude-h2",'
       b'"usage":{"input_tokens":5}}}\n\n'
       b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
       b'"delta":{"type":"text_delta","text":"hello"}}\n\n'
       b'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},'
       b'"usage":{"output_tokens":1}}\n\n'
       b'event: message_stop\ndata: {"type":"message_stop"}\n\n')


def serve(sock, logdir):
    port = sock.getpeername()[1]
    fin = open(os.path.join(logdir, "conn-%d.in" % port), "wb", buffering=0)
    fout = open(os.path.join(logdir, "conn-%d.out" % port), "wb", buffering=0)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    conn.initiate_connection()

    def flush():
        out = conn.data_to_send()
        fout.write(out)
        sock.sendall(out)

    flush()
    while True:
        data = sock.recv(65536)
        if not data:
            break
        fin.write(data)
        for ev in conn.receive_data(data):
            if isinstance(ev, h2.events.StreamEnded):
                conn.send_headers(ev.stream_id, [(":status", "200"),
                                                 ("content-type", "text/event-stream")])
                conn.send_data(ev.stream_id, SSE, end_stream=True)
            elif isinstance(ev, h2.events.DataReceived):
                conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
        flush()
    sock.close()


def main():
    certs, logdir = sys.argv[1], sys.argv[2]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(certs, "leaf.pem"), os.path.join(certs, "leaf.key"))
    ctx.set_alpn_protocols(["h2"])
    lst = socket.create_server(("127.0.0.1", 0))
    print(lst.getsockname()[1], flush=True)
    while True:
        s, _ = lst.accept()
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            s = ctx.wrap_socket(s, server_side=True)
        except (ssl.SSLError, OSError):
            continue
        threading.Thread(target=serve, args=(s, logdir), daemon=True).start()


if __name__ == "__main__":
    main()
