package loadbalancer

import (
	"context"
	"sync"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// lbStore holds the load balancers labelled with a Service UID, read in
// one listing per maxAge and kept current by the CCM's own changes, so a
// sync that changes nothing sends nothing. An entry the API contradicted
// is re-read before it is used again. Every put and invalidate takes a
// sequence number, so an answer that left before an invalidation never
// clears it.
type lbStore struct {
	client *hcloud.Client
	now    func() time.Time
	maxAge time.Duration

	mu        sync.Mutex
	byUID     map[string]*hcloud.LoadBalancer
	staleSeq  map[string]uint64 // invalidated at: re-read by ID before use
	putSeq    map[string]uint64 // last put at
	seq       uint64
	relistSeq uint64 // an invalidation with no entry asks for a listing after it
	listedSeq uint64 // the last listing reflects everything up to here
	listedAt  time.Time
	locks     map[string]*sync.Mutex
	types     lbTypes
	typesAt   time.Time          // when types were listed
	named     map[string]namedLB // externally managed load balancers by name

	listMu  sync.Mutex // one listing at a time
	typesMu sync.Mutex // one listing of the types at a time
	// typesCounted is told of each ask for the types: answered from
	// memory (hit) or by a listing (miss); nil: not counted.
	typesCounted func(hit bool)
}

func newLBStore(client *hcloud.Client, now func() time.Time, maxAge time.Duration) *lbStore {
	return &lbStore{client: client, now: now, maxAge: maxAge, byUID: map[string]*hcloud.LoadBalancer{},
		staleSeq: map[string]uint64{}, putSeq: map[string]uint64{}, locks: map[string]*sync.Mutex{}, named: map[string]namedLB{}}
}

// lock serialises the work on one Service's load balancer, as the API
// locks it during each action.
func (s *lbStore) lock(uid string) func() {
	s.mu.Lock()
	l, ok := s.locks[uid]
	if !ok {
		l = &sync.Mutex{}
		s.locks[uid] = l
	}
	s.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// get returns the load balancer labelled uid, or nil; the caller holds lock(uid).
func (s *lbStore) get(ctx context.Context, uid string) (*hcloud.LoadBalancer, error) {
	if err := s.ensureListed(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	lb, stale, since := s.byUID[uid], s.staleSeq[uid] != 0, s.seq
	s.mu.Unlock()
	if lb == nil || !stale {
		return lb, nil
	}
	fresh, err := getLB(ctx, s.client, lb.ID)
	if err != nil {
		return nil, err
	}
	if fresh != nil && fresh.Labels[uidLabel] != uid {
		fresh = nil // relabelled behind the CCM's back: no longer this Service's
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record(uid, fresh)
	if s.staleSeq[uid] <= since {
		delete(s.staleSeq, uid)
	}
	return fresh, nil
}

// ensureListed lists the labelled load balancers when the last listing is
// older than maxAge or an invalidation asked for one.
func (s *lbStore) ensureListed(ctx context.Context) error { return s.ensureListedWithin(ctx, s.maxAge) }

// ensureListedWithin is ensureListed for a listing no older than age.
func (s *lbStore) ensureListedWithin(ctx context.Context, age time.Duration) error {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	s.mu.Lock()
	fresh := !s.listedAt.IsZero() && s.now().Sub(s.listedAt) < age && s.relistSeq <= s.listedSeq
	started, since := s.now(), s.seq
	s.mu.Unlock()
	if fresh {
		return nil
	}
	all, err := listLBs(ctx, s.client, hcloud.LoadBalancerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: uidLabel}})
	if err != nil {
		return err
	}
	m := make(map[string]*hcloud.LoadBalancer, len(all))
	for _, lb := range all {
		m[lb.Labels[uidLabel]] = lb
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// What the CCM changed or distrusted while the listing was on its way is newer.
	for uid, seq := range s.putSeq {
		if seq > since {
			if lb := s.byUID[uid]; lb != nil {
				m[uid] = lb
			} else {
				delete(m, uid)
			}
		} else {
			delete(s.putSeq, uid)
		}
	}
	for uid, seq := range s.staleSeq {
		if seq <= since {
			delete(s.staleSeq, uid)
		}
	}
	s.byUID, s.listedAt, s.listedSeq = m, started, since
	return nil
}

// known returns the load balancer the store holds for uid when nothing
// contradicted it since; the caller holds lock(uid).
func (s *lbStore) known(uid string) *hcloud.LoadBalancer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.staleSeq[uid] != 0 {
		return nil
	}
	return s.byUID[uid]
}

// current returns the load balancer the store holds for uid, also one
// the API contradicted since (its health is still the last read); the
// caller holds lock(uid), as syncs change it in place.
func (s *lbStore) current(uid string) *hcloud.LoadBalancer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byUID[uid]
}

// put records lb (nil: none) as uid's load balancer after a change the
// CCM made; an invalidation stands.
func (s *lbStore) put(uid string, lb *hcloud.LoadBalancer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record(uid, lb)
}

func (s *lbStore) record(uid string, lb *hcloud.LoadBalancer) {
	s.seq++
	s.putSeq[uid] = s.seq
	if lb == nil {
		delete(s.byUID, uid)
		delete(s.staleSeq, uid)
		return
	}
	s.byUID[uid] = lb
}

// invalidate makes the next get re-read uid's load balancer; with no
// entry (a create whose answer was lost), the next get lists again.
func (s *lbStore) invalidate(uid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	if _, ok := s.byUID[uid]; ok {
		s.staleSeq[uid] = s.seq
		return
	}
	s.relistSeq = s.seq
}

// namedLB is a load balancer found by name, and when.
type namedLB struct {
	lb *hcloud.LoadBalancer
	at time.Time
}

// byName is the load balancer named name, or nil: read at most once per
// maxAge while it exists; a miss is not kept, so one created meanwhile is
// found at the next sync.
func (s *lbStore) byName(ctx context.Context, name string) (*hcloud.LoadBalancer, error) {
	s.mu.Lock()
	e, ok := s.named[name]
	s.mu.Unlock()
	if ok && s.now().Sub(e.at) < s.maxAge {
		return e.lb, nil
	}
	lb, err := lbByName(ctx, s.client, name)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if lb == nil {
		delete(s.named, name)
	} else {
		s.named[name] = namedLB{lb: lb, at: s.now()}
	}
	return lb, nil
}

// forgetName makes the next byName read name again.
func (s *lbStore) forgetName(name string) {
	s.mu.Lock()
	delete(s.named, name)
	s.mu.Unlock()
}
