package main

import (
	"context"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/adminclient"
)

func applyEvent(ctx context.Context, in *invocation) error {
	doc, err := in.document(0, "event (YAML or JSON)")
	if err != nil {
		return err
	}
	return in.admin.ApplyDoc(ctx, doc)
}

// sendFile is a command that sends the file its argument names, a what.
func sendFile(what string, send func(*adminclient.Client, context.Context, []byte) error) func(context.Context, *invocation) error {
	return func(ctx context.Context, in *invocation) error {
		doc, err := in.file(0, what)
		if err != nil {
			return err
		}
		return send(in.admin, ctx, doc)
	}
}

func reset(ctx context.Context, in *invocation) error {
	to := adminclient.ResetEmpty
	if len(in.args) > 0 {
		to = adminclient.ResetTarget(in.args[0])
	}
	return in.admin.Reset(ctx, to)
}

func exportState(ctx context.Context, in *invocation) error {
	snapshot, err := in.admin.Export(ctx)
	if err != nil {
		return err
	}
	_, err = in.stdout.Write(append(snapshot, '\n'))
	return err
}
