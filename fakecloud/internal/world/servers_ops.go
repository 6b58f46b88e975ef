package world

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// servers is the server kind's handle.
var servers = kindOf[StoredServer]{"server", func(w *project) *Table[StoredServer] { return &w.Servers }}

// serverKind declares servers to the world's mechanisms.
func serverKind() kind {
	return servers.declare(kind{
		idBase: 100000,
		commands: []string{
			"create_server", "delete_server", "start_server", "stop_server", "shutdown_server", "reboot_server", "reset_server",
			"attach_to_network", "detach_from_network", "change_alias_ips", "change_protection", "change_server_type",
			"change_dns_ptr", "create_image", "enable_backup", "disable_backup", "attach_iso", "detach_iso",
			"enable_rescue", "disable_rescue", "rebuild_server", "reset_password", "request_console",
			// recorded by an event that moves a server's address
			"assign_primary_ip", "unassign_primary_ip",
		},
		// A restored server keeps the attachments and alias IPs that still fit, and the
		// public addresses whose primary IPs still exist.
		fit: func(w *project, id int64) {
			s, ok := w.Servers.Get(id)
			if !ok {
				return
			}
			// An alias another server took meanwhile stays its; the
			// attachment stays while its own address fits.
			ref := Ref{Type: "server", ID: id}
			s.PrivateNet = slices.DeleteFunc(s.PrivateNet, func(pn schema.ServerPrivateNet) bool { return !w.fitsNetwork(ref, pn.Network, pn.IP) })
			for i, pn := range s.PrivateNet {
				s.PrivateNet[i].AliasIPs = slices.DeleteFunc(slices.Clone(pn.AliasIPs), func(a string) bool { return !w.fitsNetwork(ref, pn.Network, a) })
			}
			if _, ok := w.PrimaryIPs.Get(s.PublicNet.IPv4.ID); !ok && s.PublicNet.IPv4.IP != "" {
				s.PublicNet.IPv4 = schema.ServerPublicNetIPv4{}
			}
			if _, ok := w.PrimaryIPs.Get(s.PublicNet.IPv6.ID); !ok && s.PublicNet.IPv6.IP != "" {
				s.PublicNet.IPv6 = schema.ServerPublicNetIPv6{}
			}
		},
		onNetwork: func(v *schema.Network, id int64) { v.Servers = append(v.Servers, id) },
		leave: func(w *project, id, network int64) {
			if s, ok := w.Servers.Get(id); ok {
				s.PrivateNet = slices.DeleteFunc(s.PrivateNet, func(p schema.ServerPrivateNet) bool { return p.Network == network })
			}
		},
		protect: func(w *project, id int64, on bool) {
			if s, ok := w.Servers.Get(id); ok {
				s.Protection.Delete, s.Protection.Rebuild = on, on
			}
		},
		finish: func(w *project, id int64, f Finish, ok bool) {
			if s, found := w.Servers.Get(id); found {
				switch {
				case ok && f.ServerStatus != "":
					s.Status = f.ServerStatus
				case !ok && f.ServerStatusOnError != "":
					s.Status = f.ServerStatusOnError
				}
			}
			if f.AttachNetwork != nil {
				w.endAttach(Ref{Type: "server", ID: id}, *f.AttachNetwork, ok)
			}
			if im, found := w.Images.Get(f.Image); found && f.Image != 0 {
				if ok {
					im.Status = "available"
				} else {
					w.Images.Del(im.ID)
				}
			}
		},
	})
}

// Server is the server with the ID.
func (t *Tx) Server(id int64) (ServerView, *apierr.Error) {
	s, err := servers.find(t.w, id)
	if err != nil {
		return ServerView{}, err
	}
	return t.w.ViewServer(s), nil
}

