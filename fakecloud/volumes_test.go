package fakecloud

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// volumesOn is what a server's view lists under volumes.
func volumesOn(t *testing.T, f *fixture, id int64) []int64 {
	t.Helper()
	s, _, err := f.client.Server.GetByID(t.Context(), id)
	if err != nil || s == nil {
		t.Fatalf("server %d: %v", id, err)
	}
	var out []int64
	for _, v := range s.Volumes {
		out = append(out, v.ID)
	}
	return out
}

// newVolume creates a volume in a location and waits for it.
func newVolume(t *testing.T, f *fixture, name string, size int, location string) *hcloud.Volume {
	t.Helper()
	res, _, err := f.client.Volume.Create(t.Context(), hcloud.VolumeCreateOpts{Name: name, Size: size, Location: &hcloud.Location{Name: location}})
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, res.Action, nil)
	return res.Volume
}

func TestVolumeLifecycle(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now, ActionDuration: 3 * time.Second})
	ctx := t.Context()
	res, _, err := f.client.Volume.Create(ctx, hcloud.VolumeCreateOpts{Name: "data", Size: 10, Location: &hcloud.Location{Name: "nbg1"},
		Format: hcloud.Ptr("ext4"), Labels: map[string]string{"app": "db"}})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Volume
	if v.Status != hcloud.VolumeStatusCreating || v.Size != 10 || v.Location.Name != "nbg1" || v.Server != nil || v.Format == nil || *v.Format != "ext4" ||
		v.LinuxDevice != fmt.Sprintf("/dev/disk/by-id/scsi-0HC_Volume_%d", v.ID) || res.Action.Command != "create_volume" || len(res.NextActions) != 0 {
		t.Errorf("created %+v with %+v and next %v, want a creating 10 GB ext4 volume in nbg1 and create_volume alone", v, res.Action, res.NextActions)
	}
	if _, _, err := f.client.Volume.Resize(ctx, v, 20); !hcloud.IsError(err, hcloud.ErrorCodeLocked) {
		t.Errorf("resize while creating: %v, want locked", err)
	}
	clock.Advance(time.Minute)
	if got, _, _ := f.client.Volume.GetByID(ctx, v.ID); got.Status != hcloud.VolumeStatusAvailable {
		t.Errorf("after create_volume the volume is %s, want available", got.Status)
	}

	for _, bad := range []struct {
		opts hcloud.VolumeCreateOpts
		want string
	}{
		{hcloud.VolumeCreateOpts{Name: "small", Size: 9, Location: &hcloud.Location{Name: "fsn1"}}, "size"},
		{hcloud.VolumeCreateOpts{Name: "huge", Size: 10241, Location: &hcloud.Location{Name: "fsn1"}}, "size"},
		{hcloud.VolumeCreateOpts{Name: "-dash", Size: 10, Location: &hcloud.Location{Name: "fsn1"}}, "name"},
		{hcloud.VolumeCreateOpts{Name: "fmt", Size: 10, Location: &hcloud.Location{Name: "fsn1"}, Format: hcloud.Ptr("btrfs")}, "format"},
		{hcloud.VolumeCreateOpts{Name: "where", Size: 10, Location: &hcloud.Location{Name: "mars1"}}, "location"},
	} {
		if _, _, err := f.client.Volume.Create(ctx, bad.opts); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("create %+v: %v, want invalid_input naming %s", bad.opts, err, bad.want)
		}
	}
	if _, _, err := f.client.Volume.Create(ctx, hcloud.VolumeCreateOpts{Name: "data", Size: 10, Location: &hcloud.Location{Name: "fsn1"}}); !hcloud.IsError(err, hcloud.ErrorCodeUniquenessError) {
		t.Errorf("a second data: %v, want uniqueness_error", err)
	}
	if resp, body := f.do(t, "POST", "/v1/volumes", `{"name":"both","size":10,"location":"fsn1","server":1}`); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), "not both") {
		t.Errorf("location and server: %d %s, want invalid_input", resp.StatusCode, body)
	}

	// Filters, sort and pages.
	logs, _, err := f.client.Volume.Create(ctx, hcloud.VolumeCreateOpts{Name: "logs", Size: 50, Location: &hcloud.Location{Name: "fsn1"}})
	if err != nil {
		t.Fatal(err)
	}
	other := logs.Volume
	clock.Advance(time.Minute)
	if got, err := f.client.Volume.AllWithOpts(ctx, hcloud.VolumeListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "app=db"}}); err != nil || len(got) != 1 || got[0].ID != v.ID {
		t.Errorf("label_selector app=db: %v %v", got, err)
	}
	if got, err := f.client.Volume.AllWithOpts(ctx, hcloud.VolumeListOpts{Status: []hcloud.VolumeStatus{hcloud.VolumeStatusAvailable}, ListOpts: hcloud.ListOpts{PerPage: 1}}); err != nil || len(got) != 2 {
		t.Errorf("status available, one a page: %d %v, want 2", len(got), err)
	}
	if resp, body := f.do(t, "GET", "/v1/volumes?status=gone", ""); resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("status gone: %d %s, want invalid_input", resp.StatusCode, body)
	}
	resp, body := f.do(t, "GET", "/v1/volumes?sort=name:desc", "")
	if resp.StatusCode != http.StatusOK || strings.Index(string(body), `"name":"logs"`) > strings.Index(string(body), `"name":"data"`) {
		t.Errorf("sort=name:desc: %d %s", resp.StatusCode, body)
	}

	// Resize grows only.
	for size, want := range map[int]string{10: "too small", 5: "downgrade", 10241: "above"} {
		if _, _, err := f.client.Volume.Resize(ctx, v, size); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) || !strings.Contains(err.Error(), want) {
			t.Errorf("resize to %d: %v, want invalid_input %q", size, err, want)
		}
	}
	act, _, err := f.client.Volume.Resize(ctx, v, 25)
	if err != nil || act.Command != "resize_volume" {
		t.Fatalf("resize to 25: %+v %v", act, err)
	}
	clock.Advance(time.Minute)
	if got, _, _ := f.client.Volume.GetByID(ctx, v.ID); got.Size != 25 {
		t.Errorf("after the resize the volume has %d GB", got.Size)
	}

	// Update, protection, delete.
	up, _, err := f.client.Volume.Update(ctx, v, hcloud.VolumeUpdateOpts{Name: "data-2", Labels: map[string]string{}})
	if err != nil || up.Name != "data-2" || len(up.Labels) != 0 {
		t.Errorf("update: %+v %v", up, err)
	}
	if _, _, err := f.client.Volume.ChangeProtection(ctx, v, hcloud.VolumeChangeProtectionOpts{Delete: hcloud.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if _, err := f.client.Volume.Delete(ctx, v); !hcloud.IsError(err, hcloud.ErrorCodeProtected) {
		t.Errorf("delete a protected volume: %v, want protected", err)
	}
	if _, err := f.client.Volume.Delete(ctx, other); err != nil {
		t.Fatal(err)
	}
	if got, _, err := f.client.Volume.GetByID(ctx, other.ID); err != nil || got != nil {
		t.Errorf("after delete: %v %v, want not found", got, err)
	}
}

func TestVolumeAttachment(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	a, b, far := serverIn(t, f, "a", "fsn1"), serverIn(t, f, "b", "fsn1"), serverIn(t, f, "far", "nbg1")
	res, _, err := f.client.Volume.Create(ctx, hcloud.VolumeCreateOpts{Name: "on-a", Size: 10, Server: a, Automount: hcloud.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Volume.Location.Name != "fsn1" || res.Volume.Server == nil || res.Volume.Server.ID != a.ID || len(res.NextActions) != 1 ||
		res.NextActions[0].Command != "attach_volume" {
		t.Fatalf("created on a: %+v with next %v, want it attached to a by one attach_volume", res.Volume, res.NextActions)
	}
	f.waitAction(t, res.Action, nil)
	f.waitAction(t, res.NextActions[0], nil)
	v := res.Volume
	if got := volumesOn(t, f, a.ID); !slices.Equal(got, []int64{v.ID}) {
		t.Errorf("server a lists volumes %v, want [%d]", got, v.ID)
	}
	if _, _, err := f.client.Volume.Attach(ctx, v, b); !hcloud.IsError(err, "volume_already_attached") {
		t.Errorf("attach an attached volume: %v, want volume_already_attached", err)
	}
	if _, err := f.client.Volume.Delete(ctx, v); !hcloud.IsError(err, hcloud.ErrorCodeServiceError) {
		t.Errorf("delete an attached volume: %v, want service_error", err)
	}
	act, _, err := f.client.Volume.Detach(ctx, v)
	if err != nil || act.Command != "detach_volume" {
		t.Fatalf("detach: %+v %v", act, err)
	}
	f.waitAction(t, act, nil)
	if _, _, err := f.client.Volume.Detach(ctx, v); !hcloud.IsError(err, hcloud.ErrorCodeServiceError) {
		t.Errorf("detach a detached volume: %v, want service_error", err)
	}
	if _, _, err := f.client.Volume.Attach(ctx, v, far); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) || !strings.Contains(err.Error(), "same location") {
		t.Errorf("attach to a server in nbg1: %v, want invalid_input", err)
	}
	act, _, err = f.client.Volume.AttachWithOpts(ctx, v, hcloud.VolumeAttachOpts{Server: b, Automount: hcloud.Ptr(false)})
	if err != nil || act.Command != "attach_volume" || len(act.Resources) != 2 || act.Resources[0].ID != b.ID || act.Resources[1].ID != v.ID {
		t.Fatalf("attach to b: %+v %v, want attach_volume naming b and the volume", act, err)
	}
	f.waitAction(t, act, nil)

	// A server holds at most 16 volumes, by attach and by its order.
	for i := range 15 {
		r, _, err := f.client.Volume.Create(ctx, hcloud.VolumeCreateOpts{Name: fmt.Sprintf("v%d", i), Size: 10, Server: b})
		if err != nil {
			t.Fatal(err)
		}
		f.waitAction(t, r.Action, nil)
	}
	extra := newVolume(t, f, "seventeen", 10, "fsn1")
	if _, _, err := f.client.Volume.Attach(ctx, extra, b); !hcloud.IsError(err, "limit_exceeded_error") {
		t.Errorf("a 17th volume: %v, want limit_exceeded_error", err)
	}
	spare := newVolume(t, f, "spare", 10, "fsn1")
	order, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "c", ServerType: &hcloud.ServerType{Name: "cx23"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, Volumes: []*hcloud.Volume{extra, spare}})
	if err != nil {
		t.Fatal(err)
	}
	attaches := 0
	for _, next := range order.NextActions {
		if next.Command == "attach_volume" {
			attaches++
		}
		f.waitAction(t, next, nil)
	}
	if got := volumesOn(t, f, order.Server.ID); attaches != 2 || len(got) != 2 {
		t.Errorf("a server ordered with two volumes: %d attach_volume, lists %v", attaches, got)
	}
	if _, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "d", ServerType: &hcloud.ServerType{Name: "cx23"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, Volumes: []*hcloud.Volume{spare}}); !hcloud.IsError(err, "volume_already_attached") {
		t.Errorf("a server ordered with an attached volume: %v, want volume_already_attached", err)
	}

	// A deleted server's volumes are detached and stay.
	del, _, err := f.client.Server.DeleteWithResult(ctx, order.Server)
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, del.Action, nil)
	if got, _, _ := f.client.Volume.GetByID(ctx, spare.ID); got == nil || got.Server != nil {
		t.Errorf("after its server's deletion: %+v, want it kept and detached", got)
	}
}

