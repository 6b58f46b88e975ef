package world

import (
	"slices"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// sweepFailing fails the listed actions of a command, by the order they
// start (0 the first), each delayed as given.
func sweepFailing(t *testing.T, base Snapshot, command string, delays map[int]time.Duration) (*State, *time.Time) {
	t.Helper()
	w, clock := sweepProject(t, base, nil)
	n := 0
	w.w.ActionFault = func(c string) (string, string, time.Duration) {
		if c != command {
			return "", "", 0
		}
		defer func() { n++ }()
		if d, ok := delays[n]; ok {
			return "action_failed", "injected", d
		}
		return "", "", 0
	}
	return w, clock
}

// Two change_protection on one server, asking the same: the server ends
// protected unless both fail, whichever ends first (issue 53).
func TestProtectionComposes(t *testing.T) {
	base, ids, _ := sweepBase(t)
	protect := func(tx *Tx) *apierr.Error {
		_, err := tx.ChangeServerProtection(ids.a, schema.ServerActionChangeProtectionRequest{Delete: new(true), Rebuild: new(true)})
		return err
	}
	for _, tc := range []struct {
		name   string
		delays map[int]time.Duration
		want   bool
	}{
		{"the first fails and ends first", map[int]time.Duration{0: 0}, true},
		{"the first fails and ends last", map[int]time.Duration{0: 20 * time.Second}, true},
		{"the second fails", map[int]time.Duration{1: 0}, true},
		{"both fail, the first ends first", map[int]time.Duration{0: 0, 1: 5 * time.Second}, false},
		{"both fail, the second ends first", map[int]time.Duration{0: 20 * time.Second, 1: 0}, false},
	} {
		w, clock := sweepFailing(t, base, "change_protection", tc.delays)
		for range 2 {
			if err := sweepDo(w, func(tx *Tx, _ sweepIDs, _ int) *apierr.Error { return protect(tx) }, ids, 0); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		*clock = clock.Add(time.Minute)
		w.Read(func(tx *Tx) {
			s, _ := tx.w.Servers.Get(ids.a)
			if s.Protection.Delete != tc.want || s.Protection.Rebuild != tc.want {
				t.Errorf("%s: protection %+v, want delete and rebuild %v", tc.name, s.Protection, tc.want)
			}
		})
	}
}

// A failed change_alias_ips whose old alias another server took
// meanwhile leaves the server in its network, with its address, without
// that alias; a load balancer still reaches it there (issue 53).
func TestFailedAliasChangeKeepsTheAttachment(t *testing.T) {
	base, ids, _ := sweepBase(t)
	w, clock := sweepFailing(t, base, "change_alias_ips", map[int]time.Duration{0: 20 * time.Second})
	var before schema.ServerPrivateNet
	w.Read(func(tx *Tx) { s, _ := tx.w.Servers.Get(ids.a); before = s.PrivateNet[0] })
	if !slices.Equal(before.AliasIPs, []string{"10.0.0.40"}) {
		t.Fatalf("server a's attachment %+v, want alias 10.0.0.40", before)
	}
	for _, step := range []struct {
		server int64
		alias  string
	}{{ids.a, "10.0.0.60"}, {ids.b, "10.0.0.40"}} {
		err := sweepDo(w, func(tx *Tx, _ sweepIDs, _ int) *apierr.Error {
			_, err := tx.ChangeServerAliasIPs(step.server, schema.ServerActionChangeAliasIPsRequest{Network: ids.net, AliasIPs: []string{step.alias}})
			return err
		}, ids, 0)
		if err != nil {
			t.Fatal(err)
		}
	}
	*clock = clock.Add(time.Minute)
	w.Read(func(tx *Tx) {
		a, _ := tx.w.Servers.Get(ids.a)
		b, _ := tx.w.Servers.Get(ids.b)
		if len(a.PrivateNet) != 1 || a.PrivateNet[0].IP != before.IP || len(a.PrivateNet[0].AliasIPs) != 0 {
			t.Errorf("server a's attachments %+v, want %s without aliases", a.PrivateNet, before.IP)
		}
		if !slices.Equal(b.PrivateNet[0].AliasIPs, []string{"10.0.0.40"}) {
			t.Errorf("server b's attachment %+v, want the alias it took", b.PrivateNet[0])
		}
		lb, _ := tx.LoadBalancer(ids.lb)
		if ip, err := tx.w.serverTargetIP(mustLB(tx, ids.lb), a, true); err != nil || ip != before.IP || len(lb.Targets) != 1 {
			t.Errorf("the load balancer reaches server a at %q (%v), want %s", ip, err, before.IP)
		}
	})
	if err := w.CheckIndex(); err != nil {
		t.Error(err)
	}
}

func mustLB(tx *Tx, id int64) *StoredLoadBalancer {
	lb, _ := tx.w.LoadBalancers.Get(id)
	return lb
}

// A failed disable_backup brings the backups back with the window: it
// deleted them when it started (issue 53).
func TestFailedDisableBackupBringsBackups(t *testing.T) {
	base, ids, _ := sweepBase(t)
	w, clock := sweepFailing(t, base, "disable_backup", map[int]time.Duration{0: 0})
	if err := sweepDo(w, sweepCases["server/disable_backup"], ids, 0); err != nil {
		t.Fatal(err)
	}
	w.Read(func(tx *Tx) {
		if _, ok := tx.w.Images.Get(ids.backup); ok {
			t.Error("the backup is still there while disable_backup runs: the API deletes it at once")
		}
	})
	*clock = clock.Add(time.Minute)
	w.Read(func(tx *Tx) {
		s, _ := tx.w.Servers.Get(ids.a)
		im, ok := tx.w.Images.Get(ids.backup)
		if s.BackupWindow == nil || !ok || im.BoundTo == nil || *im.BoundTo != ids.a {
			t.Errorf("after the failure: backup window %v, backup %v (%+v), want both back", s.BackupWindow, ok, im)
		}
	})
}
