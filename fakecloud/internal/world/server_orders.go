package world

import (
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
)

// Orderable refuses a server type that cannot be ordered in a location,
// as the live API answers: a retired type "server type 104 is
// deprecated", one not sold there (or no longer) "unsupported location
// for server type", both invalid_input; one out of stock 412
// resource_unavailable. A type change answers invalid_server_type.
func Orderable(cat *catalog.Catalog, st schema.ServerType, location string, change bool) *apierr.Error {
	switch cat.Offers(st, location) {
	case catalog.Retired:
		if change {
			return apierr.Errorf("invalid_server_type", "server type %s is deprecated", st.Name)
		}
		return apierr.Errorf(apierr.CodeInvalidInput, "server type %d is deprecated", st.ID)
	case catalog.NotSoldThere:
		if change {
			return apierr.Errorf("invalid_server_type", "server type %s is not available in %s", st.Name, location)
		}
		return apierr.Errorf(apierr.CodeInvalidInput, "unsupported location for server type")
	case catalog.OutOfStockNow:
		return apierr.Errorf(apierr.CodeResourceUnavailable, "error during placement")
	}
	return nil
}

// checkUnsimulated refuses references to kinds fakecloud does not
// simulate (no kind of the name is registered): none of them exists here,
// so any ID names a missing one (which the API refuses), and a request
// naming one must not quietly create a server without it.
func (w *project) checkUnsimulated(f *apierr.Fields, req schema.ServerCreateRequest) {
	if _, ok := w.kinds["volume"]; !ok {
		for _, id := range req.Volumes {
			f.Add("volumes", "volume %d does not exist", id)
		}
	}
	if _, ok := w.kinds["firewall"]; !ok {
		for _, fw := range req.Firewalls {
			f.Add("firewalls", "firewall %d does not exist", fw.Firewall)
		}
	}
	if _, ok := w.kinds["placement_group"]; !ok && req.PlacementGroup != 0 {
		f.Add("placement_group", "placement group %d does not exist", req.PlacementGroup)
	}
}
