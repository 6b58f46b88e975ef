package world

import (
	"fmt"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// sweepIDs are the resources of the undo sweep's world (sweepWorld).
type sweepIDs struct {
	net, other, a, b, off, bare, lb, private, lone, spare, pip, fip, vol, loose, fw, pg, snap, backup int64
	zone                                                                                              string
}

// sweepRun starts one action of a command on sweepWorld's resources; n
// picks a variant (0 or 1), so two of a command run side by side either
// ask the same or ask different things.
type sweepRun func(tx *Tx, ids sweepIDs, n int) *apierr.Error

// sweepCases build a request for each command under each kind's
// endpoints, keyed family/command. TestUndoSweep fails on a command the
// kinds declare that has no entry here (or in sweepRecordedOnly), so a
// new action is swept as soon as it has one line.
var sweepCases = map[string]sweepRun{
	"server/create_server": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.CreateServer(ServerCreateRequest{ServerCreateRequest: schema.ServerCreateRequest{Name: fmt.Sprint("new", n),
			ServerType: schema.IDOrName{Name: "cx23"}, Image: schema.IDOrName{Name: "ubuntu-24.04"}, Location: "fsn1", Networks: []int64{ids.net}}})
		return err
	},
	"server/delete_server":   func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.DeleteServer(ids.b); return err },
	"server/start_server":    func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.PowerOnServer(ids.off); return err },
	"server/stop_server":     func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.PowerOffServer(ids.a); return err },
	"server/shutdown_server": func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.ShutdownServer(ids.a); return err },
	"server/reboot_server":   func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.RebootServer(ids.a); return err },
	"server/reset_server":    func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.ResetServer(ids.a); return err },
	"server/attach_to_network": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.AttachServerToNetwork(ids.off, schema.ServerActionAttachToNetworkRequest{Network: ids.net, IP: new("10.0.0.50")})
		return err
	},
	"server/detach_from_network": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.DetachServerFromNetwork(ids.a, schema.ServerActionDetachFromNetworkRequest{Network: ids.net})
		return err
	},
	"server/change_alias_ips": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.ChangeServerAliasIPs(ids.a, schema.ServerActionChangeAliasIPsRequest{Network: ids.net, AliasIPs: []string{fmt.Sprintf("10.0.0.%d", 60+n)}})
		return err
	},
	"server/change_protection": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.ChangeServerProtection(ids.a, schema.ServerActionChangeProtectionRequest{Delete: new(true), Rebuild: new(n == 0)})
		return err
	},
	"server/change_server_type": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.ChangeServerType(ids.off, schema.ServerActionChangeTypeRequest{ServerType: schema.IDOrName{Name: "cx33"}, UpgradeDisk: true})
		return err
	},
	"server/change_dns_ptr": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		s, _ := tx.w.Servers.Get(ids.a)
		_, err := tx.ChangeServerDNSPtr(ids.a, schema.ServerActionChangeDNSPtrRequest{IP: s.PublicNet.IPv4.IP, DNSPtr: new(fmt.Sprintf("a%d.example.com", n))})
		return err
	},
	"server/create_image": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.CreateImage(ids.a, ImageCreateRequest{Description: new("snap")})
		return err
	},
	"server/enable_backup":  func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.EnableServerBackup(ids.b); return err },
	"server/disable_backup": func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.DisableServerBackup(ids.a); return err },
	"server/attach_iso": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.AttachISO(ids.a, schema.ServerActionAttachISORequest{ISO: schema.IDOrName{Name: sweepISO(tx)}})
		return err
	},
	"server/detach_iso": func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.DetachISO(ids.b); return err },
	"server/enable_rescue": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.EnableServerRescue(ids.a, schema.ServerActionEnableRescueRequest{})
		return err
	},
	"server/disable_rescue": func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.DisableServerRescue(ids.b); return err },
	"server/rebuild_server": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.RebuildServer(ids.b, schema.ServerActionRebuildRequest{Image: schema.IDOrName{Name: "debian-12"}})
		return err
	},
	"server/reset_password":  func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.ResetServerPassword(ids.a); return err },
	"server/request_console": func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.RequestServerConsole(ids.a); return err },
	"server/add_to_placement_group": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.AddServerToPlacementGroup(ids.bare, schema.ServerActionAddToPlacementGroupRequest{PlacementGroup: ids.pg})
		return err
	},
	"server/remove_from_placement_group": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.RemoveServerFromPlacementGroup(ids.off)
		return err
	},

	"load_balancer/create_load_balancer": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.CreateLoadBalancer(LoadBalancerCreateRequest{LoadBalancerCreateRequest: schema.LoadBalancerCreateRequest{Name: fmt.Sprint("lb", n),
			LoadBalancerType: schema.IDOrName{Name: "lb11"}, Location: new("fsn1"), Network: &ids.net}})
		return err
	},
	"load_balancer/delete_load_balancer": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.DeleteLoadBalancer(ids.lb)
		return err
	},
	"load_balancer/add_service": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.AddService(ids.lb, ServiceSpec{Protocol: new("tcp"), ListenPort: new(8000 + n), DestinationPort: new(9000)})
		return err
	},
	"load_balancer/update_service": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.UpdateService(ids.lb, ServiceSpec{ListenPort: new(80), DestinationPort: new(30090 + n)})
		return err
	},
	"load_balancer/delete_service": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.DeleteService(ids.lb, schema.LoadBalancerDeleteServiceRequest{ListenPort: 443 - 363*n})
		return err
	},
	"load_balancer/add_target": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.AddTarget(ids.lb, TargetSpec{Type: "server", Server: &TargetSpecServer{ID: ids.b}, UsePrivateIP: new(true)})
		return err
	},
	"load_balancer/remove_target": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.RemoveTarget(ids.lb, TargetSpec{Type: "server", Server: &TargetSpecServer{ID: ids.a}})
		return err
	},
	"load_balancer/attach_to_network": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.AttachLoadBalancerToNetwork(ids.lone, schema.LoadBalancerActionAttachToNetworkRequest{Network: ids.other})
		return err
	},
	"load_balancer/detach_from_network": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.DetachLoadBalancerFromNetwork(ids.spare, schema.LoadBalancerActionDetachFromNetworkRequest{Network: ids.net})
		return err
	},
	"load_balancer/change_algorithm": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.ChangeAlgorithm(ids.lb, schema.LoadBalancerActionChangeAlgorithmRequest{Type: []string{"least_connections", "round_robin"}[n]})
		return err
	},
	"load_balancer/change_load_balancer_type": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.ChangeLoadBalancerType(ids.lb, schema.LoadBalancerActionChangeTypeRequest{LoadBalancerType: schema.IDOrName{Name: "lb21"}})
		return err
	},
	"load_balancer/enable_public_interface": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.EnablePublicInterface(ids.private)
		return err
	},
	"load_balancer/disable_public_interface": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.DisablePublicInterface(ids.lb)
		return err
	},
	"load_balancer/change_dns_ptr": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		lb, _ := tx.w.LoadBalancers.Get(ids.lb)
		_, err := tx.ChangeLoadBalancerDNSPtr(ids.lb, schema.LoadBalancerActionChangeDNSPtrRequest{IP: lb.PublicNet.IPv4.IP, DNSPtr: new(fmt.Sprintf("lb%d.example.com", n))})
		return err
	},
	"load_balancer/change_protection": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.ChangeLoadBalancerProtection(ids.lb, schema.LoadBalancerActionChangeProtectionRequest{Delete: new(true)})
		return err
	},

	"network/add_subnet": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.AddSubnet(ids.net, schema.NetworkActionAddSubnetRequest{Type: "cloud", IPRange: fmt.Sprintf("10.0.%d.0/24", 1+n), NetworkZone: "eu-central"})
		return err
	},
	"network/delete_subnet": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.DeleteSubnet(ids.net, schema.NetworkActionDeleteSubnetRequest{IPRange: "10.0.9.0/24"})
		return err
	},
	"network/add_route": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.AddRoute(ids.net, schema.NetworkActionAddRouteRequest{Destination: fmt.Sprintf("10.100.%d.0/24", n), Gateway: "10.0.0.99"})
		return err
	},
	"network/delete_route": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.DeleteRoute(ids.net, schema.NetworkActionDeleteRouteRequest{Destination: "10.200.0.0/24", Gateway: "10.0.0.99"})
		return err
	},
	"network/change_ip_range": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.ChangeIPRange(ids.net, schema.NetworkActionChangeIPRangeRequest{IPRange: "10.0.0.0/15"})
		return err
	},
	"network/change_protection": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.ChangeNetworkProtection(ids.net, schema.NetworkActionChangeProtectionRequest{Delete: new(true)})
		return err
	},

	"certificate/create_certificate": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.CreateCertificate(schema.CertificateCreateRequest{Name: fmt.Sprint("managed", n), Type: "managed", DomainNames: []string{"www.example.com"}})
		return err
	},

	"primary_ip/assign_primary_ip": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.AssignPrimaryIP(ids.pip, schema.PrimaryIPActionAssignRequest{AssigneeID: ids.bare, AssigneeType: "server"})
		return err
	},
	"primary_ip/unassign_primary_ip": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.UnassignPrimaryIP(sweepPrimaryIPOf(tx, ids.off))
		return err
	},
	"primary_ip/change_dns_ptr": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		p, _ := tx.w.PrimaryIPs.Get(ids.pip)
		_, err := tx.ChangePrimaryIPDNSPtr(ids.pip, schema.PrimaryIPActionChangeDNSPtrRequest{IP: p.IP, DNSPtr: new(fmt.Sprintf("p%d.example.com", n))})
		return err
	},
	"primary_ip/change_protection": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.ChangePrimaryIPProtection(ids.pip, schema.PrimaryIPActionChangeProtectionRequest{Delete: true})
		return err
	},

	"image/change_protection": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.ChangeImageProtection(ids.snap, schema.ImageActionChangeProtectionRequest{Delete: new(true)})
		return err
	},

	"floating_ip/assign_floating_ip": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.AssignFloatingIP(ids.fip, schema.FloatingIPActionAssignRequest{Server: ids.b})
		return err
	},
	"floating_ip/unassign_floating_ip": func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.UnassignFloatingIP(ids.fip); return err },
	"floating_ip/change_dns_ptr": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		f, _ := floatingIPs.table(tx.w).Get(ids.fip)
		_, err := tx.ChangeFloatingIPDNSPtr(ids.fip, schema.FloatingIPActionChangeDNSPtrRequest{IP: f.IP, DNSPtr: new(fmt.Sprintf("f%d.example.com", n))})
		return err
	},
	"floating_ip/change_protection": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.ChangeFloatingIPProtection(ids.fip, schema.FloatingIPActionChangeProtectionRequest{Delete: new(true)})
		return err
	},

	"volume/create_volume": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.CreateVolume(schema.VolumeCreateRequest{Name: fmt.Sprint("new", n), Size: 10, Server: &ids.b})
		return err
	},
	"volume/attach_volume": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.AttachVolume(ids.loose, schema.VolumeActionAttachVolumeRequest{Server: ids.b})
		return err
	},
	"volume/detach_volume": func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.DetachVolume(ids.vol); return err },
	"volume/resize_volume": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.ResizeVolume(ids.vol, VolumeResizeRequest{Size: 20})
		return err
	},
	"volume/change_protection": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.ChangeVolumeProtection(ids.vol, schema.VolumeActionChangeProtectionRequest{Delete: new(true)})
		return err
	},

	"firewall/set_firewall_rules": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.SetFirewallRules(ids.fw, schema.FirewallActionSetRulesRequest{Rules: []schema.FirewallRuleRequest{{Direction: "in", Protocol: "tcp",
			Port: new("22"), SourceIPs: []string{"0.0.0.0/0"}}}})
		return err
	},
	"firewall/apply_firewall": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.ApplyFirewallToResources(ids.fw, schema.FirewallActionApplyToResourcesRequest{ApplyTo: []schema.FirewallResource{
			{Type: "server", Server: &schema.FirewallResourceServer{ID: ids.b}}}})
		return err
	},
	"firewall/remove_firewall": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
		_, err := tx.RemoveFirewallFromResources(ids.fw, schema.FirewallActionRemoveFromResourcesRequest{RemoveFrom: []schema.FirewallResource{
			{Type: "server", Server: &schema.FirewallResourceServer{ID: ids.a}}}})
		return err
	},
}

