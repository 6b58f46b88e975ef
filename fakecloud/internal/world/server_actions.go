package world

import (
	"net/netip"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// The power actions move a server through a transitional status (if
// any) to its final status when the action succeeds; a failed action puts
// the previous status back.

// PowerOnServer starts a server.
func (t *Tx) PowerOnServer(id int64) (schema.Action, *apierr.Error) {
	return t.power(id, "start_server", "starting", "running")
}

// PowerOffServer cuts a server's power.
func (t *Tx) PowerOffServer(id int64) (schema.Action, *apierr.Error) {
	return t.power(id, "stop_server", "stopping", "off")
}

// ShutdownServer shuts a server down.
func (t *Tx) ShutdownServer(id int64) (schema.Action, *apierr.Error) {
	return t.power(id, "shutdown_server", "stopping", "off")
}

// RebootServer reboots a server; one that is off stays off.
func (t *Tx) RebootServer(id int64) (schema.Action, *apierr.Error) {
	return t.power(id, "reboot_server", "", "running")
}

// ResetServer resets a server; one that is off stays off.
func (t *Tx) ResetServer(id int64) (schema.Action, *apierr.Error) {
	return t.power(id, "reset_server", "", "running")
}

// power runs a power action.
func (t *Tx) power(id int64, command, during, final string) (schema.Action, *apierr.Error) {
	return act(t, servers, id, command, func(s *StoredServer) (step, *apierr.Error) {
		if s.Status == "initializing" {
			return step{}, apierr.Locked("server", s.ID)
		}
		end := final
		if (command == "reboot_server" || command == "reset_server") && s.Status == "off" {
			end = "off"
		}
		if end == "running" && !t.w.HasInterface(s) {
			return step{}, apierr.Errorf(apierr.CodeInvalidInput, "server %d has no network interface: it needs a primary IP or a network to be powered on", s.ID)
		}
		return step{apply: func() {
			if during != "" && s.Status != end {
				s.Status = during
			}
			if end == "running" {
				s.RescueEnabled = false // it boots into the rescue system, which disables it
			}
		}, finish: Finish{ServerStatus: end}}, nil
	})
}

// AttachServerToNetwork attaches a server to a network, at a requested or the next free address, with alias IPs.
func (t *Tx) AttachServerToNetwork(id int64, req schema.ServerActionAttachToNetworkRequest) (schema.Action, *apierr.Error) {
	return act(t, servers, id, "attach_to_network", func(s *StoredServer) (step, *apierr.Error) {
		n, ok := t.w.Networks.Get(req.Network)
		if !ok {
			return step{}, apierr.InvalidField("network", "network %d does not exist", req.Network)
		}
		if err := t.w.checkFree(Ref{Type: "network", ID: n.ID}); err != nil {
			return step{}, err
		}
		ref := Ref{Type: "server", ID: s.ID}
		if _, ok := t.w.MemberOf(n.ID, ref); ok {
			return step{}, apierr.Errorf("server_already_attached", "server %d is already attached to network %d", s.ID, n.ID)
		}
		want, ipRange := "", ""
		if req.IP != nil {
			want = *req.IP
		}
		if req.IPRange != nil {
			ipRange = *req.IPRange
		}
		ip, err := t.w.AllocIP(n, s.Location.NetworkZone, want, ipRange)
		if err != nil {
			return step{}, err
		}
		m := Member{Ref: ref, IP: ip}
		aliases := []string{}
		for _, ap := range req.AliasIPs {
			if ap == nil {
				continue
			}
			a, perr := netip.ParseAddr(*ap)
			if perr != nil || a == ip || t.w.IPInUse(n.ID, a) || slices.Contains(m.Alias, a) {
				return step{}, apierr.Errorf("ip_not_available", "alias IP %q is not available in network %d", *ap, n.ID)
			}
			m.Alias = append(m.Alias, a)
			aliases = append(aliases, a.String())
		}
		return step{apply: func() {
			t.w.Attach(n.ID, m)
			s.PrivateNet = append(s.PrivateNet, schema.ServerPrivateNet{Network: n.ID, IP: ip.String(), AliasIPs: aliases, MACAddress: t.w.NewMAC()})
		}, names: []Ref{{Type: "network", ID: req.Network}}}, nil
	})
}

// DetachServerFromNetwork detaches a server from a network.
func (t *Tx) DetachServerFromNetwork(id int64, req schema.ServerActionDetachFromNetworkRequest) (schema.Action, *apierr.Error) {
	return act(t, servers, id, "detach_from_network", func(s *StoredServer) (step, *apierr.Error) {
		if _, ok := t.w.Networks.Get(req.Network); !ok {
			return step{}, apierr.InvalidField("network", "network %d does not exist", req.Network)
		}
		m, ok := t.w.MemberOf(req.Network, Ref{Type: "server", ID: s.ID})
		if !ok {
			return step{}, apierr.Errorf("server_not_attached_to_network", "server %d is not attached to network %d", s.ID, req.Network)
		}
		return step{apply: func() { t.w.Detach(m, req.Network) }, names: []Ref{{Type: "network", ID: req.Network}}}, nil
	})
}

// ChangeServerAliasIPs replaces a server's alias IPs in a network it is
// attached to.
func (t *Tx) ChangeServerAliasIPs(id int64, req schema.ServerActionChangeAliasIPsRequest) (schema.Action, *apierr.Error) {
	return act(t, servers, id, "change_alias_ips", func(s *StoredServer) (step, *apierr.Error) {
		n, ok := t.w.Networks.Get(req.Network)
		if !ok {
			return step{}, apierr.InvalidField("network", "network %d does not exist", req.Network)
		}
		m, ok := t.w.MemberOf(n.ID, Ref{Type: "server", ID: s.ID})
		i := slices.IndexFunc(s.PrivateNet, func(p schema.ServerPrivateNet) bool { return p.Network == n.ID })
		if !ok || i < 0 {
			return step{}, apierr.Errorf("server_not_attached_to_network", "server %d is not attached to network %d", s.ID, n.ID)
		}
		aliases, err := t.w.CheckAliases(n, s.Location.NetworkZone, m, req.AliasIPs)
		if err != nil {
			return step{}, err
		}
		return step{apply: func() {
			t.w.SetAliases(n.ID, m.Ref, aliases)
			s.PrivateNet[i].AliasIPs = []string{}
			for _, a := range aliases {
				s.PrivateNet[i].AliasIPs = append(s.PrivateNet[i].AliasIPs, a.String())
			}
		}, names: []Ref{{Type: "network", ID: req.Network}}}, nil
	})
}

// ChangeServerProtection sets a server's delete and rebuild protection, which go together.
func (t *Tx) ChangeServerProtection(id int64, req schema.ServerActionChangeProtectionRequest) (schema.Action, *apierr.Error) {
	return act(t, servers, id, "change_protection", func(s *StoredServer) (step, *apierr.Error) {
		if req.Delete != nil && req.Rebuild != nil && *req.Delete != *req.Rebuild {
			return step{}, apierr.InvalidField("rebuild", "delete and rebuild protection must be set together on servers")
		}
		var sets [][]string
		if req.Delete != nil {
			sets = append(sets, member("protection", "delete"))
		}
		if req.Rebuild != nil {
			sets = append(sets, member("protection", "rebuild"))
		}
		return step{apply: func() {
			if req.Delete != nil {
				s.Protection.Delete = *req.Delete
			}
			if req.Rebuild != nil {
				s.Protection.Rebuild = *req.Rebuild
			}
		}, sets: sets}, nil
	})
}

// ChangeServerType changes the type of a server that is off.
func (t *Tx) ChangeServerType(id int64, req schema.ServerActionChangeTypeRequest) (schema.Action, *apierr.Error) {
	return act(t, servers, id, "change_server_type", func(s *StoredServer) (step, *apierr.Error) {
		st, ok := t.w.Cat.ServerType(idOrNameString(req.ServerType))
		if !ok {
			return step{}, apierr.InvalidField("server_type", "server type %q does not exist", idOrNameString(req.ServerType))
		}
		if s.Status != "off" {
			return step{}, apierr.Errorf("server_not_stopped", "server %d must be off to change its type", s.ID)
		}
		if st.Architecture != s.ServerType.Architecture {
			return step{}, apierr.Errorf("invalid_server_type", "server type %s has another architecture", st.Name)
		}
		if err := Orderable(t.w.Cat, st, s.Location.Name, true); err != nil {
			return step{}, err
		}
		return step{apply: func() {
			s.ServerType = st
			if req.UpgradeDisk {
				s.PrimaryDiskSize = st.Disk
			}
		}}, nil
	})
}

// ChangeServerDNSPtr sets the reverse DNS name of one of a server's public addresses.
func (t *Tx) ChangeServerDNSPtr(id int64, req schema.ServerActionChangeDNSPtrRequest) (schema.Action, *apierr.Error) {
	return act(t, servers, id, "change_dns_ptr", func(s *StoredServer) (step, *apierr.Error) {
		a, ptr, err := ptrRequest(req.IP, req.DNSPtr)
		if err != nil {
			return step{}, err
		}
		if a.Is4() {
			if s.PublicNet.IPv4.IP != a.String() {
				return step{}, apierr.InvalidField("ip", "%s is not the server's public IPv4", a)
			}
			v4 := [][]string{member("public_net", "ipv4", "dns_ptr")}
			if pip, touches := t.w.ptrTouch(s.PublicNet.IPv4.ID); pip != nil {
				return step{touches: touches, sets: v4, apply: func() { t.w.setPIPPTR(pip, a, ptr) }}, nil
			}
			return step{apply: func() {
				if ptr == "" {
					ptr = DefaultPTR(a)
				}
				s.PublicNet.IPv4.DNSPtr = ptr
			}, sets: v4}, nil
		}
		p, perr := netip.ParsePrefix(s.PublicNet.IPv6.IP)
		if perr != nil || !p.Contains(a) {
			return step{}, apierr.InvalidField("ip", "%s is not inside the server's public IPv6 network", a)
		}
		v6 := [][]string{member("public_net", "ipv6", "dns_ptr")}
		if pip, touches := t.w.ptrTouch(s.PublicNet.IPv6.ID); pip != nil {
			return step{touches: touches, sets: v6, apply: func() { t.w.setPIPPTR(pip, a, ptr) }}, nil
		}
		return step{apply: func() {
			SetServerIPv6PTR(s, a, ptr)
		}, sets: v6}, nil
	})
}
