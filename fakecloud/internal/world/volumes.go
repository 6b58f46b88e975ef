package world

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// Volumes are block devices in a location, attached to at most one server
// of that location. A volume names its server (server); a server's view
// lists the volumes that name it, so attach and detach change the volume
// alone, undone with it.

const (
	minVolumeSize = 10    // GB, the description of POST /volumes
	maxVolumeSize = 10240 // GB, ibid.
	// maxVolumesPerServer is Hetzner's volumes FAQ ("You can mount up to
	// 16 volumes on each of your Hetzner Cloud servers", quoted in
	// hetznercloud/csi-driver issues 197 and 240; the driver's
	// MaxVolumesPerNode).
	maxVolumesPerServer = 16
	// codeVolumeLimit is what attaching a seventeenth volume answers: the
	// CSI driver has matched this code on attach since its first commit
	// (internal/volsrv/volume.go); the description names none.
	codeVolumeLimit = "limit_exceeded_error"
)

// volumeNameRe is the description's rule for a volume's name: letters,
// digits, dashes, underscores and dots, starting and ending with a letter
// or digit, at most 64 characters.
var volumeNameRe = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9._-]{0,62}[a-zA-Z0-9])?$`)

// volumes is the volume kind's handle; the registry keeps its table, and a
// snapshot its list under kinds.
var volumes, volumeTable = ownKind("volume", func(v *schema.Volume) (int64, string) { return v.ID, v.Name })

// volumeKind declares volumes: a deleted server's are detached and stay,
// a server's view lists its volumes, and a server order may name some.
func volumeKind() kind {
	return volumes.declare(kind{
		idBase:   1100000,
		own:      volumeTable,
		commands: []string{"create_volume", "attach_volume", "detach_volume", "resize_volume", "change_protection"},
		forget:   func(w *project, gone Ref) { forgetServer(volumes.table(w), volumeServer, gone) },
		// A restored volume is not given back to a server deleted since.
		fit: func(w *project, id int64) { fitServer(w, volumes.table(w), volumeServer, id) },
		protect: func(w *project, id int64, on bool) {
			if v, ok := volumes.table(w).Get(id); ok {
				v.Protection.Delete = on
			}
		},
		// create_volume's end: the volume is available, or, failed, gone.
		finish: func(w *project, id int64, f Finish, ok bool) {
			if !f.CreateVolume {
				return
			}
			if ok {
				if v, found := volumes.table(w).Get(id); found {
					v.Status = "available"
				}
				return
			}
			volumes.table(w).Del(id)
		},
		onServer: func(w *project, s *StoredServer, v *ServerView) {
			v.Volumes = w.volumesOf(s.ID)
		},
		order: orderVolumes,
		check: checkVolumes,
	})
}

// volumeServer is where a volume names its server.
func volumeServer(v *schema.Volume) **int64 { return &v.Server }

// volumesOf lists the volumes attached to a server, in ID order.
func (w *project) volumesOf(server int64) []int64 {
	return linkedTo(volumes.table(w), volumeServer, func(v *schema.Volume) int64 { return v.ID }, server)
}

// Volume is the volume with the ID.
func (t *Tx) Volume(id int64) (schema.Volume, *apierr.Error) {
	v, err := volumes.find(t.w, id)
	if err != nil {
		return schema.Volume{}, err
	}
	return viewVolume(v), nil
}

// Volumes lists the volumes a query and the statuses (any, if none)
// select, one page of them, and how many they select in all.
func (t *Tx) Volumes(q listing.Query, statuses []string) ([]schema.Volume, int, *apierr.Error) {
	for _, s := range statuses {
		if s != "creating" && s != "available" {
			return nil, 0, apierr.InvalidField("status", "%q is not one of creating, available", s)
		}
	}
	items := slices.DeleteFunc(volumes.table(t.w).All(), func(v *schema.Volume) bool {
		return !q.Keeps(v.Name, v.Labels) || (len(statuses) > 0 && !slices.Contains(statuses, v.Status))
	})
	keys := listing.ByIDNameCreated(func(v *schema.Volume) int64 { return v.ID },
		func(v *schema.Volume) string { return v.Name }, func(v *schema.Volume) int64 { return v.Created.Unix() })
	return listing.Page(items, q, keys, viewVolume)
}

// VolumeCreated is what creating a volume answers: its create_volume
// action, and an attach_volume in next_actions when it goes to a server.
type VolumeCreated struct {
	Volume      schema.Volume   `json:"volume"`
	Action      *schema.Action  `json:"action"`
	NextActions []schema.Action `json:"next_actions"`
}

// CreateVolume makes a volume in a location, or in a server's location
// and attached to it. It is creating until its create_volume action ends
// (the live create answers "creating", hetznercloud/cli issue 1167), and
// a failed one takes it away again.
func (t *Tx) CreateVolume(req schema.VolumeCreateRequest) (VolumeCreated, *apierr.Error) {
	w := t.w
	var f apierr.Fields
	checkVolumeName(&f, req.Name)
	if req.Size < minVolumeSize || req.Size > maxVolumeSize {
		f.Add("size", "%d is not between %d and %d GB", req.Size, minVolumeSize, maxVolumeSize)
	}
	labels := DerefLabels(req.Labels)
	ValidateLabels(&f, "labels", labels)
	if req.Format != nil && *req.Format != "xfs" && *req.Format != "ext4" {
		f.Add("format", "%q is not one of xfs, ext4", *req.Format)
	}
	var s *StoredServer
	var loc schema.Location
	switch {
	case req.Server != nil && req.Location != nil:
		f.Add("location", "give location or server, not both: the server's location is taken")
	case req.Server != nil:
		var ok bool
		if s, ok = w.Servers.Get(*req.Server); !ok {
			f.Add("server", "server %d does not exist", *req.Server)
		} else {
			loc = s.Location
		}
	case req.Location != nil:
		var ok bool
		if loc, ok = w.Cat.Location(idOrNameString(*req.Location)); !ok {
			f.Add("location", "%q is not a location", idOrNameString(*req.Location))
		}
		if req.Automount != nil && *req.Automount {
			f.Add("automount", "needs server")
		}
	default:
		f.Add("location", "is required without server")
	}
	if err := f.Err(); err != nil {
		return VolumeCreated{}, err
	}
	table := volumes.table(w)
	if NameTaken(table, func(o *schema.Volume) string { return o.Name })(req.Name) {
		return VolumeCreated{}, apierr.NotUnique("name", "volume name %q is already used", req.Name)
	}
	if s != nil {
		if err := w.roomForVolumes(s.ID, 1); err != nil {
			return VolumeCreated{}, err
		}
		if err := w.checkFree(Ref{Type: "server", ID: s.ID}); err != nil {
			return VolumeCreated{}, err
		}
	}
	v := &schema.Volume{ID: w.NewID("volume"), Name: req.Name, Status: "creating", Location: loc, Size: req.Size, Format: req.Format,
		Labels: labels, Created: w.Now().UTC().Truncate(time.Second)}
	v.LinuxDevice = fmt.Sprintf("/dev/disk/by-id/scsi-0HC_Volume_%d", v.ID)
	table.Put(v.ID, v)
	ref := Ref{Type: "volume", ID: v.ID}
	out := VolumeCreated{NextActions: []schema.Action{}}
	create := w.startAction(ActionSpec{Command: "create_volume", Resources: []Ref{ref}, Finish: Finish{CreateVolume: true}})
	view := w.ViewAction(create)
	out.Action = &view
	if _, ok := table.Get(v.ID); !ok {
		out.Volume = viewVolume(v) // its create failed at once: nothing to attach
		return out, nil
	}
	if s != nil {
		out.NextActions = append(out.NextActions, w.ViewAction(w.attachNewVolume(v, s)))
	}
	out.Volume = viewVolume(v)
	return out, nil
}

// attachNewVolume attaches a volume being created (with a server, or by a
// server order) by an attach_volume action that holds the server; a
// failed one detaches it again.
func (w *project) attachNewVolume(v *schema.Volume, s *StoredServer) *StoredAction {
	ref, srv := Ref{Type: "volume", ID: v.ID}, Ref{Type: "server", ID: s.ID}
	before := w.snapshotOf(ref)
	id := s.ID
	v.Server = &id
	return w.startAction(ActionSpec{Command: "attach_volume", Lock: srv, Resources: []Ref{srv, ref}, Family: "volume",
		UndoAlso: []UndoOf{{Resource: ref, Before: before}}})
}

// orderVolumes checks the volumes a server order names (existing,
// unattached, in the server's location, at most 16) and attaches them
// once the server exists, each by an attach_volume in next_actions.
func orderVolumes(w *project, f *apierr.Fields, req ServerCreateRequest, loc schema.Location) (joinServer, *apierr.Error) {
	if len(req.Volumes) == 0 {
		if req.Automount != nil && *req.Automount {
			f.Add("automount", "needs volumes")
		}
		return nil, nil
	}
	apierr.CheckUnique(f, "volumes", req.Volumes)
	var vols []*schema.Volume
	for _, id := range req.Volumes {
		v, ok := volumes.table(w).Get(id)
		switch {
		case !ok:
			f.Add("volumes", "volume %d does not exist", id)
		case v.Location.Name != loc.Name:
			f.Add("volumes", "volume %d is in %s, not in %s: server and volume must be in the same location", id, v.Location.Name, loc.Name)
		default:
			vols = append(vols, v)
		}
	}
	if len(req.Volumes) > maxVolumesPerServer {
		return nil, apierr.Errorf(codeVolumeLimit, "a server has at most %d volumes", maxVolumesPerServer)
	}
	for _, v := range vols {
		if v.Server != nil {
			return nil, apierr.Errorf("volume_already_attached", "volume %d is already attached to server %d", v.ID, *v.Server)
		}
		if err := w.checkFree(Ref{Type: "volume", ID: v.ID}); err != nil {
			return nil, err
		}
	}
	return func(s *StoredServer) []*StoredAction {
		var started []*StoredAction
		for _, v := range vols {
			started = append(started, w.attachNewVolume(v, s))
		}
		return started
	}, nil
}

// roomForVolumes answers limit_exceeded_error when a server cannot take
// more volumes.
func (w *project) roomForVolumes(server int64, more int) *apierr.Error {
	if len(w.volumesOf(server))+more > maxVolumesPerServer {
		return apierr.Errorf(codeVolumeLimit, "server %d has %d volumes, the most a server has", server, maxVolumesPerServer)
	}
	return nil
}

// checkVolumeName adds the description's rule for a volume's name to f.
func checkVolumeName(f *apierr.Fields, name string) {
	if name != "" && !volumeNameRe.MatchString(name) {
		f.Add("name", "%q is not a volume name: letters, digits, -, _ and ., starting and ending with a letter or digit, at most 64 characters", name)
		return
	}
	CheckName(f, "name", name)
}

// viewVolume is a volume as the API shows it.
func viewVolume(v *schema.Volume) schema.Volume {
	out := *v
	out.Labels = CopyLabels(v.Labels)
	if v.Server != nil {
		id := *v.Server
		out.Server = &id
	}
	if v.Format != nil {
		f := *v.Format
		out.Format = &f
	}
	return out
}

// checkVolumes checks the server each volume of a snapshot names exists,
// in the volume's location, with at most 16 volumes; a malformed table
// is reported when it is loaded.
func checkVolumes(data json.RawMessage, c *snapshotCheck) {
	var items []*schema.Volume
	if json.Unmarshal(data, &items) != nil {
		return
	}
	per := map[int64]int{}
	for _, v := range items {
		if v == nil {
			continue
		}
		if v.Size < minVolumeSize || v.Size > maxVolumeSize {
			c.bad("volume %d: size %d is not between %d and %d GB", v.ID, v.Size, minVolumeSize, maxVolumeSize)
		}
		if v.Server == nil {
			continue
		}
		if !c.servers[*v.Server] {
			c.bad("volume %d: attached to server %d, which does not exist", v.ID, *v.Server)
		}
		if per[*v.Server]++; per[*v.Server] == maxVolumesPerServer+1 {
			c.bad("server %d: more than %d volumes are attached to it", *v.Server, maxVolumesPerServer)
		}
	}
}
