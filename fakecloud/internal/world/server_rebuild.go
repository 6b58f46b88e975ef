package world

import (
	"fmt"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// ServerRebuilt is rebuild's answer: a new root password for a server
// created without SSH keys, null for one with.
type ServerRebuilt struct {
	Action       schema.Action `json:"action"`
	RootPassword *string       `json:"root_password"`
}

// RebuildServer overwrites a server's disk with an image (a system image
// by ID or name for its architecture, or a snapshot or backup of the
// project): the server is rebuilding while the action runs and runs
// after it, as the description says it is powered off first. Rebuild
// protection refuses it (protected); a failed rebuild puts the server
// back as it was.
func (t *Tx) RebuildServer(id int64, req schema.ServerActionRebuildRequest) (ServerRebuilt, *apierr.Error) {
	var password *string
	a, err := act(t, servers, id, "rebuild_server", func(s *StoredServer) (step, *apierr.Error) {
		var f apierr.Fields
		img, ok := t.w.FindImage(idOrNameString(req.Image), s.ServerType.Architecture)
		if !ok {
			f.Add("image", "image %q does not exist for architecture %s", idOrNameString(req.Image), s.ServerType.Architecture)
		}
		if req.UserData != nil && len(*req.UserData) > 32*1024 {
			f.Add("user_data", "is longer than 32 KiB")
		}
		if err := f.Err(); err != nil {
			return step{}, err
		}
		switch {
		case s.Protection.Rebuild:
			return step{}, apierr.Protected("server", s.ID)
		case s.Status == "initializing":
			return step{}, apierr.Locked("server", s.ID)
		case img.DiskSize > float32(s.PrimaryDiskSize):
			return step{}, apierr.InvalidField("image", "image %d needs a %v GB disk; server %d has %d GB", img.ID, img.DiskSize, s.ID, s.PrimaryDiskSize)
		}
		end := "off"
		if t.w.HasInterface(s) {
			end = "running"
		}
		return step{apply: func() {
			im := img
			s.Image, s.Status = &im, "rebuilding"
			if s.RootPassword != "" { // a new password, once nothing can refuse: drawing one is a change
				pw := t.w.NewPassword()
				s.RootPassword, password = pw, &pw
			}
		}, finish: Finish{ServerStatus: end}}, nil
	})
	if err != nil {
		return ServerRebuilt{}, err
	}
	return ServerRebuilt{Action: a, RootPassword: password}, nil
}

// PasswordReset is reset_password's answer: the password the server has
// once the action succeeds.
type PasswordReset struct {
	Action       schema.Action `json:"action"`
	RootPassword string        `json:"root_password"`
}

// ResetServerPassword gives a running server a new root password, as the
// description says it must be running. It names no error for one that is
// not; fakecloud answers invalid_input. A failed action keeps the old
// password.
func (t *Tx) ResetServerPassword(id int64) (PasswordReset, *apierr.Error) {
	var pw string
	a, err := act(t, servers, id, "reset_password", func(s *StoredServer) (step, *apierr.Error) {
		if s.Status != "running" {
			return step{}, apierr.Errorf(apierr.CodeInvalidInput, "server %d is %s; its password is reset only while it runs", s.ID, s.Status)
		}
		return step{apply: func() { pw = t.w.NewPassword(); s.RootPassword = pw }}, nil
	})
	if err != nil {
		return PasswordReset{}, err
	}
	return PasswordReset{Action: a, RootPassword: pw}, nil
}

// ConsoleRequested is request_console's answer: a websocket URL and its
// VNC password. fakecloud serves no console: the URL has the API's shape
// and answers nothing.
type ConsoleRequested struct {
	Action   schema.Action `json:"action"`
	WSSURL   string        `json:"wss_url"`
	Password string        `json:"password"`
}

// RequestServerConsole issues console credentials for a server.
func (t *Tx) RequestServerConsole(id int64) (ConsoleRequested, *apierr.Error) {
	var token, pw string
	a, err := act(t, servers, id, "request_console", func(s *StoredServer) (step, *apierr.Error) {
		return step{apply: func() { token, pw = t.w.NewPassword(), t.w.NewPassword()+t.w.NewPassword()[:12] }}, nil
	})
	if err != nil {
		return ConsoleRequested{}, err
	}
	url := fmt.Sprintf("wss://console.hetzner.cloud/?server_id=%d&token=%s", id, token)
	return ConsoleRequested{Action: a, WSSURL: url, Password: pw}, nil
}
