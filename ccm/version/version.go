// Package version is this CCM's own version, stamped at build time by the
// Makefile from `git describe` (-X .../ccm/version.Version=...); a plain
// `go build` says "dev".
package version

import (
	"fmt"
	"runtime"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	k8sversion "k8s.io/component-base/version"
)

// Version is this CCM's version, such as v0.3.0-12-g015de2c or dev.
var Version = "dev"

// Application is the name this CCM gives itself in the User-Agent.
const Application = "hcloud-ccm"

// String is what --version and the start log print: this CCM's version
// beside the Kubernetes libraries', hcloud-go's and Go's.
func String() string {
	return fmt.Sprintf("%s %s (Kubernetes %s, hcloud-go %s, %s %s/%s)",
		Application, Version, k8sversion.Get().GitVersion, hcloud.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
