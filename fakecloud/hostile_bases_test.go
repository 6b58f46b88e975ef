package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// hostileAdminToken is the admin token of the hostile tests' fakecloud.
const hostileAdminToken = "hostile-admin"

// hostileOptions: a bucket no run empties (a 429 would hide what a
// request gets), a read-only token, and the admin token when asked for.
func hostileOptions(adminToken string) Options {
	return Options{Now: newClock().Now, RateLimit: 1 << 30, ReadOnlyTokens: []string{"viewer"}, AdminToken: adminToken}
}

// hostileSeed is the world the generated requests start from: small (an
// export per request is much of the suite's time) and holding what the
// valid requests need: two networks, a route and an empty subnet, a
// running server and one powered off in a placement group, a load
// balancer in a network with a service and a target, one in no network,
// a certificate and an SSH key, and a dedicated server.
const hostileSeed = `
ssh_keys: [{name: key, public_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl x"}]
certificates: [{name: cert, type: managed, domain_names: [example.com]}]
networks:
  - name: cluster
    ip_range: 10.0.0.0/16
    subnets:
      - {type: cloud, ip_range: 10.0.0.0/24, network_zone: eu-central}
      - {type: cloud, ip_range: 10.0.9.0/24, network_zone: eu-central}
    routes: [{destination: 10.100.0.0/24, gateway: 10.0.0.10}]
  - name: spare
    ip_range: 10.1.0.0/16
    subnets: [{type: cloud, ip_range: 10.1.0.0/24, network_zone: eu-central}]
servers:
  - {name: control-plane-1, labels: {role: control-plane}, networks: [{network: cluster, ip: 10.0.0.2}]}
  - {name: worker-1, server_type: cx33, status: "off", labels: {role: worker}, networks: [{network: cluster}], placement_group: spread-1}
  - {name: bare-1, status: "off", public_ipv4: false}
primary_ips: [{name: spare-ipv4, type: ipv4}]
placement_groups: [{name: spread-1, labels: {role: worker}}]
floating_ips: [{name: vip, type: ipv4, server: control-plane-1, labels: {role: ingress}}]
firewalls:
  - name: edge
    rules: [{direction: in, protocol: tcp, port: "6443", source_ips: [10.0.0.0/16]}]
    servers: [control-plane-1]
    label_selectors: [role=worker]
  - {name: spare-fw}
volumes:
  - {name: etcd, size: 20, server: control-plane-1, format: ext4}
  - {name: spare-vol, size: 10, labels: {pool: spare}}
load_balancers:
  - name: ingress
    location: fsn1
    network: cluster
    services: [{protocol: tcp, listen_port: 80, destination_port: 30080}]
    targets: [{label_selector: role=worker}]
  - {name: lb-free, location: fsn1}
dedicated_servers: [{server_name: bm-1, server_number: 321, server_ip: 192.0.2.10}]
zones:
  - {name: example.com, rrsets: [{name: www, type: A, records: [{value: 201.42.91.35}]}]}
  - {name: example.org, mode: secondary, primary_nameservers: [{address: 201.34.67.42}]}
`

// hostileWorld is a fakecloud seeded with hostileSeed, the same world
// every time: a stopped clock and seeded IDs.
func hostileWorld(t testing.TB, adminToken string) *Server {
	t.Helper()
	fc := New(hostileOptions(adminToken))
	if err := fc.Seed(hostileSeedWorld(t)); err != nil {
		t.Fatal(err)
	}
	// A snapshot of worker-1, which seeds do not make.
	path := "/v1/servers/" + worldRefs(t, fc)["{server_off}"] + "/actions/create_image"
	if rec := answer(t, fc, "POST", path, strings.NewReader(`{"description":"base"}`)); rec.Code != http.StatusCreated {
		t.Fatalf("snapshot of worker-1: %d %s", rec.Code, rec.Body)
	}
	return fc
}

