package doctor

import (
	"context"
	"fmt"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// probeServerID is a server ID no project has (2^53-1, the largest a
// JSON number holds exactly). A power-on action on it changes nothing:
// the API refuses a read-only token with 403 forbidden before it looks
// for the server, and answers a token that may write with 404 not_found.
const probeServerID = 1<<53 - 1

const fixToken = "create a Read & Write API token in the Hetzner Console (project, Security, API tokens) and set HCLOUD_TOKEN, or the key token of Secret hcloud"

// checkToken lists servers, networks and load balancers, which proves the
// token valid, and probes whether it may write.
func (d *doctor) checkToken(ctx context.Context) {
	subject := "token"
	if d.opts.TokenSource != "" {
		subject = "token (" + d.opts.TokenSource + ")"
	}
	servers, err := d.api.Server.All(ctx)
	if err != nil {
		switch {
		case hcloud.IsError(err, hcloud.ErrorCodeUnauthorized):
			d.found.fail("token", subject, "the API refuses the token: unable to authenticate", fixToken)
		case hcloud.IsError(err, hcloud.ErrorCodeRateLimitExceeded):
			d.found.fail("token", subject, "the project's rate limit is used up: every request answers 429", "wait for the bucket to refill (one request a second) and find what spends it")
		default:
			d.found.fail("token", subject, fmt.Sprintf("cannot list servers at %s: %v", d.cfg.Endpoint, err), "check HCLOUD_ENDPOINT and the way to the API")
		}
		return
	}
	networks, err := d.api.Network.All(ctx)
	if err != nil {
		d.found.fail("token", subject, fmt.Sprintf("cannot list networks: %v", err), "run doctor again; if it persists, check the API's status page")
		return
	}
	lbs, err := d.api.LoadBalancer.All(ctx)
	if err != nil {
		d.found.fail("token", subject, fmt.Sprintf("cannot list load balancers: %v", err), "run doctor again; if it persists, check the API's status page")
		return
	}
	d.cloud = newCloud(servers, networks, lbs)
	if d.cfg.Network != "" {
		if n := networkRef(d.cfg.Network, networks); n != nil {
			d.networkID = n.ID
			if len(n.Subnets) > 0 {
				d.zone = string(n.Subnets[0].NetworkZone)
			}
		}
	}

	_, _, err = d.api.Server.Poweron(ctx, &hcloud.Server{ID: probeServerID})
	switch {
	case err == nil, hcloud.IsError(err, hcloud.ErrorCodeNotFound), hcloud.IsError(err, hcloud.ErrorCodeInvalidInput):
		d.found.ok("token", subject, fmt.Sprintf("valid, may read and write; the project has %d servers, %d networks, %d load balancers",
			len(servers), len(networks), len(lbs)))
	case hcloud.IsError(err, hcloud.ErrorCodeForbidden):
		d.found.fail("token", subject, "the token is read-only: the CCM cannot create load balancers or routes", fixToken)
	default:
		d.found.warn("token", subject, fmt.Sprintf("valid, but whether it may write is unknown: %v", err), "run doctor again")
	}
}

// checkRateLimit reports the requests left in the project's bucket after
// doctor's own.
func (d *doctor) checkRateLimit() {
	if d.cloud == nil {
		return
	}
	_, limit, remaining, seen := d.count.state()
	reserve := d.cfg.BudgetReserve
	switch {
	case !seen:
		d.found.ok("rate-limit", "project", "the API sent no RateLimit headers")
	case remaining == 0:
		d.found.fail("rate-limit", "project", fmt.Sprintf("0 of %d requests left: the API answers 429 until the bucket refills", limit),
			"find what else spends the project's requests (other tools, scripts, a second CCM) and stop it")
	case remaining < reserve:
		d.found.warn("rate-limit", "project", fmt.Sprintf("%d of %d requests left, below HCLOUD_BUDGET_RESERVE=%d: the CCM's background work waits", remaining, limit, reserve),
			"find what else spends the project's requests (other tools, scripts, a second CCM)")
	case remaining < limit/10:
		d.found.warn("rate-limit", "project", fmt.Sprintf("%d of %d requests left", remaining, limit),
			"find what else spends the project's requests (other tools, scripts, a second CCM)")
	default:
		d.found.ok("rate-limit", "project", fmt.Sprintf("%d of %d requests left", remaining, limit))
	}
}
