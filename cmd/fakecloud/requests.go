package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/adminclient"
)

func rateLimit(ctx context.Context, in *invocation) error {
	var set fakecloud.RateLimitSet
	if in.flags.remaining >= 0 {
		set.Remaining = &in.flags.remaining
	}
	if in.flags.refill >= 0 {
		set.Refill = &in.flags.refill
	}
	var rl adminclient.RateLimit
	var err error
	if set.Remaining == nil && set.Refill == nil {
		rl, err = in.admin.RateLimit(ctx)
	} else {
		rl, err = in.admin.SetRateLimit(ctx, set)
	}
	if err != nil {
		return err
	}
	return in.printJSON(rl)
}

func counters(ctx context.Context, in *invocation) error {
	cs, err := in.admin.Counters(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(in.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COUNT\tMETHOD\tROUTE\tSTATUS")
	for _, c := range cs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\n", c.Count, c.Method, c.Template, c.Status)
	}
	return tw.Flush()
}

// journal prints journal entries, and with --follow keeps printing new
// ones until ctx ends.
func journal(ctx context.Context, in *invocation) error {
	f := fakecloud.JournalFilter{Method: in.flags.method, Template: in.flags.template, Status: in.flags.status}
	for {
		f.Limit = 0 // --limit picks the newest entries to begin with
		if in.flags.limit > 0 && f.Since == 0 {
			f.Limit = in.flags.limit
		}
		entries, err := in.admin.Journal(ctx, f)
		if err != nil {
			if in.flags.follow && errors.Is(ctx.Err(), context.Canceled) {
				return nil
			}
			return err
		}
		for _, e := range entries {
			fault := ""
			if e.Fault != 0 {
				fault = " fault=" + strconv.Itoa(e.Fault)
			}
			fmt.Fprintf(in.stdout, "%d %s %-6s %-45s %d %s%s\n", e.Seq, e.Time.Format("15:04:05.000"), e.Method, e.Path, e.Status, time.Duration(e.Duration).Round(time.Microsecond), fault)
			f.Since = e.Seq
		}
		if !in.flags.follow {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}
