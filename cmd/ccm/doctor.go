package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/hcloudlab/hcloud-ccm/ccm"
	"github.com/hcloudlab/hcloud-ccm/ccm/doctor"
)

// Exit statuses of ccm doctor.
const (
	doctorHealthy = 0 // no finding is FAIL
	doctorFailed  = 1 // some finding is FAIL
	doctorUsage   = 2 // bad flags, kubeconfig or configuration: nothing checked
)

// doctorIO is what ccm doctor reads and writes, so tests can replace it.
type doctorIO struct {
	getenv         func(string) string
	environ        []string
	stdout, stderr io.Writer
	kube           func(kubeconfig string, timeout time.Duration) (kubernetes.Interface, error)
}

// doctorMain runs `ccm doctor` as a process.
func doctorMain(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return runDoctor(ctx, args, doctorIO{getenv: os.Getenv, environ: os.Environ(), stdout: os.Stdout, stderr: os.Stderr, kube: kubeClient})
}

// runDoctor checks the kubeconfig's cluster against the cloud of the
// CCM's configuration, prints the findings and returns the exit status.
func runDoctor(ctx context.Context, args []string, env doctorIO) int {
	fs, f := newDoctorFlags(env.stderr)
	kubeconfig, output, namespace, clusterCIDR, timeout := f.kubeconfig, f.output, f.namespace, f.clusterCIDR, f.timeout
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return doctorHealthy
		}
		return doctorUsage
	}
	if *f.bound <= 0 || *timeout <= 0 {
		fmt.Fprintf(env.stderr, "ccm doctor: want a positive --timeout and --request-timeout, got %v and %v\n", *f.bound, *timeout)
		return doctorUsage
	}
	ctx, cancel := context.WithTimeoutCause(ctx, *f.bound, fmt.Errorf("--timeout %v passed", *f.bound))
	defer cancel()
	if fs.NArg() > 0 || (*output != "text" && *output != "json") {
		fmt.Fprintf(env.stderr, "ccm doctor: want -o text or -o json and no arguments, got -o %s %s\n", *output, strings.Join(fs.Args(), " "))
		return doctorUsage
	}
	kube, err := env.kube(*kubeconfig, *timeout)
	if err != nil {
		fmt.Fprintf(env.stderr, "ccm doctor: %v\n", err)
		return doctorUsage
	}
	// The CCM's own settings come from its Deployment's environment;
	// what is set here wins.
	getenv, fromWorkload, found, err := doctor.WorkloadEnv(ctx, kube, *namespace, env.getenv)
	if err != nil {
		fmt.Fprintf(env.stderr, "ccm doctor: the CCM's settings in its Deployment are not read: %v\n", err)
	}
	source := "HCLOUD_TOKEN"
	switch {
	case strings.TrimSpace(env.getenv("HCLOUD_TOKEN")) != "":
	case strings.TrimSpace(env.getenv("HCLOUD_TOKEN_FILE")) != "":
		source = "HCLOUD_TOKEN_FILE"
	case found:
		source = fromWorkload
	default:
		if getenv, err = doctor.SecretEnv(ctx, kube, *namespace, getenv); err != nil {
			fmt.Fprintf(env.stderr, "ccm doctor: %v\n", err)
			return doctorUsage
		}
		source = "Secret " + *namespace + "/" + doctor.SecretName
	}
	cfg, err := ccm.LoadConfig(getenv, nil)
	unread, envErr := ccm.CheckEnviron(env.environ)
	cfg.Warnings = append(cfg.Warnings, unread...)
	if err = errors.Join(err, envErr); err != nil {
		fmt.Fprintf(env.stderr, "ccm doctor: invalid configuration:\n%v\n", err)
		return doctorUsage
	}
	r := doctor.Run(ctx, doctor.Options{Config: cfg, TokenSource: source, Kube: kube, Namespace: *namespace, ClusterCIDR: *clusterCIDR})
	write := doctor.WriteText
	if *output == "json" {
		write = doctor.WriteJSON
	}
	if err := write(env.stdout, r); err != nil {
		fmt.Fprintf(env.stderr, "ccm doctor: %v\n", err)
	}
	if r.Failed() {
		return doctorFailed
	}
	return doctorHealthy
}

// doctorFlags are ccm doctor's flags.
type doctorFlags struct {
	kubeconfig, output, namespace, clusterCIDR *string
	timeout, bound                             *time.Duration
}

// newDoctorFlags defines ccm doctor's flags, as its usage and
// docs/reference/flags.md list them.
func newDoctorFlags(stderr io.Writer) (*flag.FlagSet, doctorFlags) {
	fs := flag.NewFlagSet("ccm doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := doctorFlags{
		kubeconfig:  fs.String("kubeconfig", "", "kubeconfig file (default $KUBECONFIG, else ~/.kube/config)"),
		output:      fs.String("o", "text", "output: text (a table) or json"),
		namespace:   fs.String("namespace", doctor.DefaultNamespace, "the CCM's namespace: its Deployment or DaemonSet, RBAC and Secret hcloud"),
		clusterCIDR: fs.String("cluster-cidr", "", "kube-controller-manager's --cluster-cidr (default: the Nodes' pod CIDRs)"),
		timeout:     fs.Duration("request-timeout", 30*time.Second, "how long each request to the apiserver may take; one that does not answer fails naming its URL (Hetzner API requests time out after 30 s)"),
		bound:       fs.Duration("timeout", doctor.DefaultBound, "how long the whole run may take: a check not finished by then is a FAIL naming it, and the report is printed"),
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: ccm doctor [flags]\n\nChecks a cluster against its Hetzner Cloud project with the CCM's HCLOUD_* configuration\n"+
			"(or, without HCLOUD_TOKEN, Secret hcloud in --namespace) and explains what is wrong.\n"+
			"Exit status: 0 no FAIL, 1 a FAIL, 2 nothing checked.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs, f
}

// kubeClient is a client of the kubeconfig at path, or of kubectl's
// default ($KUBECONFIG, else ~/.kube/config) when path is empty, whose
// requests fail after timeout naming the URL that did not answer.
func kubeClient(path string, timeout time.Duration) (kubernetes.Interface, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	cfg.Timeout = timeout
	return kubernetes.NewForConfig(cfg)
}
