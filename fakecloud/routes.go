package fakecloud

import (
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// route is one endpoint of the API: the handler of a method and pattern.
type route struct {
	method, pattern string
	h               apiHandler
}

// apiRoutes is every endpoint of the Hetzner Cloud API that fakecloud
// serves, under /v1 (and /): the place to start reading. Each names the
// typed operation of the world it runs; the adapters (adapters.go) read
// the path's {id}, decode the body and wrap the result in the API's
// envelope. A POST to an action fakecloud does not simulate answers
// not_found, naming it (unknownAction).
func apiRoutes() []route {
	type tx = world.Tx
	return []route{
		{"GET", "/actions", listAllActions},
		{"GET", "/actions/{action}", getAction("")},

		{"GET", "/servers", listServers},
		{"POST", "/servers", create((*tx).CreateServer, asIs[world.ServerCreated])},
		{"GET", "/servers/{id}", get((*tx).Server, oneServer)},
		{"PUT", "/servers/{id}", update("server", (*tx).UpdateServer, oneServer)},
		{"DELETE", "/servers/{id}", get((*tx).DeleteServer, oneAction)},
		{"GET", "/servers/actions", listActions("server")},
		{"GET", "/servers/actions/{action}", getAction("server")},
		{"GET", "/servers/{id}/actions", listResourceActions("server")},
		{"GET", "/servers/{id}/actions/{action}", getResourceAction("server")},
		{"POST", "/servers/{id}/actions/poweron", actOnBodyless("server", (*tx).PowerOnServer)},
		{"POST", "/servers/{id}/actions/poweroff", actOnBodyless("server", (*tx).PowerOffServer)},
		{"POST", "/servers/{id}/actions/shutdown", actOnBodyless("server", (*tx).ShutdownServer)},
		{"POST", "/servers/{id}/actions/reboot", actOnBodyless("server", (*tx).RebootServer)},
		{"POST", "/servers/{id}/actions/reset", actOnBodyless("server", (*tx).ResetServer)},
		{"POST", "/servers/{id}/actions/attach_to_network", actOn("server", (*tx).AttachServerToNetwork)},
		{"POST", "/servers/{id}/actions/detach_from_network", actOn("server", (*tx).DetachServerFromNetwork)},
		{"POST", "/servers/{id}/actions/change_alias_ips", actOn("server", (*tx).ChangeServerAliasIPs)},
		{"POST", "/servers/{id}/actions/attach_iso", actOn("server", (*tx).AttachISO)},
		{"POST", "/servers/{id}/actions/detach_iso", actOnBodyless("server", (*tx).DetachISO)},
		{"POST", "/servers/{id}/actions/change_protection", actOn("server", (*tx).ChangeServerProtection)},
		{"POST", "/servers/{id}/actions/enable_rescue", onExisting("server", 201, (*tx).EnableServerRescue, asIs[world.RescueEnabled])},
		{"POST", "/servers/{id}/actions/disable_rescue", actOnBodyless("server", (*tx).DisableServerRescue)},
		{"POST", "/servers/{id}/actions/change_type", actOn("server", (*tx).ChangeServerType)},
		{"POST", "/servers/{id}/actions/change_dns_ptr", actOn("server", (*tx).ChangeServerDNSPtr)},
		{"POST", "/servers/{id}/actions/create_image", onExisting("server", 201, (*tx).CreateImage, asIs[world.ImageCreated])},
		{"POST", "/servers/{id}/actions/enable_backup", actOnBodyless("server", (*tx).EnableServerBackup)},
		{"POST", "/servers/{id}/actions/disable_backup", actOnBodyless("server", (*tx).DisableServerBackup)},
		{"POST", "/servers/{id}/actions/add_to_placement_group", actOn("server", (*tx).AddServerToPlacementGroup)},
		{"POST", "/servers/{id}/actions/remove_from_placement_group", actOnBodyless("server", (*tx).RemoveServerFromPlacementGroup)},
		{"POST", "/servers/{id}/actions/{action}", unknownAction("servers")},

		{"GET", "/load_balancers", listLoadBalancers},
		{"POST", "/load_balancers", create((*tx).CreateLoadBalancer, asIs[world.LoadBalancerCreated])},
		{"GET", "/load_balancers/{id}", get((*tx).LoadBalancer, oneLoadBalancer)},
		{"PUT", "/load_balancers/{id}", update("load_balancer", (*tx).UpdateLoadBalancer, oneLoadBalancer)},
		{"DELETE", "/load_balancers/{id}", get((*tx).DeleteLoadBalancer, oneAction, 201)},
		{"GET", "/load_balancers/actions", listActions("load_balancer")},
		{"GET", "/load_balancers/actions/{action}", getAction("load_balancer")},
		{"GET", "/load_balancers/{id}/actions", listResourceActions("load_balancer")},
		{"GET", "/load_balancers/{id}/actions/{action}", getResourceAction("load_balancer")},
		{"POST", "/load_balancers/{id}/actions/add_service", actOn("load_balancer", (*tx).AddService)},
		{"POST", "/load_balancers/{id}/actions/update_service", actOn("load_balancer", (*tx).UpdateService)},
		{"POST", "/load_balancers/{id}/actions/delete_service", actOn("load_balancer", (*tx).DeleteService)},
		{"POST", "/load_balancers/{id}/actions/add_target", actOn("load_balancer", (*tx).AddTarget)},
		{"POST", "/load_balancers/{id}/actions/remove_target", actOn("load_balancer", (*tx).RemoveTarget)},
		{"POST", "/load_balancers/{id}/actions/attach_to_network", actOn("load_balancer", (*tx).AttachLoadBalancerToNetwork)},
		{"POST", "/load_balancers/{id}/actions/detach_from_network", actOn("load_balancer", (*tx).DetachLoadBalancerFromNetwork)},
		{"POST", "/load_balancers/{id}/actions/change_algorithm", actOn("load_balancer", (*tx).ChangeAlgorithm)},
		{"POST", "/load_balancers/{id}/actions/change_type", actOn("load_balancer", (*tx).ChangeLoadBalancerType)},
		{"POST", "/load_balancers/{id}/actions/enable_public_interface", actOnBodyless("load_balancer", (*tx).EnablePublicInterface)},
		{"POST", "/load_balancers/{id}/actions/disable_public_interface", actOnBodyless("load_balancer", (*tx).DisablePublicInterface)},
		{"POST", "/load_balancers/{id}/actions/change_dns_ptr", actOn("load_balancer", (*tx).ChangeLoadBalancerDNSPtr)},
		{"POST", "/load_balancers/{id}/actions/change_protection", actOn("load_balancer", (*tx).ChangeLoadBalancerProtection)},
		{"POST", "/load_balancers/{id}/actions/{action}", unknownAction("load_balancers")},

		{"GET", "/networks", listNetworks},
		{"POST", "/networks", create((*tx).CreateNetwork, oneNetwork)},
		{"GET", "/networks/{id}", get((*tx).Network, oneNetwork)},
		{"PUT", "/networks/{id}", update("network", (*tx).UpdateNetwork, oneNetwork)},
		{"DELETE", "/networks/{id}", del((*tx).DeleteNetwork)},
		{"GET", "/networks/{id}/members", listNetworkMembers},
		{"GET", "/networks/actions", listActions("network")},
		{"GET", "/networks/actions/{action}", getAction("network")},
		{"GET", "/networks/{id}/actions", listResourceActions("network")},
		{"GET", "/networks/{id}/actions/{action}", getResourceAction("network")},
		{"POST", "/networks/{id}/actions/add_subnet", act((*tx).AddSubnet)},
		{"POST", "/networks/{id}/actions/delete_subnet", act((*tx).DeleteSubnet)},
		{"POST", "/networks/{id}/actions/add_route", act((*tx).AddRoute)},
		{"POST", "/networks/{id}/actions/delete_route", act((*tx).DeleteRoute)},
		{"POST", "/networks/{id}/actions/change_ip_range", act((*tx).ChangeIPRange)},
		{"POST", "/networks/{id}/actions/change_protection", act((*tx).ChangeNetworkProtection)},
		{"POST", "/networks/{id}/actions/{action}", unknownAction("networks")},

		{"GET", "/certificates", listCertificates},
		{"POST", "/certificates", create((*tx).CreateCertificate, asIs[world.CertificateCreated])},
		{"GET", "/certificates/{id}", get((*tx).Certificate, oneCertificate)},
		{"PUT", "/certificates/{id}", update("certificate", (*tx).UpdateCertificate, oneCertificate)},
		{"DELETE", "/certificates/{id}", del((*tx).DeleteCertificate)},
		{"GET", "/certificates/actions", listActions("certificate")},
		{"GET", "/certificates/actions/{action}", getAction("certificate")},
		{"GET", "/certificates/{id}/actions", listResourceActions("certificate")},
		{"GET", "/certificates/{id}/actions/{action}", getResourceAction("certificate")},
		{"POST", "/certificates/{id}/actions/retry", actOnBodyless("certificate", (*tx).RetryCertificate)},
		{"POST", "/certificates/{id}/actions/{action}", unknownAction("certificates")},

		{"GET", "/placement_groups", listPlacementGroups},
		{"POST", "/placement_groups", create((*tx).CreatePlacementGroup, asIs[world.PlacementGroupCreated])},
		{"GET", "/placement_groups/{id}", get((*tx).PlacementGroup, onePlacementGroup)},
		{"PUT", "/placement_groups/{id}", update("placement_group", (*tx).UpdatePlacementGroup, onePlacementGroup)},
		{"DELETE", "/placement_groups/{id}", del((*tx).DeletePlacementGroup)},

		{"GET", "/primary_ips", listPrimaryIPs},
		{"POST", "/primary_ips", create((*tx).CreatePrimaryIP, asIs[world.PrimaryIPCreated])},
		{"GET", "/primary_ips/{id}", get((*tx).PrimaryIP, onePrimaryIP)},
		{"PUT", "/primary_ips/{id}", update("primary_ip", (*tx).UpdatePrimaryIP, onePrimaryIP)},
		{"DELETE", "/primary_ips/{id}", del((*tx).DeletePrimaryIP)},
		{"GET", "/primary_ips/actions", listActions("primary_ip")},
		{"GET", "/primary_ips/actions/{action}", getAction("primary_ip")},
		{"GET", "/primary_ips/{id}/actions", listResourceActions("primary_ip")},
		{"GET", "/primary_ips/{id}/actions/{action}", getResourceAction("primary_ip")},
		{"POST", "/primary_ips/{id}/actions/assign", actOn("primary_ip", (*tx).AssignPrimaryIP)},
		{"POST", "/primary_ips/{id}/actions/unassign", actOnBodyless("primary_ip", (*tx).UnassignPrimaryIP)},
		{"POST", "/primary_ips/{id}/actions/change_protection", actOn("primary_ip", (*tx).ChangePrimaryIPProtection)},
		{"POST", "/primary_ips/{id}/actions/change_dns_ptr", actOn("primary_ip", (*tx).ChangePrimaryIPDNSPtr)},
		{"POST", "/primary_ips/{id}/actions/{action}", unknownAction("primary_ips")},

		{"GET", "/ssh_keys", listSSHKeys},
		{"POST", "/ssh_keys", create((*tx).CreateSSHKey, oneSSHKey)},
		{"GET", "/ssh_keys/{id}", get((*tx).SSHKey, oneSSHKey)},
		{"PUT", "/ssh_keys/{id}", update("ssh_key", (*tx).UpdateSSHKey, oneSSHKey)},
		{"DELETE", "/ssh_keys/{id}", del((*tx).DeleteSSHKey)},

		// The catalogue (catalog.go), read only.
		{"GET", "/locations", catalogList(catalogLocations)},
		{"GET", "/locations/{id}", catalogGet(catalogLocations)},
		{"GET", "/datacenters", datacentersGone},
		{"GET", "/datacenters/{id}", datacentersGone},
		{"GET", "/server_types", catalogList(catalogServerTypes)},
		{"GET", "/server_types/{id}", catalogGet(catalogServerTypes)},
		{"GET", "/load_balancer_types", catalogList(catalogLBTypes)},
		{"GET", "/load_balancer_types/{id}", catalogGet(catalogLBTypes)},
		{"GET", "/images", catalogList(catalogImages)},
		{"GET", "/images/{id}", catalogGet(catalogImages)},
		{"PUT", "/images/{id}", update("image", (*tx).UpdateImage, oneImage)},
		{"DELETE", "/images/{id}", del((*tx).DeleteImage)},
		{"GET", "/images/actions", listActions("image")},
		{"GET", "/images/actions/{action}", getAction("image")},
		{"GET", "/images/{id}/actions", listResourceActions("image")},
		{"GET", "/images/{id}/actions/{action}", getResourceAction("image")},
		{"GET", "/isos", catalogList(catalogISOs)},
		{"GET", "/isos/{id}", catalogGet(catalogISOs)},
		{"GET", "/pricing", pricing},

		// Action listings of families fakecloud does not simulate: empty.
		{"GET", "/floating_ips/actions", listActions("floating_ip")},
		{"GET", "/floating_ips/actions/{action}", getAction("floating_ip")},
		{"GET", "/floating_ips/{id}/actions", listResourceActions("floating_ip")},
		{"GET", "/floating_ips/{id}/actions/{action}", getResourceAction("floating_ip")},
		{"GET", "/volumes/actions", listActions("volume")},
		{"GET", "/volumes/actions/{action}", getAction("volume")},
		{"GET", "/volumes/{id}/actions", listResourceActions("volume")},
		{"GET", "/volumes/{id}/actions/{action}", getResourceAction("volume")},
		{"GET", "/firewalls/actions", listActions("firewall")},
		{"GET", "/firewalls/actions/{action}", getAction("firewall")},
		{"GET", "/firewalls/{id}/actions", listResourceActions("firewall")},
		{"GET", "/firewalls/{id}/actions/{action}", getResourceAction("firewall")},
	}
}
