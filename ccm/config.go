package ccm

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/bounds"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// Address families for node addresses (HCLOUD_INSTANCES_ADDRESS_FAMILY).
const (
	AddressFamilyIPv4      = "ipv4"
	AddressFamilyIPv6      = "ipv6"
	AddressFamilyDualStack = "dualstack"
)

// projectLimit is the requests an hour a Hetzner Cloud project has.
const projectLimit = 3600

const (
	defaultEndpoint         = "https://api.hetzner.cloud/v1"
	defaultMetadataEndpoint = "http://169.254.169.254/hetzner/v1/metadata"
)

// Config is the CCM's configuration, read once from the environment with
// the official CCM's names and defaults. String never shows the token.
type Config struct {
	Token string
	// TokenFile is HCLOUD_TOKEN_FILE when the token came from it: the file
	// is read again while the CCM runs (credentials.go).
	TokenFile string
	Endpoint  string
	Debug     bool

	Network                     string // HCLOUD_NETWORK: ID or name; empty for none
	NetworkID                   int64  // resolved at start from Network
	RoutesEnabled               bool
	NetworkDisableAttachedCheck bool
	// MetadataEndpoint is where the server the CCM runs on reads its own
	// metadata, for the attached check (HCLOUD_METADATA_ENDPOINT, this
	// CCM's own; fakecloud serves one per server).
	MetadataEndpoint string

	AddressFamily    string
	ZoneLabelEnabled bool
	// DeleteUnmatchedNodes lets the lifecycle delete a NotReady Node that
	// has no provider ID and whose name no server has
	// (HCLOUD_INSTANCES_DELETE_UNMATCHED_NODES, this CCM's own): the
	// official CCM does; this one keeps it unless told.
	DeleteUnmatchedNodes bool
	// ServerLabels are the server labels kept on Nodes as labels and
	// taints (HCLOUD_INSTANCES_LABELS_*, HCLOUD_INSTANCES_TAINTS_ENABLED).
	ServerLabels ServerLabelsConfig
	// InternalIPCIDRs are the operator's own networks: a kubelet's
	// --node-ip in one is kept as the Node's InternalIP
	// (HCLOUD_INSTANCES_INTERNAL_IP_CIDRS).
	InternalIPCIDRs []netip.Prefix

	MetricsEnabled bool
	MetricsAddress string

	// InventoryMaxAge is how old a server may be when it describes a node
	// (HCLOUD_INVENTORY_MAX_AGE, this CCM's own).
	InventoryMaxAge time.Duration
	// LifecycleMaxAge is how old it may be when deciding whether a NotReady
	// node's server still exists or is off (HCLOUD_INVENTORY_LIFECYCLE_MAX_AGE).
	LifecycleMaxAge time.Duration
	// ActionsEnabled turns on change detection through GET /servers/actions
	// (HCLOUD_INVENTORY_ACTIONS_ENABLED): entries stay fresh while no action
	// touched their server.
	ActionsEnabled bool
	// ListingMaxAge bounds how long the actions may vouch for servers after
	// the last full listing, which catches changes that leave no action
	// such as a rename (HCLOUD_INVENTORY_LISTING_MAX_AGE).
	ListingMaxAge time.Duration
	// BudgetReserve is how many requests of the rate limit are kept for node
	// initialisation; background work waits below it (HCLOUD_BUDGET_RESERVE).
	BudgetReserve int

	// NodeIPAM assigns Nodes pod ranges from their servers' IPv6 /64s.
	NodeIPAM NodeIPAMConfig

	LoadBalancers annotation.Defaults
	// LoadBalancerClass is which Services get a load balancer, by
	// spec.loadBalancerClass (HCLOUD_LOAD_BALANCERS_CLASS and
	// HCLOUD_LOAD_BALANCERS_SERVE_WITHOUT_CLASS).
	LoadBalancerClass loadbalancer.Class
	// TargetHealthInterval is how often the load balancers' target health
	// is read for the Services' condition, events and metrics; 0: never
	// (HCLOUD_LOAD_BALANCERS_TARGET_HEALTH_INTERVAL).
	TargetHealthInterval time.Duration
	// TrafficRequests is how many requests an hour the load balancers'
	// traffic metrics may spend; 0: none
	// (HCLOUD_LOAD_BALANCERS_TRAFFIC_METRICS_REQUESTS).
	TrafficRequests int

	// Robot reaches the Robot webservice for dedicated servers (ROBOT_*).
	Robot RobotConfig

	// Warnings are problems that do not stop the CCM, such as a token that
	// is not 64 characters long; they are logged at start.
	Warnings []string
}

