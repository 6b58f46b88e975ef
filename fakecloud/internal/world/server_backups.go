package world

import (
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// EnableServerBackup turns daily backups on: the server gets a
// backup_window (the description's example's 22-02; the API chooses it).
// On already, it stays so.
func (t *Tx) EnableServerBackup(id int64) (schema.Action, *apierr.Error) {
	return act(t, servers, id, "enable_backup", func(s *StoredServer) (step, *apierr.Error) {
		return step{apply: func() { s.BackupWindow = new("22-02") }}, nil
	})
}

// DisableServerBackup turns backups off and deletes the server's backup
// images at once, as the description warns.
func (t *Tx) DisableServerBackup(id int64) (schema.Action, *apierr.Error) {
	return act(t, servers, id, "disable_backup", func(s *StoredServer) (step, *apierr.Error) {
		return step{apply: func() { s.BackupWindow = nil; t.w.DeleteBackups(s.ID) }, touches: t.w.backupTouches(s.ID)}, nil
	})
}

// backupTouches are what deleting a server's backups changes: the
// backups, and the other servers created from one (their image goes), so
// a failed disable_backup puts them back.
func (w *project) backupTouches(server int64) []touch {
	var out []touch
	for _, im := range w.Images.All() {
		if im.BoundTo == nil || *im.BoundTo != server {
			continue
		}
		out = append(out, touch{ref: Ref{Type: "image", ID: im.ID}})
		for _, s := range w.Servers.All() {
			if s.ID != server && s.Image != nil && s.Image.ID == im.ID {
				out = append(out, touch{ref: Ref{Type: "server", ID: s.ID}})
			}
		}
	}
	return out
}
