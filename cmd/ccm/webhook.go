package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/app/config"
	"k8s.io/cloud-provider/options"
	genericcontrollermanager "k8s.io/controller-manager/app"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm"
	"github.com/hcloudlab/hcloud-ccm/ccm/admission"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/ccm/webhookcert"
)

// The webhooks of --webhooks: "service" validates the
// load-balancer.hetzner.cloud annotations of Services, "node" explains a
// Node's --node-ip against HCLOUD_INSTANCES_INTERNAL_IP_CIDRS
// (ccm/admission). Each is off unless named.
var (
	webhookNames         = []string{"service", "node"}
	webhooksOffByDefault = []string{"service", "node"}
)

// certSyncPeriod is how often each replica reads the webhook's Secret.
const certSyncPeriod = time.Minute

// webhookFlags are this CCM's webhook flags, beside upstream's --webhooks,
// --webhook-secure-port, --webhook-tls-cert-file and the rest.
type webhookFlags struct {
	certSecret    string // namespace/name: the self-signed certificate is kept there; empty: the files or cert dir
	service       string // namespace/name of the webhook's Service, whose names the certificate carries
	configuration string // the ValidatingWebhookConfiguration that gets the CA bundle
	cloudChecks   bool

	lbs     func() *loadbalancer.Manager // the provider's, once built
	config  func() ccm.Config            // the CCM's settings, for the node webhook
	rotator *webhookcert.Rotator         // set by handlers with certSecret
}

func (f *webhookFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.certSecret, "webhook-cert-secret", "", "The namespace/name of a Secret where the CCM keeps a self-signed CA and serving certificate for the webhook, "+
		"shared by its replicas and renewed before they expire (needs get and update of it, or create when it is missing). "+
		"Empty: the certificate of --webhook-tls-cert-file (cert-manager) or --webhook-cert-dir.")
	fs.StringVar(&f.service, "webhook-service", "", "The namespace/name of the webhook's Service; the self-signed certificate is for its DNS names.")
	fs.StringVar(&f.configuration, "webhook-configuration", "", "The ValidatingWebhookConfiguration whose caBundle the CCM keeps to the self-signed CA "+
		"(needs get and update of it). Empty: the caBundle is someone else's (cert-manager's cainjector).")
	fs.BoolVar(&f.cloudChecks, "webhook-cloud-checks", true, "The service webhook also checks the type, location and certificates a Service names "+
		"against what the CCM already knows of the cloud (never a request); what it does not know passes.")
}

// validate checks the webhook flags, with upstream's in s.
func (f *webhookFlags) validate(s *options.CloudControllerManagerOptions) error {
	if f.certSecret == "" {
		return nil
	}
	var errs []error
	if _, _, ok := splitRef(f.certSecret); !ok {
		errs = append(errs, fmt.Errorf("--webhook-cert-secret=%q: want namespace/name", f.certSecret))
	}
	if _, _, ok := splitRef(f.service); !ok {
		errs = append(errs, fmt.Errorf("--webhook-service=%q: want namespace/name of the webhook's Service (with --webhook-cert-secret)", f.service))
	}
	if f.configuration == "" {
		// Nobody else knows the self-signed CA: without it in the
		// configuration's caBundle the apiserver never trusts the webhook.
		errs = append(errs, errors.New("--webhook-cert-secret needs --webhook-configuration, whose caBundle gets the self-signed CA"))
	}
	if s.WebhookServing != nil && (s.WebhookServing.ServerCert.CertKey.CertFile != "" || s.WebhookServing.ServerCert.CertKey.KeyFile != "") {
		errs = append(errs, errors.New("--webhook-cert-secret and --webhook-tls-cert-file exclude each other"))
	}
	return errors.Join(errs...)
}

// splitRef splits namespace/name.
func splitRef(ref string) (namespace, name string, ok bool) {
	namespace, name, ok = strings.Cut(ref, "/")
	return namespace, name, ok && namespace != "" && name != "" && !strings.Contains(name, "/")
}

// handlers are the webhooks --webhooks turns on, for app.Run. With
// --webhook-cert-secret, the webhook server serves the self-signed
// certificate, which kube keeps and renews until ctx ends.
func (f *webhookFlags) handlers(ctx context.Context, c *config.CompletedConfig, kube kubernetes.Interface, cloud cloudprovider.Interface) (map[string]app.WebhookHandler, error) {
	enabled := func(name string) bool {
		return genericcontrollermanager.IsControllerEnabled(name, sets.NewString(webhooksOffByDefault...), c.ComponentConfig.Webhook.Webhooks)
	}
	service, node := enabled("service"), enabled("node")
	if !service && !node {
		return map[string]app.WebhookHandler{}, nil
	}
	if c.WebhookSecureServing == nil {
		klog.InfoS("The webhooks are not served: --webhook-secure-port=0")
		return map[string]app.WebhookHandler{}, nil
	}
	if f.certSecret != "" {
		namespace, name, _ := splitRef(f.certSecret)
		svcNamespace, svcName, _ := splitRef(f.service)
		host := svcName + "." + svcNamespace
		r, err := webhookcert.New(webhookcert.Options{Client: kube, SecretNamespace: namespace, SecretName: name, Configuration: f.configuration,
			DNSNames: []string{host + ".svc", host + ".svc.cluster.local", host, svcName}})
		if err != nil {
			return nil, err
		}
		c.WebhookSecureServing.Cert = r
		f.rotator = r
		go r.Run(ctx, certSyncPeriod)
	}
	configs := map[string]app.WebhookConfig{}
	if service {
		var lbs *loadbalancer.Manager
		if f.lbs != nil {
			lbs = f.lbs()
		}
		if lbs == nil {
			klog.InfoS("Load balancers are off (HCLOUD_LOAD_BALANCERS_ENABLED=false): the service webhook allows every Service")
		}
		if lbs != nil && f.cloudChecks {
			go loadTypes(ctx, lbs)
		}
		configs["service"] = app.WebhookConfig{Path: admission.Path, AdmissionHandler: admission.New(lbs, f.cloudChecks).Admit}
	}
	if node {
		var cfg ccm.Config
		if f.config != nil {
			cfg = f.config()
		}
		explain := func(old, cur *corev1.Node) []string { return ccm.NodeWarnings(cfg, old, cur) }
		configs["node"] = app.WebhookConfig{Path: admission.NodePath, AdmissionHandler: admission.NewNode(explain).Admit}
	}
	return app.NewWebhookHandlers(configs, c, cloud), nil
}

// loadTypes has lbs list the load balancer types for the webhook's cloud
// checks, trying up to five times over about half a minute; until then,
// or if all fail, a type or location passes unchecked.
func loadTypes(ctx context.Context, lbs *loadbalancer.Manager) {
	wait := time.Second
	for try := 1; ; try++ {
		err := lbs.LoadTypes(ctx)
		if err == nil || try == 5 || ctx.Err() != nil {
			if err != nil {
				klog.ErrorS(err, "Listing load balancer types for the service webhook; types and locations pass unchecked until a sync lists them")
			}
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait *= 2
	}
}
