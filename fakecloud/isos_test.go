package fakecloud

import (
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestISOs: the public ISOs are listed and found by ID and name, filtered
// by architecture; one is attached to a server of its architecture in
// place of another, refused on another architecture, and detached, twice
// without harm.
func TestISOs(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	all, err := f.client.ISO.All(ctx)
	if err != nil || len(all) < 3 {
		t.Fatalf("ISOs: %d %v", len(all), err)
	}
	english, _, err := f.client.ISO.GetByID(ctx, 8637)
	if err != nil || english == nil || english.Description != "Windows Server 2022 English" || english.Architecture == nil || *english.Architecture != hcloud.ArchitectureX86 {
		t.Fatalf("ISO 8637: %+v %v", english, err)
	}
	if byName, _, err := f.client.ISO.GetByName(ctx, english.Name); err != nil || byName == nil || byName.ID != 8637 {
		t.Errorf("ISO by name %q: %+v %v", english.Name, byName, err)
	}
	arm, err := f.client.ISO.AllWithOpts(ctx, hcloud.ISOListOpts{Architecture: []hcloud.Architecture{hcloud.ArchitectureARM}})
	if err != nil || len(arm) == 0 {
		t.Fatalf("arm ISOs: %v %v", arm, err)
	}
	for _, iso := range arm {
		if iso.Architecture == nil || *iso.Architecture != hcloud.ArchitectureARM {
			t.Errorf("arm filter kept %+v", iso)
		}
	}

	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "win"})
	iso := func() int64 {
		got, _, _ := f.client.Server.GetByID(ctx, s.ID)
		if got.ISO == nil {
			return 0
		}
		return got.ISO.ID
	}
	a, _, err := f.client.Server.AttachISO(ctx, s, english)
	f.waitAction(t, a, err)
	a, _, err = f.client.Server.AttachISO(ctx, s, &hcloud.ISO{ID: 8638})
	f.waitAction(t, a, err)
	if got := iso(); got != 8638 {
		t.Errorf("ISO %d after attaching 8638 in place of 8637", got)
	}
	_, _, err = f.client.Server.AttachISO(ctx, s, arm[0])
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)
	_, _, err = f.client.Server.AttachISO(ctx, s, &hcloud.ISO{ID: 999})
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)
	if got := iso(); got != 8638 {
		t.Errorf("ISO %d after refused attaches, want 8638 kept", got)
	}
	for range 2 {
		a, _, err = f.client.Server.DetachISO(ctx, s)
		f.waitAction(t, a, err)
	}
	if got := iso(); got != 0 {
		t.Errorf("ISO %d after detach", got)
	}
}
