package ccm

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/metadata"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/bounds"
	"github.com/hcloudlab/hcloud-ccm/ccm/internal/inventory"
	"github.com/hcloudlab/hcloud-ccm/ccm/internal/probes"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/ccm/robotclient"
	"github.com/hcloudlab/hcloud-ccm/ccm/version"
)

// ProviderName is the name of this cloud provider, as the official CCM's.
const ProviderName = "hcloud"

// Cloud is the Hetzner Cloud provider: one API client, one server
// inventory, shared by every controller.
type Cloud struct {
	cfg       Config
	client    *hcloud.Client
	budget    *inventory.Budget
	inv       *inventory.Inventory
	instances *instances
	robot     *robotclient.Cache // dedicated servers; nil without Robot credentials
	routes    *routes
	lbs       *loadbalancer.Manager // nil with HCLOUD_LOAD_BALANCERS_ENABLED=false
	server    *probes.Server        // health, readiness and metrics; nil without an address
	rotation  *rotation             // credentials read from files, read again; nil without
	labels    *labelSync            // server labels on Nodes; nil unless asked for
}

var _ cloudprovider.Interface = (*Cloud)(nil)

// New builds the provider: it serves health, readiness and metrics
// (HCLOUD_METRICS_ADDRESS, HCLOUD_METRICS_ENABLED) until ctx ends,
// resolves HCLOUD_NETWORK and checks that this server is attached to it,
// and lists the servers once, which proves the token and fills the
// inventory.
func New(ctx context.Context, cfg Config) (*Cloud, error) { return build(ctx, cfg, buildOptions{}) }

// buildOptions let tests simulate hours and outages quickly.
type buildOptions struct {
	now         func() time.Time  // the inventory's and routes' clock
	httpTimeout time.Duration     // how long one attempt may take; AttemptTimeout
	retry       *hcloud.RetryOpts // hcloud-go's retries of 429s, 502s, 504s and timeouts; Retries
	retryBase   time.Duration     // the first wait between retries; one second
	// registerer, when set, wraps the metrics registry, so a test sees
	// every collector registered.
	registerer func(prometheus.Registerer) prometheus.Registerer
	// credentialsPeriod is how often credential files are read again;
	// CredentialsPeriod.
	credentialsPeriod time.Duration
	// labelsPeriod is how often server labels are compared with Nodes;
	// labelSyncPeriod.
	labelsPeriod time.Duration
}

