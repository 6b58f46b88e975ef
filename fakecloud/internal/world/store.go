package world

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sync"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dedicated"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/trafficspec"
)

// project is the whole simulated project as it is now, what requests
// read and change (a World, by contrast, is only the seed it may start
// from). Every field is guarded by mu; a request holds mu from its first
// read to its last write, so a request either applies completely or not
// at all.
type project struct {
	mu sync.Mutex

	Now            func() time.Time
	ActionDuration time.Duration
	ActionPolls    int
	seed           uint64
	Realism        Realism
	Rng            *rand.Rand
	pcg            *rand.PCG // rng's source, kept to snapshot its state
	// ActionFault says how a new action of a command ends: an error code
	// and message to fail with, and extra running time.
	ActionFault func(command string) (code, message string, delay time.Duration)
	// publicSuffix is a domain's public suffix and whether ICANN manages
	// it (Config.PublicSuffix).
	publicSuffix func(domain string) (suffix string, icann bool)
	Locks        map[Ref]time.Time // resources locked by an event, until
	Changes      uint64            // counts changes, so a state file knows when to write
	Started      []string          // commands of the actions the request being served started

	LastID map[string]int64
	Cat    *catalog.Catalog

	Servers       Table[StoredServer]
	LoadBalancers Table[StoredLoadBalancer]
	Networks      Table[schema.Network]
	Certificates  Table[schema.Certificate]
	SSHKeys       Table[schema.SSHKey]
	PrimaryIPs    Table[schema.PrimaryIP]
	Images        Table[schema.Image] // the project's own: snapshots and backups
	Actions       Table[StoredAction]
	Dedicated     Table[dedicated.Server] // the Robot webservice's servers, by number

	running  []int64       // IDs of running actions, oldest first
	LockedBy map[Ref]int64 // resource -> running action holding it
	PubIPv4  ipPool
	// LBIPv4 is where load balancers that carry traffic take their
	// addresses; probed gives their targets' checked health.
	LBIPv4 netip.Prefix
	Probed func(lb int64, listenPort int, target string) (trafficspec.Health, bool)
	// carried is what a load balancer that carries traffic has carried,
	// sample by sample, for its metrics.
	carried func(lb int64) []trafficspec.Counters
	pubIPv6 uint64 // next /64 index in the public IPv6 pool

	NetMembers map[int64][]Member // network ID -> attached resources
	// CertKeys are the private keys of uploaded certificates, by ID: the
	// API never answers with one; the data plane serves them. Not in a
	// state file: a restored certificate is served self-signed.
	CertKeys map[int64]string
	// kinds are the registered resource kinds, by name and in registration
	// order; owned holds the tables of the kinds that have no field here.
	kinds    map[string]*kind
	kindList []*kind
	commands map[string][]string // the commands listed under each kind's endpoints
	owned    map[string]any
	NetUsed  map[int64]map[netip.Addr]struct{} // network ID -> addresses held
	NetHint  map[int64]netip.Addr              // network ID -> where the next search starts
	answers  map[int64]renderedZone            // zone ID -> its records as served, for ZoneAnswers
}

// StoredServer is a stored server; schema.Server holds what the API shows.
type StoredServer struct {
	schema.Server
	RootPassword string `json:"root_password,omitempty"`
}

// StoredLoadBalancer is a stored load balancer with per-target health overrides.
type StoredLoadBalancer struct {
	schema.LoadBalancer
	Targets []Target `json:"targets"`
	// Health maps "target/port" to a status other than the default healthy.
	Health map[string]string `json:"health,omitempty"`
}

type Ref struct {
	Type string `json:"type"`
	ID   int64  `json:"id"`
}

// Config configures a world.
type Config struct {
	// Now is the clock (default time.Now).
	Now func() time.Time
	// ActionDuration is how long an action stays running; zero finishes
	// actions within the request that starts them.
	ActionDuration time.Duration
	// ActionPolls, when positive, makes an action finish on the Nth time a
	// client reads it, whatever the clock says.
	ActionPolls int
	// IDSeed makes IDs, IP addresses and passwords repeatable.
	IDSeed uint64
	// Realism says how to read what the API's documentation leaves open.
	Realism Realism
	// ActionFault says how a new action of a command ends: an error code
	// and message to fail with, and extra running time.
	ActionFault func(command string) (code, message string, delay time.Duration)
	// PublicSuffix is a domain's public suffix and whether ICANN manages
	// it (golang.org/x/net/publicsuffix, which this package cannot import:
	// it depends on net/http): a zone's name must sit directly under one.
	// Nil takes the last label for the suffix.
	PublicSuffix func(domain string) (suffix string, icann bool)
}

