package doctor

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/hcloudlab/hcloud-ccm/ccm"
	"github.com/hcloudlab/hcloud-ccm/ccm/internal/bounds"
	"github.com/hcloudlab/hcloud-ccm/ccm/version"
)

// DefaultNamespace is where the CCM's manifests install it.
const DefaultNamespace = "kube-system"

// DefaultBound is how long a whole run may take (ccm doctor --timeout):
// a check not finished by then is a FAIL naming it, the report follows.
const DefaultBound = 2 * time.Minute

// Options say what doctor checks, and with what.
type Options struct {
	// Config is the CCM's configuration, as ccm.LoadConfig reads it: the
	// token, the endpoint, HCLOUD_NETWORK, the address family and the load
	// balancer defaults. Its Warnings become findings.
	Config ccm.Config
	// TokenSource says where the token came from, for the report, such
	// as "HCLOUD_TOKEN" or "Secret kube-system/hcloud".
	TokenSource string
	Kube        kubernetes.Interface
	// Namespace is the CCM's (default kube-system).
	Namespace string
	// ClusterCIDR is kube-controller-manager's --cluster-cidr; empty:
	// the Nodes' pod CIDRs stand for it.
	ClusterCIDR string
	// Transport sends the API requests (default http.DefaultTransport).
	Transport http.RoundTripper
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// doctor is one run: what it read, and what it found.
type doctor struct {
	opts  Options
	cfg   ccm.Config
	now   time.Time
	count *counter
	api   *hcloud.Client
	found findings

	cloud        *cloud     // nil when the API cannot be read
	robot        *dedicated // nil when Robot is off or the webservice cannot be read
	nodes        []corev1.Node
	services     []corev1.Service
	servicesRead bool // the Services were listed: orphans can be told

	servers   map[string]*hcloud.Server // node name -> its server, for matched Nodes
	blocked   map[string]string         // node name -> why the CCM cannot initialise it
	ccmIssue  string                    // why the CCM is not running, if it is not
	networkID int64
	zone      string // HCLOUD_NETWORK's network zone
	ccmUser   string // the CCM's ServiceAccount as a user name; empty: not found
	// secretUsers are, by namespace, the Services whose https ports name
	// TLS Secrets there.
	secretUsers map[string][]string
}

// Run checks the cluster against its cloud. Findings are in the order
// checked: configuration and token, the CCM itself, dedicated servers,
// Nodes, the network, load balancers, and the rate limit left.
func Run(ctx context.Context, opts Options) Report {
	if opts.Namespace == "" {
		opts.Namespace = DefaultNamespace
	}
	if opts.Transport == nil {
		opts.Transport = http.DefaultTransport
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	d := &doctor{opts: opts, cfg: opts.Config, now: opts.Now(), count: &counter{base: bounds.Transport(opts.Transport)},
		servers: map[string]*hcloud.Server{}, blocked: map[string]string{}, secretUsers: map[string][]string{}}
	d.api = hcloud.NewClient(hcloud.WithToken(d.cfg.Token), hcloud.WithEndpoint(d.cfg.Endpoint),
		hcloud.WithApplication("hcloud-ccm-doctor", version.String()),
		hcloud.WithHTTPClient(&http.Client{Transport: d.count, Timeout: 30 * time.Second}),
		hcloud.WithRetryOpts(hcloud.RetryOpts{BackoffFunc: hcloud.ConstantBackoff(time.Second), MaxRetries: 1}))

	for _, w := range d.cfg.Warnings {
		d.found.warn("config", "environment", w, "see the CCM's settings in docs/reference/environment.md")
	}
	steps := []struct {
		name string
		run  func(context.Context)
	}{
		{"kubernetes", d.readKube},
		{"token", d.checkToken},
		{"ccm", d.checkWorkload},
		{"robot", d.checkRobot},
		{"node", func(context.Context) { d.checkNodes() }},
		{"network", func(context.Context) { d.checkNetwork() }},
		{"ipv6", func(context.Context) { d.checkIPv6() }},
		{"service", d.checkServices},
		{"target-health", func(context.Context) { d.checkTargetHealth() }},
		{"load-balancer", func(context.Context) { d.checkOrphans() }},
		{"rate-limit", func(context.Context) { d.checkRateLimit() }},
		{"staleness", func(context.Context) { d.checkStaleness() }},
	}
	for i, step := range steps {
		step.run(ctx)
		if ctx.Err() == nil {
			continue
		}
		rest := []string{"none"}
		if i+1 < len(steps) {
			rest = nil
		}
		for _, later := range steps[i+1:] {
			rest = append(rest, later.name)
		}
		d.found.fail("bound", step.name, fmt.Sprintf("the %s check did not finish before doctor's bound (%v); not checked: %s",
			step.name, context.Cause(ctx), strings.Join(rest, ", ")),
			"the findings above say what did not answer; raise --timeout only for a slow but answering apiserver or API")
		break
	}
	requests, _, _, _ := d.count.state()
	return Report{Findings: d.found, Requests: requests}
}

// readKube lists the Nodes and Services.
func (d *doctor) readKube(ctx context.Context) {
	nodes, err := d.opts.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		d.found.fail("kubernetes", "nodes", fmt.Sprintf("cannot list Nodes: %v", err), "check --kubeconfig and that its user may list nodes and services")
	} else {
		d.nodes = nodes.Items
	}
	svcs, err := d.opts.Kube.CoreV1().Services("").List(ctx, metav1.ListOptions{})
	if err != nil {
		d.found.fail("kubernetes", "services", fmt.Sprintf("cannot list Services: %v", err), "check --kubeconfig and that its user may list nodes and services")
	} else {
		d.services = svcs.Items
		d.servicesRead = true
	}
}

// networkRef finds HCLOUD_NETWORK (an ID or a name) among networks, as
// hcloud-go's Network.Get does.
func networkRef(ref string, networks []*hcloud.Network) *hcloud.Network {
	id, err := strconv.ParseInt(ref, 10, 64)
	for _, n := range networks {
		if (err == nil && n.ID == id) || n.Name == ref {
			return n
		}
	}
	return nil
}
