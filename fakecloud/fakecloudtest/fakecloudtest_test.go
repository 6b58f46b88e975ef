package fakecloudtest_test

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestClientPollsWithoutSleeping: the client looks at a running action
// again and again while fakecloud's clock stands still (a client with
// hcloud-go's default backoff looks three times in seven seconds), and
// sees it end as soon as the clock moves on.
func TestClientPollsWithoutSleeping(t *testing.T) {
	clock := fakecloudtest.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	fc := fakecloud.New(fakecloud.Options{Now: clock.Now, ActionDuration: time.Minute})
	t.Cleanup(fc.Close) // counting has no Close of its own
	var polls atomic.Int32
	counting := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/actions") {
			polls.Add(1)
		}
		fc.ServeHTTP(w, r)
	})
	client := fakecloudtest.Client(fakecloudtest.Serve(t, counting), fakecloud.DefaultToken)
	_, ipRange, _ := net.ParseCIDR("10.0.0.0/16")
	n, _, err := client.Network.Create(t.Context(), hcloud.NetworkCreateOpts{Name: "net", IPRange: ipRange})
	if err != nil {
		t.Fatal(err)
	}
	act, _, err := client.Network.ChangeProtection(t.Context(), n, hcloud.NetworkChangeProtectionOpts{Delete: hcloud.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- client.Action.WaitFor(t.Context(), act) }()
	fakecloudtest.Eventually(t, 2*time.Second, "three looks at the running action", func() bool { return polls.Load() >= 3 })
	clock.Advance(2 * time.Minute)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestEventually: it returns once the condition holds, and fails the
// test when the condition never does.
func TestEventually(t *testing.T) {
	var n atomic.Int32
	fakecloudtest.Eventually(t, time.Second, "the third look", func() bool { return n.Add(1) >= 3 })
	if n.Load() != 3 {
		t.Errorf("looked %d times, want 3", n.Load())
	}
	ft := &fakeT{TB: t}
	func() {
		defer func() { _ = recover() }()
		fakecloudtest.Eventually(ft, 30*time.Millisecond, "never", func() bool { return false })
	}()
	if ft.failed != "timed out after 30ms waiting for never" {
		t.Errorf("failed with %q", ft.failed)
	}
}

// fakeT records Fatalf instead of ending the test.
type fakeT struct {
	testing.TB
	failed string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	panic("fatal")
}
