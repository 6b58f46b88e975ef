package hcloudapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

type serverGet struct {
	Server world.ServerView `json:"server"`
}

type serverList struct {
	Servers []world.ServerView `json:"servers"`
	Meta    listMeta           `json:"meta"`
}

func (s *Server) mountServers(r chi.Router) {
	r.Get("/servers", s.serve(listServers))
	r.Post("/servers", s.serve(create((*world.Tx).CreateServer, func(v world.ServerCreated) any { return v })))
	r.Get("/servers/{id}", s.serve(get((*world.Tx).Server, func(v world.ServerView) any { return serverGet{v} })))
	r.Put("/servers/{id}", s.serve(update("server", (*world.Tx).UpdateServer, func(v world.ServerView) any { return serverGet{v} })))
	r.Delete("/servers/{id}", s.serve(get((*world.Tx).DeleteServer, func(a schema.Action) any { return actionGet{a} })))
	s.actionRoutes(r, "servers", serverActions)
}

// serverActions are the simulated POST /servers/{id}/actions/{name}. The
// server is looked up before the body is read.
var serverActions = map[string]apiHandler{
	"poweron":             actOnBodyless("server", (*world.Tx).PowerOnServer),
	"poweroff":            actOnBodyless("server", (*world.Tx).PowerOffServer),
	"shutdown":            actOnBodyless("server", (*world.Tx).ShutdownServer),
	"reboot":              actOnBodyless("server", (*world.Tx).RebootServer),
	"reset":               actOnBodyless("server", (*world.Tx).ResetServer),
	"attach_to_network":   actOn("server", (*world.Tx).AttachServerToNetwork),
	"detach_from_network": actOn("server", (*world.Tx).DetachServerFromNetwork),
	"change_protection":   actOn("server", (*world.Tx).ChangeServerProtection),
	"change_type":         actOn("server", (*world.Tx).ChangeServerType),
	"change_dns_ptr":      actOn("server", (*world.Tx).ChangeServerDNSPtr),
}

func listServers(c *call) (int, any, *apiError) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	page, total, err := c.tx.Servers(q, c.r.URL.Query()["status"])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, serverList{Servers: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}