func build(ctx context.Context, cfg Config, o buildOptions) (_ *Cloud, err error) {
	operation("hcloud/newCloud")
	now := o.now
	if now == nil {
		now = time.Now
	}
	if o.httpTimeout == 0 {
		o.httpTimeout = AttemptTimeout
	}
	if o.retryBase == 0 {
		o.retryBase = time.Second
	}
	if o.retry == nil {
		o.retry = &hcloud.RetryOpts{MaxRetries: Retries, BackoffFunc: hcloud.ExponentialBackoffWithOpts(hcloud.ExponentialBackoffOpts{
			Base: o.retryBase, Multiplier: 2, Cap: 4 * o.retryBase, Jitter: true})}
	}
	opts := []hcloud.ClientOption{
		hcloud.WithToken(cfg.Token),
		hcloud.WithEndpoint(cfg.Endpoint),
		hcloud.WithApplication(version.Application, version.Version),
		// Actions are polled after 50 ms, then less and less often, not every 500 ms.
		hcloud.WithPollOpts(hcloud.PollOpts{BackoffFunc: hcloud.ExponentialBackoffWithOpts(hcloud.ExponentialBackoffOpts{
			Base: 50 * time.Millisecond, Multiplier: 2, Cap: 2 * time.Second})}),
	}
	if cfg.Debug {
		opts = append(opts, hcloud.WithDebugWriter(os.Stderr))
	}
	pacer := inventory.NewBudget(cfg.BudgetReserve)
	reach := &probes.Reachability{}
	var token *rotating
	if cfg.TokenFile != "" {
		token = newRotating("HCLOUD_TOKEN_FILE", []source{{path: cfg.TokenFile}}, []string{cfg.Token}, apiCheck(cfg.Endpoint, o.httpTimeout))
	}
	// A call that hangs ends in an error within CallBound; no controller
	// treats an error as "gone". Answers and listings are bounded too.
	paced := func(pace func(http.RoundTripper) http.RoundTripper) hcloud.ClientOption {
		return hcloud.WithHTTPClient(&http.Client{Timeout: o.httpTimeout,
			Transport: bounds.Transport(pace(probes.Observed(reach, withToken(token, http.DefaultTransport))))})
	}
	opts = append(opts, hcloud.WithRetryOpts(*o.retry))
	var reg *prometheus.Registry
	var metrics prometheus.Registerer
	if cfg.MetricsEnabled {
		reg = prometheus.NewRegistry()
		metrics = reg
		if o.registerer != nil {
			metrics = o.registerer(reg)
		}
		metrics.MustRegister(operationsTotal, lbTypeCacheRequests)
		opts = append(opts, hcloud.WithInstrumentation(metrics))
	}
	// Two clients share the budget: background work leaves its reserve
	// alone, node initialisation (the inventory's urgent asks) may use it.
	client := hcloud.NewClient(append(slices.Clip(opts), paced(pacer.Transport))...)
	urgent := hcloud.NewClient(append(slices.Clip(opts), paced(pacer.UrgentTransport))...)
	c := &Cloud{cfg: cfg, client: client, budget: pacer, inv: inventory.NewInventory(client, now).WithUrgentClient(urgent)}
	c.rotation = &rotation{period: cmp.Or(o.credentialsPeriod, CredentialsPeriod)}
	if token != nil {
		c.rotating(token)
	}
	if metrics != nil {
		metrics.MustRegister(collector{inv: c.inv, budget: pacer})
	}
	if cfg.MetricsAddress != "" {
		srv, serveErr := probes.Serve(ctx, cfg.MetricsAddress, reg)
		if serveErr != nil {
			return nil, serveErr
		}
		c.server = srv
		srv.Add(Readiness, "cloud", reach.Check)
		queues := &probes.QueueWatch{Gather: legacyregistry.DefaultGatherer, StallAfter: probes.QueueStallAfter, Now: time.Now}
		srv.Add(Liveness, "workqueues", queues.Check)
		// Ready once built; the named result says whether it was.
		defer func() { srv.SetReady(err == nil) }()
	}
	networkZone := ""
	if cfg.Network != "" {
		n, _, err := client.Network.Get(ctx, cfg.Network)
		if err != nil {
			return nil, startFailed(err, "HCLOUD_NETWORK=%q", cfg.Network)
		}
		if n == nil {
			return nil, fmt.Errorf("HCLOUD_NETWORK=%q: no such network in the project", cfg.Network)
		}
		c.cfg.NetworkID = n.ID
		if len(n.Subnets) > 0 {
			networkZone = string(n.Subnets[0].NetworkZone)
		}
		if !cfg.NetworkDisableAttachedCheck {
			if err := attachedCheck(ctx, cfg, n.ID); err != nil {
				return nil, err
			}
		}
	}
	if cfg.ActionsEnabled {
		c.inv.WithFeed(inventory.NewFeed(client), cfg.ListingMaxAge)
	}
	// The first listing, and where the servers are many, the feed's first
	// read before it (Inventory.Start).
	if err := c.inv.Start(ctx); err != nil {
		return nil, startFailed(err, "first server listing (checks the token and the endpoint)")
	}
	c.instances = &instances{inv: c.inv, cfg: c.cfg}
	if rc := c.cfg.Robot; rc.Enabled && rc.Credentials() {
		// No listing at start: a wrong password at every restart would
		// soon block this IP for every tool of the account.
		client := robotclient.NewClient(rc.Endpoint, rc.User, rc.Password, version.Application+"/"+version.Version, RobotTimeout)
		if rc.UserFile != "" || rc.PasswordFile != "" {
			creds := newRotating("ROBOT_USER_FILE and ROBOT_PASSWORD_FILE", []source{{path: rc.UserFile, fixed: rc.User}, {path: rc.PasswordFile, fixed: rc.Password}},
				[]string{rc.User, rc.Password}, robotCheck(rc.Endpoint, RobotTimeout))
			client.WithCredentials(func() (string, string) { v := creds.get(); return v[0], v[1] })
			c.rotating(creds)
		}
		c.robot = robotclient.NewCache(client, robotclient.CacheOptions{MaxAge: rc.CacheTimeout, ResetMaxAge: c.cfg.LifecycleMaxAge,
			RateLimitWait: rc.RateLimitWait, Now: now})
		c.instances.robot = c.robot
		if metrics != nil {
			metrics.MustRegister(robotCollector{cache: c.robot})
		}
	}
	if c.cfg.RoutesEnabled {
		c.routes = &routes{client: client, inv: c.inv, networkID: c.cfg.NetworkID, maxAge: c.cfg.InventoryMaxAge, now: now, robot: c.robot}
	}
	if c.cfg.LoadBalancers.Enabled {
		c.lbs = loadbalancer.New(client, loadbalancer.Options{Defaults: c.cfg.LoadBalancers, NetworkID: c.cfg.NetworkID,
			NetworkZone: networkZone, MaxAge: c.cfg.InventoryMaxAge, Now: now, Robot: c.cfg.Robot.Enabled, InstancesAddressFamily: c.cfg.AddressFamily,
			Class: c.cfg.LoadBalancerClass, TypesCounted: countLBTypes})
		if metrics != nil {
			metrics.MustRegister(c.lbs.HealthCollector())
		}
	}
	if c.cfg.ServerLabels.On() {
		c.labels = newLabelSync(c.cfg.ServerLabels, c.inv, cmp.Or(o.labelsPeriod, labelSyncPeriod))
	}
	c.startRotation(ctx)
	return c, nil
}

