package inventory

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"golang.org/x/sync/singleflight"
	"k8s.io/klog/v2"
)

// Inventory is the one view of the project's servers that every controller
// shares. A lookup is answered from memory while its entry is fresh enough
// for the caller (see freshness); a stale or missing entry costs one
// targeted request, unless callers at that freshness have lately asked for
// more servers than a full listing has pages, so that one paged listing of
// all servers is cheaper. With a feed, an older entry is still fresh while
// the server actions show no change to it. Concurrent fetches of the same
// thing are coalesced.
type Inventory struct {
	client *hcloud.Client
	urgent *hcloud.Client // for urgent asks (Freshness.Urgently); client when unset
	Now    func() time.Time
	Stats  *Stats

	// feed, when set, vouches for entries while the last full listing is
	// younger than listingMaxAge (changes that leave no action show then).
	feed          *Feed
	listingMaxAge time.Duration
	feedAt        time.Time // when the last poll started: every change before it that leaves an action is known

	mu          sync.Mutex
	byID        map[int64]*entry
	byName      map[string]*entry
	byIP        map[string]*entry                      // "network/ip" -> the server holding it, or a gone one that held it
	byPrimaryIP map[int64]*entry                       // primary IP ID -> the server holding it
	ListedAt    time.Time                              // when the last full listing finished
	misses      map[string]time.Time                   // keys not answered from memory since then
	asked       map[time.Duration]map[string]time.Time // per freshness: key -> when it was last asked for
	runs        map[string]run                         // key -> the run of repeated asks (freshness.ceiling)
	flight      singleflight.Group
}

// entry is a server as last seen, or a confirmed absence (server nil).
type entry struct {
	server *hcloud.Server
	seen   time.Time
}

// inventoryStats counts what the inventory did, for metrics and tests.
type Stats struct {
	mu                                                  sync.Mutex
	hits, targeted, listings, gone, feedPolls, feedGaps uint64
	cache                                               map[CacheKey]uint64 // lookups by subsystem and result, as the official CCM counts them
}

type CacheKey struct{ Subsystem, Result string }

// cacheRequest counts a lookup as the official CCM's server cache counts
// one: a hit when no request was needed, a miss otherwise.
func (s *Stats) cacheRequest(subsystem string, requested bool) {
	result := "hit"
	if requested {
		result = "miss"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		s.cache = map[CacheKey]uint64{}
	}
	s.cache[CacheKey{subsystem, result}]++
}

// CacheCounts is a copy of the lookups by subsystem and result.
func (s *Stats) CacheCounts() map[CacheKey]uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.cache)
}

func (s *Stats) add(field *uint64) {
	s.mu.Lock()
	*field++
	s.mu.Unlock()
}

// inventoryCounts is a copy of the stats.
type Counts struct{ Hits, Targeted, Listings, Gone, FeedPolls, FeedGaps uint64 }

func (s *Stats) Snapshot() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Counts{s.hits, s.targeted, s.listings, s.gone, s.feedPolls, s.feedGaps}
}

func NewInventory(client *hcloud.Client, now func() time.Time) *Inventory {
	if now == nil {
		now = time.Now
	}
	return &Inventory{client: client, Now: now, Stats: &Stats{},
		byID: map[int64]*entry{}, byName: map[string]*entry{}, byIP: map[string]*entry{}, byPrimaryIP: map[int64]*entry{}, misses: map[string]time.Time{},
		asked: map[time.Duration]map[string]time.Time{}, runs: map[string]run{}}
}

// WithUrgentClient gives urgent asks (Freshness.Urgently) a client of
// their own, paced as node initialisation (Budget.UrgentTransport).
func (inv *Inventory) WithUrgentClient(c *hcloud.Client) *Inventory {
	inv.urgent = c
	return inv
}

// clientFor is the client that answers an ask of f.
func (inv *Inventory) clientFor(f Freshness) *hcloud.Client {
	if f.urgent && inv.urgent != nil {
		return inv.urgent
	}
	return inv.client
}

// ByServerID returns the server with the ID as fresh as f asks, or nil
// when the API confirmed it does not exist. Any failure is an error.
func (inv *Inventory) ByServerID(ctx context.Context, id int64, f Freshness) (*hcloud.Server, error) {
	key := "id:" + strconv.FormatInt(id, 10)
	// IDs are never reused, so a server the API says is gone stays gone:
	// the absence is remembered like a server, until the next listing.
	return inv.lookup(ctx, key, f, func() *entry { return inv.byID[id] }, func(ctx context.Context, c *hcloud.Client) (*hcloud.Server, error) {
		s, _, err := c.Server.GetByID(ctx, id)
		return s, err
	}, func(now time.Time) { inv.markGone(id, now) })
}

