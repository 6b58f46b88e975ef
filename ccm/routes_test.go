package ccm

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/prometheus/client_golang/prometheus/testutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	cloudprovider "k8s.io/cloud-provider"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/inventory"
	"github.com/hcloudlab/hcloud-ccm/ccm/robotclient"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

func newRoutes(t *testing.T, c *cloudFixture) (*routes, *hcloud.Network, *record.FakeRecorder) {
	t.Helper()
	nets, err := c.Client.Network.All(t.Context())
	if err != nil || len(nets) != 1 {
		t.Fatal(nets, err)
	}
	rec := record.NewFakeRecorder(10)
	servers, err := c.Client.Server.All(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	nodes := staticNodes{}
	for _, s := range servers {
		nodes[s.Name] = true
	}
	return &routes{client: c.Client, inv: inventory.NewInventory(c.Client, nil), networkID: nets[0].ID, maxAge: 5 * time.Minute,
		recorder: rec, now: time.Now, nodes: nodes}, nets[0], rec
}

// staticNodes are a cluster's Nodes, by name, listed from the start.
type staticNodes map[string]bool

func (n staticNodes) HasNode(name string) bool { return n[name] }
func (n staticNodes) Synced() bool             { return true }

func routeSet(t *testing.T, r *routes) []string {
	t.Helper()
	rs, err := r.ListRoutes(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, rt := range rs {
		target := string(rt.TargetNode)
		if rt.Blackhole {
			target = "blackhole"
		}
		out = append(out, rt.DestinationCIDR+" "+target)
	}
	slices.Sort(out)
	return out
}

func TestRoutesCreateReplaceDelete(t *testing.T) {
	c := newCloud(t, 3, fakecloud.Options{})
	r, nw, _ := newRoutes(t, c)
	ctx := t.Context()
	created, deleted := operationsTotal.WithLabelValues("hcloud/CreateRoute"), operationsTotal.WithLabelValues("hcloud/DeleteRoute")
	createdBefore, deletedBefore := testutil.ToFloat64(created), testutil.ToFloat64(deleted)
	defer func() {
		// cloud_controller_manager_operations_total, as the official CCM counts.
		if got := testutil.ToFloat64(created) - createdBefore; got != 4 {
			t.Errorf("CreateRoute counted %v times, want 4", got)
		}
		if got := testutil.ToFloat64(deleted) - deletedBefore; got != 2 {
			t.Errorf("DeleteRoute counted %v times, want 2", got)
		}
	}()
	for i, node := range []string{"node-0000", "node-0001"} {
		if err := r.CreateRoute(ctx, "", "", &cloudprovider.Route{TargetNode: types.NodeName(node), DestinationCIDR: "10.244." + string(rune('0'+i)) + ".0/24"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := routeSet(t, r); !slices.Equal(got, []string{"10.244.0.0/24 node-0000", "10.244.1.0/24 node-0001"}) {
		t.Fatalf("routes %v", got)
	}
	// Creating the same route again sends nothing.
	c.FC.ResetCounters()
	if err := r.CreateRoute(ctx, "", "", &cloudprovider.Route{TargetNode: "node-0000", DestinationCIDR: "10.244.0.0/24"}); err != nil {
		t.Fatal(err)
	}
	if got := c.requests(); got != 0 {
		t.Errorf("recreating an existing route cost %d requests", got)
	}
	// The CIDR moves to another node: the stale route is replaced.
	if err := r.CreateRoute(ctx, "", "", &cloudprovider.Route{TargetNode: "node-0002", DestinationCIDR: "10.244.0.0/24"}); err != nil {
		t.Fatal(err)
	}
	got, _, _ := c.Client.Network.GetByID(ctx, nw.ID)
	s2, _, _ := c.Client.Server.GetByName(ctx, "node-0002")
	if len(got.Routes) != 2 || !slices.ContainsFunc(got.Routes, func(rt hcloud.NetworkRoute) bool {
		return rt.Destination.String() == "10.244.0.0/24" && rt.Gateway.Equal(s2.PrivateNet[0].IP)
	}) {
		t.Errorf("routes in the cloud after replace: %+v", got.Routes)
	}
	if err := r.DeleteRoute(ctx, "", &cloudprovider.Route{TargetNode: "node-0001", DestinationCIDR: "10.244.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	if err := r.DeleteRoute(ctx, "", &cloudprovider.Route{TargetNode: "node-0001", DestinationCIDR: "10.244.1.0/24"}); err != nil {
		t.Errorf("deleting a route already gone: %v", err)
	}
	if got := routeSet(t, r); !slices.Equal(got, []string{"10.244.0.0/24 node-0002"}) {
		t.Errorf("routes %v", got)
	}
}

// TestRoutesBlackholeOnlyWhenConfirmed: a gateway is a blackhole when the
// server that held it is confirmed gone, or after a fresh listing finds no
// server holding it; never during an outage.
func TestRoutesBlackholeOnlyWhenConfirmed(t *testing.T) {
	c := newCloud(t, 2, fakecloud.Options{})
	r, nw, _ := newRoutes(t, c)
	if err := r.CreateRoute(t.Context(), "", "", &cloudprovider.Route{TargetNode: "node-0001", DestinationCIDR: "10.244.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	s, _, _ := c.Client.Server.GetByName(t.Context(), "node-0001")
	if err := c.FC.Apply(fakecloud.Event{Type: "delete_server", Server: s.ID}); err != nil {
		t.Fatal(err)
	}
	// The inventory still knows the server: not a blackhole yet.
	if got := routeSet(t, r); !slices.Equal(got, []string{"10.244.1.0/24 node-0001"}) {
		t.Fatalf("routes %v", got)
	}
	// The lifecycle check confirms it gone (one 404): its IP leads nowhere, known without a listing.
	if got, err := r.inv.ByServerID(t.Context(), s.ID, inventory.Within(0)); got != nil || err != nil {
		t.Fatal(got, err)
	}
	c.FC.ResetCounters()
	if got := routeSet(t, r); !slices.Equal(got, []string{"10.244.1.0/24 blackhole"}) {
		t.Errorf("routes after the server is gone: %v", got)
	}
	if c.requests() != 0 {
		t.Errorf("%d requests to call a confirmed gone server's route a blackhole", c.requests())
	}
	// A gateway no known server holds: a listing decides, and during an outage nothing is a blackhole.
	c.addRoute(t, nw, "10.244.7.0/24", "10.0.7.7")
	r.mu.Lock()
	r.network = nil
	r.mu.Unlock()
	r.inv.ListedAt = time.Time{}
	if _, err := c.FC.AddFault(fakecloud.Rule{Path: "/servers", Status: 500}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ListRoutes(t.Context(), ""); err == nil {
		t.Error("routes listed as blackholes while the server listing failed")
	}
	c.FC.ClearFaults()
	// A listing decides: 10.0.7.7 is nobody's, and never was a Node's as
	// this process saw it, so its route is not this cluster's to list.
	if got := routeSet(t, r); !slices.Equal(got, []string{"10.244.1.0/24 blackhole"}) {
		t.Errorf("routes after a listing: %v", got)
	}
}

func TestRoutesRefuseIPv6AndReportConflicts(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	r, _, rec := newRoutes(t, c)
	c.FC.ResetCounters()
	err := r.CreateRoute(t.Context(), "", "", &cloudprovider.Route{TargetNode: "node-0000", DestinationCIDR: "fd00:244::/64"})
	if err == nil || !strings.Contains(err.Error(), "IPv6") {
		t.Fatalf("IPv6 route: %v", err)
	}
	expectEvent(t, rec, eventRouteRefused)
	if c.requests() != 0 {
		t.Errorf("an IPv6 route cost %d requests", c.requests())
	}
	if _, err := c.FC.AddFault(fakecloud.Rule{Method: "POST", Path: "/networks/{id}/actions/add_route", Code: "locked"}); err != nil {
		t.Fatal(err)
	}
	err = r.CreateRoute(t.Context(), "", "", &cloudprovider.Route{TargetNode: "node-0000", DestinationCIDR: "10.244.0.0/24"})
	if !apierrors.IsConflict(err) {
		t.Errorf("locked network: %v, want a Conflict the route controller retries", err)
	}
}

// A dedicated server's Node gets no route and one event saying why; the
// routes of cloud Nodes are made as before, and no reconcile costs a
// request beyond the shared listing.
func TestRouteSkipsDedicatedServers(t *testing.T) {
	c := newCloud(t, 2, fakecloud.Options{})
	r, _, rec := newRoutes(t, c)
	if err := c.FC.Apply(fakecloud.Event{Type: "add_dedicated_server", DedicatedServer: &fakecloud.SeedDedicatedServer{Number: 321, Name: "ded-1"}}); err != nil {
		t.Fatal(err)
	}
	r.robot = robotclient.NewCache(robotclient.NewClient(c.URL+"/robot", fakecloud.DefaultRobotUser, fakecloud.DefaultRobotPassword, "test", 5*time.Second), robotclient.CacheOptions{})
	for range 3 {
		if err := r.CreateRoute(t.Context(), "", "", &cloudprovider.Route{TargetNode: "ded-1", DestinationCIDR: "10.244.9.0/24"}); err != nil {
			t.Fatalf("CreateRoute for a dedicated server's Node = %v, want skipped", err)
		}
	}
	expectEvent(t, rec, eventRouteRefused, "ded-1", "dedicated server 321", "10.244.9.0/24")
	if len(rec.Events) != 0 {
		t.Errorf("%d more events for the same node", len(rec.Events))
	}
	if err := r.CreateRoute(t.Context(), "", "", &cloudprovider.Route{TargetNode: "node-0001", DestinationCIDR: "10.244.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	if got := routeSet(t, r); len(got) != 1 || !strings.Contains(got[0], "node-0001") {
		t.Errorf("routes %v, want only node-0001's", got)
	}
	if got := c.FC.Requests("GET", "/robot/server"); got != 1 {
		t.Errorf("%d listings of the webservice for 4 route creations, want 1", got)
	}
}

// TestRoutesBackOffAfterFailures: a route whose change failed is held
// back, without a request, for a second, then twice as long after each
// failure in a row; a success forgets the failures. So a network locked
// by another's action for long costs a few requests, not ten a period.
func TestRoutesBackOffAfterFailures(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	r, _, _ := newRoutes(t, c)
	route := &cloudprovider.Route{TargetNode: "node-0000", DestinationCIDR: "10.244.0.0/24"}
	if _, err := c.FC.AddFault(fakecloud.Rule{Method: "POST", Path: "/networks/{id}/actions/add_route", Code: "locked"}); err != nil {
		t.Fatal(err)
	}
	for range 10 { // the route controller's retries on a Conflict, and more
		_ = r.CreateRoute(t.Context(), "", "", route)
	}
	if n := c.FC.Requests("POST", "/networks/{id}/actions/add_route"); n != 1 {
		t.Errorf("%d add_route requests within the back-off, want 1", n)
	}
	err := r.CreateRoute(t.Context(), "", "", route)
	if err == nil || apierrors.IsConflict(err) || !strings.Contains(err.Error(), "next try") {
		t.Errorf("held back: %v, want a plain error naming the next try", err)
	}
	r.backoff.failed(route.DestinationCIDR, errors.New("locked"), time.Now()) // a second failure: 2 s
	if f := r.backoff.m[route.DestinationCIDR]; f.n != 2 || time.Until(f.until) < 1500*time.Millisecond {
		t.Errorf("after two failures %+v, want held back for 2 s", f)
	}
	c.FC.ClearFaults()
	r.backoff.m[route.DestinationCIDR] = routeFailures{n: 2, until: time.Now()} // the wait is over
	if err := r.CreateRoute(t.Context(), "", "", route); err != nil {
		t.Fatal(err)
	}
	if _, held := r.backoff.m[route.DestinationCIDR]; held {
		t.Error("the success left the failures")
	}
}
