// Command ccm is the Hetzner Cloud cloud-controller-manager: the upstream
// controllers of k8s.io/cloud-provider (cloud-node, cloud-node-lifecycle,
// service, route) on the provider in package ccm. It reads its settings
// from the official CCM's HCLOUD_* environment variables.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/util/wait"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/app/config"
	"k8s.io/cloud-provider/names"
	"k8s.io/cloud-provider/options"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/klog/v2"
	// CA roots compiled in, used when the system has none: the image holds
	// no files but the binary, and still reaches api.hetzner.cloud.
	_ "golang.org/x/crypto/x509roots/fallback"

	"github.com/hcloudlab/hcloud-ccm/ccm"
	"github.com/hcloudlab/hcloud-ccm/ccm/version"
)

func main() {
	if v, ok := versionFlag(os.Args[1:]); ok {
		printVersion(os.Stdout, v)
		return
	}
	// The environment is checked before anything else, so a bad setting is
	// reported first and with every other one; --help needs none of it.
	var cfg ccm.Config
	if !wantsHelp(os.Args[1:]) {
		cfg = loadConfig()
	}
	opts, err := options.NewCloudControllerManagerOptions()
	if err != nil {
		klog.Fatalf("controller manager options: %v", err)
	}
	opts.KubeCloudShared.CloudProvider.Name = ccm.ProviderName
	// A burst of joining nodes is initialised in parallel; flags still win.
	opts.NodeController.ConcurrentNodeSyncs = 20
	opts.ServiceController.ConcurrentServiceSyncs = 10
	newCloud := func(*config.CompletedConfig) cloudprovider.Interface {
		cloud, err := ccm.New(context.Background(), cfg)
		if err != nil {
			fmt.Fprintf(os.Stderr, "hcloud-ccm: %v\n", err)
			os.Exit(1)
		}
		return cloud
	}
	cmd := app.NewCloudControllerManagerCommand(opts, newCloud, app.DefaultInitFuncConstructors,
		names.CCMControllerAliases(), cliflag.NamedFlagSets{}, wait.NeverStop)
	os.Exit(cli.Run(cmd))
}

// loadConfig reads the environment; a bad configuration stops the process
// with every problem listed.
func loadConfig() ccm.Config {
	cfg, err := ccm.LoadConfig(os.Getenv, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hcloud-ccm: invalid configuration:\n%v\n", err)
		os.Exit(1)
	}
	for _, w := range cfg.Warnings {
		klog.Warning(w)
	}
	klog.InfoS("Starting", "version", version.String())
	klog.InfoS("Configuration", "config", cfg.String())
	return cfg
}

func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" || strings.HasPrefix(a, "--version") {
			return true
		}
	}
	return false
}
