package doctor

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
	"github.com/hcloudlab/hcloud-ccm/ccm/robotclient"
	"github.com/hcloudlab/hcloud-ccm/ccm/version"
)

// robotServerLimit is the webservice's hourly limit of GET /server for
// one webservice user, shared by every tool that logs in as it.
const robotServerLimit = 200

// dedicated is what doctor read of the Robot webservice: the servers by
// number and by name, or nil when it was not read.
type dedicated struct {
	byNumber map[int64]robotclient.Server
	byName   map[string]robotclient.Server
}

// isDedicated says whether a Node is a dedicated server's, by provider ID
// or, without one, by a dedicated server of its name.
func (d *doctor) isDedicated(n *corev1.Node) bool {
	if providerid.IsRobot(n.Spec.ProviderID) {
		return true
	}
	if n.Spec.ProviderID != "" || d.robot == nil {
		return false
	}
	_, ok := d.robot.byName[n.Name]
	return ok && d.cloud != nil && d.cloud.byName[n.Name] == nil
}

// checkRobot checks dedicated servers' Nodes against the Robot
// webservice: the login (one GET /server; a refused one counts toward the
// block of this IP after three), that each Node's server exists, and the
// share of the hourly limit the CCM's listing takes.
func (d *doctor) checkRobot(ctx context.Context) {
	var nodes []*corev1.Node
	for i := range d.nodes {
		if providerid.IsRobot(d.nodes[i].Spec.ProviderID) {
			nodes = append(nodes, &d.nodes[i])
		}
	}
	rc := d.cfg.Robot
	switch {
	case !rc.Enabled && len(nodes) > 0:
		for _, n := range nodes {
			d.found.fail("robot", "node/"+n.Name, fmt.Sprintf("provider ID %s is a dedicated server's, and ROBOT_ENABLED is not true: the CCM cannot watch the Node, and it is no load balancer target", n.Spec.ProviderID),
				"set ROBOT_ENABLED=true (the chart's robotclient.enabled) with ROBOT_USER and ROBOT_PASSWORD")
			d.blocked[n.Name] = "it is a dedicated server's and Robot is off"
		}
		return
	case !rc.Enabled:
		return
	case !rc.Credentials():
		d.found.warn("robot", "webservice", "ROBOT_ENABLED=true without ROBOT_USER and ROBOT_PASSWORD: dedicated Nodes are load balancer targets only; the CCM cannot initialise them or tell when their servers go",
			"create a webservice user in Robot and set ROBOT_USER and ROBOT_PASSWORD (the Secret's robot-user and robot-password)")
		return
	}
	client := robotclient.NewClient(rc.Endpoint, rc.User, rc.Password, "hcloud-ccm-doctor/"+version.Version, 30*time.Second).WithTransport(d.count)
	servers, err := client.Servers(ctx)
	var rerr *robotclient.Error
	switch {
	case robotclient.IsCode(err, robotclient.CodeUnauthorized):
		d.found.fail("robot", "webservice", "ROBOT_USER and ROBOT_PASSWORD are refused (401): the CCM cannot read any dedicated server",
			"check the webservice user in Robot (Settings, Webservice and app settings); three failed logins block this IP for 10 minutes")
		return
	case errors.As(err, &rerr) && rerr.Code == robotclient.CodeRateLimitExceeded:
		d.found.warn("robot", "webservice", fmt.Sprintf("the webservice's limit is reached: %v; the CCM waits ROBOT_RATE_LIMIT_WAIT_TIME (%s) between tries", err, rc.RateLimitWait),
			"find the tools that share this webservice user and list servers less often, or give them users of their own")
		return
	case err != nil:
		d.found.warn("robot", "webservice", fmt.Sprintf("the webservice cannot be read: %v", err), "check ROBOT_ENDPOINT and the network")
		return
	}
	d.robot = &dedicated{byNumber: map[int64]robotclient.Server{}, byName: map[string]robotclient.Server{}}
	for _, s := range servers {
		d.robot.byNumber[s.Number] = s
		d.robot.byName[s.Name] = s
	}
	perHour := int(time.Hour / rc.CacheTimeout)
	msg := fmt.Sprintf("%d dedicated servers; the CCM lists them at most every %s, up to %d of the %d GET /server requests an hour this webservice user has (the webservice does not say how many are left)",
		len(servers), rc.CacheTimeout, perHour, robotServerLimit)
	if perHour > robotServerLimit/2 {
		d.found.warn("robot", "webservice", msg, "raise ROBOT_CACHE_TIMEOUT (default 5m), so other tools keep their share")
	} else {
		d.found.ok("robot", "webservice", msg)
	}
	for _, n := range nodes {
		number, err := providerid.ToRobotNumber(n.Spec.ProviderID)
		s, ok := d.robot.byNumber[number]
		switch {
		case err != nil:
			d.found.fail("robot", "node/"+n.Name, err.Error(), "start the kubelet with --provider-id=hrobot://<server number>, or without --provider-id")
		case !ok:
			d.found.fail("robot", "node/"+n.Name, fmt.Sprintf("dedicated server %d does not exist in this Robot account: the CCM deletes the Node once it is NotReady", number),
				"delete the Node if the server is gone; otherwise check ROBOT_USER's account")
		default:
			d.found.ok("robot", "node/"+n.Name, fmt.Sprintf("dedicated server %d (%s, %s, %s)", s.Number, s.Name, s.Product, s.DC))
		}
	}
}
