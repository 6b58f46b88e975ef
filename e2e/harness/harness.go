// Package harness runs the whole system on loopback for end-to-end tests
// and the demo: etcd and kube-apiserver built from source, fakecloud
// seeded with a world, and the ccm binary with the identity and the
// arguments of the project's deployment manifests. It plays the kubelets.
// Everything it starts it stops, and a failed run keeps every log.
package harness

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Options say where the binaries and manifests are and how to run the CCM.
type Options struct {
	Dir        string // working directory for certificates, data and logs
	ControlBin string // directory with etcd and kube-apiserver (scripts/build-control-plane.sh)
	CCM        string // the ccm binary
	FakeCloud  string // the fakecloud binary
	Manifests  string // deploy/ccm.yaml
	World      string // fakecloud seed world
	Network    string // HCLOUD_NETWORK, the Secret's "network"
	Metadata   string // the server whose metadata service the CCM asks (the attached check)

	FakeCloudArgs []string      // extra fakecloud flags, e.g. --action-duration=1s
	CCMArgs       []string      // extra ccm flags, after the Deployment's
	CCMEnv        []string      // extra environment, e.g. HCLOUD_LOAD_BALANCERS_LOCATION=fsn1
	ClusterCIDR   string        // pod CIDRs come from here; 10.244.0.0/16
	Heartbeat     time.Duration // how often each kubelet reports its Ready condition; 5s
	AdminQPS      float32       // the test's and the kubelets' client rate limit; 100 a second
}

// Env is a running system.
type Env struct {
	opts      Options
	Kube      kubernetes.Interface // cluster-admin, for the test's own reads and writes
	Admin     *rest.Config
	CloudURL  string // fakecloud, e.g. http://127.0.0.1:41234 (API at /v1, admin at /_fakecloud)
	CCMConfig string // the CCM's kubeconfig (its ServiceAccount's token)
	AdminConf string // a cluster-admin kubeconfig, for kubectl

	ccmArgs  []string           // the Deployment's, from the manifest
	deploy   *appsv1.Deployment // the manifest's, which the harness plays
	cp       *controlPlane
	cloud    *process
	kubelets *kubelets

	mu   sync.Mutex
	ccms []*process
}

// Start brings everything up; on error what was started is stopped.
func Start(ctx context.Context, o Options) (_ *Env, err error) {
	if o.ClusterCIDR == "" {
		o.ClusterCIDR = "10.244.0.0/16"
	}
	if o.Heartbeat == 0 {
		o.Heartbeat = 5 * time.Second
	}
	e := &Env{opts: o}
	defer func() {
		if err != nil {
			e.Stop()
		}
	}()
	if e.cp, err = startControlPlane(ctx, o.Dir, o.ControlBin); err != nil {
		return nil, err
	}
	e.Admin = e.cp.admin
	if o.AdminQPS > 0 {
		e.Admin.QPS, e.Admin.Burst = o.AdminQPS, int(2*o.AdminQPS)
	}
	if e.Kube, err = kubernetes.NewForConfig(e.Admin); err != nil {
		return nil, err
	}
	e.AdminConf = filepath.Join(o.Dir, "admin.kubeconfig")
	if err := writeKubeconfig(e.AdminConf, e.cp.url, e.cp.pki.caCert, adminAuth(e.cp.pki)); err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	e.CloudURL = fmt.Sprintf("http://127.0.0.1:%d", port)
	args := append([]string{"--listen=" + strings.TrimPrefix(e.CloudURL, "http://"), "--seed=" + o.World, "--rate-limit=0"}, o.FakeCloudArgs...)
	if e.cloud, err = start(o.Dir, "fakecloud", o.FakeCloud, args, nil); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, e.cloud, 30*time.Second, func() error { return httpOK(http.DefaultClient, e.CloudURL+"/_fakecloud/counters") }); err != nil {
		return nil, err
	}
	m, err := readManifests(o.Manifests)
	if err != nil {
		return nil, err
	}
	if err := m.applyRBAC(ctx, e.Kube, FakeCloudToken, o.Network); err != nil {
		return nil, err
	}
	sa, err := m.serviceAccount()
	if err != nil {
		return nil, err
	}
	for _, o := range m.objects {
		if d, ok := o.(*appsv1.Deployment); ok {
			e.ccmArgs, e.deploy = d.Spec.Template.Spec.Containers[0].Args, d
		}
	}
	if e.ccmArgs == nil {
		return nil, errors.New("deploy/ccm.yaml has no Deployment")
	}
	e.CCMConfig = filepath.Join(o.Dir, "ccm.kubeconfig")
	if err := serviceAccountKubeconfig(ctx, e.Kube, sa, e.cp.url, e.cp.pki.caCert, e.CCMConfig); err != nil {
		return nil, err
	}
	e.kubelets = newKubelets(e.Kube, o.Heartbeat, e.Cloud().running)
	return e, nil
}