// Servers lists the servers a query and the statuses (any, if none)
// select, one page of them, and how many they select in all.
func (t *Tx) Servers(q listing.Query, statuses []string) ([]ServerView, int, *apierr.Error) {
	for _, st := range statuses {
		if !slices.Contains(ServerStatuses, st) {
			return nil, 0, apierr.InvalidField("status", "%q is not one of %s", st, strings.Join(ServerStatuses, ", "))
		}
	}
	w := t.w
	var items []*StoredServer
	for s := range w.Servers.Values() {
		if !q.Keeps(s.Name, s.Labels) || (len(statuses) > 0 && !slices.Contains(statuses, s.Status)) {
			continue
		}
		items = append(items, s)
	}
	if len(q.Sort) > 0 {
		TieOrder(w, items, func(s *StoredServer) int64 { return s.ID })
	}
	return listing.Page(items, q, serverSortKeys, w.ViewServer)
}

var serverSortKeys = listing.ByIDNameCreated(
	func(s *StoredServer) int64 { return s.ID },
	func(s *StoredServer) string { return s.Name },
	func(s *StoredServer) int64 { return s.Created.Unix() })

// ServerCreateRequest is hcloud-go's, with SSH keys given by ID or by
// name as the API takes them (hcloud-go sends IDs).
type ServerCreateRequest struct {
	schema.ServerCreateRequest
	SSHKeys   []schema.IDOrName      `json:"ssh_keys,omitempty"`
	PublicNet *serverCreatePublicNet `json:"public_net,omitempty"`
}

// serverCreatePublicNet is public_net of POST /servers; an enable_ipv4 or
// enable_ipv6 left out is true, as the description's default says.
type serverCreatePublicNet struct {
	EnableIPv4 *bool `json:"enable_ipv4,omitempty"`
	EnableIPv6 *bool `json:"enable_ipv6,omitempty"`
	IPv4ID     int64 `json:"ipv4,omitempty"`
	IPv6ID     int64 `json:"ipv6,omitempty"`
}

func (pn *serverCreatePublicNet) enabled() (v4, v6 bool) {
	if pn == nil {
		return true, true
	}
	return pn.EnableIPv4 == nil || *pn.EnableIPv4, pn.EnableIPv6 == nil || *pn.EnableIPv6
}

// ServerCreated is what creating a server answers.
type ServerCreated struct {
	Server       ServerView      `json:"server"`
	Action       schema.Action   `json:"action"`
	NextActions  []schema.Action `json:"next_actions"`
	RootPassword *string         `json:"root_password"`
}

