package world

// Commands are the commands of the actions fakecloud records, sorted: an
// action fault may name only these (or *). TestCommandsListed holds the
// list to the commands the operations start.
var Commands = []string{
	"add_route", "add_service", "add_subnet", "add_target", "assign_primary_ip", "attach_iso", "attach_to_network",
	"change_algorithm", "change_alias_ips", "change_dns_ptr", "change_ip_range", "change_load_balancer_type", "change_protection",
	"change_server_type", "create_certificate", "create_image", "create_load_balancer", "create_server",
	"delete_load_balancer", "delete_route", "delete_server", "delete_service", "delete_subnet",
	"detach_from_network", "detach_iso", "disable_backup", "disable_public_interface", "disable_rescue", "enable_backup",
	"enable_public_interface", "enable_rescue", "reboot_server", "remove_target", "reset_server",
	"shutdown_server", "start_server", "stop_server", "unassign_primary_ip", "update_service",
}
