package ccm

import (
	"context"

	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"
)

// ProviderName is the name of this cloud provider, as the official CCM's.
const ProviderName = "hcloud"

// Cloud is the Hetzner Cloud provider: one API client, one server
// inventory, shared by every controller.
type Cloud struct {
	cfg       Config
	client    *hcloud.Client
	budget    *budget
	inv       *inventory
	instances *instances
	routes    *routes
}

var _ cloudprovider.Interface = (*Cloud)(nil)

// New builds the provider: it resolves HCLOUD_NETWORK and lists the
// servers once, which proves the token and fills the inventory.
func New(ctx context.Context, cfg Config) (*Cloud, error) {
	opts := []hcloud.ClientOption{
		hcloud.WithToken(cfg.Token),
		hcloud.WithEndpoint(cfg.Endpoint),
		hcloud.WithApplication("hcloud-ccm", "dev"),
		// Actions are polled after 50 ms, then less and less often, not every 500 ms.
		hcloud.WithPollOpts(hcloud.PollOpts{BackoffFunc: hcloud.ExponentialBackoffWithOpts(hcloud.ExponentialBackoffOpts{
			Base: 50 * time.Millisecond, Multiplier: 2, Cap: 2 * time.Second})}),
	}
	if cfg.Debug {
		opts = append(opts, hcloud.WithDebugWriter(os.Stderr))
	}
	pacer := newBudget(cfg.BudgetReserve)
	// A request that hangs ends in an error after a minute; no controller
	// treats an error as "gone".
	opts = append(opts, hcloud.WithHTTPClient(&http.Client{Timeout: time.Minute, Transport: pacer.transport(http.DefaultTransport)}))
	client := hcloud.NewClient(opts...)
	c := &Cloud{cfg: cfg, client: client, budget: pacer, inv: newInventory(client, nil)}
	if cfg.Network != "" {
		n, _, err := client.Network.Get(ctx, cfg.Network)
		if err != nil {
			return nil, fmt.Errorf("HCLOUD_NETWORK=%q: %w", cfg.Network, err)
		}
		if n == nil {
			return nil, fmt.Errorf("HCLOUD_NETWORK=%q: no such network in the project", cfg.Network)
		}
		c.cfg.NetworkID = n.ID
	}
	if err := c.inv.refresh(ctx); err != nil {
		return nil, fmt.Errorf("first server listing (checks the token and the endpoint): %w", err)
	}
	c.instances = &instances{inv: c.inv, cfg: c.cfg}
	if c.cfg.RoutesEnabled {
		c.routes = &routes{client: client, inv: c.inv, networkID: c.cfg.NetworkID, maxAge: c.cfg.InventoryMaxAge, now: time.Now}
	}
	return c, nil
}

// Initialize gives the provider an event recorder once the controller
// manager has a client.
func (c *Cloud) Initialize(builder cloudprovider.ControllerClientBuilder, stop <-chan struct{}) {
	client, err := builder.Client("hcloud-cloud-provider")
	if err != nil {
		klog.ErrorS(err, "No Kubernetes client for events; running without them")
		return
	}
	broadcaster := record.NewBroadcaster()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "hcloud-cloud-controller-manager"})
	c.instances.recorder = recorder
	if c.routes != nil {
		c.routes.recorder = recorder
	}
	go func() {
		<-stop
		broadcaster.Shutdown()
	}()
}

// LoadBalancer is not offered yet.
func (c *Cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) { return nil, false }

// Instances is the legacy interface; InstancesV2 replaces it.
func (c *Cloud) Instances() (cloudprovider.Instances, bool) { return nil, false }

// InstancesV2 serves nodes and the node lifecycle from the inventory.
func (c *Cloud) InstancesV2() (cloudprovider.InstancesV2, bool) { return c.instances, true }

// Zones is replaced by InstancesV2's metadata.
func (c *Cloud) Zones() (cloudprovider.Zones, bool) { return nil, false }

// Clusters is not offered.
func (c *Cloud) Clusters() (cloudprovider.Clusters, bool) { return nil, false }

// Routes is offered when HCLOUD_NETWORK is set and routes are enabled.
func (c *Cloud) Routes() (cloudprovider.Routes, bool) { return c.routes, c.routes != nil }

// ProviderName is "hcloud".
func (c *Cloud) ProviderName() string { return ProviderName }

// HasClusterID is false: run with --allow-untagged-cloud, as upstream.
func (c *Cloud) HasClusterID() bool { return false }
