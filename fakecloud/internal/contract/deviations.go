package contract

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Where the live API takes more than the description says, fakecloud
// follows the API. Each deviation names its source:
//
//   - A field described as the ID or name of a resource (server_type,
//     image, location, ssh_keys' items) takes an integer too. The
//     description types it as a string; hcloud-go sends IDs as numbers
//     (schema.IDOrName, ServerCreateRequest.SSHKeys []int64).
//   - A health check's protocol may be https. The description allows tcp
//     and http; the official CCM sends a service's own protocol, https
//     included, as its health check's when none is annotated.
//   - A load balancer service given in a request needs only its protocol
//     (add_service, services of a new load balancer), or its listen port
//     (update_service). The description reuses the response models, whose
//     required lists name every field a response carries; the API fills in
//     the rest: hcloud-cli's `load-balancer add-service --protocol http`
//     sends the protocol alone, and so does Terraform's
//     hcloud_load_balancer_service with no more than a protocol.
//   - create_image takes null for its type and description, which mean
//     their defaults: hcloud-go's ServerActionCreateImageRequest sends
//     both without omitempty, so every hcloud-go client sends null for
//     what it leaves unset (the Terraform provider's hcloud_snapshot
//     sends no type).
//
// Answers follow the live API where it changed after the description:
//
//   - An unassigned primary IP's assignee_type is "unassigned" since
//     2026-08-01 (changelog 2026-04-27, "Primary IPs will return
//     unassigned"); the description's enum still holds server alone. A
//     load balancer's is load_balancer (changelog 2026-10-05, "Load
//     Balancers can use existing Primary IPs"; the value is fakecloud's
//     reading, not seen).
//   - Images, server types and load balancer types no longer carry
//     "deprecated" since 2026-11-02 (changelog 2026-09-08, "Removing the
//     deprecated field"); the description still requires it.
var relaxed = map[string]relaxation{
	"POST /load_balancers":                             {at: []string{"properties", "services", "items"}, require: []string{"protocol"}},
	"POST /load_balancers/{id}/actions/add_service":    {require: []string{"protocol"}},
	"POST /load_balancers/{id}/actions/update_service": {require: []string{"listen_port"}},
}

// nullable are request properties that take null, by operation.
var nullable = map[string][]string{
	"POST /servers/{id}/actions/create_image": {"type", "description"},
}

type relaxation struct {
	at      []string // keys from the body schema to the relaxed one
	require []string
}

// added are request properties the live API took on after the
// description, by operation:
//
//   - POST /load_balancers: public_net, the primary IPs a new load
//     balancer takes by ID (changelog 2026-10-05, "Load Balancers can use
//     existing Primary IPs"; hcloud-go v2.52's
//     LoadBalancerCreateRequestPublicNet).
var added = map[string]map[string]any{
	"POST /load_balancers": {"public_net": map[string]any{
		"description": "The primary IPs the load balancer takes, by ID; a family left out gets a new address.",
		"type":        "object",
		"properties": map[string]any{
			"ipv4": map[string]any{"type": "integer", "format": "int64"},
			"ipv6": map[string]any{"type": "integer", "format": "int64"},
		},
		"additionalProperties": false,
	}},
}

// commaLists are query parameters whose values may list several, comma
// separated, as the description's text says of the metrics endpoints'
// type ("by comma separation, e.g. cpu,disk") though its schema takes
// one value each; fakecloud checks each value itself.
var commaLists = map[string]string{
	"GET /servers/{id}/metrics":        "type",
	"GET /load_balancers/{id}/metrics": "type",
}

// widenCommaLists lets the commaLists' parameters take any string, in a
// whole description.
func widenCommaLists(paths map[string]any) {
	for key, name := range commaLists {
		method, path, _ := strings.Cut(key, " ")
		op, _ := paths[path].(map[string]any)[strings.ToLower(method)].(map[string]any)
		params, _ := op["parameters"].([]any)
		found := false
		for _, p := range params {
			if pm, _ := p.(map[string]any); pm["name"] == name {
				found = widenCommaParam(pm["schema"])
			}
		}
		if !found {
			panic(fmt.Sprintf("contract: %s has no list parameter %s", key, name))
		}
	}
}

// widenCommaParam drops the enum of a list parameter's items, reporting
// whether it is a list.
func widenCommaParam(schema any) bool {
	items, ok := schema.(map[string]any)["items"].(map[string]any)
	if ok {
		delete(items, "enum")
	}
	return ok
}

