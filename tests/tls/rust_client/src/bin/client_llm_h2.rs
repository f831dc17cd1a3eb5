// SPDX-License-Identifier: MIT
//! client_llm_h2 PORT CA - the Anthropic call of client_llm.go's "h2" mode
//! (same request body, byte for byte) over HTTP/2 from Rust: hyper 0.14 +
//! hyper-rustls 0.23 (tokio-rustls on rustls 0.20, ALPN h2 only) on a
//! one-thread tokio runtime; the CA loaded into rustls's root store. Exits
//! 1 unless the answer is 200 over HTTP/2 and read to its end.
use hyper::{Body, Client, Request, Version};

const BODY: &str = r#"{"model":"claude-test","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hello"}]}"#;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: client_llm_h2 PORT CA");
        std::process::exit(2);
    }
    let pem = std::fs::read(&args[2]).unwrap_or_else(|_| std::process::exit(2));
    let mut roots = rustls::RootCertStore::empty();
    for der in rustls_pemfile::certs(&mut pem.as_slice()).unwrap_or_default() {
        roots.add(&rustls::Certificate(der)).unwrap_or_else(|_| std::process::exit(2));
    }
    let tls = rustls::ClientConfig::builder()
        .with_safe_defaults()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_only()
        .enable_http2()
        .build();
    let client: Client<_, Body> = Client::builder().http2_only(true).build(https);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio");
    let ok = rt.block_on(async {
        let req = Request::post(format!("https://localhost:{}/v1/messages", args[1]))
            .header("content-type", "application/json")
            .body(Body::from(BODY))
            .expect("request");
        match client.request(req).await {
            Ok(resp) if resp.status() == 200 && resp.version() == Version::HTTP_2 => {
                hyper::body::to_bytes(resp.into_body()).await.map_or(false, |b| !b.is_empty())
            }
            _ => false,
        }
    });
    std::process::exit(if ok { 0 } else { 1 });
}
