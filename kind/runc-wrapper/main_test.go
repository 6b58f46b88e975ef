package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestCommand(t *testing.T) {
	cases := []struct {
		args                     []string
		cmd, bundle, processFile string
	}{
		{[]string{"--root", "/run/r", "--log", "/l", "create", "--bundle", "/b", "id"}, "create", "/b", ""},
		{[]string{"run", "-b", "/b2", "id"}, "run", "/b2", ""},
		{[]string{"--root=/r", "exec", "--process", "/p.json", "id"}, "exec", "", "/p.json"},
		{[]string{"exec", "--process=/p2.json", "-d", "id"}, "exec", "", "/p2.json"},
		{[]string{"state", "id"}, "state", "", ""},
	}
	for _, c := range cases {
		cmd, b, p := command(c.args)
		if cmd != c.cmd || b != c.bundle || p != c.processFile {
			t.Errorf("command(%v) = %q %q %q, want %q %q %q", c.args, cmd, b, p, c.cmd, c.bundle, c.processFile)
		}
	}
}

func TestRewriteDropsTheCapabilityEverywhereAndKeepsTheRest(t *testing.T) {
	dir := t.TempDir()
	caps := []string{"CAP_CHOWN", "CAP_SYS_RESOURCE", "CAP_SYS_ADMIN"}
	spec := map[string]any{"ociVersion": "1.0.2", "hostname": "node", "process": map[string]any{"args": []string{"/sbin/init"},
		"capabilities": map[string]any{"bounding": caps, "effective": caps, "permitted": caps, "inheritable": caps, "ambient": caps}}}
	raw, _ := json.Marshal(spec)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := rewrite([]string{"create", "--bundle", dir, "id"}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Hostname string `json:"hostname"`
		Process  struct {
			Capabilities map[string][]string `json:"capabilities"`
		} `json:"process"`
	}
	raw, _ = os.ReadFile(filepath.Join(dir, "config.json"))
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Hostname != "node" || len(got.Process.Capabilities) != 5 {
		t.Fatalf("spec damaged: %s", raw)
	}
	for set, list := range got.Process.Capabilities {
		if slices.Contains(list, "CAP_SYS_RESOURCE") || !slices.Equal(list, []string{"CAP_CHOWN", "CAP_SYS_ADMIN"}) {
			t.Errorf("%s: %v", set, list)
		}
	}
	// exec's process file has the capabilities at the top.
	p := filepath.Join(dir, "process.json")
	raw, _ = json.Marshal(map[string]any{"args": []string{"sh"}, "capabilities": map[string]any{"bounding": caps}})
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := rewrite([]string{"exec", "--process", p, "id"}); err != nil {
		t.Fatal(err)
	}
	raw, _ = os.ReadFile(p)
	var proc struct {
		Capabilities map[string][]string `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &proc); err != nil || slices.Contains(proc.Capabilities["bounding"], "CAP_SYS_RESOURCE") {
		t.Errorf("exec process: %s (%v)", raw, err)
	}
}