// sweepRecordedOnly are commands no request starts: an event records
// them as done, so no action fault meets them.
var sweepRecordedOnly = map[string]string{
	"server/assign_primary_ip":   "an event moving a server's address records it, done at once",
	"server/unassign_primary_ip": "an event moving a server's address records it, done at once",
}

// sweepAnswered are commands whose request made or deleted the resource
// before it answered: the action's failure takes that back no more than
// the API's answer does, so the world ends as the action's success leaves
// it, but for the members named (how the failure reads: a server left
// off, an issuance failed).
var sweepAnswered = map[string][]string{
	"server/create_server":               {"status"},
	"load_balancer/create_load_balancer": nil,
	"certificate/create_certificate":     {"certificate", "fingerprint", "not_valid_after", "not_valid_before", "status"},
	"server/delete_server":               nil,
	"load_balancer/delete_load_balancer": nil,
	"zone/delete_zone":                   nil,
}

// sweepISO is an ISO of the catalogue.
func sweepISO(tx *Tx) string {
	for _, iso := range tx.Catalog().ISOs() {
		return iso.Name
	}
	panic("the catalogue has no ISO")
}

// sweepPrimaryIPOf is the primary IPv4 of a server.
func sweepPrimaryIPOf(tx *Tx, server int64) int64 {
	s, _ := tx.w.Servers.Get(server)
	return s.PublicNet.IPv4.ID
}

