package apierr

// known are the error codes a client of the API can meet: every code
// in the OpenAPI description's error tables, every ErrorCode that
// hcloud-go v2.52 names, and fakecloud's own request_too_large,
// target_not_found and action_failed, and limit_exceeded_error, which
// the CSI driver meets on a server's seventeenth volume. A fault rule or action fault must
// use one of them, so a scripted failure is one a real client can see;
// TestKnownCodes keeps the table in step with the vendored description.
var known = map[string]bool{
	"action_failed": true, "already_in_placement_group": true, "bad_gateway": true,
	"ca_dns_validation_failed": true, "ca_too_many_authorizations_failed_recently": true,
	"ca_too_many_certificates_issued_for_registered_domain": true, "ca_too_many_duplicate_certificates": true,
	"caa_record_does_not_allow_ca": true, "cloud_resource_ip_not_allowed": true, "conflict": true,
	"could_not_verify_domain_delegated_to_zone": true, "deprecated_api_endpoint": true,
	"dns_zone_is_secondary_zone": true, "dns_zone_not_found": true, "firewall_already_applied": true,
	"firewall_already_removed": true, "firewall_managed_by_label_selector": true,
	"firewall_resource_not_found": true, "floating_ip_assigned": true, "forbidden": true,
	"incompatible_network_type": true, "incorrect_zone_mode": true, "invalid_input": true,
	"invalid_load_balancer_type": true, "invalid_server_type": true, "ip_not_assigned_to_server": true,
	"ip_not_available": true, "ip_not_in_vswitch_subnet": true, "ip_not_owned": true, "json_error": true, "limit_exceeded_error": true,
	"load_balancer_already_attached": true, "load_balancer_not_attached_to_network": true,
	"load_balancer_public_interface_disabled": true, "locked": true, "maintenance": true,
	"method_not_allowed": true, "must_be_unassigned": true, "network_has_no_vswitch_subnet": true,
	"networks_overlap": true, "no_space_left_in_location": true, "no_subnet_available": true, "not_found": true,
	"placement_error": true, "placement_group_member_limit_reached": true, "primary_ip_already_assigned": true, "primary_ip_assigned": true,
	"primary_ip_datacenter_mismatch": true, "primary_ip_version_mismatch": true,
	"private_net_only_server": true, "protected": true, "rate_limit_exceeded": true, "request_too_large": true,
	"resolve_cloud_private_targets_error": true, "resolve_cloud_public_targets_error": true,
	"resource_in_use": true, "resource_limit_exceeded": true, "resource_locked": true,
	"resource_unavailable": true, "robot_unavailable": true, "server_already_added": true,
	"server_already_attached": true, "server_error": true, "server_is_load_balancer_target": true,
	"server_not_attached_to_network": true, "server_not_stopped": true, "service_error": true,
	"source_port_already_used": true, "target_already_defined": true, "target_not_found": true,
	"targets_without_use_private_ip": true, "timeout": true, "token_readonly": true, "unauthorized": true,
	"unavailable": true, "uniqueness_error": true, "unknown_error": true, "unsupported_error": true,
	"volume_already_attached": true, "vswitch_id_already_used": true,
}

// Known reports whether a client of the API can meet code.
func Known(code string) bool { return known[code] }
