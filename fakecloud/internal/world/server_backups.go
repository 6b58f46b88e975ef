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
		return step{apply: func() { s.BackupWindow = nil; t.w.DeleteBackups(s.ID) }}, nil
	})
}
