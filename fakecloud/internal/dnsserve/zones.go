package dnsserve

import (
	"sync"

	"github.com/miekg/dns"
)

// maxCachedZones bounds the indexes kept: past it they are all dropped
// and built again as queries come.
const maxCachedZones = 1024

// zones finds the zone of a name through the Source and indexes it,
// reusing the index while the zone's Version stays: a flood of queries
// costs a lookup each, not a pass over every record of the zone.
type zones struct {
	src Source

	mu      sync.Mutex
	indexes map[string]versioned // by canonical origin
}

type versioned struct {
	version string
	ix      *index
}

func newZones(src Source) *zones {
	return &zones{src: src, indexes: map[string]versioned{}}
}

// find is the index of the zone name lies in, and false when the Source
// has none.
func (zs *zones) find(name string) (*index, bool) {
	z, ok := zs.src(name)
	origin := dns.CanonicalName(z.Origin)
	if !ok || !dns.IsSubDomain(origin, name) {
		return nil, false
	}
	if z.Version == "" {
		return newIndex(z), true
	}
	zs.mu.Lock()
	v, hit := zs.indexes[origin]
	zs.mu.Unlock()
	if hit && v.version == z.Version {
		return v.ix, true
	}
	ix := newIndex(z)
	zs.mu.Lock()
	if len(zs.indexes) >= maxCachedZones {
		clear(zs.indexes)
	}
	zs.indexes[origin] = versioned{version: z.Version, ix: ix}
	zs.mu.Unlock()
	return ix, true
}
