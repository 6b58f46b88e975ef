// Package dedicated is a Robot dedicated server as fakecloud stores it,
// with the rules its fields follow: data without HTTP, so the world can
// hold dedicated servers and the fake webservice can serve them.
package dedicated

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
)

// Server is a dedicated server as fakecloud stores it. The JSON names are
// the webservice's (section "Server" of the webservice documentation), so
// a real listing can be pasted into a seed; OperatingStatus is what
// GET /reset/{server-number} reports.
type Server struct {
	Number    int64    `json:"server_number"`
	Name      string   `json:"server_name"`
	IPv4      string   `json:"server_ip"`
	IPv6Net   string   `json:"server_ipv6_net"` // e.g. "2a01:4f8:111:4221::", no prefix length
	Product   string   `json:"product"`         // e.g. "AX41-NVMe"
	DC        string   `json:"dc"`              // e.g. "FSN1-DC14"
	Traffic   string   `json:"traffic"`         // e.g. "unlimited", "20 TB"
	Status    string   `json:"status"`          // ready or "in process"
	Cancelled bool     `json:"cancelled"`
	PaidUntil string   `json:"paid_until"` // YYYY-MM-DD
	IPs       []string `json:"ip"`
	Subnets   []Subnet `json:"subnet"`
	// Reset says whether the server has the reset function; without it
	// GET /reset/{server-number} answers RESET_NOT_AVAILABLE.
	Reset            bool   `json:"reset"`
	LinkedStorageBox *int64 `json:"linked_storagebox"`
	// OperatingStatus is running, "shut off", or "not supported" (tower
	// servers, whose power state the webservice cannot read).
	OperatingStatus string `json:"operating_status"`
}

// Subnet is an additional subnet of a server; the mask is a prefix
// length sent as a string ("64").
type Subnet struct {
	IP   string `json:"ip"`
	Mask string `json:"mask"`
}

// Server statuses and operating statuses.
const (
	StatusReady     = "ready"
	StatusInProcess = "in process"

	Running      = "running"
	ShutOff      = "shut off"
	NotSupported = "not supported"
)

// MaxNumber is the highest server number: the webservice's are seven
// digits; nine leave room and keep every number exact in JSON.
const MaxNumber = 999_999_999

// dcPattern is a Robot data centre: a location (FSN1, NBG1, HEL1) and a
// data centre number.
var dcPattern = regexp.MustCompile(`^(FSN1|NBG1|HEL1)-DC[0-9]+$`)

// Check reports every problem of a server's fields at once, naming each
// field as the webservice names it. Addresses must be ones a host can
// have (netaddr.HostAddr); whether a private one may be is the world's to
// say (store.checkDedicated).
func (s Server) Check() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if s.Number < 1 || s.Number > MaxNumber {
		bad("server_number", "%d is not a number from 1 to %d", s.Number, MaxNumber)
	}
	if a, err := netip.ParseAddr(s.IPv4); err != nil || !a.Is4() || !netaddr.HostAddr(a) {
		bad("server_ip", "%q is not a unicast IPv4 address a host can have", s.IPv4)
	}
	if a, err := netip.ParseAddr(s.IPv6Net); s.IPv6Net != "" && (err != nil || !a.Is6() || a.Zone() != "" || !netaddr.HostAddr(a)) {
		bad("server_ipv6_net", "%q is not a unicast IPv6 network address without prefix length, e.g. 2a01:4f8:111:4221::", s.IPv6Net)
	}
	if s.Product == "" {
		bad("product", "is required, e.g. AX41-NVMe")
	}
	if !dcPattern.MatchString(s.DC) {
		bad("dc", "%q is not a data centre such as FSN1-DC14, NBG1-DC3 or HEL1-DC2", s.DC)
	}
	if s.Traffic == "" {
		bad("traffic", "is required, e.g. unlimited or \"20 TB\"")
	}
	if s.Status != StatusReady && s.Status != StatusInProcess {
		bad("status", "%q is not one of ready, in process", s.Status)
	}
	if _, err := time.Parse(time.DateOnly, s.PaidUntil); err != nil {
		bad("paid_until", "%q is not a date YYYY-MM-DD", s.PaidUntil)
	}
	for i, ip := range s.IPs {
		if a, err := netip.ParseAddr(ip); err != nil || !a.Is4() || !netaddr.HostAddr(a) {
			bad(fmt.Sprintf("ip[%d]", i), "%q is not a unicast IPv4 address a host can have", ip)
		}
	}
	for i, sn := range s.Subnets {
		a, err := netip.ParseAddr(sn.IP)
		bits, merr := strconv.Atoi(sn.Mask)
		if err != nil || merr != nil || bits < 0 || bits > a.BitLen() || !netaddr.HostAddr(a) {
			bad(fmt.Sprintf("subnet[%d]", i), "%q/%q is not a unicast address and a prefix length such as 2a01:4f8::/\"64\"", sn.IP, sn.Mask)
		}
	}
	if s.LinkedStorageBox != nil && *s.LinkedStorageBox < 1 {
		bad("linked_storagebox", "%d is not a positive ID", *s.LinkedStorageBox)
	}
	if !slices.Contains([]string{Running, ShutOff, NotSupported}, s.OperatingStatus) {
		bad("operating_status", "%q is not one of running, shut off, not supported", s.OperatingStatus)
	}
	return errors.Join(errs...)
}
