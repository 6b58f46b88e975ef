package harness

import (
	"context"
	"path/filepath"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// APIServer is etcd and kube-apiserver alone: no cloud, no CCM, no
// kubelets, for tests of what tools apply to a cluster (the upgrade tests).
type APIServer struct {
	Kube      kubernetes.Interface // cluster-admin
	Admin     *rest.Config
	AdminConf string // a cluster-admin kubeconfig, for helm and kubectl
	cp        *controlPlane
}

// StartAPIServer starts etcd and kube-apiserver from binDir with their
// data, certificates and logs in dir.
func StartAPIServer(ctx context.Context, dir, binDir string) (*APIServer, error) {
	cp, err := startControlPlane(ctx, dir, binDir)
	if err != nil {
		return nil, err
	}
	a := &APIServer{Admin: cp.admin, AdminConf: filepath.Join(dir, "admin.kubeconfig"), cp: cp}
	if a.Kube, err = kubernetes.NewForConfig(a.Admin); err != nil {
		cp.stop()
		return nil, err
	}
	if err := writeKubeconfig(a.AdminConf, cp.url, cp.pki.caCert, adminAuth(cp.pki)); err != nil {
		cp.stop()
		return nil, err
	}
	return a, nil
}

// Stop stops kube-apiserver and etcd.
func (a *APIServer) Stop() { a.cp.stop() }