// FakeCloudToken is fakecloud's default token, the Secret's "token".
const FakeCloudToken = "fakefakefakefakefakefakefakefakefakefakefakefakefakefakefakefake"

// StartCCM starts one more CCM replica and returns its index. Its
// arguments are the Deployment's, then Options.CCMArgs, then extra.
func (e *Env) StartCCM(ctx context.Context, extra ...string) (int, error) {
	metrics, err := FreePort()
	if err != nil {
		return 0, err
	}
	args := append(slices.Clone(e.ccmArgs), "--kubeconfig="+e.CCMConfig, "--allocate-node-cidrs=true", "--cluster-cidr="+e.opts.ClusterCIDR)
	args = append(append(args, e.opts.CCMArgs...), extra...)
	env := append(e.ccmEnv(), fmt.Sprintf("HCLOUD_METRICS_ADDRESS=127.0.0.1:%d", metrics))
	e.mu.Lock()
	i := len(e.ccms)
	e.mu.Unlock()
	p, err := start(e.opts.Dir, fmt.Sprintf("ccm-%d", i), e.opts.CCM, args, env)
	if err != nil {
		return 0, err
	}
	p.http = fmt.Sprintf("127.0.0.1:%d", metrics)
	e.mu.Lock()
	e.ccms = append(e.ccms, p)
	e.mu.Unlock()
	return i, waitFor(ctx, p, 30*time.Second, func() error { return httpOK(http.DefaultClient, "http://"+p.http+"/readyz") })
}

// ccmEnv is the CCM's environment: the Secret's token and network, the
// endpoints of fakecloud (API, metadata, Robot webservice), then
// Options.CCMEnv.
func (e *Env) ccmEnv() []string {
	return append([]string{
		"HCLOUD_TOKEN=" + FakeCloudToken, "HCLOUD_NETWORK=" + e.opts.Network,
		"HCLOUD_ENDPOINT=" + e.CloudURL + "/v1",
		"HCLOUD_METADATA_ENDPOINT=" + e.CloudURL + "/metadata/" + e.opts.Metadata + "/hetzner/v1/metadata",
		"ROBOT_ENDPOINT=" + e.CloudURL + "/robot", // read only with ROBOT_ENABLED=true
	}, e.opts.CCMEnv...)
}

// StopCCM stops replica i as the kubelet stops a pod: SIGTERM, then
// SIGKILL after grace. It says whether the process ended by itself, with
// exit status 0.
func (e *Env) StopCCM(i int, grace time.Duration) bool {
	p := e.ccm(i)
	return p.stop(grace) && p.err == nil
}

// CCMHTTP is replica i's health, readiness and metrics address (host:port).
func (e *Env) CCMHTTP(i int) string { return e.ccm(i).http }

// KillCCM kills replica i at once, as a crash or a lost node would.
func (e *Env) KillCCM(i int) { e.ccm(i).kill() }

