package world

import (
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// VolumeUpdateRequest is PUT /volumes/{id}; a name given empty is refused
// rather than ignored.
type VolumeUpdateRequest struct {
	Name   *string            `json:"name,omitempty"`
	Labels *map[string]string `json:"labels,omitempty"`
}

// UpdateVolume renames or relabels a volume, with no action.
func (t *Tx) UpdateVolume(id int64, req VolumeUpdateRequest) (schema.Volume, *apierr.Error) {
	v, err := volumes.find(t.w, id)
	if err != nil {
		return schema.Volume{}, err
	}
	taken := NameTaken(volumes.table(t.w), func(o *schema.Volume) string { return o.Name })
	check := func(f *apierr.Fields, _, name string) { checkVolumeName(f, name) }
	if err := RenameRelabel("volume", req.Name, req.Labels, check, taken, &v.Name, &v.Labels); err != nil {
		return schema.Volume{}, err
	}
	return viewVolume(v), nil
}

// DeleteVolume deletes a detached, unprotected volume. An attached one
// answers service_error "… is still attached to a server", as the API did
// (hetznercloud/csi-driver issue 12); the description says only that it
// must not be attached.
func (t *Tx) DeleteVolume(id int64) *apierr.Error {
	v, err := volumes.find(t.w, id)
	if err != nil {
		return err
	}
	if v.Protection.Delete {
		return apierr.Protected("volume", v.ID)
	}
	if v.Server != nil {
		return apierr.Errorf(apierr.CodeServiceError, "volume with ID '%d' is still attached to a server", v.ID)
	}
	if err := t.w.checkFree(Ref{Type: "volume", ID: v.ID}); err != nil {
		return err
	}
	volumes.table(t.w).Del(v.ID)
	return nil
}

// AttachVolume attaches a detached volume to a server of its location,
// running or not, with room for it (16 volumes). The action names the
// server and the volume and holds both while it runs; a failed one
// detaches the volume again. automount is the operating system's business
// and changes nothing here.
func (t *Tx) AttachVolume(id int64, req schema.VolumeActionAttachVolumeRequest) (schema.Action, *apierr.Error) {
	return act(t, volumes, id, "attach_volume", func(v *schema.Volume) (step, *apierr.Error) {
		s, ok := t.w.Servers.Get(req.Server)
		if !ok {
			return step{}, apierr.InvalidField("server", "server %d does not exist", req.Server)
		}
		if v.Server != nil {
			return step{}, apierr.Errorf("volume_already_attached", "volume %d is already attached to server %d; detach it first", v.ID, *v.Server)
		}
		if s.Location.Name != v.Location.Name {
			return step{}, apierr.InvalidField("server", "server and volume must be in the same location: server %d is in %s, volume %d in %s",
				s.ID, s.Location.Name, v.ID, v.Location.Name)
		}
		if err := t.w.roomForVolumes(s.ID, 1); err != nil {
			return step{}, err
		}
		ref := Ref{Type: "server", ID: s.ID}
		return step{apply: func() { id := s.ID; v.Server = &id }, holds: []Ref{ref}, family: "volume",
			resources: []Ref{ref, {Type: "volume", ID: v.ID}}}, nil
	})
}

// DetachVolume detaches a volume from its server. One that is attached to
// none answers service_error "volume not attached to a server", as the
// API did (hcloud volume detach, hetznercloud/csi-driver issue 41).
func (t *Tx) DetachVolume(id int64) (schema.Action, *apierr.Error) {
	return act(t, volumes, id, "detach_volume", func(v *schema.Volume) (step, *apierr.Error) {
		if v.Server == nil {
			return step{}, apierr.Errorf(apierr.CodeServiceError, "volume not attached to a server")
		}
		ref := Ref{Type: "server", ID: *v.Server}
		var holds []Ref
		if _, ok := t.w.Servers.Get(ref.ID); ok {
			holds = []Ref{ref}
		}
		return step{apply: func() { v.Server = nil }, holds: holds, family: "volume",
			resources: []Ref{ref, {Type: "volume", ID: v.ID}}}, nil
	})
}

// VolumeResizeRequest is the resize action's body: the description types
// size a number, so 20.5 is read, and refused, rather than undecodable.
type VolumeResizeRequest struct {
	Size float64 `json:"size"`
}

// ResizeVolume grows a volume, up to 10240 GB: the same size answers
// "volume size is too small" and a smaller one "size downgrade is not
// allowed", both invalid_input, as the API does (hetznercloud/csi-driver
// internal/volumes/idempotency.go and issue 91).
func (t *Tx) ResizeVolume(id int64, req VolumeResizeRequest) (schema.Action, *apierr.Error) {
	return act(t, volumes, id, "resize_volume", func(v *schema.Volume) (step, *apierr.Error) {
		size := int(req.Size)
		switch {
		case float64(size) != req.Size:
			return step{}, apierr.InvalidField("size", "%v is not a whole number of GB", req.Size)
		case size < v.Size:
			return step{}, apierr.InvalidField("size", "size downgrade is not allowed")
		case size == v.Size:
			return step{}, apierr.InvalidField("size", "volume size is too small")
		case size > maxVolumeSize:
			return step{}, apierr.InvalidField("size", "%d is above the largest volume, %d GB", size, maxVolumeSize)
		}
		return step{apply: func() { v.Size = size }}, nil
	})
}

// ChangeVolumeProtection sets a volume's delete protection; a request
// without delete changes nothing.
func (t *Tx) ChangeVolumeProtection(id int64, req schema.VolumeActionChangeProtectionRequest) (schema.Action, *apierr.Error) {
	return act(t, volumes, id, "change_protection", func(v *schema.Volume) (step, *apierr.Error) {
		if req.Delete == nil {
			return step{}, nil
		}
		on := *req.Delete
		return step{apply: func() { v.Protection.Delete = on }, sets: [][]string{member("protection", "delete")}}, nil
	})
}
