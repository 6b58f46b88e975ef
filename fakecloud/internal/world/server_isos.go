package world

import (
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// AttachISO attaches an ISO, by ID or name, to a server, in place of one
// attached before; its architecture must be the server's, or none.
func (t *Tx) AttachISO(id int64, req schema.ServerActionAttachISORequest) (schema.Action, *apierr.Error) {
	return act(t, servers, id, "attach_iso", func(s *StoredServer) (step, *apierr.Error) {
		ref := idOrNameString(req.ISO)
		iso, ok := t.w.Cat.ISO(ref)
		switch {
		case !ok:
			return step{}, apierr.InvalidField("iso", "ISO %q does not exist", ref)
		case iso.Architecture != nil && *iso.Architecture != s.ServerType.Architecture:
			return step{}, apierr.InvalidField("iso", "ISO %q is for %s; server %d is %s", ref, *iso.Architecture, s.ID, s.ServerType.Architecture)
		}
		return step{apply: func() { s.ISO = &iso }}, nil
	})
}

// DetachISO detaches a server's ISO; with none attached, the action
// succeeds all the same, as the description says.
func (t *Tx) DetachISO(id int64) (schema.Action, *apierr.Error) {
	return act(t, servers, id, "detach_iso", func(s *StoredServer) (step, *apierr.Error) {
		return step{apply: func() { s.ISO = nil }}, nil
	})
}
