package world

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dedicated"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
)

// The Robot webservice's dedicated servers live in the world beside the
// cloud's resources: seeded, persisted and changed by events with them.

// robotIPv4Range gives dedicated servers their main IPv4 when a seed
// names none: TEST-NET-3, outside the cloud's ranges.
var robotIPv4Range = netip.MustParsePrefix("203.0.113.0/24")

// firstServerNumber is one below the first number handed out.
const firstServerNumber = 2000000

// DedicatedServers copies the dedicated servers, in number order, for
// the webservice.
func (w *project) DedicatedServers() []dedicated.Server {
	var out []dedicated.Server
	w.Locked(func() {
		for _, d := range w.Dedicated.All() {
			c := *d
			c.IPs, c.Subnets = slices.Clone(d.IPs), slices.Clone(d.Subnets)
			out = append(out, c)
		}
	})
	return out
}

// AddDedicated fills in a seed's defaults, checks the server against the
// world and stores it. Errors name the field, one a line.
func (w *project) AddDedicated(sd dedicated.SeedDedicatedServer) (*dedicated.Server, error) {
	number := sd.Number
	if number == 0 {
		last := max(w.LastID["dedicated_server"], firstServerNumber)
		if last >= dedicated.MaxNumber {
			return nil, fmt.Errorf("server_number: every number after %d is taken; give one from 1 to %d", last, dedicated.MaxNumber)
		}
		number = last + 1
	}
	ipv4 := sd.IPv4
	if ipv4 == "" {
		ip, ok := w.freeDedicatedIPv4()
		if !ok {
			return nil, fmt.Errorf("server_ip: every address of %s is taken; give one", robotIPv4Range)
		}
		ipv4 = ip
	}
	y, m, _ := w.Now().UTC().Date()
	d := dedicated.FromSeed(sd, number, ipv4, time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Format(time.DateOnly))
	if err := errors.Join(d.Check(), w.checkDedicated(&d)); err != nil {
		return nil, err
	}
	w.Dedicated.Put(d.Number, &d)
	w.LastID["dedicated_server"] = max(w.LastID["dedicated_server"], d.Number)
	return &d, nil
}

// checkDedicated checks what the world decides for a new dedicated
// server: its number and its IPv4 addresses are its own, held by no other
// machine of either kind, none is in fakecloud's cloud ranges, and none is
// private unless load balancers carry traffic: then a local container may
// play the server with its own address, as make e2e-kind's does.
func (w *project) checkDedicated(d *dedicated.Server) error {
	var errs []error
	if _, taken := w.Dedicated.Get(d.Number); taken {
		errs = append(errs, fmt.Errorf("server_number: %d is taken", d.Number))
	}
	errs = append(errs, w.addressErrors(d, true)...)
	return errors.Join(errs...)
}

// rangeError refuses a dedicated server's address that fakecloud's
// configuration rules out, whatever the world holds: a private one while
// load balancers carry no traffic, or one of the cloud's ranges.
func (w *project) rangeError(a netip.Addr) error {
	switch {
	case a.IsPrivate() && !w.LBIPv4.IsValid():
		return fmt.Errorf("%s is a private address; a dedicated server's are public (a private one only when load balancers carry traffic, for a container playing the server)", a)
	case netaddr.PublicIPv4Range.Contains(a) || (w.LBIPv4.IsValid() && w.LBIPv4.Contains(a)):
		return fmt.Errorf("%s is in fakecloud's cloud addresses; a dedicated server's address is outside %s", a, netaddr.PublicIPv4Range)
	}
	return nil
}

// CheckDedicatedSeed refuses a seed's addresses that fakecloud's
// configuration rules out, as no world of it could take them; its fields
// are event.Check's. Whether a number or an address is taken is the
// world's when the server is added. The caller holds the lock.
func (w *project) CheckDedicatedSeed(sd dedicated.SeedDedicatedServer) error {
	d := dedicated.Checkable(sd)
	return errors.Join(w.addressErrors(&d, false)...)
}

