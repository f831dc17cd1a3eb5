// SPDX-License-Identifier: MIT
// go_writer.go PORT N - N writes of 100 bytes through Go's crypto/tls
// ((*tls.Conn).Write: no libssl, located by .gopclntab when traced) to the
// sink; prints CPU ns and wall ns per call, like ssl_bench.c.
package main

import (
	"crypto/tls"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

func cpuNs() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func main() {
	n, _ := strconv.Atoi(os.Args[2])
	c, err := tls.Dial("tcp", "127.0.0.1:"+os.Args[1], &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		os.Exit(1)
	}
	buf := make([]byte, 100)
	c.Write(buf) // handshake outside the timing
	c0, w0 := cpuNs(), time.Now()
	for i := 0; i < n; i++ {
		if _, err := c.Write(buf); err != nil {
			os.Exit(1)
		}
	}
	fmt.Printf("%d %d\n", (cpuNs()-c0)/int64(n), time.Since(w0).Nanoseconds()/int64(n))
}
