package fakecloud

import (
	"fmt"
	"hash/fnv"
	"maps"
	"net/http"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
)

// A fakecloud serves the default project, whose tokens are
// Options.Tokens, and the further projects of Options.Projects: each a
// Server of its own behind this one, as a token of the live API sees one
// project.

// DefaultProject is the name of the project of Options.Tokens.
const DefaultProject = "default"

// checkProjects refuses a project without a name or a token, a name that
// is not a simple word, and a token given to two projects.
func (o Options) checkProjects() []error {
	var errs []error
	owner := map[string]string{}
	for _, t := range append(append([]string{}, o.Tokens...), o.ReadOnlyTokens...) {
		owner[t] = DefaultProject
	}
	if len(o.Tokens) == 0 {
		owner[DefaultToken] = DefaultProject
	}
	for _, name := range slices.Sorted(maps.Keys(o.Projects)) {
		if name == DefaultProject || !projectNameRe.MatchString(name) {
			errs = append(errs, fmt.Errorf("project %q: a name is letters, digits, - and _, at most 64, and not %q", name, DefaultProject))
		}
		if len(o.Projects[name]) == 0 {
			errs = append(errs, fmt.Errorf("project %q: has no token", name))
		}
		for _, t := range o.Projects[name] {
			if other, taken := owner[t]; taken && other != name {
				errs = append(errs, fmt.Errorf("project %q: a token of it is project %q's too; a token belongs to one project", name, other))
			}
			owner[t] = name
		}
	}
	return errs
}

var projectNameRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// newProject is a further project: a Server of its own with the
// project's tokens and the same settings, its IDs and passwords seeded
// apart from the default project's. It carries no traffic and has no
// state file, metadata service or Robot webservice: those are the
// default project's, and so are dedicated servers (its Apply refuses
// their events).
func newProject(opts Options, name string) *Server {
	o := opts
	o.Tokens, o.ReadOnlyTokens, o.Projects = opts.Projects[name], nil, nil
	o.LoadBalancerIPv4Range, o.LoadBalancerDial = netip.Prefix{}, nil
	h := fnv.New64a()
	h.Write([]byte(name))
	o.IDSeed = opts.IDSeed ^ h.Sum64()
	p := New(o)
	p.name = name
	return p
}

// Project is the further project of the name (Options.Projects), to
// script as a Server; false for a name there is none of.
// DefaultProject is the Server itself.
func (s *Server) Project(name string) (*Server, bool) {
	if name == DefaultProject || name == "" {
		return s, true
	}
	p, ok := s.projects[name]
	return p, ok
}

// Projects lists the projects' names: the default one first, then the
// others in order.
func (s *Server) Projects() []string {
	return append([]string{DefaultProject}, slices.Sorted(maps.Keys(s.projects))...)
}

// dispatch hands an API request bearing a further project's token to that
// project; the rest (the default project's, the admin API, the metadata
// service, the Robot webservice and /metrics) is this Server's.
func (s *Server) dispatch(next http.Handler) http.Handler {
	if len(s.byToken) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := s.byToken[wire.Bearer(r)]; ok && !ownPath(r.URL.Path) {
			p.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ownPath reports whether a path is the default project's whatever the
// token: the admin API, the metadata service, the Robot webservice and
// the metrics.
func ownPath(path string) bool {
	for _, prefix := range []string{"/_fakecloud", "/metadata", "/hetzner/v1/metadata", robotPrefix, "/metrics"} {
		if path == prefix || strings.HasPrefix(path, prefix+"/") {
			return true
		}
	}
	return false
}
