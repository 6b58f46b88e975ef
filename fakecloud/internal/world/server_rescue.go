package world

import (
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// RescueEnabled is enable_rescue's answer: the action and the rescue
// system's root password.
type RescueEnabled struct {
	Action       schema.Action `json:"action"`
	RootPassword string        `json:"root_password"`
}

// EnableServerRescue boots the server into the rescue system at its next
// reboot: rescue_enabled until then, with a root password of its own (the
// SSH keys given are checked to exist); the type is linux64, the only one
// the description names.
func (t *Tx) EnableServerRescue(id int64, req schema.ServerActionEnableRescueRequest) (RescueEnabled, *apierr.Error) {
	var f apierr.Fields
	if req.Type != nil && *req.Type != "linux64" {
		f.Add("type", "%q is not one of linux64", *req.Type)
	}
	for _, k := range req.SSHKeys {
		if _, ok := t.w.SSHKeys.Get(k); !ok {
			f.Add("ssh_keys", "SSH key %d does not exist", k)
		}
	}
	if err := f.Err(); err != nil {
		return RescueEnabled{}, err
	}
	// Enabling it again is accepted (a new password): the description
	// names no error for it, and inventing one would be a belief. The
	// password is drawn once nothing can refuse: drawing one is a change.
	var password string
	a, err := act(t, servers, id, "enable_rescue", func(s *StoredServer) (step, *apierr.Error) {
		return step{apply: func() { password = t.w.NewPassword(); s.RescueEnabled = true }}, nil
	})
	if err != nil {
		return RescueEnabled{}, err
	}
	return RescueEnabled{Action: a, RootPassword: password}, nil
}

// DisableServerRescue turns the rescue system off again; off already,
// it stays so.
func (t *Tx) DisableServerRescue(id int64) (schema.Action, *apierr.Error) {
	return act(t, servers, id, "disable_rescue", func(s *StoredServer) (step, *apierr.Error) {
		return step{apply: func() { s.RescueEnabled = false }}, nil
	})
}
