package fakecloud

import (
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestSnapshotsAndBackups: create_image makes a snapshot that outlives
// its server and can start another, or a backup bound to a server whose
// backups are on; both can be described, relabelled and deleted, and
// survive a state round trip. System images cannot be changed.
func TestSnapshotsAndBackups(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{ActionDuration: time.Minute, Now: clock.Now})
	ctx := t.Context()
	s := serverOnClock(t, f, clock, "a")

	snap, _, err := f.client.Server.CreateImage(ctx, s, &hcloud.ServerCreateImageOpts{Type: hcloud.ImageTypeSnapshot, Description: hcloud.Ptr("base"), Labels: map[string]string{"role": "base"}})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Image.Status != hcloud.ImageStatusCreating || snap.Image.CreatedFrom == nil || snap.Image.CreatedFrom.ID != s.ID || snap.Image.BoundTo != nil {
		t.Errorf("new snapshot %+v, want creating, from server %d, bound to none", snap.Image, s.ID)
	}
	clock.Advance(time.Minute)
	byLabel, err := f.client.Image.AllWithOpts(ctx, hcloud.ImageListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "role=base"}, Type: []hcloud.ImageType{hcloud.ImageTypeSnapshot}})
	if err != nil || len(byLabel) != 1 || byLabel[0].ID != snap.Image.ID || byLabel[0].Status != hcloud.ImageStatusAvailable || byLabel[0].Description != "base" {
		t.Fatalf("snapshots by label: %+v %v, want the available snapshot", byLabel, err)
	}
	// A backup needs backups on.
	_, _, err = f.client.Server.CreateImage(ctx, s, &hcloud.ServerCreateImageOpts{Type: hcloud.ImageTypeBackup})
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)
	if _, _, err := f.client.Server.EnableBackup(ctx, s, ""); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	got, _, _ := f.client.Server.GetByID(ctx, s.ID)
	if got.BackupWindow != "22-02" {
		t.Errorf("backup window %q after enable_backup, want 22-02", got.BackupWindow)
	}
	var backups []int64
	for range 2 {
		b, _, err := f.client.Server.CreateImage(ctx, s, &hcloud.ServerCreateImageOpts{Type: hcloud.ImageTypeBackup})
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		backups = append(backups, b.Image.ID)
	}
	kept, _, err := f.client.Image.Update(ctx, &hcloud.Image{ID: backups[0]}, hcloud.ImageUpdateOpts{Type: hcloud.ImageTypeSnapshot, Description: hcloud.Ptr("kept")})
	if err != nil || kept.Type != hcloud.ImageTypeSnapshot || kept.BoundTo != nil || kept.Description != "kept" {
		t.Fatalf("backup made a snapshot: %+v %v", kept, err)
	}
	if _, _, err := f.client.Server.DisableBackup(ctx, s); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if gone, _, _ := f.client.Image.GetByID(ctx, backups[1]); gone != nil {
		t.Errorf("backup %d left after disable_backup", backups[1])
	}
	if got, _, _ := f.client.Server.GetByID(ctx, s.ID); got.BackupWindow != "" {
		t.Errorf("backup window %q after disable_backup", got.BackupWindow)
	}

	// A server starts from the snapshot; the snapshot outlives its server.
	from, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "b", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{ID: snap.Image.ID}})
	if err != nil || from.Server.Image == nil || from.Server.Image.ID != snap.Image.ID {
		t.Errorf("server from the snapshot: %v, image %+v", err, from.Server)
	}
	if _, _, err := f.client.Server.DeleteWithResult(ctx, s); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	st, err := f.fc.Export()
	if err == nil {
		err = f.fc.Import(st)
	}
	if err != nil {
		t.Fatal(err)
	}
	mine, err := f.client.Image.AllWithOpts(ctx, hcloud.ImageListOpts{Type: []hcloud.ImageType{hcloud.ImageTypeSnapshot, hcloud.ImageTypeBackup}})
	if err != nil || len(mine) != 2 {
		t.Fatalf("images after the server went and a state round trip: %+v %v, want the two snapshots", mine, err)
	}

	if err := deleteImage(t, f, snap.Image.ID); err != nil {
		t.Fatal(err)
	}
	if gone, _, _ := f.client.Image.GetByID(ctx, snap.Image.ID); gone != nil {
		t.Error("snapshot left after its delete")
	}
	ubuntu, _, _ := f.client.Image.GetForArchitecture(ctx, "ubuntu-24.04", hcloud.ArchitectureX86)
	wantCode(t, deleteImage(t, f, ubuntu.ID), hcloud.ErrorCodeInvalidInput)
	_, _, err = f.client.Image.Update(ctx, ubuntu, hcloud.ImageUpdateOpts{Description: hcloud.Ptr("mine")})
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)
}

// TestSnapshotAtOnce: with actions that finish within the request, the
// answer shows the snapshot available.
func TestSnapshotAtOnce(t *testing.T) {
	f := newFixture(t, Options{})
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	res, _, err := f.client.Server.CreateImage(t.Context(), s, nil)
	if err != nil || res.Image.Status != hcloud.ImageStatusAvailable || res.Image.Type != hcloud.ImageTypeSnapshot {
		t.Errorf("snapshot: %+v %v, want an available snapshot", res.Image, err)
	}
}

func deleteImage(t *testing.T, f *fixture, id int64) error {
	_, err := f.client.Image.Delete(t.Context(), &hcloud.Image{ID: id})
	return err
}