// CCMLog is replica i's log file.
func (e *Env) CCMLog(i int) string { return e.ccm(i).log }

func (e *Env) ccm(i int) *process {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ccms[i]
}

// Forbidden is every line of every CCM log in which the apiserver refused
// the CCM's ServiceAccount ("... is forbidden: User ..."): the role of
// deploy/ccm.yaml lacks a verb. The webhook's own refusals of Services
// (logged as "reason":"Forbidden") are not among them.
func (e *Env) Forbidden() ([]string, error) {
	e.mu.Lock()
	ccms := slices.Clone(e.ccms)
	e.mu.Unlock()
	var lines []string
	for _, p := range ccms {
		b, err := os.ReadFile(p.log)
		if err != nil {
			return nil, err
		}
		for line := range strings.Lines(string(b)) {
			if strings.Contains(line, "is forbidden: User ") {
				lines = append(lines, p.name+": "+strings.TrimSpace(line))
			}
		}
	}
	return lines, nil
}

// PlayDeployment creates the manifest's Deployment, whose pods the
// harness's CCM processes stand for, with replicas of them, ready of
// those ready, as the deployment controller would report (none runs
// here). Without it, tools that look for the CCM's Deployment find none.
func (e *Env) PlayDeployment(ctx context.Context, replicas, ready int32) error {
	deps := e.Kube.AppsV1().Deployments(e.deploy.Namespace)
	d, err := deps.Get(ctx, e.deploy.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		d, err = deps.Create(ctx, e.deploy.DeepCopy(), metav1.CreateOptions{})
	}
	if err != nil {
		return err
	}
	if *d.Spec.Replicas != replicas {
		d.Spec.Replicas = &replicas
		if d, err = deps.Update(ctx, d, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas,
		ReadyReplicas: ready, AvailableReplicas: ready}
	_, err = deps.UpdateStatus(ctx, d, metav1.UpdateOptions{})
	return err
}

// RegisterNode creates a Node as its kubelet would, with the pod CIDR
// node IPAM would assign.
func (e *Env) RegisterNode(ctx context.Context, name, podCIDR string) error {
	return e.kubelets.register(ctx, name, podCIDR, "")
}

// RegisterNodeIP is RegisterNode for a kubelet started with --node-ip: the
// Node carries the address as its InternalIP and in the provided-node-ip
// annotation, which the CCM checks against the server.
func (e *Env) RegisterNodeIP(ctx context.Context, name, podCIDR, nodeIP string) error {
	return e.kubelets.register(ctx, name, podCIDR, nodeIP)
}

// CCMPID is replica i's process ID, for reading its use of memory and CPU.
func (e *Env) CCMPID(i int) int { return e.ccm(i).cmd.Process.Pid }

// SetReady makes a node's kubelet report Ready or NotReady.
func (e *Env) SetReady(ctx context.Context, name string, ready bool) error {
	return e.kubelets.setReady(ctx, name, ready)
}

// ForgetNode stops a node's kubelet, once its Node is gone.
func (e *Env) ForgetNode(name string) { e.kubelets.forget(name) }

// Stop stops everything Start and StartCCM started, CCMs first.
func (e *Env) Stop() {
	if e.kubelets != nil {
		e.kubelets.stopAll()
	}
	e.mu.Lock()
	ccms := e.ccms
	e.mu.Unlock()
	for _, p := range ccms {
		p.stop(10 * time.Second)
	}
	if e.cloud != nil {
		e.cloud.stop(10 * time.Second)
	}
	if e.cp != nil {
		e.cp.stop()
	}
}

// Logs lists the log files of every process, for a failed run.
func (e *Env) Logs() []string {
	logs, _ := filepath.Glob(filepath.Join(e.opts.Dir, "*.log"))
	return logs
}

// RemoveDir deletes the working directory; call it only when the run passed.
func (e *Env) RemoveDir() error { return os.RemoveAll(e.opts.Dir) }