func hostileSeedWorld(t testing.TB) World {
	w, err := ParseWorld([]byte(hostileSeed))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// worldRefs are the values the valid requests name, by placeholder.
func worldRefs(t testing.TB, fc *Server) map[string]string {
	var st world.Snapshot
	if err := json.Unmarshal([]byte(export(t, fc)), &st); err != nil {
		t.Fatal(err)
	}
	refs := map[string]string{
		"{network}": fmt.Sprint(st.Networks[0].ID), "{spare}": fmt.Sprint(st.Networks[1].ID),
		"{lb}": fmt.Sprint(st.LoadBalancers[0].ID), "{lb_ipv4}": st.LoadBalancers[0].PublicNet.IPv4.IP,
		"{cert}": fmt.Sprint(st.Certificates[0].ID), "{action}": fmt.Sprint(st.Actions[0].ID),
	}
	for _, lb := range st.LoadBalancers {
		refs["{"+strings.ReplaceAll(lb.Name, "-", "_")+"}"] = fmt.Sprint(lb.ID)
	}
	for _, s := range st.Servers {
		switch s.Name {
		case "control-plane-1":
			refs["{server}"], refs["{server_ipv4}"] = fmt.Sprint(s.ID), s.PublicNet.IPv4.IP
		case "worker-1":
			refs["{server_off}"] = fmt.Sprint(s.ID)
		case "bare-1":
			refs["{server_bare}"] = fmt.Sprint(s.ID)
		}
	}
	for _, im := range st.Images {
		refs["{image}"] = fmt.Sprint(im.ID)
	}
	refs["{pg}"] = fmt.Sprint(owned(t, st, "placement_group", 1)[0].ID)
	fips := owned(t, st, "floating_ip", 1)
	refs["{fip}"], refs["{fip_ip}"] = fmt.Sprint(fips[0].ID), fips[0].IP
	for prefix, kind := range map[string]string{"fw": "firewall", "vol": "volume"} {
		for _, r := range owned(t, st, kind, 2) {
			refs["{"+prefix+"_"+strings.ReplaceAll(r.Name, "-", "_")+"}"] = fmt.Sprint(r.ID)
		}
	}
	zones := owned(t, st, "zone", 2)
	refs["{zone}"], refs["{zone_secondary}"] = fmt.Sprint(zones[0].ID), fmt.Sprint(zones[1].ID)
	for _, p := range st.PrimaryIPs {
		if p.Name == "spare-ipv4" {
			refs["{pip_free}"], refs["{pip_free_ip}"] = fmt.Sprint(p.ID), p.IP
		}
	}
	return refs
}

// ownedResource is what the valid requests name of a resource of a kind
// the registry keeps.
type ownedResource struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	IP   string `json:"ip"`
}

// owned reads a kind's resources from an export's kinds; there must be
// want of them.
func owned(t testing.TB, st world.Snapshot, kind string, want int) []ownedResource {
	t.Helper()
	var out []ownedResource
	if err := json.Unmarshal(st.Kinds[kind], &out); err != nil || len(out) != want {
		t.Fatalf("the seed's %s resources in the export: %v %s, want %d", kind, err, st.Kinds[kind], want)
	}
	return out
}

// validRequest is a request fakecloud must accept in hostileWorld: the
// base the generated cases mutate. id fills the path's {id} (params
// every parameter of the path, in order, where there are several),
// query is added to it; all and the body may name worldRefs.
type validRequest struct {
	id, query, body string
	params          []string
}

