package harness

import (
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
