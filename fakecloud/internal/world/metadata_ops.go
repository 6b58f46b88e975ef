package world

import (
	"slices"
	"strconv"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
)

// ServerRef names a server for its metadata: by name or ID, or by an
// address it holds (the source of a request to the metadata service).
type ServerRef struct {
	NameOrID string
	Address  string
}

// Metadata is what the metadata service knows of one server.
type Metadata struct {
	Hostname, Region, Zone, IPv4 string
	ID                           int64
	Networks                     []MetadataNetwork
}

// MetadataNetwork is one of a server's private networks, as the metadata
// service lists them.
type MetadataNetwork struct {
	IP, MAC, Name, IPRange, Subnet, Gateway string
	AliasIPs                                []string
	Interface                               int
	ID                                      int64
}

// ServerMetadata describes the server ref names.
func (t *Tx) ServerMetadata(ref ServerRef) (Metadata, bool) {
	w := t.w
	srv, ok := w.Servers.Find(func(v *StoredServer) bool {
		if ref.Address != "" {
			return v.PublicNet.IPv4.IP == ref.Address || slices.ContainsFunc(v.PrivateNet, func(pn schema.ServerPrivateNet) bool { return pn.IP == ref.Address })
		}
		return ref.NameOrID != "" && (v.Name == ref.NameOrID || strconv.FormatInt(v.ID, 10) == ref.NameOrID)
	})
	if !ok {
		return Metadata{}, false
	}
	m := Metadata{Hostname: srv.Name, ID: srv.ID, Region: srv.Location.Name, Zone: srv.Location.Name, IPv4: srv.PublicNet.IPv4.IP}
	for _, dc := range w.Cat.Datacenters() {
		if dc.Location.Name == srv.Location.Name {
			m.Zone = dc.Name
		}
	}
	for i, pn := range srv.PrivateNet {
		n, ok := w.Networks.Get(pn.Network)
		if !ok {
			continue
		}
		subnet, gateway := netaddr.SubnetOf(n, pn.IP)
		m.Networks = append(m.Networks, MetadataNetwork{IP: pn.IP, AliasIPs: slices.Clone(pn.AliasIPs), Interface: i + 1, MAC: pn.MACAddress,
			ID: n.ID, Name: n.Name, IPRange: n.IPRange, Subnet: subnet, Gateway: gateway})
	}
	return m, true
}
