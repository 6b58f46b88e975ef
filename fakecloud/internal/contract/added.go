package contract

import "fmt"

// Endpoints the live API added after the description, described here as
// the changelog describes them, so the contract tests judge fakecloud's
// answers for them too:
//
//   - GET /networks/{id}/members (changelog 2026-09-15, "Network members
//     endpoint"; hcloud-go v2.52's NetworkMember): the servers and load
//     balancers attached, filtered by type, subnet and status, sorted by
//     id, type, status or ip, paginated.
func addPaths(paths map[string]any) error {
	networks, ok := paths["/networks"].(map[string]any)
	network, ok2 := paths["/networks/{id}"].(map[string]any)
	if !ok || !ok2 {
		return fmt.Errorf("contract: the description has no /networks or /networks/{id} to model /networks/{id}/members on")
	}
	list := networks["get"].(map[string]any)
	get := network["get"].(map[string]any)
	meta := list["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)["properties"].(map[string]any)["meta"]
	var params []any
	for _, p := range list["parameters"].([]any) {
		if name := p.(map[string]any)["name"]; name == "page" || name == "per_page" {
			params = append(params, p)
		}
	}
	for _, p := range get["parameters"].([]any) {
		if p.(map[string]any)["in"] == "path" {
			params = append(params, p)
		}
	}
	enumQuery := func(name string, values ...any) map[string]any {
		items := map[string]any{"type": "string"}
		if len(values) > 0 {
			items["enum"] = values
		}
		return map[string]any{"name": name, "in": "query", "required": false, "schema": map[string]any{"type": "array", "items": items}}
	}
	var sorts []any
	for _, k := range []string{"id", "type", "status", "ip"} {
		sorts = append(sorts, k, k+":asc", k+":desc")
	}
	params = append(params, enumQuery("type", "server", "load_balancer"), enumQuery("subnet"),
		enumQuery("status", "ok", "attaching", "detaching", "updating", "error"), enumQuery("sort", sorts...))
	str := map[string]any{"type": "string"}
	member := map[string]any{"type": "object",
		"required": []any{"type", "id", "ip", "alias_ips", "subnet", "status"},
		"properties": map[string]any{
			"type":      map[string]any{"type": "string", "enum": []any{"server", "load_balancer"}},
			"id":        map[string]any{"type": "integer", "format": "int64"},
			"ip":        str,
			"alias_ips": map[string]any{"type": "array", "items": str},
			"subnet":    str,
			"status":    map[string]any{"type": "string", "enum": []any{"ok", "attaching", "detaching", "updating", "error"}},
		}}
	responses := map[string]any{
		"200": map[string]any{"description": "The members of the network.", "content": map[string]any{"application/json": map[string]any{
			"schema": map[string]any{"type": "object", "required": []any{"members", "meta"},
				"properties": map[string]any{"members": map[string]any{"type": "array", "items": member}, "meta": meta}}}}},
	}
	for status, r := range get["responses"].(map[string]any) {
		if status[0] == '4' || status[0] == '5' { // the error envelopes, however spelt
			responses[status] = r
		}
	}
	paths["/networks/{id}/members"] = map[string]any{"get": map[string]any{
		"operationId": "list_network_members",
		"summary":     "List Network members",
		"tags":        get["tags"],
		"parameters":  params,
		"responses":   responses,
	}}
	return nil
}