// String describes the configuration without the token.
func (c Config) String() string {
	return fmt.Sprintf("endpoint=%s network=%q routes=%v address_family=%s zone_label=%v server_labels=%v verbatim=%v taints=%v internal_ip_cidrs=%v metrics=%v(%s) inventory_max_age=%s lifecycle_max_age=%s actions=%v listing_max_age=%s %s token=<redacted>",
		c.Endpoint, c.Network, c.RoutesEnabled, c.AddressFamily, c.ZoneLabelEnabled, c.ServerLabels.Labels, c.ServerLabels.Verbatim, c.ServerLabels.Taints, c.InternalIPCIDRs,
		c.MetricsEnabled, c.MetricsAddress, c.InventoryMaxAge, c.LifecycleMaxAge, c.ActionsEnabled, c.ListingMaxAge, c.Robot)
}

// envReader reads typed environment variables and collects every error.
type envReader struct {
	getenv func(string) string
	errs   []error
	// files are the *_FILE settings read, by setting name (HCLOUD_TOKEN).
	tokenFile string
	files     map[string]string
}

func (r *envReader) str(name, def string) string {
	if v := strings.TrimSpace(r.getenv(name)); v != "" {
		return v
	}
	return def
}

func (r *envReader) boolean(name string, def bool) bool {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want true or false", name, v))
		return def
	}
	return b
}

func (r *envReader) duration(name string, def time.Duration) time.Duration {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want a positive duration such as 30s", name, v))
		return def
	}
	return d
}

// within is duration limited to [lo, hi], for settings where a value
// outside cannot work: it would spend the API's budget on nothing, or
// wait for good.
func (r *envReader) within(name string, def, lo, hi time.Duration) time.Duration {
	d := r.duration(name, def)
	if d < lo || d > hi {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want a duration from %s to %s", name, strings.TrimSpace(r.getenv(name)), lo, hi))
		return def
	}
	return d
}

func (r *envReader) integer(name string, def int) int {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want a whole number of 0 or more", name, v))
		return def
	}
	return n
}

// optionalBool is nil when the variable is unset.
func (r *envReader) optionalBool(name string) *bool {
	if strings.TrimSpace(r.getenv(name)) == "" {
		return nil
	}
	b := r.boolean(name, false)
	return &b
}

// optionalInt is nil when the variable is unset.
func (r *envReader) optionalInt(name string) *int {
	if strings.TrimSpace(r.getenv(name)) == "" {
		return nil
	}
	before := len(r.errs)
	n := r.integer(name, 0)
	if len(r.errs) > before {
		return nil // reported once, not again as out of range
	}
	return &n
}

func (r *envReader) url(name, v, example string) {
	if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want an http or https URL such as %s", name, v, example))
	}
}

func (r *envReader) oneOf(name, def string, allowed ...string) string {
	v := r.str(name, def)
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	r.errs = append(r.errs, fmt.Errorf("%s=%q: want one of %s", name, v, strings.Join(allowed, ", ")))
	return def
}

