package world

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"
)

// The snapshot's JSON refers to catalogue entries (server types, load
// balancer types, locations, images) by ID and name instead of copying
// them, with their price tables, into every server and load balancer: a
// server takes about 1 KB instead of 9 KB. Import fills them in from the
// catalogue again. Version 1 snapshots, which carried the copies, are
// still read.

// catalogRef names a catalogue entry.
type catalogRef struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// fileServer is a server as the snapshot stores it; the shallower fields
// shadow the embedded schema.Server's in JSON.
type fileServer struct {
	StoredServer
	ServerType catalogRef  `json:"server_type"`
	Location   catalogRef  `json:"location"`
	Image      *catalogRef `json:"image"`
}

// fileLoadBalancer is a load balancer as the snapshot stores it.
type fileLoadBalancer struct {
	StoredLoadBalancer
	LoadBalancerType catalogRef `json:"load_balancer_type"`
	Location         catalogRef `json:"location"`
}

// stateFile is state with references for the catalogue's entries. Its
// own fields shadow state's and come first, so the file reads as version
// 1 did: the version, the servers, the load balancers, then the rest.
type stateFile struct {
	Version       int                `json:"version"`
	Servers       []fileServer       `json:"servers"`
	LoadBalancers []fileLoadBalancer `json:"load_balancers"`
	Snapshot
}

func EncodeState(st Snapshot) ([]byte, error) {
	f := stateFile{Version: st.Version, Snapshot: st, Servers: []fileServer{}, LoadBalancers: []fileLoadBalancer{}}
	for _, s := range st.Servers {
		fs := fileServer{StoredServer: *s, ServerType: catalogRef{s.ServerType.ID, s.ServerType.Name}, Location: catalogRef{s.Location.ID, s.Location.Name}}
		if s.Image != nil {
			fs.Image = &catalogRef{ID: s.Image.ID}
			if s.Image.Name != nil {
				fs.Image.Name = *s.Image.Name
			}
		}
		f.Servers = append(f.Servers, fs)
	}
	for _, lb := range st.LoadBalancers {
		f.LoadBalancers = append(f.LoadBalancers, fileLoadBalancer{StoredLoadBalancer: *lb,
			LoadBalancerType: catalogRef{lb.LoadBalancerType.ID, lb.LoadBalancerType.Name}, Location: catalogRef{lb.Location.ID, lb.Location.Name}})
	}
	return json.MarshalIndent(f, "", "  ")
}

// DecodeState reads a snapshot of either version strictly and fills the
// catalogue's entries in by name; an entry the catalogue lacks is an error
// naming the field.
func DecodeState(data []byte, cat *catalog.Catalog) (Snapshot, error) {
	var probe struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return Snapshot{}, err
	}
	if probe.Version == 1 {
		var st Snapshot
		if err := strictDecode(data, &st); err != nil {
			return Snapshot{}, err
		}
		return st, checkVersion1(st)
	}
	var f stateFile
	if err := strictDecode(data, &f); err != nil {
		return Snapshot{}, err
	}
	st := f.Snapshot
	st.Version, st.Servers, st.LoadBalancers = f.Version, []*StoredServer{}, []*StoredLoadBalancer{}
	var errs []error
	for i, fs := range f.Servers {
		s := &fs.StoredServer
		at := fmt.Sprintf("servers[%d]", i)
		s.ServerType = fromCatalogue(&errs, cat.ServerType, fs.ServerType.Name, at+".server_type.name")
		s.Location = fromCatalogue(&errs, cat.Location, fs.Location.Name, at+".location.name")
		s.Image = nil
		if fs.Image != nil {
			byID := func(id string) (schema.Image, bool) {
				if im, ok := cat.Image(id, s.ServerType.Architecture); ok {
					return im, true
				}
				return ownImage(st.Images, id) // a snapshot it was created from
			}
			img := fromCatalogue(&errs, byID, strconv.FormatInt(fs.Image.ID, 10), at+".image.id")
			s.Image = &img
		}
		st.Servers = append(st.Servers, s)
	}
	for i, flb := range f.LoadBalancers {
		lb := &flb.StoredLoadBalancer
		at := fmt.Sprintf("load_balancers[%d]", i)
		lb.LoadBalancerType = fromCatalogue(&errs, cat.LBType, flb.LoadBalancerType.Name, at+".load_balancer_type.name")
		lb.Location = fromCatalogue(&errs, cat.Location, flb.Location.Name, at+".location.name")
		st.LoadBalancers = append(st.LoadBalancers, lb)
	}
	if len(errs) > 0 {
		return Snapshot{}, errors.Join(errs...)
	}
	return st, nil
}

// checkVersion1 refuses a snapshot that says version 1 but refers to the
// catalogue as version 2 does ({id, name} only): read as version 1, its
// servers would have empty types and locations.
func checkVersion1(st Snapshot) error {
	var errs []error
	for i, s := range st.Servers {
		if s == nil {
			errs = append(errs, fmt.Errorf("servers[%d]: is null", i))
			continue
		}
		if s.ServerType.Architecture == "" || s.Location.NetworkZone == "" {
			errs = append(errs, fmt.Errorf("servers[%d]: version 1 carries whole server types and locations; this one names them only (a version 2 snapshot?)", i))
		}
	}
	for i, lb := range st.LoadBalancers {
		if lb == nil {
			errs = append(errs, fmt.Errorf("load_balancers[%d]: is null", i))
			continue
		}
		if lb.LoadBalancerType.MaxTargets == 0 || lb.Location.NetworkZone == "" {
			errs = append(errs, fmt.Errorf("load_balancers[%d]: version 1 carries whole load balancer types and locations; this one names them only (a version 2 snapshot?)", i))
		}
	}
	return errors.Join(errs...)
}

// fromCatalogue is the catalogue's entry ref; one it lacks adds an error
// naming field to errs.
func fromCatalogue[T any](errs *[]error, find func(string) (T, bool), ref, field string) T {
	v, ok := find(ref)
	if !ok {
		*errs = append(*errs, fmt.Errorf("%s: %q is not in the catalogue", field, ref))
	}
	return v
}

// ownImage is the project's image with the ID, among images.
func ownImage(images []*schema.Image, id string) (schema.Image, bool) {
	for _, im := range images {
		if im != nil && strconv.FormatInt(im.ID, 10) == id {
			return *im, true
		}
	}
	return schema.Image{}, false
}

func strictDecode(data []byte, v any) error {
	if err := strict.InexactKey(data, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the JSON object")
	}
	return nil
}
