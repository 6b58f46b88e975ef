package world

import (
	"strconv"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
)

// images is the handle of the project's own images (snapshots and
// backups); the catalogue's exist too.
var images = kindOf[schema.Image]{"image", func(w *project) *Table[schema.Image] { return &w.Images }}

// imageKind declares images; create_image is the server's action.
func imageKind() kind {
	k := images.declare(kind{
		idBase:   700000,
		commands: []string{"change_protection"},
		// A deleted server's backups go with it.
		forget: func(w *project, gone Ref) {
			if gone.Type == "server" {
				w.DeleteBackups(gone.ID)
			}
		},
	})
	own := k.exists
	k.exists = func(w *project, id int64) bool {
		if own(w, id) {
			return true
		}
		_, ok := w.Cat.Image(strconv.FormatInt(id, 10), "")
		return ok
	}
	return k
}

// ImageCreated is create_image's answer.
type ImageCreated struct {
	Image  catalog.ImageView `json:"image"`
	Action schema.Action     `json:"action"`
}

// CreateImage copies a server's disk into a snapshot or backup image,
// available once its action ends.
func (t *Tx) CreateImage(id int64, req ImageCreateRequest) (ImageCreated, *apierr.Error) {
	var im *schema.Image
	a, err := act(t, servers, id, "create_image", func(s *StoredServer) (step, *apierr.Error) {
		var err *apierr.Error
		im, err = t.w.NewImage(s, req)
		if err != nil {
			return step{}, err
		}
		return step{finish: Finish{Image: im.ID}}, nil
	})
	if err != nil {
		return ImageCreated{}, err
	}
	// im is the stored image: an action that ended at once has made it
	// available already.
	return ImageCreated{Image: catalog.ViewImage(*im), Action: a}, nil
}

// Images are the project's snapshots and backups, for GET /images beside
// the catalogue's.
func (t *Tx) Images() []catalog.ImageView { return t.w.ImageViews() }

// UpdateImage changes a snapshot's or backup's description or labels, or
// makes a backup a snapshot.
func (t *Tx) UpdateImage(id int64, req ImageUpdateRequest) (catalog.ImageView, *apierr.Error) {
	return t.w.UpdateImage(id, req)
}

// DeleteImage deletes a snapshot or backup.
func (t *Tx) DeleteImage(id int64) *apierr.Error { return t.w.DeleteImage(id) }

// ChangeImageProtection sets a snapshot's delete protection; the
// description allows it on snapshots only, so a backup's or a system
// image's answers invalid_input. A request without delete changes
// nothing.
func (t *Tx) ChangeImageProtection(id int64, req schema.ImageActionChangeProtectionRequest) (schema.Action, *apierr.Error) {
	if _, err := t.w.ownImage(id); err != nil {
		return schema.Action{}, err
	}
	return act(t, images, id, "change_protection", func(im *schema.Image) (step, *apierr.Error) {
		if im.Type != "snapshot" {
			return step{}, apierr.Errorf(apierr.CodeInvalidInput, "image %d is a %s; only a snapshot's protection changes", im.ID, im.Type)
		}
		if req.Delete == nil {
			return step{}, nil
		}
		on := *req.Delete
		return step{apply: func() { im.Protection.Delete = on }, sets: [][]string{member("protection", "delete")}}, nil
	})
}
