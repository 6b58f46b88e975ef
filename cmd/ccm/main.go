// Command ccm is the Hetzner Cloud cloud-controller-manager: the upstream
// controllers of k8s.io/cloud-provider (cloud-node, cloud-node-lifecycle,
// service, route) on the provider in package ccm. It reads its settings
// from the official CCM's HCLOUD_* environment variables. `ccm doctor`
// checks a cluster against its cloud instead (doctor.go). With
// --webhooks=service it also serves the Service admission webhook
// (command.go, webhook.go).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "golang.org/x/crypto/x509roots/fallback" // CA roots for an image with no files but the binary
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app/config"
	"k8s.io/cloud-provider/options"
	"k8s.io/component-base/cli"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm"
	"github.com/hcloudlab/hcloud-ccm/ccm/leaderlease"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/ccm/version"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "doctor" {
		os.Exit(doctorMain(os.Args[2:]))
	}
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
	opts, err := newOptions()
	if err != nil {
		klog.Fatalf("controller manager options: %v", err)
	}
	// SIGTERM stops the controllers, as does a rollback to a revision whose
	// pods do not wait for this one (rollout.go); a leader then gives its
	// lease back.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	var lease *leaderlease.Lease
	var provider *ccm.Cloud
	newCloud := func(c *config.CompletedConfig) cloudprovider.Interface {
		cloud, err := ccm.New(ctx, cfg)
		if err != nil {
			fmt.Fprintf(os.Stderr, "hcloud-ccm: %v\n", err)
			os.Exit(1)
		}
		provider = cloud
		// The routes are the cluster's only: its Nodes, from the
		// controllers' own informers, and its --cluster-cidr.
		cloud.UseNodes(c.SharedInformers.Core().V1().Nodes())
		// Events about the CCM itself (refused credentials) go on its Pod.
		cloud.SetPod(os.Getenv("POD_NAMESPACE"), os.Getenv("POD_NAME"))
		if err := cloud.SetClusterCIDRs(c.ComponentConfig.KubeCloudShared.ClusterCIDR); err != nil {
			fmt.Fprintf(os.Stderr, "hcloud-ccm: %v\n", err)
			os.Exit(1)
		}
		cloud.WatchAPIServer(c.Client)
		takeTurn(ctx, c.Client, stop)
		le := c.ComponentConfig.Generic.LeaderElection
		if !le.LeaderElect {
			return cloud
		}
		lease = leaderlease.New(c.Client, le.ResourceNamespace, le.ResourceName)
		cloud.AddCheck(ccm.Liveness, "leader-lease", lease.Check)
		return leaderlease.Wrap(cloud, lease)
	}
	hooks := &webhookFlags{lbs: func() *loadbalancer.Manager { return provider.LoadBalancers() }, config: func() ccm.Config { return cfg }}
	cmd := newCommand(ctx, opts, newCloud, hooks)
	code := cli.Run(cmd)
	if lease != nil && ctx.Err() != nil {
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := lease.Release(rctx); err != nil {
			klog.ErrorS(err, "The next leader waits for the lease to run out")
		}
		cancel()
	}
	os.Exit(code)
}

// loadConfig reads the environment; a bad configuration stops the process
// with every problem listed.
func loadConfig() ccm.Config {
	cfg, err := ccm.LoadConfig(os.Getenv, nil)
	unread, envErr := ccm.CheckEnviron(os.Environ())
	cfg.Warnings = append(cfg.Warnings, unread...)
	if err = errors.Join(err, envErr); err != nil {
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

// newOptions are upstream's options with this CCM's defaults; flags win.
func newOptions() (*options.CloudControllerManagerOptions, error) {
	opts, err := options.NewCloudControllerManagerOptions()
	if err != nil {
		return nil, err
	}
	opts.KubeCloudShared.CloudProvider.Name = ccm.ProviderName
	// A burst of joining nodes is initialised in parallel.
	opts.NodeController.ConcurrentNodeSyncs = 20
	opts.ServiceController.ConcurrentServiceSyncs = 10
	return opts, nil
}

func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			return true
		}
	}
	return false
}
