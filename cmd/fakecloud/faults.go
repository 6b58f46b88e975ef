package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/adminclient"
)

func listFaults(ctx context.Context, in *invocation) error {
	if len(in.args) > 0 && in.args[0] != "list" {
		return fmt.Errorf("faults: unknown subcommand %q (list, add, add-action, rm, clear)", in.args[0])
	}
	f, err := in.admin.Faults(ctx)
	if err != nil {
		return err
	}
	return in.printJSON(f)
}

// addFault is a command that adds the rule or action fault given as a
// document, and prints it as fakecloud answers, under key.
func addFault[T any](key string, add func(*adminclient.Client, context.Context, []byte) (T, error)) func(context.Context, *invocation) error {
	return func(ctx context.Context, in *invocation) error {
		doc, err := in.document(0, "rule (YAML or JSON)")
		if err != nil {
			return err
		}
		added, err := add(in.admin, ctx, doc)
		if err != nil {
			return err
		}
		return in.printJSON(map[string]any{key: added})
	}
}

func removeFault(ctx context.Context, in *invocation) error {
	arg, err := in.arg(0, "fault ID")
	if err != nil {
		return err
	}
	id, err := strconv.Atoi(arg)
	if err != nil || strconv.Itoa(id) != arg {
		return fmt.Errorf("faults: %q is not a fault ID", arg)
	}
	return in.admin.RemoveFault(ctx, id)
}

func clearFaults(ctx context.Context, in *invocation) error {
	return in.admin.ClearFaults(ctx)
}