// TestVolumeActionsUndone: a failed attach detaches the volume again, a
// failed resize keeps the old size, and a failed create takes the volume
// away.
func TestVolumeActionsUndone(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now, ActionDuration: 5 * time.Second})
	ctx := t.Context()
	created, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "a", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	res, _, err := f.client.Volume.Create(ctx, hcloud.VolumeCreateOpts{Name: "v", Size: 10, Location: &hcloud.Location{Name: "fsn1"}})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	for _, command := range []string{"attach_volume", "resize_volume", "create_volume"} {
		if _, err := f.fc.AddActionFault(ActionFault{Command: command, Count: 1, ErrorCode: "action_failed"}); err != nil {
			t.Fatal(err)
		}
	}
	act, _, err := f.client.Volume.Attach(ctx, res.Volume, created.Server)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.Server.Poweroff(ctx, created.Server); !hcloud.IsError(err, hcloud.ErrorCodeLocked) {
		t.Errorf("power off while the attach runs: %v, want locked", err)
	}
	clock.Advance(time.Minute)
	if got, _, _ := f.client.Action.GetByID(ctx, act.ID); got.Status != hcloud.ActionStatusError {
		t.Fatalf("attach %+v, want error", got)
	}
	if got, _, _ := f.client.Volume.GetByID(ctx, res.Volume.ID); got.Server != nil {
		t.Errorf("after the failed attach it is on server %d", got.Server.ID)
	}
	if _, _, err := f.client.Volume.Resize(ctx, res.Volume, 40); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if got, _, _ := f.client.Volume.GetByID(ctx, res.Volume.ID); got.Size != 10 {
		t.Errorf("after the failed resize it has %d GB, want 10", got.Size)
	}
	failed, _, err := f.client.Volume.Create(ctx, hcloud.VolumeCreateOpts{Name: "doomed", Size: 10, Location: &hcloud.Location{Name: "fsn1"}})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if got, _, err := f.client.Volume.GetByID(ctx, failed.Volume.ID); err != nil || got != nil {
		t.Errorf("after the failed create: %+v %v, want it gone", got, err)
	}
}

