package world

import (
	"slices"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// certificates is the certificate kind's handle.
var certificates = kindOf[schema.Certificate]{"certificate", func(w *project) *Table[schema.Certificate] { return &w.Certificates }}

// certificateKind declares certificates to the world's mechanisms: a
// managed certificate's issuance ends with its action.
func certificateKind() kind {
	return certificates.declare(kind{
		idBase:   400000,
		commands: []string{"create_certificate"},
		finish: func(w *project, id int64, f Finish, ok bool) {
			if cert, found := w.Certificates.Get(id); found && f.IssueCertificate {
				w.endIssuance(cert, ok)
			}
		},
	})
}

// Certificate is the certificate with the ID.
func (t *Tx) Certificate(id int64) (schema.Certificate, *apierr.Error) {
	cert, err := certificates.find(t.w, id)
	if err != nil {
		return schema.Certificate{}, err
	}
	return t.w.ViewCert(cert), nil
}

// Certificates lists the certificates a query and the types (any, if
// none) select, one page of them, and how many they select in all.
func (t *Tx) Certificates(q listing.Query, types []string) ([]schema.Certificate, int, *apierr.Error) {
	items := slices.DeleteFunc(t.w.Certificates.All(), func(cert *schema.Certificate) bool {
		return !q.Keeps(cert.Name, cert.Labels) || (len(types) > 0 && !slices.Contains(types, cert.Type))
	})
	keys := listing.ByIDNameCreated(func(c *schema.Certificate) int64 { return c.ID }, func(c *schema.Certificate) string { return c.Name },
		func(c *schema.Certificate) int64 { return c.Created.Unix() })
	return listing.Page(items, q, keys, t.w.ViewCert)
}

// CertificateCreated is what creating a certificate answers: a managed
// one comes with its issuance action.
type CertificateCreated struct {
	Certificate schema.Certificate `json:"certificate"`
	Action      *schema.Action     `json:"action"`
}

// CreateCertificate stores an uploaded certificate, or starts issuing a
// managed one.
func (t *Tx) CreateCertificate(req schema.CertificateCreateRequest) (CertificateCreated, *apierr.Error) {
	w := t.w
	var f apierr.Fields
	CheckName(&f, "name", req.Name)
	labels := DerefLabels(req.Labels)
	ValidateLabels(&f, "labels", labels)
	if req.Type == "" {
		req.Type = "uploaded"
	}
	now := w.Now().UTC().Truncate(time.Second)
	cert := &schema.Certificate{Name: req.Name, Labels: labels, Type: req.Type, Created: now}
	switch req.Type {
	case "uploaded":
		parsed, field, msg := ParseUploaded(req.Certificate, req.PrivateKey)
		if msg != "" {
			f.Add(field, "%s", msg)
			break
		}
		FillFromX509(cert, parsed, req.Certificate)
	case "managed":
		if len(req.DomainNames) == 0 {
			f.Add("domain_names", "at least one domain name is required for a managed certificate")
		}
		apierr.CheckUnique(&f, "domain_names", req.DomainNames)
		for _, d := range req.DomainNames {
			if !HostnameRe.MatchString(strings.TrimPrefix(d, "*.")) {
				f.Add("domain_names", "%q is not a valid domain name", d)
			}
		}
		cert.DomainNames = req.DomainNames
		cert.Status = &schema.CertificateStatusRef{Issuance: "pending", Renewal: "unavailable"}
	default:
		f.Add("type", "%q is not one of uploaded, managed", req.Type)
	}
	if err := f.Err(); err != nil {
		return CertificateCreated{}, err
	}
	if _, dup := w.Certificates.Find(func(o *schema.Certificate) bool { return o.Name == req.Name }); dup {
		return CertificateCreated{}, apierr.NotUnique("name", "certificate name %q is already used", req.Name)
	}
	cert.ID = w.NewID("certificate")
	w.Certificates.Put(cert.ID, cert)
	if cert.Type == "uploaded" {
		w.CertKeys[cert.ID] = req.PrivateKey
	}
	out := CertificateCreated{}
	if cert.Type == "managed" {
		a := w.startIssuance(cert)
		av := w.ViewAction(a)
		out.Action = &av
	}
	out.Certificate = w.ViewCert(cert)
	return out, nil
}

// startIssuance runs the issuance action; endIssuance applies its end.
func (w *project) startIssuance(cert *schema.Certificate) *StoredAction {
	return w.startAction(ActionSpec{Command: "create_certificate", Resources: []Ref{{Type: "certificate", ID: cert.ID}},
		Finish: Finish{IssueCertificate: true}})
}

// RetryCertificate issues again a managed certificate whose issuance failed.
func (t *Tx) RetryCertificate(id int64) (schema.Action, *apierr.Error) {
	cert, err := certificates.find(t.w, id)
	if err != nil {
		return schema.Action{}, err
	}
	if cert.Type != "managed" || cert.Status == nil || cert.Status.Issuance != "failed" {
		return schema.Action{}, apierr.Errorf(apierr.CodeUnsupportedError, "only a managed certificate whose issuance failed can be retried")
	}
	if err := t.w.CheckLock(Ref{Type: "certificate", ID: cert.ID}); err != nil {
		return schema.Action{}, err
	}
	cert.Status = &schema.CertificateStatusRef{Issuance: "pending", Renewal: "unavailable"}
	a := t.w.startIssuance(cert)
	return t.w.ViewAction(a), nil
}

// UpdateCertificate renames and relabels a certificate.
func (t *Tx) UpdateCertificate(id int64, req schema.CertificateUpdateRequest) (schema.Certificate, *apierr.Error) {
	cert, err := certificates.find(t.w, id)
	if err != nil {
		return schema.Certificate{}, err
	}
	taken := NameTaken(&t.w.Certificates, func(o *schema.Certificate) string { return o.Name })
	if err := RenameRelabel("certificate", req.Name, req.Labels, CheckName, taken, &cert.Name, &cert.Labels); err != nil {
		return schema.Certificate{}, err
	}
	return t.w.ViewCert(cert), nil
}

// DeleteCertificate deletes a certificate no load balancer uses.
func (t *Tx) DeleteCertificate(id int64) *apierr.Error {
	cert, err := certificates.find(t.w, id)
	if err != nil {
		return err
	}
	if v := t.w.ViewCert(cert); len(v.UsedBy) > 0 {
		return apierr.Errorf("resource_in_use", "certificate %d is used by load balancer %d", cert.ID, v.UsedBy[0].ID)
	}
	if lb, ok := t.w.CertHeldByAction(cert.ID); ok {
		return apierr.Errorf("resource_in_use", "certificate %d is used by load balancer %d until its running action ends", cert.ID, lb)
	}
	if err := t.w.CheckLock(Ref{Type: "certificate", ID: cert.ID}); err != nil {
		return err
	}
	t.w.Certificates.Del(cert.ID)
	delete(t.w.CertKeys, cert.ID)
	return nil
}
