package world

import (
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// ServiceSpec is a load balancer service as create, add_service and
// update_service send it: every field optional.
type ServiceSpec struct {
	Protocol        *string          `json:"protocol"`
	ListenPort      *int             `json:"listen_port"`
	DestinationPort *int             `json:"destination_port"`
	Proxyprotocol   *bool            `json:"proxyprotocol"`
	HTTP            *serviceHTTPSpec `json:"http"`
	HealthCheck     *healthSpec      `json:"health_check"`
}

type serviceHTTPSpec struct {
	CookieName     *string  `json:"cookie_name"`
	CookieLifetime *int     `json:"cookie_lifetime"`
	Certificates   *[]int64 `json:"certificates"`
	RedirectHTTP   *bool    `json:"redirect_http"`
	StickySessions *bool    `json:"sticky_sessions"`
	TimeoutIdle    *int     `json:"timeout_idle"`
}

type healthSpec struct {
	Protocol *string         `json:"protocol"`
	Port     *int            `json:"port"`
	Interval *int            `json:"interval"`
	Timeout  *int            `json:"timeout"`
	Retries  *int            `json:"retries"`
	HTTP     *healthHTTPSpec `json:"http"`
}

type healthHTTPSpec struct {
	Domain      *string   `json:"domain"`
	Path        *string   `json:"path"`
	Response    *string   `json:"response"`
	StatusCodes *[]string `json:"status_codes"`
	TLS         *bool     `json:"tls"`
}

func set[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

// BuildService merges spec over base (the zero service for a new one),
// fills the API's defaults and validates; field names are prefixed.
func (w *project) BuildService(base schema.LoadBalancerService, spec ServiceSpec, f *apierr.Fields, prefix string) schema.LoadBalancerService {
	s := base
	if base.HTTP != nil {
		h := *base.HTTP
		h.Certificates = slices.Clone(h.Certificates)
		s.HTTP = &h
	}
	if base.HealthCheck != nil {
		hc := *base.HealthCheck
		if hc.HTTP != nil {
			hh := *hc.HTTP
			hh.StatusCodes = slices.Clone(hh.StatusCodes)
			hc.HTTP = &hh
		}
		s.HealthCheck = &hc
	}
	protoChanged := spec.Protocol != nil && *spec.Protocol != base.Protocol
	set(&s.Protocol, spec.Protocol)
	switch s.Protocol {
	case "tcp", "http", "https":
	default:
		f.Add(prefix+"protocol", "%q is not one of tcp, http, https", s.Protocol)
		return s
	}
	if spec.ListenPort != nil {
		s.ListenPort = *spec.ListenPort
	}
	if s.ListenPort == 0 {
		switch s.Protocol {
		case "http":
			s.ListenPort = 80
		case "https":
			s.ListenPort = 443
		default:
			f.Add(prefix+"listen_port", "is required for protocol tcp")
		}
	}
	set(&s.DestinationPort, spec.DestinationPort)
	if s.DestinationPort == 0 {
		if s.Protocol == "tcp" {
			s.DestinationPort = s.ListenPort
		} else {
			s.DestinationPort = 80
		}
	}
	set(&s.Proxyprotocol, spec.Proxyprotocol)
	checkPort(f, prefix+"listen_port", s.ListenPort)
	checkPort(f, prefix+"destination_port", s.DestinationPort)

	if s.Protocol == "tcp" {
		if spec.HTTP != nil {
			f.Add(prefix+"http", "must not be set for protocol tcp")
		}
		s.HTTP = nil
	} else {
		if s.HTTP == nil || protoChanged {
			s.HTTP = &schema.LoadBalancerServiceHTTP{CookieName: "HCLBSTICKY", CookieLifetime: 300, TimeoutIdle: 60, Certificates: []int64{}}
		}
		if h := spec.HTTP; h != nil {
			set(&s.HTTP.CookieName, h.CookieName)
			set(&s.HTTP.CookieLifetime, h.CookieLifetime)
			set(&s.HTTP.Certificates, h.Certificates)
			set(&s.HTTP.RedirectHTTP, h.RedirectHTTP)
			set(&s.HTTP.StickySessions, h.StickySessions)
			set(&s.HTTP.TimeoutIdle, h.TimeoutIdle)
		}
		if s.HTTP.Certificates == nil {
			s.HTTP.Certificates = []int64{}
		}
		if s.Protocol == "https" && len(s.HTTP.Certificates) == 0 {
			f.Add(prefix+"http.certificates", "at least one certificate is required for protocol https")
		}
		if s.Protocol == "http" && len(s.HTTP.Certificates) > 0 {
			f.Add(prefix+"http.certificates", "certificates are only allowed for protocol https")
		}
		if s.Protocol == "http" && s.HTTP.RedirectHTTP {
			f.Add(prefix+"http.redirect_http", "is only allowed for protocol https")
		}
		apierr.CheckUnique(f, prefix+"http.certificates", s.HTTP.Certificates)
		for _, id := range s.HTTP.Certificates {
			if _, ok := w.Certificates.Get(id); !ok {
				f.Add(prefix+"http.certificates", "certificate %d does not exist", id)
			}
		}
		if s.HTTP.CookieLifetime < 1 {
			f.Add(prefix+"http.cookie_lifetime", "must be at least 1 second")
		}
		if s.HTTP.TimeoutIdle < 1 || s.HTTP.TimeoutIdle > 3600 {
			f.Add(prefix+"http.timeout_idle", "must be between 1 and 3600 seconds")
		}
	}
	w.buildHealthCheck(&s, spec.HealthCheck, protoChanged, f, prefix+"health_check.")
	return s
}

func (w *project) buildHealthCheck(s *schema.LoadBalancerService, spec *healthSpec, protoChanged bool, f *apierr.Fields, prefix string) {
	if s.HealthCheck == nil || protoChanged {
		proto := s.Protocol
		if proto == "https" {
			proto = "http"
		}
		s.HealthCheck = &schema.LoadBalancerServiceHealthCheck{Protocol: proto, Port: s.DestinationPort, Interval: 15, Timeout: 10, Retries: 3}
	}
	hc := s.HealthCheck
	if spec != nil {
		set(&hc.Protocol, spec.Protocol)
		set(&hc.Port, spec.Port)
		set(&hc.Interval, spec.Interval)
		set(&hc.Timeout, spec.Timeout)
		set(&hc.Retries, spec.Retries)
	}
	switch hc.Protocol {
	case "tcp":
		if spec != nil && spec.HTTP != nil {
			f.Add(prefix+"http", "must not be set for health check protocol tcp")
		}
		hc.HTTP = nil
	case "http", "https":
		if hc.HTTP == nil {
			hc.HTTP = &schema.LoadBalancerServiceHealthCheckHTTP{Path: "/", StatusCodes: []string{"2??", "3??"}}
		}
		if spec != nil && spec.HTTP != nil {
			set(&hc.HTTP.Domain, spec.HTTP.Domain)
			set(&hc.HTTP.Path, spec.HTTP.Path)
			set(&hc.HTTP.Response, spec.HTTP.Response)
			set(&hc.HTTP.StatusCodes, spec.HTTP.StatusCodes)
			set(&hc.HTTP.TLS, spec.HTTP.TLS)
		}
		if hc.HTTP.StatusCodes == nil {
			hc.HTTP.StatusCodes = []string{}
		}
		if hc.HTTP.Path == "" || hc.HTTP.Path[0] != '/' {
			f.Add(prefix+"http.path", "must start with /")
		}
	default:
		f.Add(prefix+"protocol", "%q is not one of tcp, http, https", hc.Protocol)
	}
	checkPort(f, prefix+"port", hc.Port)
	if hc.Interval < 3 || hc.Interval > 60 {
		f.Add(prefix+"interval", "must be between 3 and 60 seconds")
	}
	if hc.Timeout < 1 || hc.Timeout > 60 {
		f.Add(prefix+"timeout", "must be between 1 and 60 seconds")
	}
	if hc.Retries < 1 || hc.Retries > 5 {
		f.Add(prefix+"retries", "must be between 1 and 5")
	}
}

func checkPort(f *apierr.Fields, field string, p int) {
	if p < 1 || p > 65535 {
		f.Add(field, "must be a port between 1 and 65535")
	}
}
