package hcloudapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

type certGet struct {
	Certificate schema.Certificate `json:"certificate"`
}

type certList struct {
	Certificates []schema.Certificate `json:"certificates"`
	Meta         listMeta             `json:"meta"`
}

func (s *Server) mountCertificates(r chi.Router) {
	wrap := func(c schema.Certificate) any { return certGet{c} }
	r.Get("/certificates", s.serve(func(c *call) (int, any, *apiError) {
		q, err := parseList(c.r)
		if err != nil {
			return 0, nil, err
		}
		page, total, err := c.tx.Certificates(q, c.r.URL.Query()["type"])
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, certList{Certificates: page, Meta: metaOf(c.header, c.r, total, q)}, nil
	}))
	r.Post("/certificates", s.serve(create((*world.Tx).CreateCertificate, func(v world.CertificateCreated) any { return v })))
	r.Get("/certificates/{id}", s.serve(get((*world.Tx).Certificate, wrap)))
	r.Put("/certificates/{id}", s.serve(update("certificate", (*world.Tx).UpdateCertificate, wrap)))
	r.Delete("/certificates/{id}", s.serve(del((*world.Tx).DeleteCertificate)))
	s.actionRoutes(r, "certificates", map[string]apiHandler{"retry": actOnBodyless("certificate", (*world.Tx).RetryCertificate)})
}