// attachedCheck asks the metadata service of the server the CCM runs on
// whether it is in the network, as the official CCM does at start: a
// control plane outside the network cannot reach the nodes' private IPs.
func attachedCheck(ctx context.Context, cfg Config, networkID int64) error {
	md := metadata.NewClient(metadata.WithEndpoint(cfg.MetadataEndpoint),
		metadata.WithHTTPClient(&http.Client{Transport: bounds.Transport(nil)}), metadata.WithTimeout(MetadataTimeout))
	nets, err := md.PrivateNetworksWithContext(ctx)
	if err != nil {
		return fmt.Errorf("checking that this server is in HCLOUD_NETWORK=%q is not possible (metadata service %s: %v); "+
			"outside a Hetzner Cloud server set HCLOUD_NETWORK_DISABLE_ATTACHED_CHECK=true", cfg.Network, cfg.MetadataEndpoint, err)
	}
	want := fmt.Sprintf("network_id: %d", networkID)
	for line := range strings.Lines(nets) {
		if strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- ")) == want {
			return nil
		}
	}
	return fmt.Errorf("this server is not attached to HCLOUD_NETWORK=%q (ID %d); attach it, "+
		"or set HCLOUD_NETWORK_DISABLE_ATTACHED_CHECK=true if the CCM runs outside the network", cfg.Network, networkID)
}

// HTTPAddr is where health, readiness and metrics are served
// (HCLOUD_METRICS_ADDRESS), or nil when the address is empty.
func (c *Cloud) HTTPAddr() net.Addr {
	if c.server == nil {
		return nil
	}
	return c.server.Addr()
}

// Initialize gives the provider an event recorder once the controller
// manager has a client.
func (c *Cloud) Initialize(builder cloudprovider.ControllerClientBuilder, stop <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	var recorder record.EventRecorder
	broadcaster := record.NewBroadcaster()
	if client, err := builder.Client("hcloud-cloud-provider"); err != nil {
		klog.ErrorS(err, "No Kubernetes client for events; running without them")
	} else {
		broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
		recorder = broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "hcloud-cloud-controller-manager"})
		c.instances.recorder = recorder
		if c.routes != nil {
			c.routes.recorder = recorder
		}
		if c.rotation != nil {
			c.rotation.setRecorder(recorder)
		}
	}
	c.startNodeIPAM(builder, recorder, stop)
	if c.labels != nil {
		c.labels.start(ctx, builder, recorder)
	}
	// The load balancers' background work runs with or without events:
	// syncs hand their remaining changes to it.
	if c.lbs != nil {
		c.lbs.Start(ctx, recorder)
		c.startHealth(ctx, builder)
		c.watchNodeLabels(builder, stop)
		c.watchSecrets(builder, stop)
		c.lookupServices(builder)
	}
	go func() {
		<-stop
		cancel()
		broadcaster.Shutdown()
	}()
}

// watchNodeLabels tells the load balancers of every Node update, so a
// Node entering or leaving a Service's node-selector moves its target at
// once: the upstream controller syncs on the exclusion label and the
// provider ID only.
func (c *Cloud) watchNodeLabels(builder cloudprovider.ControllerClientBuilder, stop <-chan struct{}) {
	client, err := builder.Client("hcloud-node-labels")
	if err != nil {
		klog.ErrorS(err, "No Kubernetes client to watch Node labels; node-selector targets follow at the controller's syncs")
		return
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	_, err = factory.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) {
			old, ok := oldObj.(*corev1.Node)
			cur, ok2 := newObj.(*corev1.Node)
			if ok && ok2 {
				c.lbs.NodeChanged(old, cur)
			}
		},
	})
	if err != nil {
		klog.ErrorS(err, "Watching Node labels")
		return
	}
	factory.Start(stop)
}

// watchSecrets gives the load balancers the TLS Secrets Services name,
// each watched while named, so a renewed certificate replaces the old one
// at once.
func (c *Cloud) watchSecrets(builder cloudprovider.ControllerClientBuilder, stop <-chan struct{}) {
	client, err := builder.Client("hcloud-certificate-secrets")
	if err != nil {
		klog.ErrorS(err, "No Kubernetes client to read Secrets; Services naming http-certificate-secrets get a Warning event")
		return
	}
	w := newSecretWatch(client, c.lbs.SecretChanged)
	c.lbs.SetSecrets(w)
	go func() {
		<-stop
		w.stopAll()
	}()
}

// LoadBalancer is offered unless HCLOUD_LOAD_BALANCERS_ENABLED=false.
func (c *Cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) {
	if c.lbs == nil {
		return nil, false
	}
	return countedLBs{c.lbs}, true
}

// LoadBalancerClass is the Services whose load balancers the CCM makes:
// NewServiceController shows the upstream service controller those.
func (c *Cloud) LoadBalancerClass() loadbalancer.Class { return c.cfg.LoadBalancerClass }

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

// startFailed is the error of a start-up call: a token the API refuses
// names HCLOUD_TOKEN, whichever call found it out; any other error is
// prefixed with what the call was.
func startFailed(err error, format string, args ...any) error {
	if hcloud.IsError(err, hcloud.ErrorCodeUnauthorized) {
		return fmt.Errorf("HCLOUD_TOKEN: the Hetzner API refuses the token (%w); set a valid API token of the cluster's project "+
			"(Secret hcloud, key token)", err)
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
