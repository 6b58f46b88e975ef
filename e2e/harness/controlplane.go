package harness

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// controlPlane is etcd and kube-apiserver on loopback, with TLS, a
// service-account signing key and RBAC authorization.
type controlPlane struct {
	etcd, apiserver *process
	admin           *rest.Config
	url             string
	pki             *pki
}

func startControlPlane(ctx context.Context, dir, binDir string) (*controlPlane, error) {
	p, err := newPKI(dir)
	if err != nil {
		return nil, err
	}
	cp := &controlPlane{pki: p}
	client, peer, secure := mustPort(), mustPort(), mustPort()
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", client)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peer)
	if cp.etcd, err = start(dir, "etcd", filepath.Join(binDir, "etcd"), []string{
		"--name=e2e", "--data-dir=" + filepath.Join(dir, "etcd-data"),
		"--listen-client-urls=" + etcdURL, "--advertise-client-urls=" + etcdURL,
		"--listen-peer-urls=" + peerURL, "--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=e2e=" + peerURL, "--log-level=warn",
	}, nil); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, cp.etcd, 30*time.Second, func() error { return httpOK(http.DefaultClient, etcdURL+"/health") }); err != nil {
		cp.stop()
		return nil, err
	}
	cp.url = fmt.Sprintf("https://127.0.0.1:%d", secure)
	if cp.apiserver, err = start(dir, "kube-apiserver", filepath.Join(binDir, "kube-apiserver"), []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", secure),
		"--cert-dir=" + filepath.Join(dir, "apiserver-certs"),
		"--tls-cert-file=" + p.serverCert, "--tls-private-key-file=" + p.serverKey,
		"--client-ca-file=" + p.caCert,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.saPub, "--service-account-signing-key-file=" + p.saKey,
		"--authorization-mode=Node,RBAC",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--enable-priority-and-fairness=false",
		"--v=1",
	}, nil); err != nil {
		cp.stop()
		return nil, err
	}
	cp.admin = &rest.Config{Host: cp.url, QPS: 100, Burst: 200, TLSClientConfig: rest.TLSClientConfig{
		CAFile: p.caCert, CertFile: p.adminCert, KeyFile: p.adminKey}}
	kube, err := kubernetes.NewForConfig(cp.admin)
	if err != nil {
		cp.stop()
		return nil, err
	}
	// Ready: /readyz answers ok, which includes the RBAC bootstrap roles.
	if err := waitFor(ctx, cp.apiserver, 2*time.Minute, func() error {
		_, err := kube.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err
	}); err != nil {
		cp.stop()
		return nil, err
	}
	return cp, nil
}

func (cp *controlPlane) stop() {
	if cp.apiserver != nil {
		cp.apiserver.stop(10 * time.Second)
	}
	if cp.etcd != nil {
		cp.etcd.stop(10 * time.Second)
	}
}

func httpOK(c *http.Client, url string) error {
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}

func mustPort() int {
	p, err := FreePort()
	if err != nil {
		panic(err)
	}
	return p
}