// TestVolumesSurviveExport: a seed attaches and protects volumes; they
// come back from an export, and a seed or snapshot that breaks a rule is
// refused.
func TestVolumesSurviveExport(t *testing.T) {
	_, data, back := roundTrip(t, `
servers: [{name: db-1}]
volumes:
  - {name: pgdata, size: 100, server: db-1, format: xfs, protected: true}
  - {name: spare, size: 10, location: hel1, labels: {pool: spare}}
`)
	rec := answer(t, back, "GET", "/v1/volumes?name=pgdata", nil)
	if body := rec.Body.String(); !strings.Contains(body, `"status":"available"`) || !strings.Contains(body, `"format":"xfs"`) ||
		!strings.Contains(body, `"protection":{"delete":true}`) || strings.Contains(body, `"server":null`) {
		t.Errorf("restored pgdata: %s", body)
	}
	if rec := answer(t, back, "GET", "/v1/servers?name=db-1", nil); strings.Contains(rec.Body.String(), `"volumes":[]`) {
		t.Errorf("the restored server lists no volume: %s", rec.Body)
	}
	small := strings.Replace(string(data), `"size": 10,`, `"size": 5,`, 1)
	if small == string(data) {
		t.Fatal("the export has no volume of 10 GB to break")
	}
	if err := New(Options{}).Import([]byte(small)); err == nil || !strings.Contains(err.Error(), "size 5") {
		t.Errorf("import of a 5 GB volume: %v, want an error naming its size", err)
	}
	for seed, want := range map[string]string{
		`volumes: [{name: x, size: 10, server: nowhere}]`:                                   `server "nowhere"`,
		`{servers: [{name: a}], volumes: [{name: x, size: 10, server: a, location: fsn1}]}`: "not both",
		`volumes: [{name: x, size: 1}]`:                                                     "size",
	} {
		w, err := ParseWorld([]byte(seed))
		if err != nil {
			t.Fatal(err)
		}
		if err := New(Options{}).Seed(w); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("seed %s: %v, want an error naming %s", seed, err, want)
		}
	}
}

