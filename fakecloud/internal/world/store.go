package world

import (
	"math/rand/v2"
	"net/netip"
	"sync"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dedicated"
)

// State is the whole simulated project as it is now, what requests
// read and change (a World, by contrast, is only the seed it may start
// from). Every field is guarded by mu; a request holds mu from its first
// read to its last write, so a request either applies completely or not
// at all.
type State struct {
	mu sync.Mutex

	now            func() time.Time
	actionDuration time.Duration
	actionPolls    int
	seed           uint64
	realism        Realism
	rng            *rand.Rand
	pcg            *rand.PCG // rng's source, kept to snapshot its state
	// actionFault says how a new action of a command ends: an error code
	// and message to fail with, and extra running time.
	actionFault func(command string) (code, message string, delay time.Duration)
	locks       map[resourceRef]time.Time // resources locked by an event, until
	changes     uint64                    // counts changes, so a state file knows when to write
	started     []string                  // commands of the actions the request being served started

	lastID map[string]int64
	cat    *catalog.Catalog

	servers       table[StoredServer]
	loadBalancers table[StoredLoadBalancer]
	networks      table[schema.Network]
	certificates  table[schema.Certificate]
	sshKeys       table[schema.SSHKey]
	primaryIPs    table[schema.PrimaryIP]
	actions       table[StoredAction]
	dedicated     table[dedicated.Server] // the Robot webservice's servers, by number

	running  []int64               // IDs of running actions, oldest first
	lockedBy map[resourceRef]int64 // resource -> running action holding it
	pubIPv4  ipPool
	// lbIPv4 is where load balancers that carry traffic take their
	// addresses; probed gives their targets' checked health.
	lbIPv4  netip.Prefix
	probed  func(lb int64, listenPort int, target string) (string, bool)
	pubIPv6 uint64 // next /64 index in the public IPv6 pool

	netMembers map[int64][]member                // network ID -> attached resources
	netUsed    map[int64]map[netip.Addr]struct{} // network ID -> addresses held
	netHint    map[int64]netip.Addr              // network ID -> where the next search starts
}

// StoredServer is a stored StoredServer; schema.Server holds what the API shows.
type StoredServer struct {
	schema.Server
	RootPassword string `json:"root_password,omitempty"`
}

// StoredLoadBalancer is a stored load balancer with per-target health overrides.
type StoredLoadBalancer struct {
	schema.LoadBalancer
	Targets []lbTarget `json:"targets"`
	// Health maps "target/port" to a status other than the default healthy.
	Health map[string]string `json:"health,omitempty"`
}

type resourceRef struct {
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
}

// New returns an empty world with the catalogue. A Realism that does
// not check panics: the caller checks it first.
func New(c Config) *State {
	w := &State{
		now:            c.Now,
		actionDuration: c.ActionDuration,
		actionPolls:    c.ActionPolls,
		seed:           c.IDSeed,
		actionFault:    c.ActionFault,
	}
	r, err := c.Realism.Check()
	if err != nil {
		panic("fakecloud: Options.Realism: " + err.Error())
	}
	w.realism = r
	if w.now == nil {
		w.now = time.Now
	}
	w.reset()
	return w
}

// reset empties the world back to the catalogue alone.
func (w *State) reset() {
	w.pcg = rand.NewPCG(w.seed, 0x6661_6b65_636c_6f75)
	w.rng = rand.New(w.pcg)
	w.lastID = map[string]int64{}
	w.cat = catalog.New()
	w.servers = newTable[StoredServer]()
	w.loadBalancers = newTable[StoredLoadBalancer]()
	w.networks = newTable[schema.Network]()
	w.certificates = newTable[schema.Certificate]()
	w.sshKeys = newTable[schema.SSHKey]()
	w.primaryIPs = newTable[schema.PrimaryIP]()
	w.actions = newTable[StoredAction]()
	w.dedicated = newTable[dedicated.Server]()
	w.running = nil
	w.lockedBy = map[resourceRef]int64{}
	w.pubIPv4 = newIPPool(publicIPv4Range)
	w.pubIPv6 = 0
	w.netMembers = map[int64][]member{}
	w.locks = map[resourceRef]time.Time{}
	w.netUsed = map[int64]map[netip.Addr]struct{}{}
	w.netHint = map[int64]netip.Addr{}
}

// idBase is where each kind's IDs start, so IDs of different kinds rarely
// coincide and a mix-up in a client shows as not_found.
var idBase = map[string]int64{
	"server": 100000, "load_balancer": 200000, "network": 300000, "certificate": 400000,
	"ssh_key": 500000, "primary_ip": 600000, "action": 1000000,
}

// newID hands out the next ID of a kind: ascending, with small seeded gaps
// like the real API's, and the same sequence for the same seed.
func (w *State) newID(kind string) int64 {
	if kind == "action" && w.realism.pessimistic() {
		return w.pessimisticActionID()
	}
	last, ok := w.lastID[kind]
	if !ok {
		last = idBase[kind] + int64(w.seed%1000)*1000
	}
	last += 1 + int64(w.rng.IntN(3))
	w.lastID[kind] = last
	return last
}
