package world

import (
	"fmt"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dedicated"
)

// applyDedicated makes a dedicated server's event happen; it changes
// nothing when it fails.
func (w *project) applyDedicated(e Event) error {
	if e.Type == "add_dedicated_server" {
		_, err := w.AddDedicated(*e.DedicatedServer)
		return PrefixLines("dedicated_server.", err)
	}
	d, ok := w.Dedicated.Get(e.ServerNumber)
	if !ok {
		return fmt.Errorf("server_number: no dedicated server has number %d", e.ServerNumber)
	}
	switch e.Type {
	case "remove_dedicated_server":
		w.Dedicated.Del(d.Number)
	case "cancel_dedicated_server":
		d.Cancelled = true
	case "power_off_dedicated_server", "power_on_dedicated_server":
		if d.OperatingStatus == dedicated.NotSupported {
			return fmt.Errorf("server_number: dedicated server %d is a tower server, whose power state the webservice does not read (operating_status \"not supported\")", d.Number)
		}
		d.OperatingStatus = dedicated.ShutOff
		if e.Type == "power_on_dedicated_server" {
			d.OperatingStatus = dedicated.Running
		}
	case "rename_dedicated_server":
		d.Name = e.Name
	}
	return nil
}