// byServerName is byServerID for a server name.
// knownName is the server of that name the inventory holds, without
// asking the API: nil when it holds none.
func (inv *Inventory) KnownName(name string) *hcloud.Server {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if e := inv.byName[name]; e != nil {
		return e.server
	}
	return nil
}

func (inv *Inventory) ByServerName(ctx context.Context, name string, f Freshness) (*hcloud.Server, error) {
	// A name may be taken by a new server any moment, so its absence is
	// not remembered.
	return inv.lookup(ctx, "name:"+name, f, func() *entry { return inv.byName[name] }, func(ctx context.Context, c *hcloud.Client) (*hcloud.Server, error) {
		s, _, err := c.Server.GetByName(ctx, name)
		return s, err
	}, nil)
}

// lookup answers from cached() while fresh, else fetches (listing first
// when that is cheaper). gone, when set, records a confirmed absence; the
// caller holds mu when it runs.
func (inv *Inventory) lookup(ctx context.Context, key string, f Freshness, cached func() *entry,
	fetch func(context.Context, *hcloud.Client) (*hcloud.Server, error), gone func(time.Time)) (*hcloud.Server, error) {
	requested := false
	s, err := inv.lookupNoting(ctx, key, f, cached, fetch, gone, &requested)
	if err == nil {
		inv.Stats.cacheRequest(f.caller, requested)
	}
	return s, err
}

