package contract

import "slices"

// The description reuses its load balancer service models, written for
// responses, as request schemas, so their required lists name every field
// a response carries. The API fills in what a request leaves out:
// hcloud-cli's `load-balancer add-service --protocol http` sends the
// protocol alone, and Terraform's hcloud_load_balancer_service needs
// nothing more. In these bodies, at the given place, only the listed
// properties stay required.
var relaxed = map[string]relaxation{
	"POST /load_balancers":                             {at: []string{"properties", "services", "items"}, require: []string{"protocol"}},
	"POST /load_balancers/{id}/actions/add_service":    {require: []string{"protocol"}},
	"POST /load_balancers/{id}/actions/update_service": {require: []string{"listen_port"}},
}

type relaxation struct {
	at      []string // keys from the body schema to the relaxed one
	require []string
}

// relax applies the operation's relaxation, if any, to its body schema,
// and lets every health check name https as its protocol: the description
// allows tcp and http, but the official CCM sends a service's own
// protocol, https included, as its health check's, and the API takes it.
func relax(method, path string, body any) {
	widenHealthChecks(body, false)
	r, ok := relaxed[method+" "+path]
	if !ok {
		return
	}
	node, _ := body.(map[string]any)
	for _, key := range r.at {
		node, _ = node[key].(map[string]any)
	}
	if node == nil {
		panic("contract: no schema at " + method + " " + path + " " + joinKeys(r.at))
	}
	dropRequired(node)
	node["required"] = append([]any(nil), anySlice(r.require)...)
}

func dropRequired(v any) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "required")
		for _, child := range v {
			dropRequired(child)
		}
	case []any:
		for _, child := range v {
			dropRequired(child)
		}
	}
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func joinKeys(keys []string) string {
	out := ""
	for _, k := range keys {
		out += "/" + k
	}
	return out
}

// widenHealthChecks adds https to the protocol enum of every schema given
// as a health_check property.
func widenHealthChecks(v any, inHealthCheck bool) {
	switch v := v.(type) {
	case map[string]any:
		if props, ok := v["properties"].(map[string]any); ok && inHealthCheck {
			if p, ok := props["protocol"].(map[string]any); ok {
				if enum, ok := p["enum"].([]any); ok && !slices.Contains(enum, any("https")) {
					p["enum"] = append(enum, "https")
				}
			}
		}
		for k, child := range v {
			if props, ok := v["properties"].(map[string]any); ok && k == "properties" {
				for name, ps := range props {
					widenHealthChecks(ps, name == "health_check")
				}
				continue
			}
			widenHealthChecks(child, inHealthCheck && (k == "allOf" || k == "oneOf" || k == "anyOf"))
		}
	case []any:
		for _, child := range v {
			widenHealthChecks(child, inHealthCheck)
		}
	}
}
