package fakecloud

import (
	"net/http"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/admin"
)

// adminRoutes is the admin API over this server.
func (s *Server) adminRoutes() http.Handler { return admin.Routes(s, s.robot, s.opts.AdminToken) }
