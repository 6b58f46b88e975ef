package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// The shipped manifests decode, their generated header included, into the
// objects the harness applies.
func TestReadShippedManifests(t *testing.T) {
	for _, path := range []string{"../../deploy/ccm.yaml", "../../deploy/ccm-networks.yaml"} {
		m, err := readManifests(path)
		if err != nil {
			t.Fatal(err)
		}
		var deployments, roles int
		for _, o := range m.objects {
			switch o.(type) {
			case *appsv1.Deployment:
				deployments++
			case *rbacv1.ClusterRole:
				roles++
			}
		}
		if _, err := m.serviceAccount(); err != nil || deployments != 1 || roles != 1 {
			t.Errorf("%s: %d Deployments, %d ClusterRoles, service account: %v", path, deployments, roles, err)
		}
	}
}

// Forbidden finds the apiserver's refusals in every CCM's log.
func TestForbiddenFindsRefusals(t *testing.T) {
	dir := t.TempDir()
	logs := []string{
		"I1123 ok\nE1123 services \"web\" is forbidden: User \"system:serviceaccount:kube-system:hcloud-cloud-controller-manager\" cannot get resource \"services\"\n",
		"I1123 all fine\nI1123 webhooks.go:169] {\"response\":{\"allowed\":false,\"status\":{\"reason\":\"Forbidden\",\"code\":403}}}\n",
	}
	e := &Env{}
	for i, text := range logs {
		path := filepath.Join(dir, fmt.Sprintf("ccm-%d.log", i))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		e.ccms = append(e.ccms, &process{name: fmt.Sprintf("ccm-%d", i), log: path})
	}
	got, err := e.Forbidden()
	if err != nil || len(got) != 1 || !strings.HasPrefix(got[0], "ccm-0: E1123 services \"web\" is forbidden") {
		t.Errorf("Forbidden() = %q, %v; want the one refusal of ccm-0", got, err)
	}
}