func init() {
	// A zone's commands, its RRSets' included, all run on example.com.
	zone := map[string]sweepRun{
		"create_zone": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
			_, err := tx.CreateZone(schema.ZoneCreateRequest{Name: fmt.Sprintf("new%d.com", n), Mode: "primary"})
			return err
		},
		"delete_zone": func(tx *Tx, ids sweepIDs, n int) *apierr.Error { _, err := tx.DeleteZone(ids.zone); return err },
		"change_protection": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
			_, err := tx.ChangeZoneProtection(ids.zone, schema.ZoneChangeProtectionRequest{Delete: new(true)})
			return err
		},
		"change_ttl": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
			_, err := tx.ChangeZoneTTL(ids.zone, schema.ZoneChangeTTLRequest{TTL: 600 + 60*n})
			return err
		},
		"change_primary_nameservers": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
			_, err := tx.ChangeZonePrimaryNameservers("sec.com", schema.ZoneChangePrimaryNameserversRequest{
				PrimaryNameservers: []schema.ZoneChangePrimaryNameserversRequestPrimaryNameserver{{Address: fmt.Sprintf("201.42.91.%d", 10+n)}}})
			return err
		},
		"import_zonefile": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
			_, err := tx.ImportZonefile(ids.zone, schema.ZoneImportZonefileRequest{Zonefile: "$TTL 600\n" +
				"@ IN SOA hydrogen.ns.hetzner.com. dns.hetzner.com. 1 86400 10800 3600000 3600\n" +
				"@ IN NS hydrogen.ns.hetzner.com.\n@ IN NS oxygen.ns.hetzner.com.\n@ IN NS helium.ns.hetzner.de.\n" +
				fmt.Sprintf("mail IN A 201.42.91.%d\n", 50+n)})
			return err
		},
		"create_rrset": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
			_, err := tx.CreateRRSet(ids.zone, schema.ZoneRRSetCreateRequest{Name: fmt.Sprint("api", n), Type: "AAAA",
				Records: []schema.ZoneRRSetRecord{{Value: "2001:db8::1"}}})
			return err
		},
		"delete_rrset": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
			_, err := tx.DeleteRRSet(ids.zone, []string{"www", "ftp"}[n], "A")
			return err
		},
		"change_rrset_protection": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
			_, err := tx.ChangeRRSetProtection(ids.zone, "www", "A", schema.ZoneRRSetChangeProtectionRequest{Change: new(true)})
			return err
		},
		"change_rrset_ttl": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
			_, err := tx.ChangeRRSetTTL(ids.zone, "www", "A", schema.ZoneRRSetChangeTTLRequest{TTL: new(120 + n)})
			return err
		},
		"set_rrset_records": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
			_, err := tx.SetRRSetRecords(ids.zone, "www", "A", schema.ZoneRRSetSetRecordsRequest{Records: []schema.ZoneRRSetRecord{{Value: fmt.Sprint("201.42.91.9", n)}}})
			return err
		},
		"add_rrset_records": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
			_, err := tx.AddRRSetRecords(ids.zone, "www", "A", schema.ZoneRRSetAddRecordsRequest{Records: []schema.ZoneRRSetRecord{{Value: fmt.Sprint("201.42.91.7", n)}}})
			return err
		},
		"remove_rrset_records": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
			_, err := tx.RemoveRRSetRecords(ids.zone, "www", "A", schema.ZoneRRSetRemoveRecordsRequest{Records: []schema.ZoneRRSetRecord{{Value: fmt.Sprint("201.42.91.3", 5+n)}}})
			return err
		},
		"update_rrset_records": func(tx *Tx, ids sweepIDs, n int) *apierr.Error {
			_, err := tx.UpdateRRSetRecords(ids.zone, "www", "A", schema.ZoneRRSetUpdateRecordsRequest{Records: []schema.ZoneRRSetUpdateRecordsRequestRecord{{Value: "201.42.91.35", Comment: fmt.Sprint("c", n)}}})
			return err
		},
	}
	for command, run := range zone {
		sweepCases["zone/"+command] = run
	}
}

