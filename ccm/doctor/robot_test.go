package doctor

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// robotFixture is the healthy fixture with Robot on, the dedicated server
// ded-1 (321) in fakecloud's webservice and its Node.
func robotFixture(t *testing.T) *fixture {
	f := newFixture()
	f.world.DedicatedServers = []fakecloud.SeedDedicatedServer{{Number: 321, Name: "ded-1", Product: "EX44", DC: "FSN1-DC16"}}
	f.start(t)
	f.env["ROBOT_ENABLED"], f.env["ROBOT_USER"], f.env["ROBOT_PASSWORD"] = "true", fakecloud.DefaultRobotUser, fakecloud.DefaultRobotPassword
	f.env["ROBOT_ENDPOINT"] = f.env["HCLOUD_ENDPOINT"][:len(f.env["HCLOUD_ENDPOINT"])-len("/v1")] + "/robot"
	f.nodes = append(f.nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ded-1"}, Spec: corev1.NodeSpec{ProviderID: "hrobot://321"}})
	return f
}

func TestRobotChecks(t *testing.T) {
	f := robotFixture(t)
	// A Node of a dedicated server that is gone, and one not initialised
	// yet, found by its name.
	f.nodes = append(f.nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ded-9"}, Spec: corev1.NodeSpec{ProviderID: "hcloud://bm-999"}})
	r := f.run(t)
	for _, want := range []struct {
		status           Status
		subject, message string
	}{
		{OK, "webservice", "1 dedicated servers; the CCM lists them at most every 5m0s, up to 12 of the 200 GET /server requests an hour"},
		{OK, "node/ded-1", "dedicated server 321 (ded-1, EX44, FSN1-DC16)"},
		{Fail, "node/ded-9", "dedicated server 999 does not exist"},
	} {
		if !has(r, "robot", want.status, want.subject, want.message) {
			t.Errorf("no %s robot finding on %s with %q:\n%s", want.status, want.subject, want.message, dump(r))
		}
	}
	for _, fd := range r.Findings {
		if fd.Check == "node" && (fd.Subject == "node/ded-1" || fd.Subject == "node/ded-9") {
			t.Errorf("a dedicated Node checked as a cloud server's: %+v", fd)
		}
	}
	if got := f.fc.Requests("GET", "/robot/server"); got != 1 {
		t.Errorf("%d listings of the webservice, want 1", got)
	}
}

func TestRobotMisconfigured(t *testing.T) {
	f := robotFixture(t)
	f.env["ROBOT_PASSWORD"] = "wrong"
	if r := f.run(t); !has(r, "robot", Fail, "webservice", "refused (401)") {
		t.Errorf("a wrong password:\n%s", dump(r))
	}
	f = robotFixture(t)
	f.env["ROBOT_CACHE_TIMEOUT"] = "10s"
	if r := f.run(t); !has(r, "robot", Warn, "webservice", "up to 360 of the 200") {
		t.Errorf("a cache timeout of 10s:\n%s", dump(r))
	}
	f = robotFixture(t)
	delete(f.env, "ROBOT_ENABLED")
	if r := f.run(t); !has(r, "robot", Fail, "node/ded-1", "ROBOT_ENABLED is not true") || f.fc.Requests("GET", "/robot/server") != 0 {
		t.Errorf("Robot off with a dedicated Node:\n%s", dump(r))
	}
}
