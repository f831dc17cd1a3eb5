// SPDX-License-Identifier: MIT
//! rustls_writer PORT CA N - N writes of 100 bytes through rustls
//! (send_appdata_encrypt located by analysis when traced) to the bench/tls
//! sink; prints CPU ns and wall ns per call, like ssl_bench.c and
//! go_writer.go. CPU time: the thread's run time in /proc (ns), the same
//! as getrusage's user + system for this one-thread writer.
use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Instant;

fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: rustls_writer PORT CA N");
        std::process::exit(2);
    }
    let n: u64 = args[3].parse().expect("N");
    let pem = std::fs::read(&args[2]).expect("CA");
    let mut roots = rustls::RootCertStore::empty();
    for der in rustls_pemfile::certs(&mut pem.as_slice()).expect("CA") {
        roots.add(&rustls::Certificate(der)).expect("CA");
    }
    let tls = rustls::ClientConfig::builder()
        .with_safe_defaults()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let conn = rustls::ClientConnection::new(Arc::new(tls), "localhost".try_into().unwrap())
        .expect("TLS");
    let sock = TcpStream::connect(("127.0.0.1", args[1].parse::<u16>().expect("PORT")))
        .expect("connect");
    let mut stream = rustls::StreamOwned::new(conn, sock);
    let buf = [0u8; 100];
    stream.write_all(&buf).expect("write"); // the handshake, outside the timing
    let (c0, w0) = (cpu_ns(), Instant::now());
    for _ in 0..n {
        stream.write_all(&buf).expect("write");
    }
    println!("{} {}", (cpu_ns() - c0) / n, w0.elapsed().as_nanos() as u64 / n);
}
