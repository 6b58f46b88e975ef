package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// printVersion prints the build and the API this fakecloud simulates.
func printVersion(_ context.Context, in *invocation) error {
	if len(in.args) > 0 {
		return fmt.Errorf("version takes no arguments, got %q", in.args)
	}
	fmt.Fprintf(in.stdout, "fakecloud %s\nsimulates %s\n", build(), fakecloud.SimulatedAPI())
	return nil
}

// build is the module version and VCS revision the binary was built from.
func build() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown build)"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
		if s.Key == "vcs.modified" && s.Value == "true" {
			v += " (modified)"
		}
	}
	return v
}
