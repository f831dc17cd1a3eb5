// SPDX-License-Identifier: MIT
// client.go PORT CA N - Go crypto/tls client (no libssl) for the ciphertext
// tier: N sequential POSTs on one connection, 150 ms apart, each with a
// 20000-byte body and a 50000-byte response.
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	pem, err := os.ReadFile(os.Args[2])
	if err != nil {
		os.Exit(2)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool},
		ForceAttemptHTTP2: false,
		MaxIdleConns:      1,
	}}
	n, _ := strconv.Atoi(os.Args[3])
	for i := 0; i < n; i++ {
		req, _ := http.NewRequest("POST", "https://localhost:"+os.Args[1]+"/go",
			bytes.NewReader(make([]byte, 20000)))
		req.Header.Set("X-Resp-Bytes", "50000")
		resp, err := client.Do(req)
		if err != nil {
			os.Exit(1)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		time.Sleep(150 * time.Millisecond)
	}
}
