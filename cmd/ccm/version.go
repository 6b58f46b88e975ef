package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	apiversion "k8s.io/apimachinery/pkg/version"
	k8sversion "k8s.io/component-base/version"

	"github.com/hcloudlab/hcloud-ccm/ccm/version"
)

// versionFlag finds --version in args, as component-base spells it:
// --version, --version=true, or --version=raw for JSON. --version=false
// is no request.
func versionFlag(args []string) (string, bool) {
	for _, a := range args {
		if a == "--" {
			break
		}
		v, found := strings.CutPrefix(strings.TrimLeft(a, "-"), "version")
		switch {
		case !found || !strings.HasPrefix(a, "-"):
		case v == "" || v == "=true":
			return "true", true
		case v == "=raw":
			return "raw", true
		}
	}
	return "", false
}

// printVersion prints this CCM's version beside the Kubernetes libraries'.
func printVersion(w io.Writer, mode string) {
	if mode != "raw" {
		fmt.Fprintln(w, version.String())
		return
	}
	raw, _ := json.MarshalIndent(struct {
		Version    string          `json:"version"`
		HcloudGo   string          `json:"hcloudGo"`
		Kubernetes apiversion.Info `json:"kubernetes"`
	}{version.Version, hcloud.Version, k8sversion.Get()}, "", "  ")
	fmt.Fprintln(w, string(raw))
}
