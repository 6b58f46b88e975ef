package main

import (
	"net"
	"strconv"
	"testing"
)

// TestTargetMapDials: a mapped target address is reached at its
// replacement on the same port; any other as given.
func TestTargetMapDials(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	m, err := parseTargetMap([]string{"10.0.0.3=127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.dial(t.Context(), "tcp", net.JoinHostPort("10.0.0.3", itoa(port)))
	if err != nil {
		t.Fatalf("mapped target: %v", err)
	}
	c.Close()
	if c, err := m.dial(t.Context(), "tcp", net.JoinHostPort("127.0.0.1", itoa(port))); err != nil {
		t.Fatalf("unmapped target: %v", err)
	} else {
		c.Close()
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
