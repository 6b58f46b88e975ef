package world

import (
	"slices"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// sshKeys is the SSH key kind's handle.
var sshKeys = kindOf[schema.SSHKey]{"ssh_key", func(w *project) *Table[schema.SSHKey] { return &w.SSHKeys }}

// sshKeyKind declares SSH keys, which have no actions.
func sshKeyKind() kind { return sshKeys.declare(kind{idBase: 500000}) }

// SSHKey is the SSH key with the ID.
func (t *Tx) SSHKey(id int64) (schema.SSHKey, *apierr.Error) {
	k, err := sshKeys.find(t.w, id)
	if err != nil {
		return schema.SSHKey{}, err
	}
	return viewSSHKey(k), nil
}

// SSHKeys lists the SSH keys a query and a fingerprint (any, if empty)
// select, one page of them, and how many they select in all.
func (t *Tx) SSHKeys(q listing.Query, fingerprint string) ([]schema.SSHKey, int, *apierr.Error) {
	items := slices.DeleteFunc(t.w.SSHKeys.All(), func(k *schema.SSHKey) bool {
		return !q.Keeps(k.Name, k.Labels) || (fingerprint != "" && k.Fingerprint != fingerprint)
	})
	keys := listing.ByIDNameCreated(func(k *schema.SSHKey) int64 { return k.ID }, func(k *schema.SSHKey) string { return k.Name },
		func(k *schema.SSHKey) int64 { return k.Created.Unix() })
	return listing.Page(items, q, keys, viewSSHKey)
}

// CreateSSHKey stores a public key; its name and fingerprint are unique.
func (t *Tx) CreateSSHKey(req schema.SSHKeyCreateRequest) (schema.SSHKey, *apierr.Error) {
	var f apierr.Fields
	CheckName(&f, "name", req.Name)
	fp, ok := SSHFingerprint(req.PublicKey)
	if !ok {
		f.Add("public_key", "is not an OpenSSH public key")
	}
	labels := DerefLabels(req.Labels)
	ValidateLabels(&f, "labels", labels)
	if err := f.Err(); err != nil {
		return schema.SSHKey{}, err
	}
	if _, dup := t.w.SSHKeys.Find(func(k *schema.SSHKey) bool { return k.Name == req.Name }); dup {
		return schema.SSHKey{}, apierr.NotUnique("name", "SSH key name %q is already used", req.Name)
	}
	if _, dup := t.w.SSHKeys.Find(func(k *schema.SSHKey) bool { return k.Fingerprint == fp }); dup {
		return schema.SSHKey{}, apierr.NotUnique("public_key", "SSH key with the same fingerprint already exists")
	}
	k := &schema.SSHKey{ID: t.w.NewID("ssh_key"), Name: req.Name, Fingerprint: fp, PublicKey: strings.TrimSpace(req.PublicKey),
		Labels: labels, Created: t.w.Now().UTC().Truncate(time.Second)}
	t.w.SSHKeys.Put(k.ID, k)
	return viewSSHKey(k), nil
}

// UpdateSSHKey renames and relabels an SSH key.
func (t *Tx) UpdateSSHKey(id int64, req schema.SSHKeyUpdateRequest) (schema.SSHKey, *apierr.Error) {
	k, err := sshKeys.find(t.w, id)
	if err != nil {
		return schema.SSHKey{}, err
	}
	taken := NameTaken(&t.w.SSHKeys, func(o *schema.SSHKey) string { return o.Name })
	if err := RenameRelabel("SSH key", NonEmpty(req.Name), req.Labels, CheckName, taken, &k.Name, &k.Labels); err != nil {
		return schema.SSHKey{}, err
	}
	return viewSSHKey(k), nil
}

// DeleteSSHKey deletes an SSH key.
func (t *Tx) DeleteSSHKey(id int64) *apierr.Error {
	if _, err := sshKeys.find(t.w, id); err != nil {
		return err
	}
	t.w.SSHKeys.Del(id)
	return nil
}

func viewSSHKey(k *schema.SSHKey) schema.SSHKey {
	v := *k
	v.Labels = CopyLabels(k.Labels)
	return v
}
