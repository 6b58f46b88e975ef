package fakecloud

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/contract"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// Seed replaces the world with a seed world. Its resources are created
// through the same code paths, and so the same validation, as API
// requests, in a scratch world whose actions finish at once; the live
// world is replaced only when every resource was accepted. A refused seed
// changes nothing (not the world, its ID counters, nor the seed that
// ResetToSeed plants), and the error names the resource and the reason.
func (s *Server) Seed(seed World) error {
	if err := s.world.Replace(func(tx *world.Tx) error { return plant(tx, seed) }); err != nil {
		return err
	}
	s.mu.Lock()
	s.seed = &seed
	s.mu.Unlock()
	return nil
}

// plant creates a seed's resources through the API's operations.
func plant(tx *world.Tx, seed World) error {
	byName := map[string]int64{}
	for _, k := range seed.SSHKeys {
		req := schema.SSHKeyCreateRequest{Name: k.Name, PublicKey: k.PublicKey, Labels: labelsOf(k.Labels)}
		if _, err := seedOp(tx, "/ssh_keys", "ssh_key "+k.Name, req, (*world.Tx).CreateSSHKey); err != nil {
			return err
		}
	}
	for _, c := range seed.Certificates {
		req := schema.CertificateCreateRequest{Name: c.Name, Type: c.Type, Certificate: c.Certificate, PrivateKey: c.PrivateKey, DomainNames: c.DomainNames, Labels: labelsOf(c.Labels)}
		if _, err := seedOp(tx, "/certificates", "certificate "+c.Name, req, (*world.Tx).CreateCertificate); err != nil {
			return err
		}
	}
	for _, n := range seed.Networks {
		req := schema.NetworkCreateRequest{Name: n.Name, IPRange: n.IPRange, Subnets: n.Subnets, Routes: n.Routes, Labels: labelsOf(n.Labels)}
		created, err := seedOp(tx, "/networks", "network "+n.Name, req, (*world.Tx).CreateNetwork)
		if err != nil {
			return err
		}
		byName["network/"+n.Name] = created.ID
	}
	for _, g := range seed.PlacementGroups {
		req := schema.PlacementGroupCreateRequest{Name: g.Name, Type: "spread", Labels: labelsOf(g.Labels)}
		created, err := seedOp(tx, "/placement_groups", "placement_group "+g.Name, req, (*world.Tx).CreatePlacementGroup)
		if err != nil {
			return err
		}
		byName["placement_group/"+g.Name] = created.PlacementGroup.ID
	}
	for _, sv := range seed.Servers {
		if err := seedServer(tx, sv, byName); err != nil {
			return fmt.Errorf("seed server %s: %w", sv.Name, err)
		}
	}
	for _, lb := range seed.LoadBalancers {
		if err := seedLB(tx, lb, byName); err != nil {
			return fmt.Errorf("seed load_balancer %s: %w", lb.Name, err)
		}
	}
	for _, p := range seed.PrimaryIPs {
		loc := schema.IDOrName{Name: cmp.Or(p.Location, "fsn1")}
		req := world.PrimaryIPCreateRequest{Name: p.Name, Type: p.Type, Location: &loc, Labels: labelsOf(p.Labels)}
		if _, err := seedOp(tx, "/primary_ips", "primary_ip "+p.Name, req, (*world.Tx).CreatePrimaryIP); err != nil {
			return err
		}
	}
	for _, fip := range seed.FloatingIPs {
		if err := seedFloatingIP(tx, fip, byName); err != nil {
			return fmt.Errorf("seed floating_ip %s: %w", fip.Name, err)
		}
	}
	for _, v := range seed.Volumes {
		if err := seedVolume(tx, v, byName); err != nil {
			return fmt.Errorf("seed volume %s: %w", v.Name, err)
		}
	}
	for _, fw := range seed.Firewalls {
		if err := seedFirewall(tx, fw, byName); err != nil {
			return fmt.Errorf("seed firewall %s: %w", fw.Name, err)
		}
	}
	for _, z := range seed.Zones {
		if err := seedZone(tx, z); err != nil {
			return fmt.Errorf("seed zone %s: %w", z.Name, err)
		}
	}
	return tx.AddDedicatedServers(seed.DedicatedServers)
}

func seedZone(tx *world.Tx, z SeedZone) error {
	req := schema.ZoneCreateRequest{Name: z.Name, Mode: cmp.Or(z.Mode, "primary"), Labels: labelsOf(z.Labels),
		RRSets: z.RRSets, Zonefile: z.Zonefile, PrimaryNameservers: z.PrimaryNameservers}
	if z.TTL != 0 {
		req.TTL = &z.TTL
	}
	created, err := seedOp(tx, "/zones", "", req, (*world.Tx).CreateZone)
	if err != nil {
		return err
	}
	tx.SetSeedProtection("zone", created.Zone.ID, z.Protected)
	return nil
}

