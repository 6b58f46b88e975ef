package doctor

// checkDoc says what one check looks at; docs/reference/doctor-checks.md
// is generated from checks, in the order findings are reported, and a
// test fails when a finding's check is missing here or one here is never
// reported.
type checkDoc struct{ names, looksAt string }

var checks = []checkDoc{
	{"config", "`HCLOUD_*` and `ROBOT_*` settings the CCM warns about (unknown names, a token of the wrong length)"},
	{"token", "the token is valid (the listings succeed) and may write: a power-on of server ID 2^53-1, which no project has, answers 403 `forbidden` to a read-only token and 404 `not_found` to one that may write, changing nothing"},
	{"kubernetes", "the kubeconfig's user may list Nodes and Services; without them nothing else about the cluster is checked"},
	{"ccm rbac lease", "the CCM's Deployment or DaemonSet in `--namespace` (found by name or `--cloud-provider=hcloud`) has its replicas ready, the Secrets its environment reads exist with their keys, its ServiceAccount exists and a ClusterRoleBinding binds it to an existing ClusterRole (a binding to `cluster-admin`, as the official manifests' up to v1.27, is a warning with the `kubectl delete` that removes it); the leader Lease (`--leader-elect-resource-name`/`-namespace` of its arguments, default `kube-system/cloud-controller-manager`) is held and renewed within its duration"},
	{"robot", "with `ROBOT_ENABLED=true`: the Robot login (one `GET /server`; a refused one is a FAIL, and counts toward the webservice's block of this IP after three), that the server of every dedicated Node (`hrobot://`, `hcloud://bm-`) exists, and the share of the webservice user's 200 `GET /server` an hour the CCM's listing takes at `ROBOT_CACHE_TIMEOUT` (a WARN above half; the webservice does not say how many are left). Without it, a dedicated Node is a FAIL. The login comes from `ROBOT_USER`/`ROBOT_PASSWORD`, the CCM's Deployment, or the Secret's `robot-user`/`robot-password`"},
	{"node", "every Node maps to exactly one server, by provider ID (`hcloud://<id>`) or by name; a server whose name differs only in case or a domain suffix (`node1.example.com` and `node1`) is named with the fix"},
	{"node-ip", "the kubelet's `--node-ip` (annotation `alpha.kubernetes.io/provided-node-ip`) is one of the addresses the CCM reports for the server (FAIL: the Node is never initialised), and the Node's InternalIP and ExternalIP addresses are the server's (public IPv4, its IPv6 /64, private IPs)"},
	{"taint", "a Node that still has `node.cloudprovider.kubernetes.io/uninitialized`, and why: no server, a wrong `--node-ip`, the CCM not running; WARN for its first two minutes"},
	{"kubelet", "a Node with neither the taint nor a provider ID: its kubelet runs without `--cloud-provider=external`"},
	{"network cluster-cidr route", "with `HCLOUD_NETWORK`: the network exists and every Node's server is attached; with routes on (`HCLOUD_NETWORK_ROUTES_ENABLED`), the cluster CIDR lies in its IP range and overlaps no subnet, routes used of the limit of 100 (WARN from 90, FAIL when more Nodes need one), routes whose gateway is no Node's IP, Nodes whose pod CIDR has no route"},
	{"service", "every `type: LoadBalancer` Service the CCM serves (its `loadBalancerClass`, or none unless `HCLOUD_LOAD_BALANCERS_SERVE_WITHOUT_CLASS=false`): its `load-balancer.hetzner.cloud/*` annotations, read by the controller's own parser (per-port ones included); the load balancer type, location and network zone exist, the zone is the network's, the `http-certificates` exist by name or ID, the Primary IPs of `public-net-ipv4` and `-ipv6` exist, are of their family and not blocked, and are unassigned and in the location of a load balancer still to be made, or those the existing one holds; for an `externally-managed` one, that its load balancer exists and is no other Service's"},
	{"secret", "for each namespace whose Services name `http-certificate-secrets`: whether the CCM's ServiceAccount may get, list and watch Secrets there (three SubjectAccessReviews; the Secrets are not read)"},
	{"load-balancer", "load balancers labelled `hcloud-ccm/service-uid` for a Service that no longer exists (orphans), or whose Service's class this CCM no longer serves; targets on servers that no longer exist"},
	{"rate-limit", "the requests left in the project's bucket after doctor's own (`RateLimit-Remaining` of the last answer): WARN below `HCLOUD_BUDGET_RESERVE` or a tenth of the limit, FAIL at 0"},
	{"staleness", "how late a change to a server shows on its Node with the CCM's settings and the project's size: up to 100 servers every answer is at most `HCLOUD_INVENTORY_MAX_AGE` old; from 101, a change that leaves an action within that, one that leaves none (a rename) within the listing period (e.g. `1000 servers: … within 5m0s; … within 1h0m0s`)"},
	{"bound", "the run ends within `--timeout` (default 2m) whatever the apiserver, the API or the Robot webservice do: a check not finished by then is a FAIL naming it and the checks not run, and the report follows; requests to the apiserver end after `--request-timeout`, to the API after 30 s, answers and listings are bounded (32 MiB, 200 pages)"},
}
