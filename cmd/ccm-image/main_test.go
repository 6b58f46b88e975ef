package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The flags are checked before anything is built or written; the build
// itself is package ociimage's to test.
func TestRunRefusesBadFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "image")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"binary without a platform", []string{"-binary", "bin/ccm"}},
		{"binary for another OS", []string{"-binary", "darwin/arm64=bin/ccm"}},
		{"binary without a path", []string{"-binary", "linux/amd64="}},
		{"a platform twice", []string{"-binary", "linux/amd64=a", "-binary", "linux/amd64=b"}},
		{"created not a number", []string{"-created", "yesterday"}},
		{"arguments", []string{"extra"}},
		{"no version", []string{"-created", "0", "-binary", "linux/amd64=" + os.Args[0]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(append([]string{"-out", out}, tc.args...), io.Discard)
			if err == nil {
				t.Fatal("run succeeded")
			}
			t.Log(err)
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s exists after a refused run: %v", out, err)
			}
		})
	}
}
