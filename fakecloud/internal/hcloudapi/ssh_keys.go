package hcloudapi

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

type sshKeyGet struct {
	SSHKey schema.SSHKey `json:"ssh_key"`
}

type sshKeyList struct {
	SSHKeys []schema.SSHKey `json:"ssh_keys"`
	Meta    listMeta        `json:"meta"`
}

func (s *Server) mountSSHKeys(r chi.Router) {
	r.Get("/ssh_keys", s.serve(func(c *call) (int, any, *apiError) {
		q, err := parseList(c.r)
		if err != nil {
			return 0, nil, err
		}
		fp := c.r.URL.Query().Get("fingerprint")
		items := slices.DeleteFunc(c.w.sshKeys.all(), func(k *schema.SSHKey) bool {
			return (q.HasName && k.Name != q.Name) || (q.HasSelector && !q.Selector.Matches(k.Labels)) || (fp != "" && k.Fingerprint != fp)
		})
		keys := byIDNameCreated(func(k *schema.SSHKey) int64 { return k.ID }, func(k *schema.SSHKey) string { return k.Name },
			func(k *schema.SSHKey) int64 { return k.Created.Unix() })
		if err := applySort(items, q.Sort, keys); err != nil {
			return 0, nil, err
		}
		page, meta := paginate(c.header, c.r, items, q)
		out := sshKeyList{SSHKeys: make([]schema.SSHKey, 0, len(page)), Meta: meta}
		for _, k := range page {
			out.SSHKeys = append(out.SSHKeys, viewSSHKey(k))
		}
		return http.StatusOK, out, nil
	}))
	r.Post("/ssh_keys", s.serve(createSSHKey))
	r.Get("/ssh_keys/{id}", s.serve(func(c *call) (int, any, *apiError) {
		k, err := c.sshKey()
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, sshKeyGet{viewSSHKey(k)}, nil
	}))
	r.Put("/ssh_keys/{id}", s.serve(updateSSHKey))
	r.Delete("/ssh_keys/{id}", s.serve(func(c *call) (int, any, *apiError) {
		k, err := c.sshKey()
		if err != nil {
			return 0, nil, err
		}
		c.w.sshKeys.del(k.ID)
		return http.StatusNoContent, nil, nil
	}))
}

func (c *call) sshKey() (*schema.SSHKey, *apiError) { return lookup(c, &c.w.sshKeys, "ssh_key") }

func viewSSHKey(k *schema.SSHKey) schema.SSHKey {
	v := *k
	v.Labels = copyLabels(k.Labels)
	return v
}

// sshFingerprint is the MD5 fingerprint the API shows for an OpenSSH key.
func sshFingerprint(pub string) (string, bool) {
	fields := strings.Fields(pub)
	if len(fields) < 2 || !strings.HasPrefix(fields[0], "ssh-") && !strings.HasPrefix(fields[0], "ecdsa-") {
		return "", false
	}
	raw, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil || len(raw) < 4 {
		return "", false
	}
	// The blob starts with the key type, which must match the line's.
	if n := binary.BigEndian.Uint32(raw); uint64(n) >= uint64(len(raw)-4) || string(raw[4:4+n]) != fields[0] {
		return "", false
	}
	sum := md5.Sum(raw)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02x", b)
	}
	return strings.Join(parts, ":"), true
}

func createSSHKey(c *call) (int, any, *apiError) {
	var req schema.SSHKeyCreateRequest
	if err := c.decode(&req); err != nil {
		return 0, nil, err
	}
	var f fieldErrors
	checkName(&f, "name", req.Name)
	fp, ok := sshFingerprint(req.PublicKey)
	if !ok {
		f.add("public_key", "is not an OpenSSH public key")
	}
	labels := derefLabels(req.Labels)
	validateLabels(&f, "labels", labels)
	if err := f.err(); err != nil {
		return 0, nil, err
	}
	if _, dup := c.w.sshKeys.find(func(k *schema.SSHKey) bool { return k.Name == req.Name }); dup {
		return 0, nil, notUnique("name", "SSH key name %q is already used", req.Name)
	}
	if _, dup := c.w.sshKeys.find(func(k *schema.SSHKey) bool { return k.Fingerprint == fp }); dup {
		return 0, nil, notUnique("public_key", "SSH key with the same fingerprint already exists")
	}
	k := &schema.SSHKey{ID: c.w.newID("ssh_key"), Name: req.Name, Fingerprint: fp, PublicKey: strings.TrimSpace(req.PublicKey),
		Labels: labels, Created: c.w.now().UTC().Truncate(time.Second)}
	c.w.sshKeys.put(k.ID, k)
	return http.StatusCreated, sshKeyGet{viewSSHKey(k)}, nil
}

func updateSSHKey(c *call) (int, any, *apiError) {
	k, err := c.sshKey()
	if err != nil {
		return 0, nil, err
	}
	var req schema.SSHKeyUpdateRequest
	if err := c.decode(&req); err != nil {
		return 0, nil, err
	}
	taken := nameTaken(&c.w.sshKeys, func(o *schema.SSHKey) string { return o.Name })
	if err := renameRelabel("SSH key", nonEmpty(req.Name), req.Labels, checkName, taken, &k.Name, &k.Labels); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, sshKeyGet{viewSSHKey(k)}, nil
}