func seedFirewall(tx *world.Tx, fw SeedFirewall, byName map[string]int64) error {
	req := schema.FirewallCreateRequest{Name: fw.Name, Labels: labelsOf(fw.Labels), Rules: fw.Rules}
	for _, name := range fw.Servers {
		id, ok := byName["server/"+name]
		if !ok {
			return fmt.Errorf("server %q is not in the seed world", name)
		}
		req.ApplyTo = append(req.ApplyTo, schema.FirewallResource{Type: "server", Server: &schema.FirewallResourceServer{ID: id}})
	}
	for _, sel := range fw.LabelSelectors {
		req.ApplyTo = append(req.ApplyTo, schema.FirewallResource{Type: "label_selector", LabelSelector: &schema.FirewallResourceLabelSelector{Selector: sel}})
	}
	_, err := seedOp(tx, "/firewalls", "", req, (*world.Tx).CreateFirewall)
	return err
}

func seedVolume(tx *world.Tx, v SeedVolume, byName map[string]int64) error {
	req := schema.VolumeCreateRequest{Name: v.Name, Size: v.Size, Labels: labelsOf(v.Labels)}
	if v.Format != "" {
		req.Format = &v.Format
	}
	if v.Server != "" && v.Location != "" {
		return fmt.Errorf("give server or location, not both: a volume is in its server's location")
	}
	if v.Server != "" {
		id, ok := byName["server/"+v.Server]
		if !ok {
			return fmt.Errorf("server %q is not in the seed world", v.Server)
		}
		req.Server = &id
	} else {
		req.Location = &schema.IDOrName{Name: cmp.Or(v.Location, "fsn1")}
	}
	created, err := seedOp(tx, "/volumes", "", req, (*world.Tx).CreateVolume)
	if err != nil {
		return err
	}
	tx.SetSeedProtection("volume", created.Volume.ID, v.Protected)
	return nil
}

func seedFloatingIP(tx *world.Tx, fip SeedFloatingIP, byName map[string]int64) error {
	req := world.FloatingIPCreateRequest{Name: &fip.Name, Type: fip.Type, Labels: labelsOf(fip.Labels)}
	if fip.Description != "" {
		req.Description = &fip.Description
	}
	if fip.Server != "" {
		id, ok := byName["server/"+fip.Server]
		if !ok {
			return fmt.Errorf("server %q is not in the seed world", fip.Server)
		}
		req.Server = &id
	}
	if fip.HomeLocation != "" || fip.Server == "" {
		req.HomeLocation = &schema.IDOrName{Name: cmp.Or(fip.HomeLocation, "fsn1")}
	}
	created, err := seedOp(tx, "/floating_ips", "", req, (*world.Tx).CreateFloatingIP)
	if err != nil {
		return err
	}
	tx.SetSeedProtection("floating_ip", created.FloatingIP.ID, fip.Protected)
	tx.SetFloatingIPBlocked(created.FloatingIP.ID, fip.Blocked)
	return nil
}

func seedServer(tx *world.Tx, sv SeedServer, byName map[string]int64) error {
	req := schema.ServerCreateRequest{Name: sv.Name, ServerType: schema.IDOrName{Name: cmp.Or(sv.ServerType, "cx23")},
		Image: schema.IDOrName{Name: cmp.Or(sv.Image, "ubuntu-24.04")}, Location: sv.Location, Labels: labelsOf(sv.Labels),
		PublicNet: &schema.ServerCreatePublicNet{EnableIPv4: sv.PublicIPv4 == nil || *sv.PublicIPv4, EnableIPv6: sv.PublicIPv6 == nil || *sv.PublicIPv6}}
	start := sv.Status != "off"
	req.StartAfterCreate = &start
	if sv.PlacementGroup != "" {
		if req.PlacementGroup = byName["placement_group/"+sv.PlacementGroup]; req.PlacementGroup == 0 {
			return fmt.Errorf("placement group %q is not in the seed world", sv.PlacementGroup)
		}
	}
	switch sv.Status {
	case "", "running", "off":
	case "false", "true":
		return fmt.Errorf("status %q is not one of running, off (quote \"off\": bare off is a YAML boolean)", sv.Status)
	default:
		return fmt.Errorf("status %q is not one of running, off", sv.Status)
	}
	created, err := seedOp(tx, "/servers", "", req, (*world.Tx).CreateServer)
	if err != nil {
		return err
	}
	id := created.Server.ID
	byName["server/"+sv.Name] = id
	for _, sn := range sv.Networks {
		netID, ok := byName["network/"+sn.Network]
		if !ok {
			return fmt.Errorf("network %q is not in the seed world", sn.Network)
		}
		at := schema.ServerActionAttachToNetworkRequest{Network: netID}
		if sn.IP != "" {
			at.IP = &sn.IP
		}
		for _, a := range sn.AliasIPs {
			at.AliasIPs = append(at.AliasIPs, &a)
		}
		attach := func(tx *world.Tx, req schema.ServerActionAttachToNetworkRequest) (schema.Action, *apierr.Error) {
			return tx.AttachServerToNetwork(id, req)
		}
		if _, err := seedOp(tx, "/servers/{id}/actions/attach_to_network", "", at, attach); err != nil {
			return err
		}
	}
	tx.SetSeedProtection("server", id, sv.Protected)
	return nil
}