// newProject returns an empty world with the catalogue. A Realism that
// does not check panics: the caller checks it first.
func newProject(c Config) *project {
	w := &project{
		Now:            c.Now,
		ActionDuration: c.ActionDuration,
		ActionPolls:    c.ActionPolls,
		seed:           c.IDSeed,
		ActionFault:    c.ActionFault,
		publicSuffix:   c.PublicSuffix,
	}
	r, err := c.Realism.Check()
	if err != nil {
		panic("fakecloud: Options.Realism: " + err.Error())
	}
	w.Realism = r
	if w.Now == nil {
		w.Now = time.Now
	}
	w.kindList, w.kinds = kinds()
	w.commands = commandsByFamily(w.kindList)
	w.Reset()
	return w
}

// Reset empties the world back to the catalogue alone.
func (w *project) Reset() {
	w.pcg = rand.NewPCG(w.seed, 0x6661_6b65_636c_6f75)
	w.Rng = rand.New(w.pcg)
	w.LastID = map[string]int64{}
	w.Cat = catalog.New()
	w.Servers = NewTable[StoredServer]()
	w.LoadBalancers = NewTable[StoredLoadBalancer]()
	w.Networks = NewTable[schema.Network]()
	w.Certificates = NewTable[schema.Certificate]()
	w.SSHKeys = NewTable[schema.SSHKey]()
	w.PrimaryIPs = NewTable[schema.PrimaryIP]()
	w.Images = NewTable[schema.Image]()
	w.Actions = NewTable[StoredAction]()
	w.Dedicated = NewTable[dedicated.Server]()
	w.running = nil
	w.LockedBy = map[Ref]int64{}
	w.PubIPv4 = newIPPool(netaddr.PublicIPv4Range)
	w.pubIPv6 = 0
	w.NetMembers = map[int64][]Member{}
	w.CertKeys = map[int64]string{}
	w.Locks = map[Ref]time.Time{}
	w.NetUsed = map[int64]map[netip.Addr]struct{}{}
	w.NetHint = map[int64]netip.Addr{}
	w.owned = map[string]any{}
}

// actionIDBase is where action IDs start; each kind's start is its
// idBase, so IDs of different kinds rarely coincide and a mix-up in a
// client shows as not_found.
const actionIDBase = 1000000

// NewID hands out the next ID of a kind: ascending, with small seeded gaps
// like the real API's, and the same sequence for the same seed.
func (w *project) NewID(kind string) int64 {
	if kind == "action" && (w.Realism.Mode == RealismPessimistic) {
		return w.pessimisticActionID()
	}
	last, ok := w.LastID[kind]
	if !ok {
		base := int64(actionIDBase)
		if kind != "action" {
			base = w.kind(kind).idBase
		}
		last = base + int64(w.seed%1000)*1000
	}
	last += 1 + int64(w.Rng.IntN(3))
	w.LastID[kind] = last
	return last
}

// Locked runs f holding the world lock, released however f ends.
func (w *project) Locked(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f()
}

// ServerStatuses are the statuses the API reports.
var ServerStatuses = []string{"running", "initializing", "starting", "stopping", "off", "deleting", "migrating", "rebuilding", "unknown"}

// Target is a load balancer target as stored and shown: a server target carries the
// IP traffic goes to, which schema.LoadBalancerTarget lacks.
type Target struct {
	Type          string                                  `json:"type"`
	Server        *TargetServer                           `json:"server,omitempty"`
	LabelSelector *schema.LoadBalancerTargetLabelSelector `json:"label_selector,omitempty"`
	IP            *schema.LoadBalancerTargetIP            `json:"ip,omitempty"`
	HealthStatus  *[]TargetHealth                         `json:"health_status,omitempty"` // server and ip targets
	UsePrivateIP  *bool                                   `json:"use_private_ip,omitempty"`
	Targets       *[]Target                               `json:"targets,omitempty"` // label_selector targets
}

type TargetServer struct {
	ID int64  `json:"id"`
	IP string `json:"ip"`
}

type TargetHealth struct {
	ListenPort     int    `json:"listen_port"`
	Status         string `json:"status"`
	Detail         string `json:"detail,omitempty"`           // why it is unhealthy, since 2026-08-17
	HTTPStatusCode int    `json:"http_status_code,omitempty"` // the check's answer, for the HTTP details
}

func (t Target) Private() bool { return t.UsePrivateIP != nil && *t.UsePrivateIP }

// NewMAC returns a MAC address in Hetzner's locally administered 86:00 range.
func (w *project) NewMAC() string {
	b := w.Rng.Uint32()
	return fmt.Sprintf("86:00:00:%02x:%02x:%02x", byte(b>>16), byte(b>>8), byte(b))
}

// NewPassword is a root password, from the seeded generator.
func (w *project) NewPassword() string {
	const letters = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 20)
	for i := range b {
		b[i] = letters[w.Rng.IntN(len(letters))]
	}
	return string(b)
}
