package hcloudapi

import (
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// serverActions are the simulated POST /servers/{id}/actions/{name}.
var serverActions = map[string]apiHandler{
	"poweron":             powerAction("start_server", "starting", "running"),
	"poweroff":            powerAction("stop_server", "stopping", "off"),
	"shutdown":            powerAction("shutdown_server", "stopping", "off"),
	"reboot":              powerAction("reboot_server", "", "running"),
	"reset":               powerAction("reset_server", "", "running"),
	"attach_to_network":   serverAttachToNetwork,
	"detach_from_network": serverDetachFromNetwork,
	"change_protection":   serverChangeProtection,
	"change_type":         serverChangeType,
	"change_dns_ptr":      serverChangeDNSPtr,
}

// serverAction validates the server for an action: it exists and no other
// action holds it. plan validates the request and returns the change; the
// change is applied at once, the action's end does fin, and a failed
// action restores the server as it was.
func serverAction(c *call, command string, body any, plan func(s *server) (apply func(), fin finish, err *apiError)) (int, any, *apiError) {
	return serverActionNaming(c, command, body, nil, plan)
}

// serverActionNaming is serverAction for an action that names more than
// the server: also, read once the body is, lists the other resources.
func serverActionNaming(c *call, command string, body any, also func() []resourceRef, plan func(s *server) (apply func(), fin finish, err *apiError)) (int, any, *apiError) {
	s, err := c.server()
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		if err := c.decode(body); err != nil {
			return 0, nil, err
		}
	}
	ref := resourceRef{"server", s.ID}
	if err := c.w.checkLock(ref); err != nil {
		return 0, nil, err
	}
	apply, fin, aerr := plan(s)
	if aerr != nil {
		return 0, nil, aerr
	}
	undo := c.w.snapshotOf(ref)
	if apply != nil {
		apply()
	}
	refs := []resourceRef{ref}
	if also != nil {
		refs = append(refs, also()...)
	}
	a := c.w.startAction(actionSpec{command: command, resources: refs, finish: fin, undo: undo})
	return http.StatusCreated, actionGet{c.w.viewAction(a)}, nil
}

// naming returns the network a network action names beside the server,
// as the description's examples of attach_to_network and
// detach_from_network show.
func naming(network *int64) func() []resourceRef {
	return func() []resourceRef { return []resourceRef{{"network", *network}} }
}

// powerAction moves a server through a transitional status (if any) to its
// final status when the action succeeds; a failed action puts the previous
// status back.
func powerAction(command, during, final string) apiHandler {
	return func(c *call) (int, any, *apiError) {
		return serverAction(c, command, nil, func(s *server) (func(), finish, *apiError) {
			if s.Status == "initializing" {
				return nil, finish{}, locked("server", s.ID)
			}
			end := final
			if (command == "reboot_server" || command == "reset_server") && s.Status == "off" {
				end = "off"
			}
			var apply func()
			if during != "" && s.Status != end {
				apply = func() { s.Status = during }
			}
			return apply, finish{ServerStatus: end}, nil
		})
	}
}

func serverAttachToNetwork(c *call) (int, any, *apiError) {
	var req schema.ServerActionAttachToNetworkRequest
	return serverActionNaming(c, "attach_to_network", &req, naming(&req.Network), func(s *server) (func(), finish, *apiError) {
		n, ok := c.w.networks.get(req.Network)
		if !ok {
			return nil, finish{}, invalidField("network", "network %d does not exist", req.Network)
		}
		if err := c.w.networkLock(n.ID); err != nil {
			return nil, finish{}, err
		}
		ref := resourceRef{"server", s.ID}
		if _, ok := c.w.memberOf(n.ID, ref); ok {
			return nil, finish{}, errorf("server_already_attached", "server %d is already attached to network %d", s.ID, n.ID)
		}
		want, ipRange := "", ""
		if req.IP != nil {
			want = *req.IP
		}
		if req.IPRange != nil {
			ipRange = *req.IPRange
		}
		ip, err := c.w.allocIP(n, s.Location.NetworkZone, want, ipRange)
		if err != nil {
			return nil, finish{}, err
		}
		m := member{resourceRef: ref, ip: ip}
		aliases := []string{}
		for _, ap := range req.AliasIPs {
			if ap == nil {
				continue
			}
			a, perr := netip.ParseAddr(*ap)
			if perr != nil || a == ip || c.w.ipInUse(n.ID, a) || slices.Contains(m.alias, a) {
				return nil, finish{}, errorf("ip_not_available", "alias IP %q is not available in network %d", *ap, n.ID)
			}
			m.alias = append(m.alias, a)
			aliases = append(aliases, a.String())
		}
		return func() {
			c.w.attach(n.ID, m)
			s.PrivateNet = append(s.PrivateNet, schema.ServerPrivateNet{Network: n.ID, IP: ip.String(), AliasIPs: aliases, MACAddress: c.w.newMAC()})
		}, finish{}, nil
	})
}

