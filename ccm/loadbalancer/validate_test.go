package loadbalancer

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

func TestValidateService(t *testing.T) {
	svc := func(kv ...string) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "u1", Annotations: map[string]string{}},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443, NodePort: 30443}, {Name: "web", Port: 8443, NodePort: 30843}}}}
		for i := 0; i+1 < len(kv); i += 2 {
			s.Annotations[annotation.Prefix+kv[i]] = kv[i+1]
		}
		return s
	}
	d := annotation.Defaults{Enabled: true, Type: "lb11"}
	tests := []struct {
		name        string
		svc         *corev1.Service
		networkID   int64
		want        ServiceConfig
		wantErr     bool
		networkZone string
	}{
		{name: "defaults", svc: svc(), want: ServiceConfig{Type: "lb11"}},
		{name: "network zone of HCLOUD_NETWORK", svc: svc(), networkID: 7, networkZone: "eu-central",
			want: ServiceConfig{Type: "lb11", NetworkZone: "eu-central"}},
		{name: "location wins over zone", svc: svc("location", "hel1", "network-zone", "us-east"),
			want: ServiceConfig{Type: "lb11", Location: "hel1"}},
		{name: "uploaded certificates", svc: svc("protocol", "https", "http-certificates", "a, 42", "type", "LB21"),
			want: ServiceConfig{Type: "lb21", Certificates: []CertificateRef{{"a", annotation.HTTPCertificates}, {"42", annotation.HTTPCertificates}}}},
		{name: "certificates of one port", svc: svc("port-https.protocol", "https", "port-https.http-certificates", "a", "port-8443.protocol", "https", "http-certificates", "b,a"),
			want: ServiceConfig{Type: "lb11", Certificates: []CertificateRef{{"a", annotation.Prefix + "port-https.http-certificates"}, {"b", annotation.HTTPCertificates}}}},
		{name: "https on one port without certificates", svc: svc("port-443.protocol", "https"), wantErr: true},
		{name: "managed certificate", svc: svc("protocol", "https", "certificate-type", "managed", "http-managed-certificate-domains", "example.com"),
			want: ServiceConfig{Type: "lb11", ManagedCertificate: true}},
		{name: "bad value", svc: svc("health-check-interval", "1m30x"), wantErr: true},
		{name: "https without certificates", svc: svc("protocol", "https"), wantErr: true},
		{name: "private IP without a network", svc: svc("use-private-ip", "true"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateService(tt.svc, d, tt.networkID, tt.networkZone)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
