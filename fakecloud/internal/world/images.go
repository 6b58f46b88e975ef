package world

import (
	"fmt"
	"strconv"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
)

// ImageCreateRequest is create_image's body.
type ImageCreateRequest struct {
	Description *string            `json:"description,omitempty"`
	Type        *string            `json:"type,omitempty"`
	Labels      *map[string]string `json:"labels,omitempty"`
}

// ImageUpdateRequest is PUT /images/{id}: a description, labels, or a
// backup turned into a snapshot.
type ImageUpdateRequest struct {
	Description *string            `json:"description,omitempty"`
	Type        *string            `json:"type,omitempty"`
	Labels      *map[string]string `json:"labels,omitempty"`
}

// NewImage builds the image create_image makes of a server, "creating"
// until its action ends: a snapshot outlives the server, a backup is
// bound to it and needs its backups enabled. Its size is the server's
// disk; what it holds, half of that.
func (w *project) NewImage(s *StoredServer, req ImageCreateRequest) (*schema.Image, *apierr.Error) {
	var f apierr.Fields
	typ := "snapshot"
	if req.Type != nil {
		typ = *req.Type
	}
	switch {
	case typ != "snapshot" && typ != "backup":
		f.Add("type", "%q is not one of snapshot, backup", typ)
	case typ == "backup" && s.BackupWindow == nil:
		f.Add("type", "server %d has no backups enabled; enable_backup first", s.ID)
	}
	labels := DerefLabels(req.Labels)
	ValidateLabels(&f, "labels", labels)
	if err := f.Err(); err != nil {
		return nil, err
	}
	now := w.Now().UTC().Truncate(time.Second)
	desc := fmt.Sprintf("%s %s", s.Name, now.Format("2006-01-02 15:04:05"))
	if req.Description != nil {
		desc = *req.Description
	}
	size := float32(s.PrimaryDiskSize) / 2
	im := &schema.Image{ID: w.NewID("image"), Status: "creating", Type: typ, Description: desc, ImageSize: &size,
		DiskSize: float32(s.PrimaryDiskSize), Created: &now, CreatedFrom: &schema.ImageCreatedFrom{ID: s.ID, Name: s.Name},
		Architecture: s.ServerType.Architecture, Labels: labels}
	if s.Image != nil {
		im.OSFlavor, im.OSVersion = s.Image.OSFlavor, s.Image.OSVersion
	}
	if typ == "backup" {
		im.BoundTo = new(s.ID)
	}
	w.Images.Put(im.ID, im)
	return im, nil
}

// UpdateImage changes one of the project's images; the catalogue's
// system images cannot be changed.
func (w *project) UpdateImage(id int64, req ImageUpdateRequest) (catalog.ImageView, *apierr.Error) {
	im, err := w.ownImage(id)
	if err != nil {
		return catalog.ImageView{}, err
	}
	var f apierr.Fields
	if req.Type != nil && *req.Type != "snapshot" {
		f.Add("type", "%q: an image can only become a snapshot", *req.Type)
	}
	if req.Labels != nil {
		ValidateLabels(&f, "labels", *req.Labels)
	}
	if err := f.Err(); err != nil {
		return catalog.ImageView{}, err
	}
	if req.Description != nil {
		im.Description = *req.Description
	}
	if req.Labels != nil {
		im.Labels = CopyLabels(*req.Labels)
	}
	if req.Type != nil {
		im.Type, im.BoundTo = "snapshot", nil
	}
	return catalog.ViewImage(*im), nil
}

// DeleteImage deletes one of the project's images: not one being
// created, nor one protected.
func (w *project) DeleteImage(id int64) *apierr.Error {
	im, err := w.ownImage(id)
	if err != nil {
		return err
	}
	switch {
	case im.Protection.Delete:
		return apierr.Protected("image", id)
	case im.Status == "creating":
		return apierr.Locked("image", id)
	}
	w.dropImage(id)
	return nil
}

// dropImage deletes an image; servers created from it show no image any
// more (the server's image is nullable).
func (w *project) dropImage(id int64) {
	w.Images.Del(id)
	for _, s := range w.Servers.All() {
		if s.Image != nil && s.Image.ID == id {
			s.Image = nil
		}
	}
}

func (w *project) ownImage(id int64) (*schema.Image, *apierr.Error) {
	im, ok := w.Images.Get(id)
	if ok {
		return im, nil
	}
	if _, system := w.Cat.Image(strconv.FormatInt(id, 10), ""); system {
		return nil, apierr.Errorf(apierr.CodeInvalidInput, "image %d is a system image; only snapshots and backups can be changed", id)
	}
	return nil, apierr.NotFound("image", id)
}

// DeleteBackups deletes a server's backups: when its backups are
// disabled, or it is deleted.
func (w *project) DeleteBackups(server int64) {
	for _, im := range w.Images.All() {
		if im.BoundTo != nil && *im.BoundTo == server {
			w.dropImage(im.ID)
		}
	}
}

// ImageViews are the project's images as the API answers them.
func (w *project) ImageViews() []catalog.ImageView {
	var out []catalog.ImageView
	for _, im := range w.Images.All() {
		out = append(out, catalog.ViewImage(*im))
	}
	return out
}

// FindImage finds an image a server can be created from: a system image
// by ID or by name for the architecture, or one of the project's
// available images by ID.
func (w *project) FindImage(ref, arch string) (schema.Image, bool) {
	if im, ok := w.Cat.Image(ref, arch); ok {
		return im, true
	}
	id, err := strconv.ParseInt(ref, 10, 64)
	if err != nil {
		return schema.Image{}, false
	}
	im, ok := w.Images.Get(id)
	if !ok || im.Status != "available" || (arch != "" && im.Architecture != arch) {
		return schema.Image{}, false
	}
	return *im, true
}