// lookupNoting is lookup; it sets requested when it asked the API.
func (inv *Inventory) lookupNoting(ctx context.Context, key string, f Freshness, cached func() *entry,
	fetch func(context.Context, *hcloud.Client) (*hcloud.Server, error), gone func(time.Time), requested *bool) (*hcloud.Server, error) {
	now := inv.Now()
	inv.mu.Lock()
	asked := inv.asked[f.maxAge]
	if asked == nil {
		asked = map[string]time.Time{}
		inv.asked[f.maxAge] = asked
	}
	last, before := asked[key]
	asked[key] = now
	maxAge := f.maxAge
	trustFeed := f.ceiling == 0
	if f.ceiling > 0 {
		if r, ok := inv.runs[key]; !before || now.Sub(last) > f.maxAge/2 || !ok || !r.since.Equal(f.since) {
			inv.runs[key] = run{start: now, since: f.since}
		}
		runLen := now.Sub(inv.runs[key].start)
		maxAge = f.allowed(runLen)
		// Past its first ask, an early ask watches for a deletion, which
		// leaves an action: when more than earlyAlone servers are in early
		// runs (an outage, a zone), one poll of the actions vouches for
		// them all, instead of a request or a listing each time.
		trustFeed = runLen > 0 && runLen < f.ceiling && inv.earlyRuns(now, f.ceiling) > earlyAlone
	}
	client := inv.clientFor(f)
	e := cached()
	if e != nil && inv.fresh(e, now, maxAge, trustFeed) {
		inv.mu.Unlock()
		inv.Stats.add(&inv.Stats.hits)
		return e.server, nil
	}
	if e != nil && trustFeed && inv.feedUsable(now) && now.Sub(inv.feedAt) > maxAge {
		// The feed is older than the caller takes: one poll may vouch for
		// the entry (and for every other one). A failed poll vouches for
		// nothing: the entry is fetched as without a feed.
		inv.mu.Unlock()
		*requested = true
		err := inv.pollFeed(ctx, client)
		inv.mu.Lock()
		if err != nil {
			klog.V(2).InfoS("Reading the actions failed; reading the server instead", "err", err)
			trustFeed = false
		} else if e = cached(); e != nil && inv.fresh(e, inv.Now(), maxAge, true) {
			inv.mu.Unlock()
			inv.Stats.add(&inv.Stats.hits)
			return e.server, nil
		}
	}
	inv.misses[key] = now
	listFirst := inv.shouldList(asked, now, maxAge, e != nil, trustFeed)
	inv.mu.Unlock()

	*requested = true
	if listFirst {
		if err := inv.refresh(ctx, client); err != nil {
			return nil, err
		}
		inv.mu.Lock()
		e := cached()
		inv.mu.Unlock()
		if e != nil && !e.seen.Before(now) {
			inv.Stats.add(&inv.Stats.hits)
			return e.server, nil
		}
		// Not in the listing: the targeted request below confirms it is gone.
	}
	v, err, _ := inv.flight.Do(key, func() (any, error) {
		s, err := fetch(ctx, client)
		if err != nil {
			return nil, err
		}
		inv.Stats.add(&inv.Stats.targeted)
		inv.mu.Lock()
		defer inv.mu.Unlock()
		if s == nil {
			inv.Stats.add(&inv.Stats.gone)
			if gone != nil {
				gone(inv.Now())
			}
			return (*hcloud.Server)(nil), nil
		}
		inv.put(s, inv.Now())
		return s, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*hcloud.Server), nil
}

// shouldList reports whether one paged listing is cheaper than targeted
// requests: when more lookups missed since the last listing than it has
// pages (a burst of new servers; a key missed again and again counts once),
// or, for an entry gone stale, when callers at this freshness asked for
// more servers within the last two periods than it has pages and the last
// listing is too old for them (the periodic status update without the
// feed, many NotReady nodes). Where the feed vouches for the unchanged,
// only misses count. A server never seen before costs one targeted
// request. The caller holds mu.
func (inv *Inventory) shouldList(asked map[string]time.Time, now time.Time, maxAge time.Duration, stale, trustFeed bool) bool {
	for _, m := range []map[string]time.Time{asked, inv.misses} {
		for k, at := range m {
			if now.Sub(at) > 2*maxAge {
				delete(m, k)
			}
		}
	}
	if !trustFeed {
		for k := range inv.runs {
			if _, ok := asked[k]; !ok { // not asked for two periods: the run is over
				delete(inv.runs, k)
			}
		}
	}
	pages := inv.pages()
	if trustFeed && inv.feedUsable(now) {
		// The feed vouches for the unchanged: only the changed, which
		// missed, count.
		return len(inv.misses) > pages
	}
	return len(inv.misses) > pages || (stale && len(asked) > pages && now.Sub(inv.ListedAt) > maxAge)
}

// pages is how many pages a full listing takes; the caller holds mu.
func (inv *Inventory) pages() int { return max(1, (len(inv.byID)+49)/50) }

// fresh tells whether an entry may answer a caller taking maxAge: seen
// within it, or, where the caller trusts the feed, not changed since and
// vouched for by a poll within maxAge. The caller holds mu.
func (inv *Inventory) fresh(e *entry, now time.Time, maxAge time.Duration, trustFeed bool) bool {
	if now.Sub(e.seen) <= maxAge {
		return true
	}
	return trustFeed && inv.feedUsable(now) && !e.seen.IsZero() && now.Sub(inv.feedAt) <= maxAge
}

// Refresh lists every server (coalesced with concurrent refreshes) and
// replaces the inventory with what it found.
func (inv *Inventory) Refresh(ctx context.Context) error { return inv.refresh(ctx, inv.client) }

// refresh is Refresh through a client.
func (inv *Inventory) refresh(ctx context.Context, c *hcloud.Client) error {
	_, err, _ := inv.flight.Do("all", func() (any, error) {
		servers, err := c.Server.All(ctx)
		if err != nil {
			return nil, fmt.Errorf("list servers: %w", err)
		}
		inv.listed(servers, inv.Now())
		return nil, nil
	})
	return err
}

// Start fills the inventory at start as cheaply as the listing allows.
// The listing's first page tells how many servers there are. Up to
// feedStreams pages the change feed is of no use (a listing costs no more
// than a poll, freshness.go), so the rest of the pages complete the
// listing and the feed stays unread until the servers outgrow that (its
// first read then forces a listing after it). Beyond, the feed's first
// read sets its cursor, and the whole listing follows, its first page
// again, so no change falls between the two.
func (inv *Inventory) Start(ctx context.Context) error {
	c := inv.client
	now := inv.Now()
	opts := hcloud.ServerListOpts{ListOpts: hcloud.ListOpts{Page: 1, PerPage: 50}}
	servers, resp, err := c.Server.List(ctx, opts)
	if err != nil {
		return fmt.Errorf("list servers: %w", err)
	}
	// Few servers, as the first page tells: one page, or a total of at
	// most feedStreams pages. Else, or when the pages say otherwise, the
	// usual start: the feed's cursor, then the whole listing.
	p := resp.Meta.Pagination
	few := p != nil && (p.NextPage == 0 || (p.TotalEntries > 0 && (p.TotalEntries+49)/50 <= feedStreams))
	for page := 2; few && p.NextPage > 0; page++ {
		if page > feedStreams {
			few = false
			break
		}
		opts.Page = p.NextPage
		more, r, err := c.Server.List(ctx, opts)
		if err != nil {
			return fmt.Errorf("list servers: %w", err)
		}
		servers, p = append(servers, more...), r.Meta.Pagination
		if p == nil {
			return errors.New("list servers: a page without pagination")
		}
	}
	if !few {
		if inv.feed != nil {
			if err := inv.PollFeed(ctx); err != nil {
				return err
			}
		}
		return inv.Refresh(ctx)
	}
	inv.listed(servers, now)
	return nil
}

// listed replaces the entries with a full listing's, made at now.
func (inv *Inventory) listed(servers []*hcloud.Server, now time.Time) {
	inv.Stats.add(&inv.Stats.listings)
	inv.mu.Lock()
	defer inv.mu.Unlock()
	inv.byID, inv.byName, inv.byIP, inv.byPrimaryIP = map[int64]*entry{}, map[string]*entry{}, map[string]*entry{}, map[int64]*entry{}
	for _, s := range servers {
		inv.put(s, now)
	}
	inv.ListedAt, inv.misses = now, map[string]time.Time{}
}

// put records a server as seen now; the caller holds mu.
func (inv *Inventory) put(s *hcloud.Server, now time.Time) {
	if old := inv.byID[s.ID]; old != nil && old.server != nil {
		inv.unindex(old.server)
	}
	e := &entry{server: s, seen: now}
	inv.byID[s.ID] = e
	inv.byName[s.Name] = e
	for _, k := range ipKeys(s) {
		inv.byIP[k] = e
	}
	for _, id := range primaryIPIDs(s) {
		inv.byPrimaryIP[id] = e
	}
}

// unindex drops a server's name and IPs where they still point to it; the
// caller holds mu.
func (inv *Inventory) unindex(s *hcloud.Server) {
	if e := inv.byName[s.Name]; e != nil && e.server != nil && e.server.ID == s.ID {
		delete(inv.byName, s.Name)
	}
	for _, k := range ipKeys(s) {
		if e := inv.byIP[k]; e != nil && e.server != nil && e.server.ID == s.ID {
			delete(inv.byIP, k)
		}
	}
	for _, id := range primaryIPIDs(s) {
		if e := inv.byPrimaryIP[id]; e != nil && e.server != nil && e.server.ID == s.ID {
			delete(inv.byPrimaryIP, id)
		}
	}
}

// primaryIPIDs are the IDs of a server's primary IPs.
func primaryIPIDs(s *hcloud.Server) []int64 {
	var ids []int64
	for _, id := range []int64{s.PublicNet.IPv4.ID, s.PublicNet.IPv6.ID} {
		if id != 0 {
			ids = append(ids, id)
		}
	}
	return ids
}

// markGone records that the API confirmed the server is gone: its ID stays
// gone (IDs are never reused) and the private IPs it held lead nowhere
// until a listing says otherwise. The caller holds mu.
func (inv *Inventory) markGone(id int64, now time.Time) {
	gone := &entry{seen: now}
	if old := inv.byID[id]; old != nil && old.server != nil {
		inv.unindex(old.server)
		for _, k := range ipKeys(old.server) {
			inv.byIP[k] = gone
		}
	}
	inv.byID[id] = gone
}

func ipKey(networkID int64, ip string) string { return strconv.FormatInt(networkID, 10) + "/" + ip }

// ipKeys are the byIP keys of every private IP a server holds.
func ipKeys(s *hcloud.Server) []string {
	var keys []string
	for _, pn := range s.PrivateNet {
		if pn.Network != nil && pn.IP != nil {
			keys = append(keys, ipKey(pn.Network.ID, pn.IP.String()))
		}
	}
	return keys
}

// ByPrivateIP finds the server holding an IP in a network. A server that
// is not known to hold it is declared absent (nil) only when the IP was
// released by a server the API confirmed gone, or after a full listing no
// older than maxAge, so a route is never taken for a blackhole on stale data.
func (inv *Inventory) ByPrivateIP(ctx context.Context, networkID int64, ip string, maxAge time.Duration) (*hcloud.Server, error) {
	key := ipKey(networkID, ip)
	inv.mu.Lock()
	e, known := inv.byIP[key]
	fresh := inv.Now().Sub(inv.ListedAt) <= maxAge
	inv.mu.Unlock()
	if known || fresh {
		if e == nil {
			return nil, nil
		}
		return e.server, nil
	}
	if err := inv.Refresh(ctx); err != nil {
		return nil, err
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if e := inv.byIP[key]; e != nil {
		return e.server, nil
	}
	return nil, nil
}

// Names are the names of the servers the inventory holds, sorted, and
// when it last listed them all.
func (inv *Inventory) Names() ([]string, time.Time) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	out := make([]string, 0, len(inv.byName))
	for n, e := range inv.byName {
		if e.server != nil {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, inv.ListedAt
}
