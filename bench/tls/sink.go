// SPDX-License-Identifier: MIT
// sink.go CERT KEY - a TLS sink on Go's crypto/tls (not libssl, so it never
// traps on the SSL_* uprobes being measured): prints its port, then reads
// and discards every connection.
package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
)

func main() {
	cert, err := tls.LoadX509KeyPair(os.Args[1], os.Args[2])
	if err != nil {
		os.Exit(1)
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		os.Exit(1)
	}
	fmt.Println(l.Addr().(*net.TCPAddr).Port)
	for {
		c, err := l.Accept()
		if err != nil {
			continue
		}
		go io.Copy(io.Discard, c)
	}
}
