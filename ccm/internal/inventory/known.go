package inventory

import "github.com/hetznercloud/hcloud-go/v2/hcloud"

// KnownID is the server with the ID the inventory holds, however old,
// without asking the API: nil when it holds none, or holds it as gone.
// The server is shared: read it, never change it.
func (inv *Inventory) KnownID(id int64) *hcloud.Server {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if e := inv.byID[id]; e != nil {
		return e.server
	}
	return nil
}
