package robot

import "net/http"

// The endpoints, as the documentation's sections "Server" (GET /server,
// GET /server/{server-number}) and "Reset" (GET /reset, GET
// /reset/{server-number}) describe them: every item wrapped in an object
// named for its kind, a list as an array of such wrappers.

func (h *Handler) listServers(*http.Request) (any, *apiError) {
	servers := h.opts.Servers()
	if len(servers) == 0 {
		return nil, newError("SERVER_NOT_FOUND", "server not found")
	}
	out := make([]map[string]listed, 0, len(servers))
	for _, s := range servers {
		out = append(out, map[string]listed{"server": listedOf(s)})
	}
	return out, nil
}

func (h *Handler) getServer(r *http.Request) (any, *apiError) {
	s, aerr := h.server(r)
	if aerr != nil {
		return nil, aerr
	}
	return map[string]detail{"server": detailOf(s)}, nil
}

// listResets lists the reset options of the servers that have reset.
func (h *Handler) listResets(*http.Request) (any, *apiError) {
	out := []map[string]resetInfo{}
	for _, s := range h.opts.Servers() {
		if s.Reset {
			out = append(out, map[string]resetInfo{"reset": {IPv4: s.IPv4, IPv6Net: s.IPv6Net, Number: s.Number, Type: resetTypesOf(s)}})
		}
	}
	if len(out) == 0 {
		return nil, newError("SERVER_NOT_FOUND", "server not found")
	}
	return out, nil
}

func (h *Handler) getReset(r *http.Request) (any, *apiError) {
	s, aerr := h.server(r)
	if aerr != nil {
		return nil, aerr
	}
	if !s.Reset {
		return nil, newError("RESET_NOT_AVAILABLE", "reset is not available for this server")
	}
	return map[string]resetInfo{"reset": {IPv4: s.IPv4, IPv6Net: s.IPv6Net, Number: s.Number, Type: resetTypesOf(s), OperatingStatus: s.OperatingStatus}}, nil
}

// server finds the server the path names: 400 INVALID_INPUT for a number
// that is not one, 404 SERVER_NOT_FOUND for one that no server has.
func (h *Handler) server(r *http.Request) (Server, *apiError) {
	n, ok := parseNumber(r.PathValue("server-number"))
	if !ok {
		return Server{}, invalidInput("server-number")
	}
	for _, s := range h.opts.Servers() {
		if s.Number == n {
			return s, nil
		}
	}
	return Server{}, newError("SERVER_NOT_FOUND", "server not found")
}
