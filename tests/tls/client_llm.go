// SPDX-License-Identifier: MIT
// client_llm.go PORT CA [h2 [N [PING_MS [PAUSE_MS]]]] - an agent's LLM calls in Go
// (crypto/tls, no libssl), built stripped (-ldflags='-s -w'): a streaming
// Anthropic Messages request, then a streaming OpenAI Chat Completions
// request, on one connection, each answer read to its end. With "h2":
// HTTP/2 (the server must offer it by ALPN), and the Anthropic request
// only, N times (default 1) on the one connection; with PING_MS, the
// client's keepalive: a PING whenever no frame was read for that long; with
// PAUSE_MS, that long between two calls (a tool running).
package main

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"strconv"
	"reflect"
	"strings"
	"time"
	"unsafe"
)

// readIdle sets the HTTP/2 transport's ReadIdleTimeout (a PING when no frame was
// read for d). Go 1.19's net/http offers it only through golang.org/x/net/http2,
// not installed here: the field of its bundled copy is set by reflection.
func readIdle(t *http.Transport, d time.Duration) {
	t.CloseIdleConnections() // wires up the bundled HTTP/2 transport
	f := reflect.ValueOf(t).Elem().FieldByName("h2transport").Elem().Elem().
		FieldByName("ReadIdleTimeout")
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(d))
}

func main() {
	pem, err := os.ReadFile(os.Args[2])
	if err != nil {
		os.Exit(2)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	h2 := len(os.Args) > 3 && os.Args[3] == "h2"
	transport := &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool},
		ForceAttemptHTTP2: h2,
		MaxIdleConns:      1,
	}
	if len(os.Args) > 5 {
		ms, _ := strconv.Atoi(os.Args[5])
		readIdle(transport, time.Duration(ms)*time.Millisecond)
	}
	client := &http.Client{Transport: transport}
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
	pause := 0
	if len(os.Args) > 6 {
		pause, _ = strconv.Atoi(os.Args[6])
	}
	for i, c := range calls {
		if i > 0 {
			time.Sleep(time.Duration(pause) * time.Millisecond)
		}
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
