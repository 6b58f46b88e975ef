package main

import (
	"context"
	"os"

	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm/rollout"
)

// takeTurn keeps this pod from acting beside a pod of another revision of
// its Deployment (package rollout): it returns once no older pod is left,
// and calls stop later if a revision whose pods do not wait replaces this
// one. It does nothing unless POD_NAME and POD_NAMESPACE (the chart sets
// them from the downward API) say which pod this is. A guard that cannot
// read the pods is reported and skipped: the leader election Lease still
// keeps replicas that share it apart.
func takeTurn(ctx context.Context, kube kubernetes.Interface, stop func()) {
	name, namespace := os.Getenv("POD_NAME"), os.Getenv("POD_NAMESPACE")
	if name == "" || namespace == "" {
		return
	}
	g, err := rollout.New(ctx, kube, namespace, name)
	if err != nil {
		klog.ErrorS(err, "Rollout guard off: a rollout may run this pod beside one of another revision; "+
			"it needs get, list and watch on pods and replicasets (apps) in its namespace")
		return
	}
	if g == nil {
		return
	}
	if err := g.Wait(ctx); err != nil {
		klog.InfoS("Stopped while waiting for the pods of older revisions", "reason", err)
		klog.FlushAndExit(klog.ExitFlushTimeout, 0)
	}
	go g.Watch(ctx, stop)
}
