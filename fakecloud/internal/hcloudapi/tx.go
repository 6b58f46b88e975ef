package hcloudapi

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"

// Tx is one request's hold on the world: its methods are the typed
// operations the API's endpoints perform, each validating its request
// and changing the world completely or not at all. A Tx is valid only
// inside the function the world runs it in, under the world's lock.
// Results are copies in the API's schema, never the stored resources.
type Tx struct{ w *liveWorld }

// read runs f under the world's lock, after settling due actions, for a
// read that is not an API request (the metadata service).
func (w *liveWorld) read(f func(*Tx)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.settle()
	f(&Tx{w})
}

// Catalog is the catalogue: locations, datacenters, types, images and
// prices. It does not change.
func (t *Tx) Catalog() *catalog.Catalog { return t.w.cat }

// find returns the resource of a kind with the ID, or not_found.
func find[T any](t *table[T], kind string, id int64) (*T, *apiError) {
	v, ok := t.get(id)
	if !ok {
		return nil, notFound(kind, id)
	}
	return v, nil
}

// exists answers not_found unless a resource of the kind has the ID.
func (t *Tx) exists(kind string, id int64) *apiError {
	ok := t.w.exists(kind, id)
	if kind == "ssh_key" {
		_, ok = t.w.sshKeys.get(id)
	}
	if !ok {
		return notFound(kind, id)
	}
	return nil
}

// exists reports whether a resource of a kind that actions name has the ID.
func (w *liveWorld) exists(kind string, id int64) bool {
	var ok bool
	switch kind {
	case "server":
		_, ok = w.servers.get(id)
	case "load_balancer":
		_, ok = w.loadBalancers.get(id)
	case "network":
		_, ok = w.networks.get(id)
	case "certificate":
		_, ok = w.certificates.get(id)
	case "primary_ip":
		_, ok = w.primaryIPs.get(id)
	}
	return ok
}
