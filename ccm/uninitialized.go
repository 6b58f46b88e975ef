package ccm

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm/nearname"
)

// eventNoServer is the reason of the event on a Node the CCM cannot
// initialise, naming the cause and the closest server names.
const eventNoServer = "ServerNotFound"

// namesMaxAge is how old a listing may be for naming the servers close to
// an unmatched Node; a younger one costs nothing, an older one is listed
// again, so a Node that stays unmatched costs one listing per this time.
const namesMaxAge = 30 * time.Minute

// explainUninitialized posts a Warning event on a Node whose metadata
// could not be read: the cause, and for a name with no server the closest
// server names. Transient failures (timeouts, 5xx) are left to the log.
func (i *instances) explainUninitialized(ctx context.Context, node *corev1.Node, err error) {
	if i.recorder == nil {
		return
	}
	var msg string
	switch {
	case hcloud.IsError(err, hcloud.ErrorCodeUnauthorized):
		msg = "the Hetzner API refused the token (unauthorized): set a valid API token of the server's project in HCLOUD_TOKEN (Secret hcloud, key token)"
	case hcloud.IsError(err, hcloud.ErrorCodeForbidden):
		msg = "the Hetzner API refused the token (forbidden): give the CCM a Read & Write token of the server's project"
	case err != nil:
		return
	case node.Spec.ProviderID != "":
		msg = fmt.Sprintf("provider ID %s names no server of this project: the server was deleted, or HCLOUD_TOKEN belongs to another project", node.Spec.ProviderID)
	default:
		msg = fmt.Sprintf("no server of this project is named %s, and the Node has no provider ID", node.Name)
		if close := i.closestServers(ctx, node.Name); len(close) > 0 {
			msg += fmt.Sprintf("; closest server names: %s. If one is this Node's server, name the two alike, or start the kubelet with --provider-id=hcloud://<server ID>", strings.Join(close, ", "))
		} else {
			msg += "; no server name comes close: check that HCLOUD_TOKEN belongs to the server's project, or start the kubelet with --provider-id=hcloud://<server ID>"
		}
	}
	i.recorder.Event(node, corev1.EventTypeWarning, eventNoServer, msg)
}

// closestServers are up to three server names close to name, from the
// inventory's last listing, listed again when older than namesMaxAge.
func (i *instances) closestServers(ctx context.Context, name string) []string {
	names, listedAt := i.inv.Names()
	if i.inv.Now().Sub(listedAt) > namesMaxAge {
		if err := i.inv.Refresh(ctx); err != nil {
			klog.V(2).InfoS("Listing servers to name those close to a Node failed", "err", err)
		}
		names, _ = i.inv.Names()
	}
	return nearname.Closest(name, names, 3)
}
