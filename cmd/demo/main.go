// Command demo runs the whole system offline (etcd, kube-apiserver,
// fakecloud and the ccm) on a small seeded world, narrates what each
// controller does, and waits for Ctrl-C. make demo builds what it needs
// and runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

func main() {
	controlBin := flag.String("control-bin", "", "directory with etcd, kube-apiserver and kubectl (scripts/build-control-plane.sh prints it)")
	once := flag.Bool("once", false, "stop after the tour instead of waiting for Ctrl-C")
	flag.Parse()
	if err := run(*controlBin, *once); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

var started = time.Now()

func step(format string, a ...any) {
	fmt.Printf("\n\033[1m[%5.1fs] %s\033[0m\n", time.Since(started).Seconds(), fmt.Sprintf(format, a...))
}

func say(format string, a ...any) { fmt.Printf("  "+format+"\n", a...) }

func run(controlBin string, once bool) error {
	if controlBin == "" {
		return fmt.Errorf("-control-bin is required (run make demo)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir, err := os.MkdirTemp("", "hcloud-ccm-demo-")
	if err != nil {
		return err
	}
	step("starting etcd, kube-apiserver (TLS, RBAC) and fakecloud on loopback; logs in %s", dir)
	env, err := harness.Start(ctx, harness.Options{Dir: dir, ControlBin: controlBin, CCM: "bin/ccm", FakeCloud: "bin/fakecloud",
		Manifests: "deploy/ccm.yaml", World: "testdata/worlds/e2e.yaml", Network: "cluster", Metadata: "control-plane-1",
		FakeCloudArgs: []string{"--action-duration=500ms"},
		CCMArgs:       []string{"--leader-elect=true", "--route-reconciliation-period=5s", "--node-monitor-period=5s"},
		CCMEnv: []string{"HCLOUD_LOAD_BALANCERS_LOCATION=fsn1", "HCLOUD_INVENTORY_LIFECYCLE_MAX_AGE=10s",
			// A hybrid cluster: fakecloud's Robot webservice has a dedicated server.
			"ROBOT_ENABLED=true", "ROBOT_USER=" + fakecloud.DefaultRobotUser, "ROBOT_PASSWORD=" + fakecloud.DefaultRobotPassword}})
	if err != nil {
		return fmt.Errorf("%w (logs in %s)", err, dir)
	}
	defer func() {
		step("stopping everything")
		env.Stop()
		if err == nil {
			os.RemoveAll(dir)
		}
	}()
	say("fakecloud: %s/v1 (admin API %s/_fakecloud), world testdata/worlds/e2e.yaml", env.CloudURL, env.CloudURL)
	step("starting the ccm with its ServiceAccount's token (least privilege, from deploy/ccm.yaml)")
	if _, err = env.StartCCM(ctx); err != nil {
		return err
	}
	say("log: %s", env.CCMLog(0))
	// The Deployment of deploy/ccm.yaml, which this process stands for, so
	// that kubectl and ccm doctor find it.
	if err = env.PlayDeployment(ctx, 1, 1); err != nil {
		return err
	}
	if err = tour(ctx, env); err != nil {
		return err
	}
	explore(env, controlBin)
	if once {
		return nil
	}
	step("running; Ctrl-C stops everything")
	<-ctx.Done()
	return nil
}

func tour(ctx context.Context, env *harness.Env) error {
	step("fakecloud's Robot webservice: dedicated server dedicated-1 beside the cloud servers (ROBOT_ENABLED=true)")
	ded := fakecloud.SeedDedicatedServer{Number: 2000001, Name: "dedicated-1", Product: "EX44", DC: "FSN1-DC16"}
	if err := env.Cloud().Apply(ctx, fakecloud.Event{Type: "add_dedicated_server", DedicatedServer: &ded}); err != nil {
		return err
	}
	say("curl -u '%s:%s' %s/robot/server", fakecloud.DefaultRobotUser, fakecloud.DefaultRobotPassword, env.CloudURL)
	cloudNodes := []string{"control-plane-1", "worker-1", "worker-2"}
	nodes := append(slices.Clone(cloudNodes), "dedicated-1")
	step("registering %d Nodes as kubelets with --cloud-provider=external do: tainted uninitialized, with pod CIDRs", len(nodes))
	for i, n := range nodes {
		if err := env.RegisterNode(ctx, n, fmt.Sprintf("10.244.%d.0/24", i)); err != nil {
			return err
		}
	}
	step("cloud-node controller: each Node initialised from its server (the dedicated one from the Robot webservice)")
	for _, name := range nodes {
		n, err := wait(ctx, func() (*corev1.Node, bool, error) {
			n, err := env.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			return n, err == nil && n.Spec.ProviderID != "" && !slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool {
				return t.Key == "node.cloudprovider.kubernetes.io/uninitialized"
			}), err
		})
		if err != nil {
			return err
		}
		say("%-16s %-10s type=%s region=%s zone=%s addresses=%s", name, n.Spec.ProviderID, n.Labels["node.kubernetes.io/instance-type"],
			n.Labels["topology.kubernetes.io/region"], n.Labels["topology.kubernetes.io/zone"], addresses(n))
	}
	step("route controller: a route per cloud Node's pod CIDR in network cluster (dedicated-1 is not in it: skipped, with an event)")
	nw, err := wait(ctx, func() (routes []string, ok bool, err error) {
		net, _, err := env.Cloud().Client.Network.Get(ctx, "cluster")
		if err != nil || net == nil {
			return nil, false, err
		}
		for _, r := range net.Routes {
			routes = append(routes, r.Destination.String()+" via "+r.Gateway.String())
		}
		slices.Sort(routes)
		return routes, len(routes) == len(cloudNodes), nil
	})
	if err != nil {
		return err
	}
	for _, r := range nw {
		say("%s", r)
	}
	step("service controller: Service default/web of type LoadBalancer, ports 80 and 443")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "web"},
		Ports: []corev1.ServicePort{{Name: "http", Port: 80}, {Name: "https", Port: 443}}}}
	if _, err := env.Kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return err
	}
	begin := time.Now()
	svc, err = wait(ctx, func() (*corev1.Service, bool, error) {
		s, err := env.Kube.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
		return s, err == nil && len(s.Status.LoadBalancer.Ingress) > 0, err
	})
	if err != nil {
		return err
	}
	lbs, err := env.Cloud().Client.LoadBalancer.All(ctx)
	if err != nil || len(lbs) == 0 {
		return fmt.Errorf("no load balancer in fakecloud: %v", err)
	}
	lb := lbs[0]
	var ingress []string
	for _, in := range svc.Status.LoadBalancer.Ingress {
		ingress = append(ingress, in.IP)
	}
	lb, err = wait(ctx, func() (*hcloud.LoadBalancer, bool, error) {
		l, _, err := env.Cloud().Client.LoadBalancer.GetByID(ctx, lb.ID)
		return l, err == nil && l != nil && len(l.Targets) == len(nodes), err
	})
	if err != nil {
		return err
	}
	var targets []string
	for _, t := range lb.Targets {
		if t.Type == hcloud.LoadBalancerTargetTypeIP {
			targets = append(targets, "ip "+t.IP.IP)
		} else {
			targets = append(targets, fmt.Sprintf("server %d", t.Server.Server.ID))
		}
	}
	say("load balancer %s (ID %d, %s) after %s: %d services, targets %s", lb.Name, lb.ID, lb.LoadBalancerType.Name,
		time.Since(begin).Round(time.Millisecond), len(lb.Services), strings.Join(targets, ", "))
	say("status.loadBalancer.ingress: %s", strings.Join(ingress, ", "))
	return checkup(ctx, env)
}

