// Command scale runs make scale: the real ccm binary against etcd,
// kube-apiserver and fakecloud with many Nodes and load balancers, phase
// by phase, and prints what each phase cost. See BENCHMARKS.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hcloudlab/hcloud-ccm/e2e/scale"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "scale:", err)
		}
		os.Exit(1)
	}
}

func run(args []string) error {
	c := scale.Defaults()
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	fs.IntVar(&c.Nodes, "nodes", c.Nodes, "Nodes registered at once, one server each")
	fs.IntVar(&c.Services, "services", c.Services, "LoadBalancer Services")
	fs.IntVar(&c.NotReady, "not-ready", c.NotReady, "Nodes NotReady at once in the second NotReady phase")
	fs.IntVar(&c.Pool, "pool", c.Pool, "Nodes the load balancers target (a Hetzner load balancer holds 25 to 150 targets)")
	fs.IntVar(&c.Dedicated, "dedicated", c.Dedicated, "Nodes on dedicated (Robot) servers, the hybrid setting (e.g. 50)")
	fs.Float64Var(&c.Speed, "speed", c.Speed, "run the CCM's periods and the rate windows this many times faster; rates stay per hour of that clock")
	fs.DurationVar(&c.Window, "window", c.Window, "each rate window at speed 1")
	fs.DurationVar(&c.ActionDuration, "action-duration", c.ActionDuration, "how long fakecloud's actions run")
	fs.StringVar(&c.ControlBin, "control-bin", os.Getenv("E2E_CONTROL_BIN"), "directory with etcd and kube-apiserver (env E2E_CONTROL_BIN)")
	write := fs.String("write", "", "write the table into this file between its make scale markers, e.g. BENCHMARKS.md")
	check := fs.Bool("check", false, "exit 1 when an aim is missed")
	fs.BoolVar(&c.Keep, "keep", false, "keep the working directory: every process's log and each phase's requests (journal-<phase>.json)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.ControlBin == "" {
		return errors.New("no control plane binaries: run make scale, or set E2E_CONTROL_BIN to the directory scripts/build-control-plane.sh prints")
	}
	var err error
	if c.Root, err = os.Getwd(); err != nil {
		return err
	}
	if c.Dir, err = os.MkdirTemp("", "hcloud-ccm-scale-"); err != nil {
		return err
	}
	c.Log = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := scale.Run(ctx, c)
	if err != nil {
		return err
	}
	rep.Date = time.Now()
	fmt.Print(rep.Markdown())
	if *write != "" {
		if err := rep.WriteInto(*write); err != nil {
			return err
		}
	}
	if missed := rep.Missed(); *check && len(missed) > 0 {
		for _, m := range missed {
			fmt.Fprintln(os.Stderr, "aim missed:", m)
		}
		return fmt.Errorf("%d aims missed", len(missed))
	}
	return nil
}
