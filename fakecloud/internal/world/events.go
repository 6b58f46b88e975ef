package world

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/event"
)

// Apply makes an event happen now. It fails, changing nothing, when the
// event is malformed or names a resource that does not exist.
func (s *State) Apply(e Event) error {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.Settle()
	return w.apply(e)
}

// CheckEvent refuses an event for what no moment of this world could
// take, as Apply would: the event's fields (event.Check) and, for a
// dedicated server, what fakecloud's configuration rules out. Whether
// what it names exists is judged when it happens, so a scenario's step
// may name what is created later.
func (s *State) CheckEvent(e Event) error {
	if err := event.Check(e); err != nil {
		return err
	}
	if e.Type == "lock" {
		return s.w.checkLockable(e.Resource)
	}
	if e.Type != "add_dedicated_server" {
		return nil
	}
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	return PrefixLines("dedicated_server.", w.CheckDedicatedSeed(*e.DedicatedServer))
}

// apply makes an event happen; the caller holds the world lock. A refused
// event changes nothing, the change counter that persistence watches
// included.
func (w *project) apply(e Event) error {
	if err := w.applyEvent(e); err != nil {
		return err
	}
	w.Changes++
	return nil
}

func (w *project) applyEvent(e Event) error {
	if err := event.Check(e); err != nil {
		return err
	}
	if slices.Contains(event.DedicatedTypes, e.Type) {
		return w.applyDedicated(e)
	}
	if e.ServerName != "" {
		srv, ok := w.Servers.Find(func(s *StoredServer) bool { return s.Name == e.ServerName })
		if !ok {
			return fmt.Errorf("server_name: no server is named %q", e.ServerName)
		}
		e.Server = srv.ID
	}
	if e.LoadBalancerName != "" {
		lb, ok := w.LoadBalancers.Find(func(lb *StoredLoadBalancer) bool { return lb.Name == e.LoadBalancerName })
		if !ok {
			return fmt.Errorf("load_balancer_name: no load balancer is named %q", e.LoadBalancerName)
		}
		e.LoadBalancer = lb.ID
		if e.Type == "lock" && e.Resource == "load_balancer" && e.ID == 0 {
			e.ID = lb.ID
		}
	}
	if e.Type == "lock" && e.Resource == "server" && e.ID == 0 {
		e.ID = e.Server
	}
	switch e.Type {
	case "delete_server":
		srv, err := w.eventServer(e)
		if err != nil {
			return err
		}
		w.removeServer(srv)
		w.DropLocks(Ref{Type: "server", ID: srv.ID})
		w.RecordDone("delete_server", Ref{Type: "server", ID: srv.ID})
	case "power_off_server", "power_on_server":
		srv, err := w.eventServer(e)
		if err != nil {
			return err
		}
		status, command := "off", "stop_server"
		if e.Type == "power_on_server" {
			status, command = "running", "start_server"
		}
		srv.Status = status
		if e.Type == "power_off_server" && w.Pessimistic() {
			return nil // shut down from inside: no action
		}
		w.RecordDone(command, Ref{Type: "server", ID: srv.ID})
	case "set_target_health":
		return w.setTargetHealth(e)
	case "lock":
		ref := Ref{Type: e.Resource, ID: e.ID}
		if err := w.checkLockable(e.Resource); err != nil {
			return err
		}
		if !w.exists(e.Resource, e.ID) {
			return fmt.Errorf("id: %s %d does not exist", e.Resource, e.ID)
		}
		if e.For <= 0 {
			return fmt.Errorf("for: a lock needs a duration, e.g. \"30s\"")
		}
		w.Locks[ref] = w.Now().Add(time.Duration(e.For))
	case "set_server_ip":
		return w.setServerIP(e)
	case "set_zone_status":
		return w.setZoneStatus(e)
	case "deprecate_load_balancer_type":
		return w.deprecateLBType(e)
	}
	return nil
}

// checkLockable refuses a lock event on what is not a kind of the
// registry; any kind's resource can be locked.
func (w *project) checkLockable(resource string) error {
	if _, ok := w.kinds[resource]; ok {
		return nil
	}
	names := make([]string, 0, len(w.kindList))
	for _, k := range w.kindList {
		names = append(names, k.name)
	}
	return fmt.Errorf("resource: %q is not one of %s", resource, strings.Join(names, ", "))
}

func (w *project) eventServer(e Event) (*StoredServer, error) {
	srv, ok := w.Servers.Get(e.Server)
	if !ok {
		return nil, fmt.Errorf("server: server %d does not exist", e.Server)
	}
	return srv, nil
}

func (w *project) setTargetHealth(e Event) error {
	lb, ok := w.LoadBalancers.Get(e.LoadBalancer)
	if !ok {
		return fmt.Errorf("load_balancer: load balancer %d does not exist", e.LoadBalancer)
	}
	if !slices.Contains([]string{"healthy", "unhealthy", "unknown", "checked"}, e.Health) {
		return fmt.Errorf("health: %q is not one of healthy, unhealthy, unknown, checked", e.Health)
	}
	var key string
	switch {
	case e.Server != 0:
		key = fmt.Sprintf("server:%d", e.Server)
	case e.IP != "":
		key = "ip:" + e.IP
	default:
		return fmt.Errorf("server: set_target_health needs server or ip")
	}
	if !w.LBTargets(lb, key) {
		return fmt.Errorf("server: %s is not a target of load balancer %d", key, lb.ID)
	}
	if e.ListenPort != 0 {
		if !slices.ContainsFunc(lb.Services, func(s schema.LoadBalancerService) bool { return s.ListenPort == e.ListenPort }) {
			return fmt.Errorf("listen_port: load balancer %d has no service on port %d", lb.ID, e.ListenPort)
		}
		key += fmt.Sprintf("/%d", e.ListenPort)
	}
	if e.Health == "checked" { // back to what the checks find
		for k := range lb.Health {
			if k == key || (e.ListenPort == 0 && strings.HasPrefix(k, key+"/")) {
				delete(lb.Health, k)
			}
		}
		return nil
	}
	if lb.Health == nil {
		lb.Health = map[string]string{}
	}
	lb.Health[key] = e.Health
	return nil
}

func (w *project) setServerIP(e Event) error {
	srv, err := w.eventServer(e)
	if err != nil {
		return err
	}
	a, perr := netip.ParseAddr(e.IP)
	if perr != nil || !a.Is4() {
		return fmt.Errorf("ip: %q is not an IPv4 address", e.IP)
	}
	if e.Network == 0 {
		return w.SetPublicIPv4(srv, a)
	}
	return w.SetPrivateIP(srv, e.Network, a)
}
