package ccm

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	restclient "k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	cloudproviderapi "k8s.io/cloud-provider/api"
	cloudnode "k8s.io/cloud-provider/controllers/node"
	"k8s.io/cloud-provider/controllers/nodelifecycle"
	"k8s.io/cloud-provider/controllers/route"
	controllersmetrics "k8s.io/component-base/metrics/prometheus/controllers"
	_ "k8s.io/controller-manager/pkg/features/register" // the gates the route controller reads, as cmd/ccm gets them through options

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// cluster is the provider on fakecloud with the upstream controllers of
// k8s.io/cloud-provider running against a fake clientset, as cmd/ccm runs
// them against a real apiserver. The inventory runs on a test clock, so a
// test moves time past the freshness bounds instead of waiting.
type cluster struct {
	*cloudFixture
	cloud   *Cloud
	kube    *fake.Clientset
	clock   *fakecloudtest.Clock
	ctx     context.Context
	factory informers.SharedInformerFactory

	watching chan struct{} // closed once the node informer watches
}

// newCluster starts fakecloud with n servers (node-0000...) in network
// "k8s" and builds the provider on it with routes on that network.
// A request may take 5 s, retried twice: far above what fakecloud in the
// same process takes even on a loaded machine, so a slow moment is not a
// failure; tests that hang requests on purpose pass a shorter timeout
// (newClusterWith).
func newCluster(t *testing.T, n int, opts fakecloud.Options, configure ...func(*Config)) *cluster {
	t.Helper()
	return newClusterOn(t, fakecloudtest.NewClock(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)), newCloud(t, n, opts), configure...)
}

// newClusterOn is newCluster on a clock and a cloud of the caller's.
func newClusterOn(t *testing.T, clk *fakecloudtest.Clock, fx *cloudFixture, configure ...func(*Config)) *cluster {
	t.Helper()
	return newClusterWith(t, clk, fx, buildOptions{httpTimeout: 5 * time.Second, retry: &fastRetry}, configure...)
}

// fastRetry retries twice, 10 ms apart.
var fastRetry = hcloud.RetryOpts{BackoffFunc: hcloud.ConstantBackoff(10 * time.Millisecond), MaxRetries: 2}

