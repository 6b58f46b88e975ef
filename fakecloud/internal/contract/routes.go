package contract

import "strings"

// routes finds an operation by method and path. A literal segment wins
// over a parameter, so /servers/actions is not /servers/{id}.
type routes struct {
	ops      map[string]compiled // by method
	literal  map[string]*routes
	variable *routes
}

func newRoutes() *routes { return &routes{} }

func (r *routes) add(method, path string, op compiled) {
	node := r
	for _, seg := range segments(path) {
		if strings.HasPrefix(seg, "{") {
			if node.variable == nil {
				node.variable = newRoutes()
			}
			node = node.variable
			continue
		}
		if node.literal == nil {
			node.literal = map[string]*routes{}
		}
		next, ok := node.literal[seg]
		if !ok {
			next = newRoutes()
			node.literal[seg] = next
		}
		node = next
	}
	if node.ops == nil {
		node.ops = map[string]compiled{}
	}
	node.ops[method] = op
}

func (r *routes) match(method, path string) (compiled, bool) {
	node := r.find(segments(path))
	if node == nil {
		return compiled{}, false
	}
	op, ok := node.ops[method]
	return op, ok
}

func (r *routes) find(segs []string) *routes {
	if len(segs) == 0 {
		return r
	}
	if next, ok := r.literal[segs[0]]; ok {
		if found := next.find(segs[1:]); found != nil && found.ops != nil {
			return found
		}
	}
	if r.variable != nil && segs[0] != "" {
		return r.variable.find(segs[1:])
	}
	return nil
}

func segments(path string) []string {
	return strings.Split(strings.Trim(path, "/"), "/")
}
