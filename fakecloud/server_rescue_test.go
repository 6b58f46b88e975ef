package fakecloud

import (
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestServerRescue: enable_rescue answers a root password and sets
// rescue_enabled; the next boot disables it, as the API documents;
// disable_rescue turns it off before that.
func TestServerRescue(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	rescued := func() bool {
		t.Helper()
		got, _, err := f.client.Server.GetByID(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.RescueEnabled
	}
	res, _, err := f.client.Server.EnableRescue(ctx, s, hcloud.ServerEnableRescueOpts{Type: hcloud.ServerRescueTypeLinux64})
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, res.Action, nil)
	if res.RootPassword == "" || !rescued() {
		t.Errorf("root password %q, rescue enabled %v; want a password and enabled", res.RootPassword, rescued())
	}
	_, _, err = f.client.Server.EnableRescue(ctx, s, hcloud.ServerEnableRescueOpts{Type: "freebsd64"})
	wantCode(t, err, "invalid_input")

	a, _, err := f.client.Server.Reset(ctx, s)
	f.waitAction(t, a, err)
	if rescued() {
		t.Error("rescue still enabled after the server booted into it")
	}
	res, _, err = f.client.Server.EnableRescue(ctx, s, hcloud.ServerEnableRescueOpts{Type: hcloud.ServerRescueTypeLinux64})
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, res.Action, nil)
	a, _, err = f.client.Server.DisableRescue(ctx, s)
	f.waitAction(t, a, err)
	if rescued() {
		t.Error("rescue still enabled after disable_rescue")
	}
}
