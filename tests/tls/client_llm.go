// SPDX-License-Identifier: MIT
// client_llm.go PORT CA [h2 [N]] - an agent's LLM calls in Go (crypto/tls, no
// libssl), built stripped (-ldflags='-s -w'): a streaming Anthropic
// Messages request, then a streaming OpenAI Chat Completions request, on
// one connection, each answer read to its end. With "h2": HTTP/2 (the
// server must offer it by ALPN), and the Anthropic request only, N times
// (default 1) on the one connection.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
)

func main() {
	pem, err := os.ReadFile(os.Args[2])
	if err != nil {
		os.Exit(2)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	h2 := len(os.Args) > 3 && os.Args[3] == "h2"
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool},
		ForceAttemptHTTP2: h2,
		MaxIdleConns:      1,
	}}
	anthropic := `{"model":"claude-test","max_tokens":64,"stream":true,` +
		`"messages":[{"role":"user","content":"hello"}]}`
	calls := [][2]string{
		{"/v1/messages", anthropic},
		{"/v1/chat/completions", `{"model":"gpt-test","stream":true,` +
			`"messages":[{"role":"user","content":"hello again"}]}`},
	}
	if h2 {
		n := 1
		if len(os.Args) > 4 {
			n, _ = strconv.Atoi(os.Args[4])
		}
		calls = nil
		for i := 0; i < n; i++ {
			calls = append(calls, [2]string{"/v1/messages", anthropic})
		}
	}
	for _, c := range calls {
		req, _ := http.NewRequest("POST", "https://localhost:"+os.Args[1]+c[0],
			strings.NewReader(c[1]))
		req.Header.Set("content-type", "application/json")
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != 200 || (h2 && resp.ProtoMajor != 2) {
			os.Exit(1)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
