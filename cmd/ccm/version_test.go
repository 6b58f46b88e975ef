package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/ccm/version"
)

func TestVersionFlag(t *testing.T) {
	for args, want := range map[string]string{
		"--version": "true", "-version": "true", "--version=true": "true", "--v=2 --version=raw": "raw",
		"--version=false": "", "--kubeconfig=x": "", "-- --version": "", "--versions": "",
	} {
		got, ok := versionFlag(strings.Fields(args))
		if got != want || ok != (want != "") {
			t.Errorf("versionFlag(%q) = %q, %v; want %q", args, got, ok, want)
		}
	}
}

func TestPrintVersion(t *testing.T) {
	var text, raw bytes.Buffer
	printVersion(&text, "true")
	if !strings.HasPrefix(text.String(), "hcloud-ccm "+version.Version+" (Kubernetes ") {
		t.Errorf("--version printed %q", text.String())
	}
	printVersion(&raw, "raw")
	var v struct {
		Version    string
		Kubernetes struct{ GitVersion string }
	}
	if err := json.Unmarshal(raw.Bytes(), &v); err != nil || v.Version != version.Version || v.Kubernetes.GitVersion == "" {
		t.Errorf("--version=raw printed %s (%v)", raw.String(), err)
	}
}

// --version=false runs the CCM, so its configuration is checked as for
// any run; only help skips it.
func TestVersionFalseIsNoHelp(t *testing.T) {
	for args, want := range map[string]bool{"--help": true, "-h": true, "--version=false": false, "--kubeconfig=x": false} {
		if got := wantsHelp(strings.Fields(args)); got != want {
			t.Errorf("wantsHelp(%q) = %v, want %v", args, got, want)
		}
	}
}
