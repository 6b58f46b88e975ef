package fakecloud

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

func TestCertificateListFilters(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	uploadCert(t, f, "up-prod", map[string]string{"env": "prod", "tier": "web"}, "prod.example.com")
	uploadCert(t, f, "up-dev", map[string]string{"env": "dev"}, "dev.example.com")
	res, _, err := f.client.Certificate.CreateCertificate(ctx, hcloud.CertificateCreateOpts{
		Name: "managed-prod", Type: hcloud.CertificateTypeManaged, DomainNames: []string{"m.example.com"}, Labels: map[string]string{"env": "prod"},
	})
	if err != nil || f.client.Action.WaitFor(ctx, res.Action) != nil {
		t.Fatalf("create managed: %v", err)
	}

	names := func(certs []*hcloud.Certificate) []string {
		var out []string
		for _, c := range certs {
			out = append(out, c.Name)
		}
		return out
	}
	selectorTests := []struct {
		selector string
		want     []string
	}{
		{"", []string{"up-prod", "up-dev", "managed-prod"}},
		{"env=prod", []string{"up-prod", "managed-prod"}},
		{"env!=prod", []string{"up-dev"}},
		{"tier", []string{"up-prod"}},
		{"env in (dev,test)", []string{"up-dev"}},
		{"env=staging", nil},
	}
	for _, tt := range selectorTests {
		t.Run("label_selector "+tt.selector, func(t *testing.T) {
			got, err := f.client.Certificate.AllWithOpts(ctx, hcloud.CertificateListOpts{ListOpts: hcloud.ListOpts{LabelSelector: tt.selector}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, names(got)); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
		})
	}

	// hcloud-go has no type filter, so send it raw.
	typeTests := []struct {
		query string
		want  []string
	}{
		{"type=managed", []string{"managed-prod"}},
		{"type=uploaded", []string{"up-prod", "up-dev"}},
		{"type=uploaded&type=managed", []string{"up-prod", "up-dev", "managed-prod"}},
		{"type=uploaded&label_selector=env%3Dprod", []string{"up-prod"}},
		{"name=up-dev", []string{"up-dev"}},
		{"sort=name:desc", []string{"up-prod", "up-dev", "managed-prod"}},
	}
	for _, tt := range typeTests {
		t.Run(tt.query, func(t *testing.T) {
			resp, body := f.do(t, "GET", "/v1/certificates?"+tt.query, "")
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			var list struct {
				Certificates []struct {
					Name string `json:"name"`
				} `json:"certificates"`
			}
			if err := json.Unmarshal(body, &list); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range list.Certificates {
				got = append(got, c.Name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCertificateUpdate(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	c := uploadCert(t, f, "old", map[string]string{"a": "1"}, "u.example.com")
	uploadCert(t, f, "other", nil, "o.example.com")

	up, _, err := f.client.Certificate.Update(ctx, c, hcloud.CertificateUpdateOpts{Name: "new", Labels: map[string]string{"b": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := f.client.Certificate.GetByID(ctx, c.ID)
	if err != nil || got == nil {
		t.Fatal(err)
	}
	for _, cert := range []*hcloud.Certificate{up, got} {
		if cert.Name != "new" || cmp.Diff(map[string]string{"b": "2"}, cert.Labels) != "" {
			t.Errorf("after update: name %q labels %v, want new {b:2}", cert.Name, cert.Labels)
		}
		if cert.Fingerprint != c.Fingerprint || cert.Certificate != c.Certificate {
			t.Errorf("update changed the certificate itself")
		}
	}
	// Labels only: the name stays; an empty map clears the labels.
	up, _, err = f.client.Certificate.Update(ctx, c, hcloud.CertificateUpdateOpts{Labels: map[string]string{}})
	if err != nil || up.Name != "new" || len(up.Labels) != 0 {
		t.Errorf("clear labels: %+v %v", up, err)
	}
	// Renaming to its own name is fine.
	if _, _, err := f.client.Certificate.Update(ctx, c, hcloud.CertificateUpdateOpts{Name: "new"}); err != nil {
		t.Errorf("rename to own name: %v", err)
	}

	_, _, err = f.client.Certificate.Update(ctx, c, hcloud.CertificateUpdateOpts{Name: "other"})
	wantCode(t, err, hcloud.ErrorCodeUniquenessError)
	_, _, err = f.client.Certificate.Update(ctx, c, hcloud.CertificateUpdateOpts{Labels: map[string]string{"hetzner.cloud/x": "y"}})
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)
	_, _, err = f.client.Certificate.Update(ctx, &hcloud.Certificate{ID: 999}, hcloud.CertificateUpdateOpts{Name: "x"})
	wantCode(t, err, hcloud.ErrorCodeNotFound)
	resp, body := f.do(t, "PUT", "/v1/certificates/"+itoa(int(c.ID)), `{"name":"has space"}`)
	if resp.StatusCode != http.StatusUnprocessableEntity || !containsCode(body, "invalid_input") {
		t.Errorf("bad name: %d %s", resp.StatusCode, body)
	}
	got, _, _ = f.client.Certificate.GetByID(ctx, c.ID)
	if got.Name != "new" {
		t.Errorf("refused updates changed the name to %q", got.Name)
	}
}

func TestCertificateUsedByLoadBalancer(t *testing.T) {
	tests := []struct {
		name    string
		release func(t *testing.T, f *fixture, lb *hcloud.LoadBalancer)
	}{
		{"service deleted", func(t *testing.T, f *fixture, lb *hcloud.LoadBalancer) {
			a, _, err := f.client.LoadBalancer.DeleteService(t.Context(), lb, 443)
			if err != nil || f.client.Action.WaitFor(t.Context(), a) != nil {
				t.Fatalf("delete service: %v", err)
			}
		}},
		{"load balancer deleted", func(t *testing.T, f *fixture, lb *hcloud.LoadBalancer) {
			res, _, err := f.client.LoadBalancer.DeleteWithResult(t.Context(), lb)
			if err != nil {
				t.Fatalf("delete load balancer: %v", err)
			}
			if res.Action != nil {
				if err := f.client.Action.WaitFor(t.Context(), res.Action); err != nil {
					t.Fatal(err)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			ctx := t.Context()
			cert := uploadCert(t, f, "web", nil, "lb.example.com")
			spare := uploadCert(t, f, "spare", nil, "spare.example.com")
			res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{
				Name: "lb", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"},
				Services: []hcloud.LoadBalancerCreateOptsService{{
					Protocol: hcloud.LoadBalancerServiceProtocolHTTPS, ListenPort: hcloud.Ptr(443), DestinationPort: hcloud.Ptr(80),
					HTTP: &hcloud.LoadBalancerCreateOptsServiceHTTP{Certificates: []*hcloud.Certificate{{ID: cert.ID}}},
				}},
			})
			if err != nil {
				t.Fatalf("create load balancer: %v", err)
			}
			if err := f.client.Action.WaitFor(ctx, res.Action); err != nil {
				t.Fatal(err)
			}
			lb := res.LoadBalancer

			wantUsedBy := []hcloud.CertificateUsedByRef{{ID: lb.ID, Type: hcloud.CertificateUsedByRefTypeLoadBalancer}}
			got, _, err := f.client.Certificate.GetByID(ctx, cert.ID)
			if err != nil || got == nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantUsedBy, got.UsedBy); diff != "" {
				t.Errorf("used_by (-want +got):\n%s", diff)
			}
			all, err := f.client.Certificate.All(ctx)
			if err != nil || len(all) != 2 {
				t.Fatalf("list: %d %v", len(all), err)
			}
			for _, c := range all {
				want := wantUsedBy
				if c.ID == spare.ID {
					want = nil
				}
				if diff := cmp.Diff(want, c.UsedBy, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("listed %s used_by (-want +got):\n%s", c.Name, diff)
				}
			}

			_, err = f.client.Certificate.Delete(ctx, cert)
			wantCode(t, err, hcloud.ErrorCodeResourceInUse)
			resp, body := f.do(t, "DELETE", "/v1/certificates/"+itoa(int(cert.ID)), "")
			if resp.StatusCode != http.StatusUnprocessableEntity || !containsCode(body, "resource_in_use") {
				t.Errorf("delete in use: %d %s, want 422 resource_in_use", resp.StatusCode, body)
			}
			if still, _, _ := f.client.Certificate.GetByID(ctx, cert.ID); still == nil {
				t.Fatal("refused delete removed the certificate")
			}
			// An unused certificate deletes at once.
			if _, err := f.client.Certificate.Delete(ctx, spare); err != nil {
				t.Errorf("delete unused certificate: %v", err)
			}

			tt.release(t, f, lb)
			got, _, err = f.client.Certificate.GetByID(ctx, cert.ID)
			if err != nil || got == nil || len(got.UsedBy) != 0 {
				t.Fatalf("after release: %+v %v, want used_by empty", got, err)
			}
			if _, err := f.client.Certificate.Delete(ctx, cert); err != nil {
				t.Fatalf("delete released certificate: %v", err)
			}
			gone, _, err := f.client.Certificate.GetByID(ctx, cert.ID)
			if err != nil || gone != nil {
				t.Errorf("deleted certificate still there: %v %v", gone, err)
			}
			resp, body = f.do(t, "DELETE", "/v1/certificates/"+itoa(int(cert.ID)), "")
			if resp.StatusCode != http.StatusNotFound || !containsCode(body, "not_found") {
				t.Errorf("second delete: %d %s, want 404 not_found", resp.StatusCode, body)
			}
		})
	}
}