// validRequests are keyed by method and the description's path. An
// operation with a request body that fakecloud serves must have one.
var validRequests = map[string]validRequest{
	"GET /actions": {query: "id={action}"},

	"POST /certificates":     {body: `{"name":"cert-2","type":"managed","domain_names":["example.org","www.example.org"],"labels":{"env":"prod"}}`},
	"PUT /certificates/{id}": {body: `{"name":"cert-renamed","labels":{"env":"prod"}}`},

	"POST /load_balancers": {body: `{"name":"lb-2","load_balancer_type":"lb11","location":"fsn1","network":{network},"public_interface":true,
		"labels":{"env":"prod"},"algorithm":{"type":"round_robin"},
		"services":[{"protocol":"tcp","listen_port":8080,"destination_port":80,"proxyprotocol":false,
			"health_check":{"protocol":"tcp","port":80,"interval":15,"timeout":10,"retries":3}}],
		"targets":[{"type":"server","server":{"id":{server}},"use_private_ip":true}]}`}, // add_service and add_target go deeper
	"PUT /load_balancers/{id}": {body: `{"name":"lb-renamed","labels":{"env":"prod"}}`},
	"POST /load_balancers/{id}/actions/add_service": {body: `{"protocol":"https","listen_port":443,"destination_port":80,"proxyprotocol":false,
		"http":{"certificates":[{cert}],"redirect_http":false,"sticky_sessions":true,"cookie_name":"C","cookie_lifetime":300},
		"health_check":{"protocol":"tcp","port":80,"interval":15,"timeout":10,"retries":3}}`},
	"POST /load_balancers/{id}/actions/update_service": {body: `{"listen_port":80,"destination_port":30081,"protocol":"tcp","proxyprotocol":true,
		"health_check":{"protocol":"tcp","port":30081,"interval":10,"timeout":5,"retries":2}}`},
	"POST /load_balancers/{id}/actions/delete_service":      {body: `{"listen_port":80}`},
	"POST /load_balancers/{id}/actions/add_target":          {body: `{"type":"server","server":{"id":{server}},"use_private_ip":true}`},
	"POST /load_balancers/{id}/actions/remove_target":       {body: `{"type":"label_selector","label_selector":{"selector":"role=worker"}}`},
	"POST /load_balancers/{id}/actions/attach_to_network":   {id: "{lb_free}", body: `{"network":{spare},"ip":"10.1.0.5"}`},
	"POST /load_balancers/{id}/actions/detach_from_network": {body: `{"network":{network}}`},
	"POST /load_balancers/{id}/actions/change_algorithm":    {body: `{"type":"least_connections"}`},
	"POST /load_balancers/{id}/actions/change_dns_ptr":      {body: `{"ip":"{lb_ipv4}","dns_ptr":"lb.example.com"}`},
	"POST /load_balancers/{id}/actions/change_protection":   {body: `{"delete":true}`},
	"POST /load_balancers/{id}/actions/change_type":         {body: `{"load_balancer_type":"lb21"}`},

	"POST /networks": {body: `{"name":"net-2","ip_range":"10.8.0.0/16","labels":{"env":"prod"},"expose_routes_to_vswitch":false,
		"subnets":[{"type":"cloud","ip_range":"10.8.0.0/24","network_zone":"eu-central"}],"routes":[{"destination":"10.9.0.0/16","gateway":"10.8.0.2"}]}`},
	"PUT /networks/{id}":                            {body: `{"name":"net-renamed","labels":{"env":"prod"},"expose_routes_to_vswitch":false}`},
	"POST /networks/{id}/actions/add_route":         {body: `{"destination":"10.100.1.0/24","gateway":"10.0.0.11"}`},
	"POST /networks/{id}/actions/delete_route":      {body: `{"destination":"10.100.0.0/24","gateway":"10.0.0.10"}`},
	"POST /networks/{id}/actions/add_subnet":        {body: `{"type":"cloud","ip_range":"10.0.1.0/24","network_zone":"eu-central"}`},
	"POST /networks/{id}/actions/delete_subnet":     {body: `{"ip_range":"10.0.9.0/24"}`},
	"POST /networks/{id}/actions/change_ip_range":   {body: `{"ip_range":"10.0.0.0/15"}`},
	"POST /networks/{id}/actions/change_protection": {body: `{"delete":true}`},

	"POST /servers": {body: `{"name":"srv-2","server_type":"cx23","image":"ubuntu-24.04","location":"fsn1","networks":[{network}],
		"labels":{"env":"prod"},"start_after_create":true,"user_data":"#cloud-config\n","automount":false,
		"public_net":{"enable_ipv4":true,"enable_ipv6":true}}`},
	"PUT /servers/{id}":                              {body: `{"name":"srv-renamed","labels":{"env":"prod"}}`},
	"POST /servers/{id}/actions/attach_to_network":   {body: `{"network":{spare},"ip":"10.1.0.6","alias_ips":["10.1.0.7"]}`},
	"POST /servers/{id}/actions/detach_from_network": {body: `{"network":{network}}`},
	"POST /servers/{id}/actions/attach_iso":          {body: `{"iso":"8637"}`},
	"POST /servers/{id}/actions/change_alias_ips":    {body: `{"network":{network},"alias_ips":["10.0.0.20","10.0.0.21"]}`},
	"POST /servers/{id}/actions/change_dns_ptr":      {body: `{"ip":"{server_ipv4}","dns_ptr":"srv.example.com"}`},
	"POST /servers/{id}/actions/change_protection":   {body: `{"delete":true,"rebuild":true}`},
	"POST /servers/{id}/actions/change_type":         {id: "{server_off}", body: `{"server_type":"cx43","upgrade_disk":false}`},
	"POST /servers/{id}/actions/create_image":        {id: "{server_off}", body: `{"description":"nightly","type":"snapshot","labels":{"env":"prod"}}`},
	"PUT /images/{id}":                               {id: "{image}", body: `{"description":"renamed","labels":{"env":"prod"}}`},

	"POST /primary_ips":                                {body: `{"name":"pip-2","type":"ipv4","location":"fsn1","labels":{"env":"prod"},"auto_delete":false}`},
	"POST /primary_ips/{id}/actions/assign":            {id: "{pip_free}", body: `{"assignee_type":"server","assignee_id":{server_bare}}`},
	"PUT /primary_ips/{id}":                            {id: "{pip_free}", body: `{"name":"pip-renamed","labels":{"env":"prod"},"auto_delete":true}`},
	"POST /primary_ips/{id}/actions/change_protection": {id: "{pip_free}", body: `{"delete":true}`},
	"POST /servers/{id}/actions/enable_rescue":         {id: "{server_off}", body: `{"type":"linux64"}`},
	"POST /primary_ips/{id}/actions/change_dns_ptr":    {id: "{pip_free}", body: `{"ip":"{pip_free_ip}","dns_ptr":"spare.example.com"}`},

	"POST /ssh_keys":                                         {body: `{"name":"key-2","public_key":"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDlRNrF3U6ZSu1AszStn8856LzzPgRk8nsuDkfvaUFgo x","labels":{"env":"prod"}}`},
	"POST /floating_ips":                                     {body: `{"type":"ipv4","home_location":"fsn1","name":"fip-2","description":"spare","labels":{"env":"prod"}}`},
	"PUT /floating_ips/{id}":                                 {id: "{fip}", body: `{"name":"vip-renamed","description":"ingress","labels":{"env":"prod"}}`},
	"POST /floating_ips/{id}/actions/assign":                 {id: "{fip}", body: `{"server":{server_off}}`},
	"POST /floating_ips/{id}/actions/change_dns_ptr":         {id: "{fip}", body: `{"ip":"{fip_ip}","dns_ptr":"vip.example.com"}`},
	"POST /floating_ips/{id}/actions/change_protection":      {id: "{fip}", body: `{"delete":true}`},
	"POST /servers/{id}/actions/rebuild":                     {id: "{server_off}", body: `{"image":"ubuntu-24.04","user_data":"#cloud-config"}`},
	"POST /images/{id}/actions/change_protection":            {id: "{image}", body: `{"delete":true}`},
	"POST /firewalls":                                        {body: `{"name":"fw-2","labels":{"env":"prod"},"rules":[{"direction":"out","protocol":"udp","port":"53","destination_ips":["0.0.0.0/0","::/0"],"description":"dns"}],"apply_to":[{"type":"label_selector","label_selector":{"selector":"role=control-plane"}}]}`},
	"PUT /firewalls/{id}":                                    {id: "{fw_edge}", body: `{"name":"edge-2","labels":{"env":"prod"}}`},
	"POST /firewalls/{id}/actions/set_rules":                 {id: "{fw_edge}", body: `{"rules":[{"direction":"in","protocol":"icmp","source_ips":["0.0.0.0/0"]}]}`},
	"POST /firewalls/{id}/actions/apply_to_resources":        {id: "{fw_spare_fw}", body: `{"apply_to":[{"type":"server","server":{"id":{server}}}]}`},
	"POST /firewalls/{id}/actions/remove_from_resources":     {id: "{fw_edge}", body: `{"remove_from":[{"type":"server","server":{"id":{server}}}]}`},
	"POST /volumes":                                          {body: `{"name":"vol-2","size":10,"location":"fsn1","labels":{"env":"prod"},"format":"xfs"}`},
	"PUT /volumes/{id}":                                      {id: "{vol_etcd}", body: `{"name":"etcd-2","labels":{"env":"prod"}}`},
	"POST /volumes/{id}/actions/attach":                      {id: "{vol_spare_vol}", body: `{"server":{server_off},"automount":false}`},
	"POST /volumes/{id}/actions/resize":                      {id: "{vol_etcd}", body: `{"size":30}`},
	"POST /volumes/{id}/actions/change_protection":           {id: "{vol_etcd}", body: `{"delete":true}`},
	"POST /placement_groups":                                 {body: `{"name":"pg-2","type":"spread","labels":{"env":"prod"}}`},
	"PUT /placement_groups/{id}":                             {id: "{pg}", body: `{"name":"pg-renamed","labels":{"env":"prod"}}`},
	"POST /servers/{id}/actions/add_to_placement_group":      {id: "{server_bare}", body: `{"placement_group":{pg}}`},
	"POST /servers/{id}/actions/remove_from_placement_group": {id: "{server_off}"},

	"POST /zones":             {body: `{"name":"example.net","mode":"primary","ttl":600,"labels":{"env":"prod"},"rrsets":[{"name":"www","type":"A","records":[{"value":"201.42.91.35","comment":"web"}]}]}`},
	"PUT /zones/{id_or_name}": {id: "{zone}", body: `{"labels":{"env":"prod"}}`},
	"POST /zones/{id_or_name}/actions/change_protection":                            {id: "{zone}", body: `{"delete":true}`},
	"POST /zones/{id_or_name}/actions/change_ttl":                                   {id: "{zone}", body: `{"ttl":600}`},
	"POST /zones/{id_or_name}/actions/change_primary_nameservers":                   {id: "{zone_secondary}", body: `{"primary_nameservers":[{"address":"201.34.67.44","port":53}]}`},
	"POST /zones/{id_or_name}/actions/import_zonefile":                              {id: "{zone}", body: `{"zonefile":"$ORIGIN example.com.\n$TTL 3600\n@ IN SOA hydrogen.ns.hetzner.com. dns.hetzner.com. 1 86400 10800 3600000 3600\n@ IN NS hydrogen.ns.hetzner.com.\n@ IN NS oxygen.ns.hetzner.com.\n@ IN NS helium.ns.hetzner.de.\nwww IN A 201.42.91.36\n"}`},
	"POST /zones/{id_or_name}/rrsets":                                               {id: "{zone}", body: `{"name":"mail","type":"MX","ttl":600,"labels":{"env":"prod"},"records":[{"value":"10 mx.example.com.","comment":"mail"}]}`},
	"GET /zones/{id_or_name}/rrsets/{rr_name}/{rr_type}":                            {params: []string{"{zone}", "www", "A"}},
	"DELETE /zones/{id_or_name}/rrsets/{rr_name}/{rr_type}":                         {params: []string{"{zone}", "www", "A"}},
	"PUT /zones/{id_or_name}/rrsets/{rr_name}/{rr_type}":                            {params: []string{"{zone}", "www", "A"}, body: `{"labels":{"env":"prod"}}`},
	"POST /zones/{id_or_name}/rrsets/{rr_name}/{rr_type}/actions/change_protection": {params: []string{"{zone}", "www", "A"}, body: `{"change":true}`},
	"POST /zones/{id_or_name}/rrsets/{rr_name}/{rr_type}/actions/change_ttl":        {params: []string{"{zone}", "www", "A"}, body: `{"ttl":600}`},
	"POST /zones/{id_or_name}/rrsets/{rr_name}/{rr_type}/actions/set_records":       {params: []string{"{zone}", "www", "A"}, body: `{"records":[{"value":"201.42.91.40","comment":"new"}]}`},
	"POST /zones/{id_or_name}/rrsets/{rr_name}/{rr_type}/actions/add_records":       {params: []string{"{zone}", "www", "A"}, body: `{"records":[{"value":"201.42.91.41"}],"ttl":600}`},
	"POST /zones/{id_or_name}/rrsets/{rr_name}/{rr_type}/actions/remove_records":    {params: []string{"{zone}", "www", "A"}, body: `{"records":[{"value":"201.42.91.35"}]}`},
	"POST /zones/{id_or_name}/rrsets/{rr_name}/{rr_type}/actions/update_records":    {params: []string{"{zone}", "www", "A"}, body: `{"records":[{"value":"201.42.91.35","comment":"c"}]}`},

	"PUT /ssh_keys/{id}": {body: `{"name":"key-renamed","labels":{"env":"prod"}}`},
}

// alsoValid are more requests fakecloud must accept in hostileWorld,
// for what the bases leave out.
var alsoValid = []struct{ op, body string }{
	{"POST /servers", `{"name":"srv-3","server_type":"cx23","image":"ubuntu-24.04","ssh_keys":["key"]}`}, // by name, a string as the description has it
}

// filled replaces the placeholders of s.
func filled(s string, refs map[string]string) string {
	for k, v := range refs {
		s = strings.ReplaceAll(s, k, v)
	}
	return s
}
