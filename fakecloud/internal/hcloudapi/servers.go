package hcloudapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

type serverGet struct {
	Server ServerView `json:"server"`
}

type serverList struct {
	Servers []ServerView `json:"servers"`
	Meta    listMeta     `json:"meta"`
}

func (s *Server) mountServers(r chi.Router) {
	r.Get("/servers", s.serve(listServers))
	r.Post("/servers", s.serve(create((*Tx).CreateServer, func(v ServerCreated) any { return v })))
	r.Get("/servers/{id}", s.serve(get((*Tx).Server, func(v ServerView) any { return serverGet{v} })))
	r.Put("/servers/{id}", s.serve(update("server", (*Tx).UpdateServer, func(v ServerView) any { return serverGet{v} })))
	r.Delete("/servers/{id}", s.serve(get((*Tx).DeleteServer, func(a schema.Action) any { return actionGet{a} })))
	s.actionRoutes(r, "servers", serverActions)
}

// serverActions are the simulated POST /servers/{id}/actions/{name}. The
// server is looked up before the body is read.
var serverActions = map[string]apiHandler{
	"poweron":             actOnBodyless("server", (*Tx).PowerOnServer),
	"poweroff":            actOnBodyless("server", (*Tx).PowerOffServer),
	"shutdown":            actOnBodyless("server", (*Tx).ShutdownServer),
	"reboot":              actOnBodyless("server", (*Tx).RebootServer),
	"reset":               actOnBodyless("server", (*Tx).ResetServer),
	"attach_to_network":   actOn("server", (*Tx).AttachServerToNetwork),
	"detach_from_network": actOn("server", (*Tx).DetachServerFromNetwork),
	"change_protection":   actOn("server", (*Tx).ChangeServerProtection),
	"change_type":         actOn("server", (*Tx).ChangeServerType),
	"change_dns_ptr":      actOn("server", (*Tx).ChangeServerDNSPtr),
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
