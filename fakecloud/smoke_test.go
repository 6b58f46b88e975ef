package fakecloud

import (
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

func TestSmoke(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	res, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "a", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.client.Action.WaitFor(ctx, append(res.NextActions, res.Action)...); err != nil {
		t.Fatal(err)
	}
	s, _, err := f.client.Server.GetByID(ctx, res.Server.ID)
	if err != nil || s.Status != hcloud.ServerStatusRunning {
		t.Fatalf("server %+v err %v", s, err)
	}
	all, err := f.client.Server.All(ctx)
	if err != nil || len(all) != 1 {
		t.Fatal(all, err)
	}
}