// newClusterWith is newClusterOn with the caller's timeout and retries.
func newClusterWith(t *testing.T, clk *fakecloudtest.Clock, fx *cloudFixture, o buildOptions, configure ...func(*Config)) *cluster {
	t.Helper()
	cfg := testConfig(fx)
	cfg.Network, cfg.RoutesEnabled, cfg.ZoneLabelEnabled = "k8s", true, true
	for _, f := range configure {
		f(&cfg)
	}
	o.now = clk.Now
	cl, err := build(t.Context(), cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	kube := fake.NewClientset()
	c := &cluster{cloudFixture: fx, cloud: cl, kube: kube, clock: clk, ctx: t.Context(), watching: make(chan struct{})}
	var once sync.Once
	kube.PrependWatchReactor("nodes", func(k8stesting.Action) (bool, watch.Interface, error) {
		once.Do(func() { close(c.watching) })
		return false, nil, nil
	})
	cl.Initialize(clientBuilder{kube}, t.Context().Done())
	c.factory = informers.NewSharedInformerFactory(kube, 0)
	cl.UseNodes(c.factory.Core().V1().Nodes())
	fx.FC.ResetCounters()
	return c
}

// lbCluster is newCluster with load balancers on (in fsn1, lb11) and
// the servers' Nodes at hand.
type lbCluster struct {
	*cluster
	nodes []*corev1.Node // one per server, node-0000...
}

func newLBCluster(t *testing.T, n int, opts fakecloud.Options) *lbCluster {
	t.Helper()
	c := newCluster(t, n, opts, func(c *Config) {
		c.LoadBalancers = annotation.Defaults{Enabled: true, Type: "lb11", Location: "fsn1"}
	})
	lc := &lbCluster{cluster: c, nodes: c.Nodes(t)}
	c.FC.ResetCounters()
	return lc
}

var lbService = cloudtest.LBService

// start starts the informers the controllers asked for (run them first)
// and waits until nodes are watched, so no Node created afterwards is missed.
func (c *cluster) start(t *testing.T) {
	t.Helper()
	c.factory.Start(c.ctx.Done())
	c.factory.WaitForCacheSync(c.ctx.Done())
	select {
	case <-c.watching:
	case <-time.After(10 * time.Second):
		t.Fatal("the node informer never watched")
	}
}

var ccmMetrics = controllersmetrics.NewControllerManagerMetrics("ccm-test")

// runNodeController runs the cloud-node controller with 20 workers.
func (c *cluster) runNodeController(t *testing.T) {
	t.Helper()
	c.runNodeControllerEvery(t, 5*time.Minute)
}

// runNodeControllerEvery runs it with Node status updates every period.
func (c *cluster) runNodeControllerEvery(t *testing.T, period time.Duration) {
	t.Helper()
	nc, err := cloudnode.NewCloudNodeController(c.factory.Core().V1().Nodes(), c.kube, c.cloud, period, 20, 20)
	if err != nil {
		t.Fatal(err)
	}
	go nc.RunWithContext(c.ctx, ccmMetrics)
}

// runLifecycle runs the cloud-node-lifecycle controller every period.
func (c *cluster) runLifecycle(t *testing.T, period time.Duration) {
	t.Helper()
	lc, err := nodelifecycle.NewCloudNodeLifecycleController(c.factory.Core().V1().Nodes(), c.kube, c.cloud, period)
	if err != nil {
		t.Fatal(err)
	}
	go lc.Run(c.ctx, ccmMetrics)
}

// runRoutes runs the route controller for the cluster CIDR every period.
func (c *cluster) runRoutes(t *testing.T, clusterCIDR string, period time.Duration) {
	t.Helper()
	_, cidr, err := net.ParseCIDR(clusterCIDR)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cloud.SetClusterCIDRs(clusterCIDR); err != nil {
		t.Fatal(err)
	}
	routes, _ := c.cloud.Routes()
	rc, err := route.New(routes, c.kube, c.factory.Core().V1().Nodes(), "test", []*net.IPNet{cidr})
	if err != nil {
		t.Fatal(err)
	}
	go rc.Run(c.ctx, period, ccmMetrics)
}

// register creates a Node the way a kubelet with --cloud-provider=external
// does: tainted uninitialized, Ready, with a pod CIDR when given.
func (c *cluster) register(t *testing.T, name, podCIDR string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:   corev1.NodeSpec{PodCIDR: podCIDR, Taints: []corev1.Taint{{Key: cloudproviderapi.TaintExternalCloudProvider, Value: "true", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	if podCIDR != "" {
		n.Spec.PodCIDRs = []string{podCIDR}
	}
	if _, err := c.kube.CoreV1().Nodes().Create(c.ctx, n, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// setReady sets a Node's Ready condition, as the kubelet's heartbeat (or
// its absence, through the node lifecycle controller) does.
func (c *cluster) setReady(t *testing.T, name string, ready bool) {
	t.Helper()
	n := c.node(t, name)
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}
	if _, err := c.kube.CoreV1().Nodes().UpdateStatus(c.ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func (c *cluster) node(t *testing.T, name string) *corev1.Node {
	t.Helper()
	n, err := c.kube.CoreV1().Nodes().Get(c.ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (c *cluster) nodeExists(name string) bool {
	_, err := c.kube.CoreV1().Nodes().Get(c.ctx, name, metav1.GetOptions{})
	return err == nil
}

// initialised reports whether the cloud-node controller has done its work.
func initialised(n *corev1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == cloudproviderapi.TaintExternalCloudProvider {
			return false
		}
	}
	return n.Spec.ProviderID != ""
}

func hasTaint(n *corev1.Node, key string) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}

// hasEvent reports whether the cluster has an event of the type and
// reason about the object.
func (c *cluster) hasEvent(t *testing.T, eventType, reason, object string) bool {
	t.Helper()
	l, err := c.kube.CoreV1().Events("").List(c.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l.Items {
		if e.Type == eventType && e.Reason == reason && e.InvolvedObject.Name == object {
			return true
		}
	}
	return false
}

// clientBuilder hands the fake clientset to Cloud.Initialize.
type clientBuilder struct{ kube clientset.Interface }

func (b clientBuilder) Config(string) (*restclient.Config, error) { return &restclient.Config{}, nil }
func (b clientBuilder) ConfigOrDie(string) *restclient.Config     { return &restclient.Config{} }
func (b clientBuilder) Client(string) (clientset.Interface, error) {
	return b.kube, nil
}
func (b clientBuilder) ClientOrDie(string) clientset.Interface { return b.kube }

func name(i int) string { return fmt.Sprintf("node-%04d", i) }

// runServices runs the upstream service controller with workers over
// the Services the configured class serves, as cmd/ccm does with
// --concurrent-service-syncs.
func (c *cluster) runServices(t *testing.T, workers int) {
	t.Helper()
	sc, services, err := NewServiceController(c.cloud, c.kube, c.factory.Core().V1().Nodes(), "test", 0, utilfeature.DefaultFeatureGate, c.cloud.LoadBalancerClass())
	if err != nil {
		t.Fatal(err)
	}
	services.Start(c.ctx.Done())
	go sc.Run(c.ctx, workers, ccmMetrics)
}
