package store

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

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
func (w *State) DedicatedServers() []dedicated.Server {
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
func (w *State) AddDedicated(sd dedicated.SeedDedicatedServer) (*dedicated.Server, error) {
	d := dedicated.Server{Number: sd.Number, Name: sd.Name, IPv4: sd.IPv4, IPv6Net: sd.IPv6Net, Product: cmp.Or(sd.Product, "AX41-NVMe"),
		DC: cmp.Or(sd.DC, "FSN1-DC14"), Traffic: cmp.Or(sd.Traffic, "unlimited"), Status: cmp.Or(sd.Status, dedicated.StatusReady),
		Cancelled: sd.Cancelled, PaidUntil: sd.PaidUntil, IPs: sd.IPs, Subnets: sd.Subnets, Reset: sd.Reset == nil || *sd.Reset,
		LinkedStorageBox: sd.LinkedStorageBox, OperatingStatus: cmp.Or(sd.OperatingStatus, dedicated.Running)}
	if d.Number == 0 {
		d.Number = max(w.LastID["dedicated_server"], firstServerNumber) + 1
	}
	if d.IPv4 == "" {
		ip, ok := w.freeDedicatedIPv4()
		if !ok {
			return nil, fmt.Errorf("server_ip: every address of %s is taken; give one", robotIPv4Range)
		}
		d.IPv4 = ip
	}
	if d.IPv6Net == "" && d.Number > 0 {
		d.IPv6Net = fmt.Sprintf("3fff:%x:%x::", d.Number>>16&0xfff, d.Number&0xffff)
	}
	if d.PaidUntil == "" {
		y, m, _ := w.Now().UTC().Date()
		d.PaidUntil = time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	}
	if d.IPs == nil {
		d.IPs = []string{d.IPv4}
	}
	if d.Subnets == nil && d.IPv6Net != "" {
		d.Subnets = []dedicated.Subnet{{IP: d.IPv6Net, Mask: "64"}}
	}
	if err := errors.Join(d.Check(), w.checkDedicated(&d)); err != nil {
		return nil, err
	}
	w.Dedicated.Put(d.Number, &d)
	w.LastID["dedicated_server"] = max(w.LastID["dedicated_server"], d.Number)
	return &d, nil
}

// checkDedicated checks what the world decides for a new dedicated
// server: its number and main IPv4 are its own, and the address is not
// one of fakecloud's cloud ranges.
func (w *State) checkDedicated(d *dedicated.Server) error {
	var errs []error
	if _, taken := w.Dedicated.Get(d.Number); taken {
		errs = append(errs, fmt.Errorf("server_number: %d is taken", d.Number))
	}
	if holder, ok := w.Dedicated.Find(func(o *dedicated.Server) bool { return o.IPv4 == d.IPv4 }); ok {
		errs = append(errs, fmt.Errorf("server_ip: %s is held by dedicated server %d", d.IPv4, holder.Number))
	}
	if a, err := netip.ParseAddr(d.IPv4); err == nil && (netaddr.PublicIPv4Range.Contains(a) || (w.LBIPv4.IsValid() && w.LBIPv4.Contains(a))) {
		errs = append(errs, fmt.Errorf("server_ip: %s is in fakecloud's cloud addresses; a dedicated server's address is outside %s", a, netaddr.PublicIPv4Range))
	}
	return errors.Join(errs...)
}

// freeDedicatedIPv4 is the lowest address of robotIPv4Range that no
// dedicated server holds, from .2 (.1 plays the gateway) to the last
// before the broadcast address.
func (w *State) freeDedicatedIPv4() (string, bool) {
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
func (w *State) loadDedicated(servers []*dedicated.Server) []error {
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