func seedLB(tx *world.Tx, lb SeedLoadBalancer, byName map[string]int64) error {
	req := map[string]any{"name": lb.Name, "load_balancer_type": cmp.Or(lb.Type, "lb11"), "labels": labelsOf(lb.Labels)}
	switch {
	case lb.Location != "":
		req["location"] = lb.Location
	case lb.NetworkZone != "":
		req["network_zone"] = lb.NetworkZone
	default:
		req["location"] = "fsn1"
	}
	if lb.Algorithm != "" {
		req["algorithm"] = map[string]string{"type": lb.Algorithm}
	}
	if lb.PublicInterface != nil {
		req["public_interface"] = *lb.PublicInterface
	}
	if lb.Network != "" {
		id, ok := byName["network/"+lb.Network]
		if !ok {
			return fmt.Errorf("network %q is not in the seed world", lb.Network)
		}
		req["network"] = id
	}
	for i, raw := range lb.Services {
		// The API ignores what it does not know; a seed is refused for it,
		// as anywhere else in a seed.
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(new(world.ServiceSpec)); err != nil {
			return fmt.Errorf("load_balancer %s: services.%d: %s", lb.Name, i, strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	if len(lb.Services) > 0 {
		req["services"] = lb.Services
	}
	var targets []map[string]any
	for _, t := range lb.Targets {
		tm := map[string]any{"use_private_ip": t.UsePrivateIP}
		switch {
		case t.Server != "":
			id, ok := byName["server/"+t.Server]
			if !ok {
				return fmt.Errorf("target server %q is not in the seed world", t.Server)
			}
			tm["type"], tm["server"] = "server", map[string]int64{"id": id}
		case t.LabelSelector != "":
			tm["type"], tm["label_selector"] = "label_selector", map[string]string{"selector": t.LabelSelector}
		case t.IP != "":
			tm["type"], tm["ip"] = "ip", map[string]string{"ip": t.IP}
			delete(tm, "use_private_ip")
		default:
			return fmt.Errorf("a target needs server, label_selector or ip")
		}
		targets = append(targets, tm)
	}
	if len(targets) > 0 {
		req["targets"] = targets
	}
	out, err := seedOp(tx, "/load_balancers", "", req, (*world.Tx).CreateLoadBalancer)
	if err != nil {
		return err
	}
	tx.SetSeedProtection("load_balancer", out.LoadBalancer.ID, lb.Protected)
	return nil
}

// seedOp runs a typed operation as the API runs it for POST path: the
// request is checked against the OpenAPI description and decoded
// strictly, as a client's would be.
func seedOp[R, V any](tx *world.Tx, path, what string, body any, op func(*world.Tx, R) (V, *apierr.Error)) (V, error) {
	var zero V
	data, err := json.Marshal(body)
	if err != nil {
		return zero, err
	}
	var req R
	aerr := breaches(contract.Default(), "POST", path, nil, data)
	if aerr == nil {
		aerr = wire.DecodeBytes(data, &req)
	}
	var out V
	if aerr == nil {
		out, aerr = op(tx, req)
	}
	if aerr != nil {
		if what != "" {
			return zero, fmt.Errorf("seed %s: %s", what, aerr.Error())
		}
		return zero, fmt.Errorf("%s", aerr.Error())
	}
	return out, nil
}

// labelsOf is a seed's labels as a request gives them: {} for none, as
// the API takes no null.
func labelsOf(labels map[string]string) *map[string]string {
	if labels == nil {
		labels = map[string]string{}
	}
	return &labels
}