// addressErrors refuses d's IPv4 addresses that fakecloud's configuration
// rules out and, with held, those another machine holds; each error names
// its field: server_ip, or ip[i] for an address not the main one.
func (w *project) addressErrors(d *dedicated.Server, held bool) []error {
	var errs []error
	seen := map[string]bool{}
	for i, ip := range append([]string{d.IPv4}, d.IPs...) {
		if seen[ip] {
			continue
		}
		seen[ip] = true
		field := "server_ip"
		if i > 0 {
			field = fmt.Sprintf("ip[%d]", i-1)
		}
		a, err := netip.ParseAddr(ip)
		if err != nil {
			continue // dedicated.Check names it
		}
		if rerr := w.rangeError(a); rerr != nil {
			errs = append(errs, fmt.Errorf("%s: %w", field, rerr))
		} else if held {
			if holder := w.PublicIPv4Holder(a); holder != "" {
				errs = append(errs, fmt.Errorf("%s: %s is held by %s", field, a, holder))
			}
		}
	}
	return errs
}

// dedicatedIPv4s are a dedicated server's main IPv4 and its additional
// ones, each once.
func dedicatedIPv4s(d *dedicated.Server) []string {
	out := []string{d.IPv4}
	for _, ip := range d.IPs {
		if !slices.Contains(out, ip) {
			out = append(out, ip)
		}
	}
	return out
}

// PublicIPv4Holder names the machine or address that holds a as its
// public IPv4 (a cloud server, a primary IP, a load balancer or a
// dedicated server), or is empty: one address, one holder, whatever its
// kind.
func (w *project) PublicIPv4Holder(a netip.Addr) string {
	ip := a.String()
	if s, ok := w.Servers.Find(func(s *StoredServer) bool { return s.PublicNet.IPv4.IP == ip }); ok {
		return fmt.Sprintf("server %d", s.ID)
	}
	if p, ok := w.PrimaryIPs.Find(func(p *schema.PrimaryIP) bool { return p.IP == ip }); ok {
		return fmt.Sprintf("primary IP %d", p.ID)
	}
	if lb, ok := w.LoadBalancers.Find(func(lb *StoredLoadBalancer) bool { return lb.PublicNet.IPv4.IP == ip }); ok {
		return fmt.Sprintf("load balancer %d", lb.ID)
	}
	if d, ok := w.Dedicated.Find(func(d *dedicated.Server) bool { return slices.Contains(dedicatedIPv4s(d), ip) }); ok {
		return fmt.Sprintf("dedicated server %d", d.Number)
	}
	return ""
}

// freeDedicatedIPv4 is the lowest address of robotIPv4Range that no
// dedicated server holds, from .2 (.1 plays the gateway) to the last
// before the broadcast address.
func (w *project) freeDedicatedIPv4() (string, bool) {
	for a := robotIPv4Range.Addr().Next().Next(); robotIPv4Range.Contains(a.Next()); a = a.Next() {
		if _, held := w.Dedicated.Find(func(d *dedicated.Server) bool { return d.IPv4 == a.String() }); !held {
			return a.String(), true
		}
	}
	return "", false
}

// loadDedicated checks a snapshot's dedicated servers, each as a new one
// would be (so no number or main IPv4 twice), and stores them in the
// scratch world being loaded.
func (w *project) loadDedicated(servers []*dedicated.Server) []error {
	var errs []error
	for i, d := range servers {
		if err := errors.Join(d.Check(), w.checkDedicated(d)); err != nil {
			errs = append(errs, PrefixLines(fmt.Sprintf("dedicated_servers[%d].", i), err))
			continue
		}
		w.Dedicated.Put(d.Number, d)
	}
	return errs
}

// PrefixLines puts prefix before every line of err.
func PrefixLines(prefix string, err error) error {
	if err == nil {
		return nil
	}
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return errors.New(strings.Join(lines, "\n"))
}
