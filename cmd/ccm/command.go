package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/app/config"
	"k8s.io/cloud-provider/names"
	"k8s.io/cloud-provider/options"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/cli/globalflag"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/component-base/term"
	"k8s.io/component-base/version/verflag"
	cmfeatures "k8s.io/controller-manager/pkg/features"
)

// newCommand is app.NewCloudControllerManagerCommand with the same flags,
// help and run, but with this CCM's webhooks: upstream's passes app.Run
// none. The CloudControllerManagerWebhook gate is on by default here
// (--feature-gates can turn it off); nothing is served unless --webhooks
// names a webhook, and none is on by default.
func newCommand(ctx context.Context, s *options.CloudControllerManagerOptions, newCloud app.InitCloudFunc, hooks *webhookFlags) *cobra.Command {
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{string(cmfeatures.CloudControllerManagerWebhook): true}); err != nil {
		panic(err) // the gate is registered by package app
	}
	logOptions := logs.NewOptions()
	cmd := &cobra.Command{
		Use: commandName,
		Long: `The Cloud controller manager is a daemon that embeds
the cloud specific control loops shipped with Kubernetes.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			verflag.PrintAndExitIfRequested()
			if err := logsapi.ValidateAndApply(logOptions, utilfeature.DefaultFeatureGate); err != nil {
				fmt.Fprintf(os.Stderr, "%v\n", err)
				return err
			}
			cliflag.PrintFlags(cmd.Flags())
			completed, err := completeConfig(s, hooks)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%v\n", err)
				return err
			}
			cloud := newCloud(completed)
			inits := app.ConstructControllerInitializers(initFuncConstructors(), completed, cloud)
			webhooks, err := hooks.handlers(ctx, completed, completed.Client, cloud)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%v\n", err)
				return err
			}
			// Served here, with limits on each request, not by app.Run.
			if err := serveWebhooks(completed, webhooks, ctx.Done()); err != nil {
				fmt.Fprintf(os.Stderr, "%v\n", err)
				return err
			}
			if err := app.Run(completed, cloud, inits, nil, ctx.Done()); err != nil {
				fmt.Fprintf(os.Stderr, "%v\n", err)
				return err
			}
			return nil
		},
		Args: func(cmd *cobra.Command, args []string) error {
			for _, arg := range args {
				if len(arg) > 0 {
					return fmt.Errorf("%q does not take any arguments, got %q", cmd.CommandPath(), args)
				}
			}
			return nil
		},
	}
	namedFlagSets := flagSections(s, hooks, logOptions)
	for _, f := range namedFlagSets.FlagSets {
		cmd.Flags().AddFlagSet(f)
	}

	usageFmt := "Usage:\n  %s\n"
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	cmd.SetUsageFunc(func(cmd *cobra.Command) error {
		fmt.Fprintf(cmd.OutOrStderr(), usageFmt, cmd.UseLine())
		cliflag.PrintSections(cmd.OutOrStderr(), namedFlagSets, cols)
		return nil
	})
	cmd.SetHelpFunc(func(cmd *cobra.Command, _ []string) {
		fmt.Fprintf(cmd.OutOrStdout(), "%s\n\n"+usageFmt, cmd.Long, cmd.UseLine())
		cliflag.PrintSections(cmd.OutOrStdout(), namedFlagSets, cols)
	})
	return cmd
}

// commandName is the command's name in its usage and global flags.
const commandName = "cloud-controller-manager"

// flagSections are the command's flags by section, as --help prints them
// and docs/reference/flags.md lists them.
func flagSections(s *options.CloudControllerManagerOptions, hooks *webhookFlags, logOptions *logs.Options) cliflag.NamedFlagSets {
	controllers := app.ControllerNames(app.DefaultInitFuncConstructors)
	namedFlagSets := s.Flags(controllers, app.ControllersDisabledByDefault.List(), names.CCMControllerAliases(), webhookNames, webhooksOffByDefault)
	globalFlagSet := namedFlagSets.FlagSet("global")
	verflag.AddFlags(globalFlagSet)
	logsapi.AddFlags(logOptions, globalFlagSet)
	globalflag.AddGlobalFlags(globalFlagSet, commandName, logs.SkipLoggingConfigurationFlags())
	hooks.addFlags(namedFlagSets.FlagSet("webhook certificates"))
	return namedFlagSets
}

// completeConfig is the controller manager's configuration from the
// parsed flags, with the webhook's among them checked.
func completeConfig(s *options.CloudControllerManagerOptions, hooks *webhookFlags) (*config.CompletedConfig, error) {
	if err := hooks.validate(s); err != nil {
		return nil, err
	}
	c, err := s.Config(app.ControllerNames(app.DefaultInitFuncConstructors), app.ControllersDisabledByDefault.List(),
		names.CCMControllerAliases(), webhookNames, webhooksOffByDefault)
	if err != nil {
		return nil, err
	}
	return c.Complete(), nil
}