// sweepWorld is the world every case of the sweep starts from, as a
// snapshot: servers a and b running in a network (a with an alias IP, a
// floating IP, a volume, a firewall, backups and a snapshot; b in a
// placement group, with an ISO and rescue), a server off, a load
// balancer with two services targeting a, a loose primary IP and volume,
// and a primary zone with two RRSets beside a secondary one.
func sweepWorld(t testing.TB) ([]byte, sweepIDs) {
	t.Helper()
	w := New(Config{Now: sweepClock, IDSeed: 11})
	var ids sweepIDs
	err := w.Replace(func(tx *Tx) (planted error) {
		defer func() {
			if r := recover(); r != nil {
				planted = fmt.Errorf("%v", r)
			}
		}()
		ok := func(err *apierr.Error) {
			if err != nil {
				panic(err)
			}
		}
		n, err := tx.CreateNetwork(schema.NetworkCreateRequest{Name: "n", IPRange: "10.0.0.0/16", Subnets: []schema.NetworkSubnet{
			{Type: "cloud", IPRange: "10.0.0.0/24", NetworkZone: "eu-central"}, {Type: "cloud", IPRange: "10.0.9.0/24", NetworkZone: "eu-central"}},
			Routes: []schema.NetworkRoute{{Destination: "10.200.0.0/24", Gateway: "10.0.0.99"}}})
		ok(err)
		ids.net = n.ID
		m, err := tx.CreateNetwork(schema.NetworkCreateRequest{Name: "m", IPRange: "10.1.0.0/16",
			Subnets: []schema.NetworkSubnet{{Type: "cloud", IPRange: "10.1.0.0/24", NetworkZone: "eu-central"}}})
		ok(err)
		ids.other = m.ID
		pg, err := tx.CreatePlacementGroup(schema.PlacementGroupCreateRequest{Name: "pg", Type: "spread"})
		ok(err)
		ids.pg = pg.PlacementGroup.ID
		for i, name := range []string{"a", "b", "off", "bare"} {
			req := ServerCreateRequest{ServerCreateRequest: schema.ServerCreateRequest{Name: name, ServerType: schema.IDOrName{Name: "cx23"},
				Image: schema.IDOrName{Name: "ubuntu-24.04"}, Location: "fsn1"}}
			switch name {
			case "a", "b":
				req.Networks = []int64{n.ID}
			case "bare":
				req.PublicNet = &serverCreatePublicNet{EnableIPv4: new(false)}
				req.StartAfterCreate = new(false)
			}
			if name == "off" {
				req.PlacementGroup = pg.PlacementGroup.ID
			}
			s, err := tx.CreateServer(req)
			ok(err)
			*[]*int64{&ids.a, &ids.b, &ids.off, &ids.bare}[i] = s.Server.ID
		}
		_, err = tx.ChangeServerAliasIPs(ids.a, schema.ServerActionChangeAliasIPsRequest{Network: n.ID, AliasIPs: []string{"10.0.0.40"}})
		ok(err)
		_, err = tx.PowerOffServer(ids.off)
		ok(err)
		_, err = tx.AttachISO(ids.b, schema.ServerActionAttachISORequest{ISO: schema.IDOrName{Name: sweepISO(tx)}})
		ok(err)
		_, err = tx.EnableServerRescue(ids.b, schema.ServerActionEnableRescueRequest{})
		ok(err)
		_, err = tx.EnableServerBackup(ids.a)
		ok(err)
		backup, err := tx.CreateImage(ids.a, ImageCreateRequest{Type: new("backup")})
		ok(err)
		ids.backup = backup.Image.ID
		snap, err := tx.CreateImage(ids.a, ImageCreateRequest{Description: new("snap")})
		ok(err)
		ids.snap = snap.Image.ID
		lb, err := tx.CreateLoadBalancer(LoadBalancerCreateRequest{LoadBalancerCreateRequest: schema.LoadBalancerCreateRequest{Name: "lb",
			LoadBalancerType: schema.IDOrName{Name: "lb11"}, Location: new("fsn1"), Network: &n.ID},
			Services: []ServiceSpec{{Protocol: new("tcp"), ListenPort: new(80), DestinationPort: new(30080)},
				{Protocol: new("tcp"), ListenPort: new(443), DestinationPort: new(30443)}},
			Targets: []TargetSpec{{Type: "server", Server: &TargetSpecServer{ID: ids.a}, UsePrivateIP: new(true)}}})
		ok(err)
		ids.lb = lb.LoadBalancer.ID
		private, err := tx.CreateLoadBalancer(LoadBalancerCreateRequest{LoadBalancerCreateRequest: schema.LoadBalancerCreateRequest{Name: "private",
			LoadBalancerType: schema.IDOrName{Name: "lb11"}, Location: new("fsn1"), Network: &n.ID, PublicInterface: new(false)}})
		ok(err)
		ids.private = private.LoadBalancer.ID
		lone, err := tx.CreateLoadBalancer(LoadBalancerCreateRequest{LoadBalancerCreateRequest: schema.LoadBalancerCreateRequest{Name: "lone",
			LoadBalancerType: schema.IDOrName{Name: "lb11"}, Location: new("fsn1")}})
		ok(err)
		ids.lone = lone.LoadBalancer.ID
		spare, err := tx.CreateLoadBalancer(LoadBalancerCreateRequest{LoadBalancerCreateRequest: schema.LoadBalancerCreateRequest{Name: "spare",
			LoadBalancerType: schema.IDOrName{Name: "lb11"}, Location: new("fsn1"), Network: &n.ID}})
		ok(err)
		ids.spare = spare.LoadBalancer.ID
		pip, err := tx.CreatePrimaryIP(PrimaryIPCreateRequest{Name: "pip", Type: "ipv4", Location: &schema.IDOrName{Name: "fsn1"}})
		ok(err)
		ids.pip = pip.PrimaryIP.ID
		fip, err := tx.CreateFloatingIP(FloatingIPCreateRequest{Type: "ipv4", Server: &ids.a})
		ok(err)
		ids.fip = fip.FloatingIP.ID
		vol, err := tx.CreateVolume(schema.VolumeCreateRequest{Name: "vol", Size: 10, Server: &ids.a})
		ok(err)
		ids.vol = vol.Volume.ID
		loose, err := tx.CreateVolume(schema.VolumeCreateRequest{Name: "loose", Size: 10, Location: &schema.IDOrName{Name: "fsn1"}})
		ok(err)
		ids.loose = loose.Volume.ID
		fw, err := tx.CreateFirewall(schema.FirewallCreateRequest{Name: "fw", ApplyTo: []schema.FirewallResource{
			{Type: "server", Server: &schema.FirewallResourceServer{ID: ids.a}}}})
		ok(err)
		ids.fw = fw.Firewall.ID
		_, err = tx.CreateZone(schema.ZoneCreateRequest{Name: "example.com", Mode: "primary", RRSets: []schema.ZoneCreateRequestRRSet{
			{Name: "www", Type: "A", Records: []schema.ZoneRRSetRecord{{Value: "201.42.91.35"}, {Value: "201.42.91.36"}}},
			{Name: "ftp", Type: "A", Records: []schema.ZoneRRSetRecord{{Value: "201.42.91.37"}}}}})
		ok(err)
		ids.zone = "example.com"
		_, err = tx.CreateZone(schema.ZoneCreateRequest{Name: "sec.com", Mode: "secondary",
			PrimaryNameservers: []schema.ZoneCreateRequestPrimaryNameserver{{Address: "201.42.91.1"}}})
		ok(err)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := w.Export()
	if err != nil {
		t.Fatal(err)
	}
	return data, ids
}
