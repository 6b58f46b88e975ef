package parity

import (
	"context"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
)

// Plan is what a live run will create and what that may cost, printed
// for the maintainer to confirm before anything is created.
type Plan struct {
	Location         string
	ServerType       string // the cheapest offered in the location
	NextType         string // what server-life changes it to
	LoadBalancerType string
	Scenarios        []PlanScenario
	// Hourly net prices in EUR; IPv4Unknown says why a primary IPv4's is
	// not known (it then counts as free).
	ServerHour, NextHour, LoadBalancerHour, IPv4Hour float64
	IPv4Unknown                                      string
}

// PlanScenario is what one scenario creates, for how long, at what cost.
type PlanScenario struct {
	Name, About                      string
	Minutes                          int
	Servers, LoadBalancers, Networks int
	ChangesType                      bool
	Cost                             float64 // for its minutes
	AtMost                           float64 // if every resource is billed by the started hour
}

// MakePlan reads the target's catalogue and prices the scenarios match
// selects (nil: all).
func MakePlan(ctx context.Context, t *Target, location string, match *regexp.Regexp) (*Plan, error) {
	cat, err := readCatalogue(ctx, t.client(t.transport()), location)
	if err != nil {
		return nil, err
	}
	p := &Plan{Location: cat.location.Name, ServerType: cat.serverType.Name, NextType: cat.nextType.Name,
		LoadBalancerType: cat.lbType.Name, ServerHour: cat.serverHour, NextHour: cat.nextHour,
		LoadBalancerHour: cat.lbHour, IPv4Hour: cat.ipv4Hour, IPv4Unknown: cat.ipv4Why}
	for _, sc := range selected(match) {
		serverHour := cat.serverHour
		if sc.changesType {
			serverHour = max(cat.serverHour, cat.nextHour)
		}
		hourly := float64(sc.servers)*(serverHour+cat.ipv4Hour) + float64(sc.loadBalancers)*cat.lbHour
		p.Scenarios = append(p.Scenarios, PlanScenario{Name: sc.name, About: sc.about, Minutes: sc.minutes,
			Servers: sc.servers, LoadBalancers: sc.loadBalancers, Networks: sc.networks, ChangesType: sc.changesType,
			Cost: hourly * float64(sc.minutes) / 60, AtMost: hourly * math.Ceil(float64(sc.minutes)/60)})
	}
	return p, nil
}

// Minutes is how long the run is expected to take.
func (p *Plan) Minutes() int {
	n := 0
	for _, sc := range p.Scenarios {
		n += sc.Minutes
	}
	return n
}

// Write prints the plan.
func (p *Plan) Write(w io.Writer, run string) {
	fmt.Fprintf(w, "The parity kit will create, one scenario after the other, in %s:\n", p.Location)
	var cost, atMost float64
	for _, sc := range p.Scenarios {
		var what []string
		if sc.Servers > 0 {
			kind := p.ServerType
			if sc.ChangesType {
				kind += ", changed to " + p.NextType
			}
			what = append(what, fmt.Sprintf("%d server (%s) with its primary IPv4 and IPv6", sc.Servers, kind))
		}
		if sc.LoadBalancers > 0 {
			what = append(what, fmt.Sprintf("%d load balancer (%s)", sc.LoadBalancers, p.LoadBalancerType))
		}
		if sc.Networks > 0 {
			what = append(what, fmt.Sprintf("%d network", sc.Networks))
		}
		fmt.Fprintf(w, "  %-20s about %2d min: %s\n", sc.Name, sc.Minutes, strings.Join(what, ", "))
		cost += sc.Cost
		atMost += sc.AtMost
	}
	fmt.Fprintf(w, "Each carries the labels %s and %s=%s, and is deleted when its scenario ends, fails or is interrupted.\n",
		KitSelector, RunLabel, run)
	fmt.Fprintf(w, "Prices (hourly, net, EUR): server %s %.4f, %s %.4f; load balancer %s %.4f; networks free; primary IPv4 ",
		p.ServerType, p.ServerHour, p.NextType, p.NextHour, p.LoadBalancerType, p.LoadBalancerHour)
	if p.IPv4Unknown != "" {
		fmt.Fprintf(w, "unknown (%s), counted as free\n", p.IPv4Unknown)
	} else {
		fmt.Fprintf(w, "%.4f\n", p.IPv4Hour)
	}
	fmt.Fprintf(w, "Estimate: %.4f EUR for about %d minutes; at most %.4f EUR if every resource is billed a full hour.\n",
		cost, p.Minutes(), atMost)
}