func serverDetachFromNetwork(c *call) (int, any, *apiError) {
	var req schema.ServerActionDetachFromNetworkRequest
	return serverActionNaming(c, "detach_from_network", &req, naming(&req.Network), func(s *server) (func(), finish, *apiError) {
		if _, ok := c.w.networks.get(req.Network); !ok {
			return nil, finish{}, invalidField("network", "network %d does not exist", req.Network)
		}
		m, ok := c.w.memberOf(req.Network, resourceRef{"server", s.ID})
		if !ok {
			return nil, finish{}, errorf("server_not_attached_to_network", "server %d is not attached to network %d", s.ID, req.Network)
		}
		return func() { c.w.detach(m, req.Network) }, finish{}, nil
	})
}

func serverChangeProtection(c *call) (int, any, *apiError) {
	var req schema.ServerActionChangeProtectionRequest
	return serverAction(c, "change_protection", &req, func(s *server) (func(), finish, *apiError) {
		if req.Delete != nil && req.Rebuild != nil && *req.Delete != *req.Rebuild {
			return nil, finish{}, invalidField("rebuild", "delete and rebuild protection must be set together on servers")
		}
		return func() {
			if req.Delete != nil {
				s.Protection.Delete = *req.Delete
			}
			if req.Rebuild != nil {
				s.Protection.Rebuild = *req.Rebuild
			}
		}, finish{}, nil
	})
}

func serverChangeType(c *call) (int, any, *apiError) {
	var req schema.ServerActionChangeTypeRequest
	return serverAction(c, "change_server_type", &req, func(s *server) (func(), finish, *apiError) {
		st, ok := c.w.cat.ServerType(idOrNameString(req.ServerType))
		if !ok {
			return nil, finish{}, invalidField("server_type", "server type %q does not exist", idOrNameString(req.ServerType))
		}
		if s.Status != "off" {
			return nil, finish{}, errorf("server_not_stopped", "server %d must be off to change its type", s.ID)
		}
		if st.Architecture != s.ServerType.Architecture {
			return nil, finish{}, errorf("invalid_server_type", "server type %s has another architecture", st.Name)
		}
		return func() {
			s.ServerType = st
			if req.UpgradeDisk {
				s.PrimaryDiskSize = st.Disk
			}
		}, finish{}, nil
	})
}

func serverChangeDNSPtr(c *call) (int, any, *apiError) {
	var req schema.ServerActionChangeDNSPtrRequest
	return serverAction(c, "change_dns_ptr", &req, func(s *server) (func(), finish, *apiError) {
		a, err := netip.ParseAddr(req.IP)
		if err != nil {
			return nil, finish{}, invalidField("ip", "%q is not an IP address", req.IP)
		}
		ptr := ""
		if req.DNSPtr != nil {
			ptr = *req.DNSPtr
		}
		if a.Is4() {
			if s.PublicNet.IPv4.IP != a.String() {
				return nil, finish{}, invalidField("ip", "%s is not the server's public IPv4", a)
			}
			return func() {
				if ptr == "" {
					ptr = defaultPTR(a)
				}
				s.PublicNet.IPv4.DNSPtr = ptr
				if pip, ok := c.w.primaryIPs.get(s.PublicNet.IPv4.ID); ok {
					pip.DNSPtr = []schema.PrimaryIPDNSPTR{{IP: a.String(), DNSPtr: ptr}}
				}
			}, finish{}, nil
		}
		p, perr := netip.ParsePrefix(s.PublicNet.IPv6.IP)
		if perr != nil || !p.Contains(a) {
			return nil, finish{}, invalidField("ip", "%s is not inside the server's public IPv6 network", a)
		}
		return func() {
			s.PublicNet.IPv6.DNSPtr = slices.DeleteFunc(s.PublicNet.IPv6.DNSPtr, func(d schema.ServerPublicNetIPv6DNSPtr) bool { return d.IP == a.String() })
			if ptr != "" {
				s.PublicNet.IPv6.DNSPtr = append(s.PublicNet.IPv6.DNSPtr, schema.ServerPublicNetIPv6DNSPtr{IP: a.String(), DNSPtr: ptr})
			}
		}, finish{}, nil
	})
}

// defaultPTR is the reverse DNS name the API gives a fresh IPv4 address.
func defaultPTR(a netip.Addr) string {
	parts := strings.Split(a.String(), ".")
	slices.Reverse(parts)
	return "static." + strings.Join(parts, ".") + ".clients.your-server.de"
}
