package fakecloud

import (
	"net/http"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/admin"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
)

// adminRoutes is the admin API over this server's projects: ?project=NAME
// names the project a request inspects or changes, the default project
// when left out.
func (s *Server) adminRoutes() http.Handler {
	own := s.adminOf(s)
	byName := map[string]http.Handler{}
	for name, p := range s.projects {
		byName[name] = s.adminOf(p)
	}
	return admin.Auth(s.opts.AdminToken)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Query().Get("project")
		if name == "" || name == DefaultProject {
			own.ServeHTTP(w, r)
			return
		}
		h, ok := byName[name]
		if !ok {
			wire.WriteError(w, apierr.NotFound("project", name))
			return
		}
		h.ServeHTTP(w, r)
	}))
}

// adminOf is the admin API's routes over one project.
func (s *Server) adminOf(p *Server) http.Handler {
	return admin.Routes(p, s.robot, s.opts.AdminToken, s.Projects)
}
