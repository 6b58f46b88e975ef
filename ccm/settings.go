package ccm

// setting documents one environment variable the CCM reads: its default,
// what it does, an example, and whether the official CCM reads it too.
// docs/reference/environment.md is generated from settings, and a test
// checks that the table names exactly the variables LoadConfig reads.
type setting struct {
	Name, Default, Meaning, Example string
	Own                             bool // this CCM's own; the official CCM does not read it
}

// settingGroup is a heading of the reference and the settings under it.
type settingGroup struct {
	title, intro string
	settings     []setting
}

// settings lists every environment variable the CCM reads, in groups.
var settings = []settingGroup{
	{title: "The API", settings: []setting{
		{Name: "HCLOUD_TOKEN", Default: "required", Example: "valueFrom: {secretKeyRef: {name: hcloud, key: token}}",
			Meaning: "API token of the project; a length other than 64 is a warning, as in the official CCM. The token never appears in a log line, an event or an error"},
		{Name: "HCLOUD_TOKEN_FILE", Default: "none", Example: "/etc/hcloud/token",
			Meaning: "file holding the token, read when HCLOUD_TOKEN is empty, and again every 10 s: a new token (a rotated Secret) is sent once the API takes it; one it refuses is not, the previous one goes on, with a Warning event CredentialsRejected on the CCM's Pod and a failing readiness check"},
		{Name: "HCLOUD_ENDPOINT", Default: defaultEndpoint, Example: "http://127.0.0.1:8080/v1",
			Meaning: "API base URL; fakecloud's for tests"},
		{Name: "HCLOUD_DEBUG", Default: "false", Example: "true",
			Meaning: "dump API requests and answers to stderr"},
	}},
	{title: "Network and routes", settings: []setting{
		{Name: "HCLOUD_NETWORK", Default: "none", Example: "cluster",
			Meaning: "network (ID or name) for InternalIPs, routes and load balancers"},
		{Name: "HCLOUD_NETWORK_ROUTES_ENABLED", Default: "true with a network", Example: "false",
			Meaning: "program pod CIDR routes into the network (a network holds at most 100)"},
		{Name: "HCLOUD_NETWORK_DISABLE_ATTACHED_CHECK", Default: "false", Example: "true",
			Meaning: "skip the start-up check that the server the CCM runs on is in HCLOUD_NETWORK (needed outside Hetzner Cloud servers)"},
		{Name: "HCLOUD_METADATA_ENDPOINT", Default: defaultMetadataEndpoint, Own: true,
			Example: "http://127.0.0.1:8080/metadata/control-plane-1/hetzner/v1/metadata",
			Meaning: "the metadata service the attached check asks; fakecloud serves one per server"},
	}},
	{title: "Nodes", settings: []setting{
		{Name: "HCLOUD_INSTANCES_ADDRESS_FAMILY", Default: AddressFamilyIPv4, Example: AddressFamilyDualStack,
			Meaning: "ipv4, ipv6 or dualstack: which public addresses become ExternalIPs"},
		{Name: "HCLOUD_INSTANCES_ZONE_LABEL_ENABLED", Default: "true", Example: "false",
			Meaning: "set the zone label (the location's legacy datacenter, e.g. fsn1-dc14)"},
		{Name: "HCLOUD_NODE_IPAM_IPV6_ENABLED", Default: "false", Example: "true", Own: true,
			Meaning: "give each cloud server's Node, once initialised, a pod range (spec.podCIDRs) from its server's IPv6 /64 when it has none; a range set before is never changed. For clusters that route IPv6 pods through each server's /64 without an overlay; networks, and so routes, carry no IPv6 ([IPv6 and dual-stack](../guides/ipv6.md))"},
		{Name: "HCLOUD_NODE_IPAM_IPV6_MASK_SIZE", Default: "80", Example: "112", Own: true,
			Meaning: "the prefix length of those pod ranges: 65 to 120; the range is the first of that size in the /64 that holds none of the Node's addresses"},
		{Name: "HCLOUD_NODE_IPAM_IPV4_CLUSTER_CIDR", Default: "none", Example: "10.244.0.0/16", Own: true,
			Meaning: "with HCLOUD_NODE_IPAM_IPV6_ENABLED, dual-stack pod ranges: each Node gets the lowest free IPv4 range of this CIDR first, then the IPv6 one, both at once; the CCM is then the Nodes' only allocator (kube-controller-manager with --allocate-node-cidrs=false)"},
		{Name: "HCLOUD_NODE_IPAM_IPV4_MASK_SIZE", Default: "24", Example: "25", Own: true,
			Meaning: "the prefix length of those IPv4 ranges: from the cluster CIDR's to 30, at most 65536 ranges"},
		{Name: "HCLOUD_INSTANCES_DELETE_UNMATCHED_NODES", Default: "false", Example: "true", Own: true,
			Meaning: "let the lifecycle delete a NotReady Node that has no provider ID and whose name no server (or dedicated server) has, as the official CCM does; by default such a Node (an edge node, another provider's) is kept, with a Warning event UnmatchedNodeKept"},
		{Name: "HCLOUD_INSTANCES_INTERNAL_IP_CIDRS", Default: "none", Example: "100.64.0.0/10,fd7a:115c:a1e0::/48", Own: true,
			Meaning: "your own networks (a WireGuard, Tailscale or Calico overlay), comma-separated: a kubelet's --node-ip in one becomes the Node's InternalIP, for cloud and dedicated servers, and the server's public addresses stay its ExternalIPs. A --node-ip that is neither the server's nor in them is refused (Warning event NodeIPNotOfServer, the Node stays uninitialised). A range of every address (/0) is refused. [Guide](../guides/overlay-node-ips.md)"},
		{Name: "HCLOUD_INSTANCES_LABELS_ENABLED", Default: "false", Example: "true", Own: true,
			Meaning: "keep every server label whose key has no prefix on the server's Node as `label.hcloud.hetzner.cloud/<key>`: a change shows within the inventory's bounds (HCLOUD_INVENTORY_MAX_AGE; from 101 servers, with the actions on, HCLOUD_INVENTORY_LISTING_MAX_AGE) and 10 s, a removed label goes; labels the CCM did not write are never touched. It sends no request. [Guide](../guides/server-labels.md)"},
		{Name: "HCLOUD_INSTANCES_LABELS_VERBATIM", Default: "none", Example: "hcloud/node-group", Own: true,
			Meaning: "server label keys kept on Nodes under their own name, comma-separated, such as the cluster-autoscaler's node group; with or without HCLOUD_INSTANCES_LABELS_ENABLED. Keys in Kubernetes' namespaces (kubernetes.io, k8s.io, but node-role.kubernetes.io and node-restriction.kubernetes.io) or the CCM's (hetzner.cloud) are refused at start"},
		{Name: "HCLOUD_INSTANCES_TAINTS_ENABLED", Default: "false", Example: "true", Own: true,
			Meaning: "make each server label `taint.<effect>/<name>=<value>` (effect noschedule, prefernoschedule or noexecute) the Node's taint `taint.hcloud.hetzner.cloud/<name>=<value>:<Effect>`, and take it off when the label goes; taints the CCM did not write are never touched"},
	}},
	{title: "Metrics and probes", settings: []setting{
		{Name: "HCLOUD_METRICS_ENABLED", Default: "true", Example: "false",
			Meaning: "serve Prometheus metrics on /metrics; the probes /healthz and /readyz are served either way"},
		{Name: "HCLOUD_METRICS_ADDRESS", Default: ":8233", Example: "127.0.0.1:8233",
			Meaning: "where metrics and probes are served; a busy address stops the CCM at start"},
	}},
	{title: "Server inventory and request budget",
		intro: "These replace the official CCM's HCLOUD_SERVER_CACHE_MODE and HCLOUD_SERVER_CACHE_MAX_AGE, which this CCM names in a warning at start. How they save requests is explained in [API economy](../explanation/api-economy.md).",
		settings: []setting{
			{Name: "HCLOUD_INVENTORY_MAX_AGE", Default: "5m", Example: "15m", Own: true,
				Meaning: "how old a server may be when it describes a node, and the network when it lists routes; 15m spends a third. From 1s to 24h"},
			{Name: "HCLOUD_INVENTORY_LIFECYCLE_MAX_AGE", Default: "1m", Example: "30s", Own: true,
				Meaning: "sets how often a NotReady node's server is read to decide whether it exists or is off: for the first HCLOUD_INVENTORY_MAX_AGE of NotReady, answers a twelfth of this old (5 s, so a read every other 5-second check and a deleted server's Node gone within about 10 s); later ones back off from this age to HCLOUD_INVENTORY_MAX_AGE (at most 60 requests in a NotReady hour). From 1s to 24h"},
			{Name: "HCLOUD_INVENTORY_ACTIONS_ENABLED", Default: "true", Example: "false", Own: true,
				Meaning: "from 101 servers on, tell changed servers by reading GET /servers/actions and GET /primary_ips/actions (two requests) instead of listing every server when entries grow old; false for an API proxy that does not pass actions"},
			{Name: "HCLOUD_INVENTORY_LISTING_MAX_AGE", Default: "1h", Example: "30m", Own: true,
				Meaning: "with the actions on, a full listing still comes every 6 minutes a page of servers (at least 15 min), at most this long apart, to catch changes that leave no action (a rename, labels); it bounds how late those show on Nodes. From 1s to 24h"},
			{Name: "HCLOUD_BUDGET_RESERVE", Default: "200", Example: "500", Own: true,
				Meaning: "requests of the rate limit kept for node initialisation; background work waits below it. From 0 to 3599"},
		}},
	{title: "Load balancer defaults",
		intro: "Defaults for the [Service annotations](annotations.md); an annotation wins over its variable.",
		settings: []setting{
			{Name: "HCLOUD_LOAD_BALANCERS_ENABLED", Default: "true", Example: "false", Meaning: "false turns the service controller's provider off"},
			{Name: "HCLOUD_LOAD_BALANCERS_CLASS", Default: "hetzner.cloud/load-balancer", Example: "example.com/hcloud", Own: true,
				Meaning: "the spec.loadBalancerClass whose Services get a Hetzner load balancer; Services of another class are left to their controller"},
			{Name: "HCLOUD_LOAD_BALANCERS_SERVE_WITHOUT_CLASS", Default: "true", Example: "false", Own: true,
				Meaning: "serve Services without a loadBalancerClass too, as the official CCM does; false leaves them to another implementation (MetalLB, Cilium) and serves only the class"},
			{Name: "HCLOUD_LOAD_BALANCERS_LOCATION", Default: "none", Example: "nbg1", Meaning: "location of new load balancers; set this or the network zone, not both"},
			{Name: "HCLOUD_LOAD_BALANCERS_NETWORK_ZONE", Default: "none", Example: "eu-central", Meaning: "network zone of new load balancers"},
			{Name: "HCLOUD_LOAD_BALANCERS_TYPE", Default: "lb11", Example: "lb21", Meaning: "load balancer type; only upgrades are applied"},
			{Name: "HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE", Default: "API default", Example: "least_connections", Meaning: "round_robin or least_connections"},
			{Name: "HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS", Default: "false", Example: "true", Meaning: "leave the private IPs out of the Service's status"},
			{Name: "HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP", Default: "false", Example: "true", Meaning: "reach targets on their private IP in HCLOUD_NETWORK"},
			{Name: "HCLOUD_LOAD_BALANCERS_TARGET_ADDRESS_FAMILY", Default: "ipv4", Example: "dualstack", Own: true,
				Meaning: "ipv4, ipv6 or dualstack: whether each Node is a target on its server's public IPv4, on the Node's IPv6 ExternalIP, or on both; public targets only ([IPv6 and dual-stack](../guides/ipv6.md))"},
			{Name: "HCLOUD_LOAD_BALANCERS_DISABLE_IPV6", Default: "false", Example: "true", Meaning: "leave the IPv6 address out of the Service's status"},
			{Name: "HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK", Default: "unset", Example: "true", Meaning: "turn the public interface off; needs use-private-ip"},
			{Name: "HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL", Default: "unset (false)", Example: "true", Meaning: "send the PROXY protocol to targets"},
			{Name: "HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE", Default: "none", Example: "10.0.1.0/24", Meaning: "the subnet of HCLOUD_NETWORK the load balancer's private IP comes from"},
			{Name: "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL", Default: "API default", Example: "10s", Meaning: "health check interval: whole seconds from 3s to 1m, as the annotation"},
			{Name: "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT", Default: "API default", Example: "5s", Meaning: "health check timeout: whole seconds from 1s to 1m, as the annotation"},
			{Name: "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES", Default: "API default", Example: "3", Meaning: "health check retries: 1 to 5, as the annotation"},
			{Name: "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_KUBE_PROXY", Default: "false", Example: "true", Meaning: "check kube-proxy's /healthz (port 10256) for Services with externalTrafficPolicy Cluster, so draining nodes stop taking new connections; the annotation overrides it"},
			{Name: "HCLOUD_LOAD_BALANCERS_TARGET_HEALTH_INTERVAL", Default: "5m", Example: "1m", Own: true,
				Meaning: "how often the targets' health is read for each Service's condition load-balancer.hetzner.cloud/TargetsHealthy, its events and the health metrics: the listing of the labelled load balancers the syncs share (one request per 50 load balancers, only while a load balancer Service exists). 0 turns it off; else from 1s to 24h. See the [target health guide](../guides/load-balancer-health.md)"},
			{Name: "HCLOUD_LOAD_BALANCERS_TRAFFIC_METRICS_REQUESTS", Default: "0 (off)", Example: "60", Own: true,
				Meaning: "requests an hour the traffic metrics (open connections, connections and requests a second, bandwidth) may spend on GET /load_balancers/{id}/metrics: one request a load balancer, the one read longest ago, none more often than once a minute, through the request budget. From 0 to 900"},
		}},
	{title: "Dedicated servers (Robot)",
		intro: "How dedicated servers' Nodes are served is in the [dedicated servers guide](../guides/dedicated-servers.md).",
		settings: []setting{
			{Name: "ROBOT_ENABLED", Default: "false", Example: "true",
				Meaning: "serve dedicated servers' Nodes; a value Go's strconv.ParseBool refuses stops the CCM"},
			{Name: "ROBOT_USER", Default: "none", Example: "#ws+aBcDeF12",
				Meaning: "the webservice user (no colon: basic authentication cannot send one); the chart reads it from the Secret hcloud, key robot-user. Set it and ROBOT_PASSWORD, or neither: then dedicated Nodes are only load balancer targets, by their InternalIP, as in the official CCM"},
			{Name: "ROBOT_PASSWORD", Default: "none", Example: "valueFrom: {secretKeyRef: {name: hcloud, key: robot-password}}",
				Meaning: "its password"},
			{Name: "ROBOT_USER_FILE", Default: "none", Example: "/etc/robot/user",
				Meaning: "file holding the user, read when ROBOT_USER is empty, and again every 10 s with the password, as HCLOUD_TOKEN_FILE"},
			{Name: "ROBOT_PASSWORD_FILE", Default: "none", Example: "/etc/robot/password",
				Meaning: "file holding the password, read when ROBOT_PASSWORD is empty, and again every 10 s: new credentials are sent once the webservice takes them (one request to GET /server)"},
			{Name: "ROBOT_CACHE_TIMEOUT", Default: "5m (also for 0)", Example: "10m",
				Meaning: "how old the shared server listing may be; from 1s to 24h"},
			{Name: "ROBOT_RATE_LIMIT_WAIT_TIME", Default: "5m (also for 0)", Example: "20m",
				Meaning: "how long nothing is sent after the webservice answered RATE_LIMIT_EXCEEDED. The official CCM does not wait by default; here 0 means the default, as an unset variable does. From 1s to 24h"},
			{Name: "ROBOT_FORWARD_INTERNAL_IPS", Default: "true", Example: "false",
				Meaning: "keep the InternalIPs the kubelet reports on a dedicated Node (a vSwitch address)"},
			{Name: "ROBOT_ENDPOINT", Default: "https://robot-ws.your-server.de", Example: "http://127.0.0.1:8080/robot", Own: true,
				Meaning: "the webservice's base URL; fakecloud's for tests"},
		}},
	{title: "Rollout guard",
		intro: "Read by the command, not the provider: see [upgrades and rollbacks](../guides/upgrades-and-rollbacks.md). The chart and the manifests set both for a Deployment; without either the guard is off.",
		settings: []setting{
			{Name: "POD_NAME", Default: "none", Example: "valueFrom: {fieldRef: {fieldPath: metadata.name}}", Own: true,
				Meaning: "the name of the CCM's pod"},
			{Name: "POD_NAMESPACE", Default: "none", Example: "valueFrom: {fieldRef: {fieldPath: metadata.namespace}}", Own: true,
				Meaning: "the namespace of the CCM's pod"},
		}},
}

// readByTheCommand are settings cmd/ccm reads itself rather than LoadConfig.
var readByTheCommand = map[string]bool{"POD_NAME": true, "POD_NAMESPACE": true}