// checkup adds a Service with a typo in an annotation, as happens, and
// runs ccm doctor, which names it among its checks of the whole cluster.
func checkup(ctx context.Context, env *harness.Env) error {
	step("a Service with a typo: load-balancer.hetzner.cloud/algorithm-type: least-connections (the API spells it least_connections)")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "default",
		Annotations: map[string]string{"load-balancer.hetzner.cloud/algorithm-type": "least-connections"}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "api"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	if _, err := env.Kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return err
	}
	step("ccm doctor: the cluster checked against the cloud (bin/ccm doctor, with the CCM's environment)")
	out, code, err := env.RunDoctor(ctx, nil)
	if err != nil {
		return err
	}
	for line := range strings.Lines(out) {
		say("%s", strings.TrimRight(line, "\n"))
	}
	say("exit status %d: 1 means a FAIL above", code)
	return nil
}

func explore(env *harness.Env, controlBin string) {
	kubectl := filepath.Join(controlBin, "kubectl")
	step("explore it (in another terminal)")
	say("export KUBECONFIG=%s", env.AdminConf)
	say("%s get nodes -o wide ; %s get svc web -o yaml", kubectl, kubectl)
	say("curl -H 'Authorization: Bearer %s' %s/v1/load_balancers", harness.FakeCloudToken, env.CloudURL)
	say("curl %s/_fakecloud/counters        # requests by route", env.CloudURL)
	say("make the cloud misbehave and watch the ccm (log: %s):", env.CCMLog(0))
	say("  export FAKECLOUD_URL=%s", env.CloudURL)
	say("  bin/fakecloud event '{type: power_off_server, server_name: worker-1}'   # then: kubectl get node worker-1 -o jsonpath='{.spec.taints}'")
	say("  bin/fakecloud event '{type: delete_server, server_name: worker-2}'      # its Node goes once it is NotReady")
	say("  bin/fakecloud faults add '{path: /**, status: 500, for: 1m}'            # a minute of errors: nothing is deleted")
	say("  bin/fakecloud event '{type: power_off_dedicated_server, server_number: 2000001}'  # the Robot webservice's reset state says shut off")
}

// wait polls get every 200 ms for up to two minutes until it reports ok.
func wait[T any](ctx context.Context, get func() (T, bool, error)) (T, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		v, ok, err := get()
		if ok {
			return v, nil
		}
		if time.Now().After(deadline) {
			return v, fmt.Errorf("timed out (last error: %v)", err)
		}
		select {
		case <-ctx.Done():
			return v, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func addresses(n *corev1.Node) string {
	var a []string
	for _, ad := range n.Status.Addresses {
		a = append(a, string(ad.Type)+":"+ad.Address)
	}
	return strings.Join(a, ",")
}