// LoadConfig reads the configuration from the environment and reports
// every problem at once. readFile reads the *_FILE forms (default: a
// regular file of at most 64 KiB).
func LoadConfig(getenv func(string) string, readFile func(string) ([]byte, error)) (Config, error) {
	if readFile == nil {
		readFile = bounds.ReadSecretFile
	}
	r := &envReader{getenv: getenv}
	c := Config{
		Endpoint:                    r.str("HCLOUD_ENDPOINT", defaultEndpoint),
		Debug:                       r.boolean("HCLOUD_DEBUG", false),
		Network:                     r.str("HCLOUD_NETWORK", ""),
		RoutesEnabled:               r.boolean("HCLOUD_NETWORK_ROUTES_ENABLED", true),
		NetworkDisableAttachedCheck: r.boolean("HCLOUD_NETWORK_DISABLE_ATTACHED_CHECK", false),
		MetadataEndpoint:            r.str("HCLOUD_METADATA_ENDPOINT", defaultMetadataEndpoint),
		AddressFamily:               r.oneOf("HCLOUD_INSTANCES_ADDRESS_FAMILY", AddressFamilyIPv4, AddressFamilyIPv4, AddressFamilyIPv6, AddressFamilyDualStack),
		ZoneLabelEnabled:            r.boolean("HCLOUD_INSTANCES_ZONE_LABEL_ENABLED", true),
		DeleteUnmatchedNodes:        r.boolean("HCLOUD_INSTANCES_DELETE_UNMATCHED_NODES", false),
		MetricsEnabled:              r.boolean("HCLOUD_METRICS_ENABLED", true),
		MetricsAddress:              r.str("HCLOUD_METRICS_ADDRESS", ":8233"),
		InventoryMaxAge:             r.within("HCLOUD_INVENTORY_MAX_AGE", 5*time.Minute, time.Second, 24*time.Hour),
		LifecycleMaxAge:             r.within("HCLOUD_INVENTORY_LIFECYCLE_MAX_AGE", time.Minute, time.Second, 24*time.Hour),
		ActionsEnabled:              r.boolean("HCLOUD_INVENTORY_ACTIONS_ENABLED", true),
		ListingMaxAge:               r.within("HCLOUD_INVENTORY_LISTING_MAX_AGE", time.Hour, time.Second, 24*time.Hour),
		BudgetReserve:               r.integer("HCLOUD_BUDGET_RESERVE", 200),
	}
	if c.BudgetReserve >= projectLimit {
		r.errs = append(r.errs, fmt.Errorf("HCLOUD_BUDGET_RESERVE=%d: want 0 to %d, below the project's %d requests an hour, or the CCM never sends", c.BudgetReserve, projectLimit-1, projectLimit))
		c.BudgetReserve = 200
	}
	c.ServerLabels = r.loadServerLabels()
	c.InternalIPCIDRs = r.loadInternalIPCIDRs()
	c.LoadBalancers = loadBalancerDefaults(r)
	c.LoadBalancerClass = loadBalancerClass(r)
	c.TargetHealthInterval, c.TrafficRequests = loadBalancerHealth(r)
	c.Robot = r.loadRobot(readFile)
	c.Token, c.Warnings = r.token(readFile)
	c.TokenFile = r.tokenFile
	r.url("HCLOUD_ENDPOINT", c.Endpoint, defaultEndpoint)
	r.url("HCLOUD_METADATA_ENDPOINT", c.MetadataEndpoint, defaultMetadataEndpoint)
	if c.Network == "" {
		c.RoutesEnabled = false
	}
	var ipamWarnings []string
	c.NodeIPAM, ipamWarnings = loadNodeIPAM(r, c.RoutesEnabled)
	c.Warnings = append(c.Warnings, ipamWarnings...)
	return c, errors.Join(r.errs...)
}

// token reads HCLOUD_TOKEN, or when it is empty the file HCLOUD_TOKEN_FILE
// names. As the official CCM does, a token that is not 64 characters long
// is only a warning; one that cannot be sent in an HTTP header is an error.
// Messages never include the token.
func (r *envReader) token(readFile func(string) ([]byte, error)) (string, []string) {
	token := strings.TrimSpace(r.getenv("HCLOUD_TOKEN"))
	if file := strings.TrimSpace(r.getenv("HCLOUD_TOKEN_FILE")); token == "" && file != "" {
		data, err := readFile(file)
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("HCLOUD_TOKEN_FILE=%q: cannot read it: %v", file, errors.Unwrap(err)))
			return "", nil
		}
		token = strings.TrimSpace(string(data))
		r.tokenFile = file
	}
	if token == "" {
		r.errs = append(r.errs, errors.New("HCLOUD_TOKEN (or HCLOUD_TOKEN_FILE) is required: an API token of the Hetzner Cloud project"))
		return "", nil
	}
	warning, err := checkToken(token)
	if err != nil {
		r.errs = append(r.errs, err)
		return "", nil
	}
	if warning != "" {
		return token, []string{warning}
	}
	return token, nil
}

// checkToken refuses a token that cannot be sent in an HTTP header, and
// warns of one that is not 64 characters long, as the official CCM does.
// Messages never include the token.
func checkToken(token string) (warning string, err error) {
	for _, c := range token {
		if c < 0x21 || c > 0x7e {
			return "", errors.New("the API token contains characters that cannot be sent in an HTTP header")
		}
	}
	if len(token) != 64 {
		return fmt.Sprintf("the API token is %d characters long; Hetzner Cloud tokens have 64 (proceeding anyway)", len(token)), nil
	}
	return "", nil
}
