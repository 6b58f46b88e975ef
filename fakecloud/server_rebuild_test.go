package fakecloud

import (
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestServerRebuild: a server rebuilt from another image is rebuilding,
// then runs that image; one created without SSH keys gets a new root
// password; rebuild protection refuses it; a failed rebuild puts the old
// image back.
func TestServerRebuild(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now, ActionDuration: 10 * time.Second})
	ctx := t.Context()
	res, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "a", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	s := res.Server
	rebuilt, _, err := f.client.Server.RebuildWithResult(ctx, s, hcloud.ServerRebuildOpts{Image: &hcloud.Image{Name: "debian-12"}})
	if err != nil {
		t.Fatal(err)
	}
	if rebuilt.Action.Command != "rebuild_server" || rebuilt.RootPassword == "" || rebuilt.RootPassword == res.RootPassword {
		t.Errorf("rebuild answered %+v and password %q, want rebuild_server and a new password", rebuilt.Action, rebuilt.RootPassword)
	}
	if got, _, _ := f.client.Server.GetByID(ctx, s.ID); got.Status != hcloud.ServerStatusRebuilding || got.Image == nil || got.Image.Name != "debian-12" {
		t.Errorf("while rebuilding the server is %s with image %+v", got.Status, got.Image)
	}
	clock.Advance(time.Minute)
	if got, _, _ := f.client.Server.GetByID(ctx, s.ID); got.Status != hcloud.ServerStatusRunning {
		t.Errorf("after the rebuild the server is %s, want running", got.Status)
	}
	if _, _, err := f.client.Server.RebuildWithResult(ctx, s, hcloud.ServerRebuildOpts{Image: &hcloud.Image{Name: "no-such-os"}}); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("rebuild from a missing image: %v, want invalid_input", err)
	}

	if _, err := f.fc.AddActionFault(ActionFault{Command: "rebuild_server", Count: 1, ErrorCode: "action_failed"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.Server.RebuildWithResult(ctx, s, hcloud.ServerRebuildOpts{Image: &hcloud.Image{Name: "ubuntu-24.04"}}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if got, _, _ := f.client.Server.GetByID(ctx, s.ID); got.Image.Name != "debian-12" || got.Status != hcloud.ServerStatusRunning {
		t.Errorf("after a failed rebuild the server is %s with %s, want running debian-12", got.Status, got.Image.Name)
	}

	if _, _, err := f.client.Server.ChangeProtection(ctx, s, hcloud.ServerChangeProtectionOpts{Delete: hcloud.Ptr(true), Rebuild: hcloud.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if _, _, err := f.client.Server.RebuildWithResult(ctx, s, hcloud.ServerRebuildOpts{Image: &hcloud.Image{Name: "ubuntu-24.04"}}); !hcloud.IsError(err, hcloud.ErrorCodeProtected) {
		t.Errorf("rebuild a rebuild-protected server: %v, want protected", err)
	}
}

// TestServerPasswordAndConsole: reset_password wants a running server and
// answers the new password; request_console answers credentials of the
// API's shape.
func TestServerPasswordAndConsole(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	reset, _, err := f.client.Server.ResetPassword(ctx, s)
	if err != nil || reset.Action.Command != "reset_password" || len(reset.RootPassword) < 12 {
		t.Fatalf("reset_password: %+v %v", reset, err)
	}
	again, _, err := f.client.Server.ResetPassword(ctx, s)
	if err != nil || again.RootPassword == reset.RootPassword {
		t.Errorf("a second reset gave the same password: %v", err)
	}
	console, _, err := f.client.Server.RequestConsole(ctx, s)
	if err != nil || console.Action.Command != "request_console" || !strings.HasPrefix(console.WSSURL, "wss://console.hetzner.cloud/?server_id=") || console.Password == "" {
		t.Errorf("request_console: %+v %v", console, err)
	}
	off, _, err := f.client.Server.Poweroff(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, off, nil)
	if _, _, err := f.client.Server.ResetPassword(ctx, s); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("reset_password on a server that is off: %v, want invalid_input", err)
	}
}

// TestImageProtection: a protected snapshot is not deleted; a backup's
// protection does not change.
func TestImageProtection(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	snap, _, err := f.client.Server.CreateImage(ctx, s, &hcloud.ServerCreateImageOpts{Type: hcloud.ImageTypeSnapshot})
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, snap.Action, nil)
	act, _, err := f.client.Image.ChangeProtection(ctx, snap.Image, hcloud.ImageChangeProtectionOpts{Delete: hcloud.Ptr(true)})
	if err != nil || act.Command != "change_protection" {
		t.Fatalf("change_protection: %+v %v", act, err)
	}
	f.waitAction(t, act, nil)
	if _, err := f.client.Image.Delete(ctx, snap.Image); !hcloud.IsError(err, hcloud.ErrorCodeProtected) {
		t.Errorf("delete a protected snapshot: %v, want protected", err)
	}
	if got, _, _ := f.client.Image.GetByID(ctx, snap.Image.ID); got == nil || !got.Protection.Delete {
		t.Errorf("the snapshot shows %+v, want delete protection", got)
	}
	act, _, _ = f.client.Image.ChangeProtection(ctx, snap.Image, hcloud.ImageChangeProtectionOpts{Delete: hcloud.Ptr(false)})
	f.waitAction(t, act, nil)
	if _, err := f.client.Image.Delete(ctx, snap.Image); err != nil {
		t.Errorf("delete once unprotected: %v", err)
	}
	system, _, err := f.client.Image.GetByNameAndArchitecture(ctx, "ubuntu-24.04", hcloud.ArchitectureX86)
	if err != nil || system == nil {
		t.Fatalf("ubuntu-24.04: %v", err)
	}
	if _, _, err := f.client.Image.ChangeProtection(ctx, system, hcloud.ImageChangeProtectionOpts{Delete: hcloud.Ptr(true)}); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("a system image's protection: %v, want invalid_input", err)
	}
}