// CreateServer creates a server, with its public addresses, networks and
// a root password when no SSH key is given, and starts it unless told not to.
func (t *Tx) CreateServer(req ServerCreateRequest) (ServerCreated, *apierr.Error) {
	w := t.w
	var f apierr.Fields
	CheckHostname(&f, "name", req.Name)
	st, ok := w.Cat.ServerType(idOrNameString(req.ServerType))
	if !ok {
		f.Add("server_type", "server type %q does not exist", idOrNameString(req.ServerType))
	}
	img, ok := w.FindImage(idOrNameString(req.Image), st.Architecture)
	if !ok && st.Architecture != "" {
		f.Add("image", "image %q does not exist for architecture %s", idOrNameString(req.Image), st.Architecture)
	} else if st.Architecture == "" && idOrNameString(req.Image) == "" {
		f.Add("image", "is required")
	}
	given, refused := w.givenPrimaryIPs(&f, req.PublicNet)
	locRef := req.Location
	if locRef == "" {
		locRef = cmp.Or(PrimaryIPsLocation(given), "fsn1")
	}
	loc, ok := w.Cat.Location(locRef)
	if !ok {
		f.Add("location", "location %q does not exist", req.Location)
	}
	labels := DerefLabels(req.Labels)
	ValidateLabels(&f, "labels", labels)
	if len(req.UserData) > 32*1024 {
		f.Add("user_data", "is longer than 32 KiB")
	}
	apierr.CheckUnique(&f, "ssh_keys", w.sshKeyIDs(&f, req.SSHKeys))
	w.checkUnsimulated(&f, req.ServerCreateRequest)
	joins, refusedByKind := w.orderServer(&f, req, loc)
	apierr.CheckUnique(&f, "networks", req.Networks)
	var nets []*schema.Network
	for _, id := range req.Networks {
		n, ok := w.Networks.Get(id)
		if !ok {
			f.Add("networks", "network %d does not exist", id)
			continue
		}
		nets = append(nets, n)
	}
	if err := f.Err(); err != nil {
		return ServerCreated{}, err
	}
	if _, dup := w.Servers.Find(func(s *StoredServer) bool { return s.Name == req.Name }); dup {
		return ServerCreated{}, apierr.NotUnique("name", "server name %q is already used", req.Name)
	}
	if refused != nil {
		return ServerCreated{}, refused
	}
	if refusedByKind != nil {
		return ServerCreated{}, refusedByKind
	}
	if err := Orderable(w.Cat, st, loc.Name, false); err != nil {
		return ServerCreated{}, err
	}
	if err := CheckPrimaryIPsLocation(given, loc.Name); err != nil {
		return ServerCreated{}, err
	}
	// Allocate private addresses before anything is stored, so a refusal
	// changes nothing.
	ips := make([]netip.Addr, len(nets))
	for i, n := range nets {
		a, err := w.AllocIP(n, loc.NetworkZone, "", "")
		if err != nil {
			return ServerCreated{}, err
		}
		ips[i] = a
	}
	enable4, enable6 := req.PublicNet.enabled()
	start := req.StartAfterCreate == nil || *req.StartAfterCreate
	if !enable4 && !enable6 && len(nets) == 0 && start {
		return ServerCreated{}, apierr.InvalidField("networks", "a server without public IPv4 and IPv6 needs at least one network to start; create it with start_after_create false and attach one first")
	}

	now := w.Now().UTC().Truncate(time.Second)
	s := &StoredServer{Server: schema.Server{
		Name: req.Name, Status: "initializing", Created: now, ServerType: st, Location: loc,
		Image: &img, Labels: labels, IncludedTraffic: catalog.IncludedTraffic(st.Name, loc.Name), PrimaryDiskSize: st.Disk,
	}}
	// The address first: a pool with none left refuses the server before
	// it takes an ID, so the refusal changes nothing.
	var ip4 netip.Addr
	if given[0] == nil && enable4 {
		var ok bool
		if ip4, ok = w.PubIPv4.Take(); !ok {
			return ServerCreated{}, apierr.Errorf(apierr.CodeResourceUnavailable, "no public IPv4 address is left")
		}
	}
	s.ID = w.NewID("server")
	if given[0] != nil {
		w.AssignPrimaryIP(given[0], s)
	} else if enable4 {
		pip := w.NewPrimaryIP("ipv4", ip4.String(), loc, s.ID, now)
		s.PublicNet.IPv4 = schema.ServerPublicNetIPv4{ID: pip.ID, IP: pip.IP, DNSPtr: pip.DNSPtr[0].DNSPtr}
	}
	if given[1] != nil {
		w.AssignPrimaryIP(given[1], s)
	} else if enable6 {
		pip := w.NewPrimaryIP("ipv6", w.NewIPv6Net(), loc, s.ID, now)
		s.PublicNet.IPv6 = schema.ServerPublicNetIPv6{ID: pip.ID, IP: pip.IP, DNSPtr: []schema.ServerPublicNetIPv6DNSPtr{}}
	}
	// In its networks at once, so the addresses are taken; private_net
	// shows each when its attach_to_network ends (below).
	attached := make([]schema.ServerPrivateNet, len(nets))
	for i, n := range nets {
		w.Attach(n.ID, Member{Ref: Ref{Type: "server", ID: s.ID}, IP: ips[i]})
		attached[i] = schema.ServerPrivateNet{Network: n.ID, IP: ips[i].String(), AliasIPs: []string{}, MACAddress: w.NewMAC()}
	}
	var rootPassword *string
	if len(req.SSHKeys) == 0 {
		pw := w.NewPassword()
		rootPassword = &pw
		s.RootPassword = pw
	}
	w.Servers.Put(s.ID, s)

	ref := Ref{Type: "server", ID: s.ID}
	end := "off"
	if start {
		end = "running"
	}
	create := w.startAction(ActionSpec{Command: "create_server", Resources: []Ref{ref},
		Finish: Finish{ServerStatus: end, ServerStatusOnError: "off"}})
	out := ServerCreated{Action: w.ViewAction(create), NextActions: []schema.Action{}, RootPassword: rootPassword}
	if start {
		next := w.startAction(ActionSpec{Command: "start_server", Resources: []Ref{ref}})
		out.NextActions = append(out.NextActions, w.ViewAction(next))
	}
	// Each network is attached by an action of its own, after start_server,
	// as the live API answers (hcloud-ruby PR 72, 2023); private_net is
	// empty in the answer and fills as they end (hcloud-go issue 168).
	for _, pn := range attached {
		attach := w.startAction(ActionSpec{Command: "attach_to_network", Resources: []Ref{ref, {Type: "network", ID: pn.Network}},
			Finish: Finish{AttachNetwork: &pn}})
		out.NextActions = append(out.NextActions, w.ViewAction(attach))
	}
	// Then what the other kinds do for it (its volumes attached), each
	// action of theirs listed after the server's own.
	for _, join := range joins {
		out.NextActions = append(out.NextActions, w.viewActions(join(s))...)
	}
	out.Server = w.ViewServer(s)
	return out, nil
}

