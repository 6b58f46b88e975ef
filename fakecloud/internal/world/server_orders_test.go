package world

import (
	"net/netip"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// TestServerRefusedForNoAddressTakesNoID: a server the pool has no IPv4
// address left for is refused before it takes an ID.
func TestServerRefusedForNoAddressTakesNoID(t *testing.T) {
	w := New(Config{})
	w.w.PubIPv4 = newIPPool(netip.MustParsePrefix("198.18.0.0/30")) // two addresses
	order := func(name string) bool {
		return runOK(w, func(tx *Tx) bool {
			_, err := tx.CreateServer(ServerCreateRequest{ServerCreateRequest: schema.ServerCreateRequest{Name: name,
				ServerType: schema.IDOrName{Name: "cx23"}, Image: schema.IDOrName{Name: "ubuntu-24.04"}}})
			return err == nil
		})
	}
	if !order("a") || !order("b") {
		t.Fatal("the first two servers were refused")
	}
	before := w.w.LastID["server"]
	if order("c") {
		t.Fatal("a third server got an address from a pool of two")
	}
	if after := w.w.LastID["server"]; after != before {
		t.Errorf("the refused server moved the ID counter from %d to %d", before, after)
	}
}