// deviate applies the deviations to one operation's body schema, in place.
func deviate(method, path string, body any) {
	if props, ok := body.(map[string]any)["properties"].(map[string]any); ok {
		for name, schema := range added[method+" "+path] {
			props[name] = schema
		}
		for _, name := range nullable[method+" "+path] {
			if p, ok := props[name].(map[string]any); ok {
				p["type"] = []any{p["type"], "null"}
				if enum, ok := p["enum"].([]any); ok {
					p["enum"] = append(enum, nil)
				}
			}
		}
	}
	widenIDs(body, false)
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
		panic(fmt.Sprintf("contract: no schema at %s %s /%s", method, path, strings.Join(r.at, "/")))
	}
	dropRequired(node)
	var require []any
	for _, name := range r.require {
		require = append(require, name)
	}
	node["required"] = require
}

// Deviate applies the deviations to a whole OpenAPI description, so that a
// validator of the description judges requests as fakecloud does.
func Deviate(spec []byte) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(spec, &doc); err != nil {
		return nil, err
	}
	paths, _ := doc["paths"].(map[string]any)
	if err := addPaths(paths); err != nil {
		return nil, err
	}
	widenCommaLists(paths)
	for path, item := range paths {
		for method, op := range item.(map[string]any) {
			body, _ := op.(map[string]any)["requestBody"].(map[string]any)
			content, _ := body["content"].(map[string]any)
			if media, ok := content["application/json"].(map[string]any); ok {
				deviate(strings.ToUpper(method), path, media["schema"])
			}
			responses, _ := op.(map[string]any)["responses"].(map[string]any)
			for _, r := range responses {
				content, _ := r.(map[string]any)["content"].(map[string]any)
				if media, ok := content["application/json"].(map[string]any); ok {
					for prop, values := range answerEnums {
						widenEnum(media["schema"], prop, values)
					}
					unrequire(media["schema"], "deprecated")
				}
			}
		}
	}
	return json.Marshal(doc)
}

// answerEnums are values answers carry beyond the description's enums.
var answerEnums = map[string][]string{"assignee_type": {"unassigned", "load_balancer"}}

// widenEnum adds values to the enum of every property named prop.
func widenEnum(v any, prop string, values []string) {
	eachMap(v, func(m map[string]any) {
		props, _ := m["properties"].(map[string]any)
		p, ok := props[prop].(map[string]any)
		if !ok {
			return
		}
		if enum, ok := p["enum"].([]any); ok {
			for _, value := range values {
				if !slices.Contains(enum, any(value)) {
					enum = append(enum, value)
				}
			}
			p["enum"] = enum
		}
	})
}

// idOrName matches the descriptions of fields that name a resource by ID
// or by name.
var idOrName = regexp.MustCompile(`(?i)\bIDs?\b[^.]{0,20}\bor names?\b`)

// widenIDs lets ID-or-name strings take integers. byID says the enclosing
// array was described as IDs or names.
func widenIDs(v any, byID bool) {
	s, ok := v.(map[string]any)
	if !ok {
		return
	}
	desc, _ := s["description"].(string)
	byID = byID || idOrName.MatchString(desc)
	if props, ok := s["properties"].(map[string]any); ok {
		for _, ps := range props {
			widenIDs(ps, false)
		}
	}
	widenIDs(s["items"], byID)
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := s[k].([]any)
		for _, sub := range list {
			widenIDs(sub, byID)
		}
	}
	if byID && s["type"] == "string" {
		s["type"] = []any{"string", "integer"}
	}
}

// widenHealthChecks adds https to the protocol enum of every schema given
// as a health_check property.
func widenHealthChecks(v any, inHealthCheck bool) {
	switch v := v.(type) {
	case map[string]any:
		props, _ := v["properties"].(map[string]any)
		if p, ok := props["protocol"].(map[string]any); ok && inHealthCheck {
			if enum, ok := p["enum"].([]any); ok && !slices.Contains(enum, any("https")) {
				p["enum"] = append(enum, "https")
			}
		}
		for name, ps := range props {
			widenHealthChecks(ps, name == "health_check")
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			list, _ := v[k].([]any)
			for _, sub := range list {
				widenHealthChecks(sub, inHealthCheck)
			}
		}
		widenHealthChecks(v["items"], false)
	}
}

// dropRequired drops every required list in v.
func dropRequired(v any) { eachMap(v, func(m map[string]any) { delete(m, "required") }) }

// unrequire drops a property from every required list, for a field the
// live API no longer answers.
func unrequire(v any, prop string) {
	eachMap(v, func(m map[string]any) {
		if req, ok := m["required"].([]any); ok {
			m["required"] = slices.DeleteFunc(slices.Clone(req), func(r any) bool { return r == prop })
		}
	})
}

// eachMap calls fn on every JSON object in v, outermost first, at every
// depth.
func eachMap(v any, fn func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		fn(v)
		for _, child := range v {
			eachMap(child, fn)
		}
	case []any:
		for _, child := range v {
			eachMap(child, fn)
		}
	}
}