// TestVolumeCreatedOnAServerFailed: a volume whose create fails at once
// is gone, and no attach starts for it.
func TestVolumeCreatedOnAServerFailed(t *testing.T) {
	f := newFixture(t, Options{})
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	if _, err := f.fc.AddActionFault(ActionFault{Command: "create_volume", Count: 1, ErrorCode: "action_failed"}); err != nil {
		t.Fatal(err)
	}
	res, _, err := f.client.Volume.Create(t.Context(), hcloud.VolumeCreateOpts{Name: "v", Size: 10, Server: s})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action.Status != hcloud.ActionStatusError || len(res.NextActions) != 0 {
		t.Errorf("create answered %+v with next %v, want the failed create and no attach", res.Action, res.NextActions)
	}
	if got, _, err := f.client.Volume.GetByID(t.Context(), res.Volume.ID); err != nil || got != nil {
		t.Errorf("after the failed create: %+v %v, want it gone", got, err)
	}
	if on := volumesOn(t, f, s.ID); len(on) != 0 {
		t.Errorf("the server lists volumes %v", on)
	}
}

// TestNewVolumeStaysLocked: a new volume's create_volume holds it while
// it runs, even when its attach ends first.
func TestNewVolumeStaysLocked(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now, ActionDuration: 5 * time.Second})
	ctx := t.Context()
	created, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "a", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if _, err := f.fc.AddActionFault(ActionFault{Command: "create_volume", Count: 1, Delay: Duration(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	res, _, err := f.client.Volume.Create(ctx, hcloud.VolumeCreateOpts{Name: "v", Size: 10, Server: created.Server})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(10 * time.Second) // the attach has ended, the create not
	if _, _, err := f.client.Volume.Resize(ctx, res.Volume, 20); !hcloud.IsError(err, hcloud.ErrorCodeLocked) {
		t.Errorf("resize while create_volume runs: %v, want locked", err)
	}
}
