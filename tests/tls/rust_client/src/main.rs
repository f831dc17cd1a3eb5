// SPDX-License-Identifier: MIT
//! client_llm_rustls PORT CA [PAUSE_MS] - the LLM calls of client_llm.py
//! (same request bodies, byte for byte) from Rust on rustls: a streaming
//! Anthropic Messages request, then a streaming OpenAI Chat Completions
//! request, on one connection (ureq keeps it alive), each answer read to
//! its end. The CA is loaded into rustls's root store. PAUSE_MS: sleep
//! before each call (time for an attach).
use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

const CALLS: [(&str, &str); 2] = [
    (
        "/v1/messages",
        r#"{"model":"claude-test","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hello"}]}"#,
    ),
    (
        "/v1/chat/completions",
        r#"{"model":"gpt-test","stream":true,"messages":[{"role":"user","content":"hello again"}]}"#,
    ),
];

fn roots(path: &str) -> rustls::RootCertStore {
    let pem = std::fs::read(path).unwrap_or_else(|_| std::process::exit(2));
    let mut store = rustls::RootCertStore::empty();
    for der in rustls_pemfile::certs(&mut pem.as_slice()).unwrap_or_default() {
        store.add(&rustls::Certificate(der)).unwrap_or_else(|_| std::process::exit(2));
    }
    store
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: client_llm_rustls PORT CA [PAUSE_MS]");
        std::process::exit(2);
    }
    let pause = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0);
    let tls = rustls::ClientConfig::builder()
        .with_safe_defaults()
        .with_root_certificates(roots(&args[2]))
        .with_no_client_auth();
    let agent = ureq::AgentBuilder::new().tls_config(Arc::new(tls)).build();
    for (path, body) in CALLS {
        std::thread::sleep(Duration::from_millis(pause));
        let url = format!("https://localhost:{}{}", args[1], path);
        let resp = agent
            .post(&url)
            .set("content-type", "application/json")
            .send_string(body)
            .unwrap_or_else(|e| {
                eprintln!("client_llm_rustls: {}: {}", path, e);
                std::process::exit(1)
            });
        let mut answer = Vec::new();
        if resp.into_reader().read_to_end(&mut answer).is_err() || answer.is_empty() {
            std::process::exit(1);
        }
    }
}