// sshKeyIDs resolves SSH keys given by ID or by name.
func (w *project) sshKeyIDs(f *apierr.Fields, refs []schema.IDOrName) []int64 {
	ids := make([]int64, 0, len(refs))
	for _, ref := range refs {
		k, ok := w.SSHKeys.Get(ref.ID)
		if ref.ID == 0 {
			k, ok = w.SSHKeys.Find(func(k *schema.SSHKey) bool { return k.Name == ref.Name })
		}
		if !ok {
			f.Add("ssh_keys", "SSH key %q does not exist", idOrNameString(ref))
			continue
		}
		ids = append(ids, k.ID)
	}
	return ids
}

func idOrNameString(v schema.IDOrName) string {
	if v.ID != 0 {
		return fmt.Sprint(v.ID)
	}
	return v.Name
}

// UpdateServer renames and relabels a server.
func (t *Tx) UpdateServer(id int64, req schema.ServerUpdateRequest) (ServerView, *apierr.Error) {
	s, err := servers.find(t.w, id)
	if err != nil {
		return ServerView{}, err
	}
	if req.Labels != nil {
		var f apierr.Fields
		if ValidateLabels(&f, "labels", *req.Labels); f.Err() == nil {
			if err := t.w.checkRelabel(s, *req.Labels); err != nil {
				return ServerView{}, err
			}
		}
	}
	taken := NameTaken(&t.w.Servers, func(o *StoredServer) string { return o.Name })
	if err := RenameRelabel("server", NonEmpty(req.Name), req.Labels, CheckHostname, taken, &s.Name, &s.Labels); err != nil {
		return ServerView{}, err
	}
	return t.w.ViewServer(s), nil
}

// DeleteServer removes the server at once, as the API does, and returns
// the delete_server action. Load balancer targets naming it stay behind,
// reported unhealthy, as on the real API. A running action does not stop
// it (it ends with nothing left to change): the Terraform provider
// deletes a server while it powers it off to unassign its primary IPs,
// with no retry on locked; a lock event does.
func (t *Tx) DeleteServer(id int64) (schema.Action, *apierr.Error) {
	s, err := servers.find(t.w, id)
	if err != nil {
		return schema.Action{}, err
	}
	ref := Ref{Type: "server", ID: s.ID}
	if s.Protection.Delete {
		return schema.Action{}, apierr.Protected("server", s.ID)
	} else if err := t.w.CheckEventLock(ref); err != nil {
		return schema.Action{}, err
	}
	t.w.DropLocks(ref)
	t.w.removeServer(s)
	a := t.w.startAction(ActionSpec{Command: "delete_server", Resources: []Ref{ref}})
	return t.w.ViewAction(a), nil
}

// removeServer deletes a server with its networks and auto-delete primary IPs.
func (w *project) removeServer(s *StoredServer) {
	ref := Ref{Type: "server", ID: s.ID}
	w.DetachAll(ref)
	w.forgetAll(ref)
	w.Servers.Del(s.ID)
}
