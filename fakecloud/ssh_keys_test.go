package fakecloud

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// sshPublicKey builds an OpenSSH ssh-ed25519 public key line from 32 bytes
// and returns it with its MD5 fingerprint as the API shows it.
func sshPublicKey(seed byte, comment string) (line, fingerprint string) {
	var blob []byte
	put := func(b []byte) {
		blob = binary.BigEndian.AppendUint32(blob, uint32(len(b)))
		blob = append(blob, b...)
	}
	key := make([]byte, 32)
	for i := range key {
		key[i] = seed + byte(i)
	}
	put([]byte("ssh-ed25519"))
	put(key)
	sum := md5.Sum(blob)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02x", b)
	}
	return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(blob) + " " + comment, strings.Join(parts, ":")
}

func TestSSHKeyLifecycle(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	pubA, fpA := sshPublicKey(1, "alice@example.com")
	pubB, fpB := sshPublicKey(2, "bob@example.com")

	a, _, err := f.client.SSHKey.Create(ctx, hcloud.SSHKeyCreateOpts{Name: "alice", PublicKey: pubA, Labels: map[string]string{"team": "ops"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "alice" || a.Fingerprint != fpA || a.PublicKey != pubA || a.Created.IsZero() {
		t.Errorf("created %+v, want fingerprint %s", a, fpA)
	}
	b, _, err := f.client.SSHKey.Create(ctx, hcloud.SSHKeyCreateOpts{Name: "bob", PublicKey: pubB + "\n"})
	if err != nil {
		t.Fatal(err)
	}
	if b.PublicKey != pubB || b.Fingerprint != fpB {
		t.Errorf("bob: public key %q fingerprint %s, want trimmed key and %s", b.PublicKey, b.Fingerprint, fpB)
	}

	got, _, err := f.client.SSHKey.GetByID(ctx, a.ID)
	if err != nil || got == nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, got); diff != "" {
		t.Errorf("GetByID differs from create (-create +get):\n%s", diff)
	}
	byName, _, err := f.client.SSHKey.GetByName(ctx, "bob")
	if err != nil || byName == nil || byName.ID != b.ID {
		t.Errorf("GetByName bob: %v %v", byName, err)
	}
	byFP, _, err := f.client.SSHKey.GetByFingerprint(ctx, fpB)
	if err != nil || byFP == nil || byFP.ID != b.ID {
		t.Errorf("GetByFingerprint: %v %v", byFP, err)
	}
	listTests := []struct {
		name string
		opts hcloud.SSHKeyListOpts
		want []string
	}{
		{"all", hcloud.SSHKeyListOpts{}, []string{"alice", "bob"}},
		{"fingerprint", hcloud.SSHKeyListOpts{Fingerprint: fpA}, []string{"alice"}},
		{"unknown fingerprint", hcloud.SSHKeyListOpts{Fingerprint: "00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff"}, nil},
		{"label selector", hcloud.SSHKeyListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "team=ops"}}, []string{"alice"}},
		{"name", hcloud.SSHKeyListOpts{Name: "bob"}, []string{"bob"}},
		{"sort name desc", hcloud.SSHKeyListOpts{Sort: []string{"name:desc"}}, []string{"bob", "alice"}},
	}
	for _, tt := range listTests {
		t.Run("list "+tt.name, func(t *testing.T) {
			keys, err := f.client.SSHKey.AllWithOpts(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, k := range keys {
				names = append(names, k.Name)
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
		})
	}

	up, _, err := f.client.SSHKey.Update(ctx, a, hcloud.SSHKeyUpdateOpts{Name: "alice-laptop", Labels: map[string]string{"team": "dev"}})
	if err != nil || up.Name != "alice-laptop" || cmp.Diff(map[string]string{"team": "dev"}, up.Labels) != "" || up.Fingerprint != fpA {
		t.Fatalf("update: %+v %v", up, err)
	}
	up, _, err = f.client.SSHKey.Update(ctx, a, hcloud.SSHKeyUpdateOpts{Labels: map[string]string{}})
	if err != nil || up.Name != "alice-laptop" || len(up.Labels) != 0 {
		t.Errorf("clear labels: %+v %v", up, err)
	}
	_, _, err = f.client.SSHKey.Update(ctx, a, hcloud.SSHKeyUpdateOpts{Name: "bob"})
	wantCode(t, err, hcloud.ErrorCodeUniquenessError)

	// A server created with the key gets no root password.
	res, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "with-key", ServerType: &hcloud.ServerType{Name: "cx23"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, SSHKeys: []*hcloud.SSHKey{b}})
	if err != nil {
		t.Fatal(err)
	}
	if res.RootPassword != "" {
		t.Errorf("root password %q for a server with an SSH key", res.RootPassword)
	}
	// The API takes a key by name as well as by ID.
	keyByName := `{"name":"by-name","server_type":"cx23","image":"ubuntu-24.04","ssh_keys":["` + b.Name + `"]}`
	if resp, body := f.do(t, "POST", "/v1/servers", keyByName); resp.StatusCode != http.StatusCreated || strings.Contains(string(body), "root_password\":\"") {
		t.Errorf("a server with an SSH key by name: %d %s", resp.StatusCode, body)
	}
	missing := `{"name":"no-key","server_type":"cx23","image":"ubuntu-24.04","ssh_keys":["nobody"]}`
	if resp, body := f.do(t, "POST", "/v1/servers", missing); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), `SSH key \"nobody\" does not exist`) {
		t.Errorf("a server with an SSH key that does not exist: %d %s", resp.StatusCode, body)
	}

	if _, err := f.client.SSHKey.Delete(ctx, a); err != nil {
		t.Fatal(err)
	}
	gone, _, err := f.client.SSHKey.GetByID(ctx, a.ID)
	if err != nil || gone != nil {
		t.Errorf("deleted key still there: %v %v", gone, err)
	}
	_, err = f.client.SSHKey.Delete(ctx, a)
	wantCode(t, err, hcloud.ErrorCodeNotFound)
	left, err := f.client.SSHKey.All(ctx)
	if err != nil || len(left) != 1 || left[0].ID != b.ID {
		t.Errorf("after delete: %v %v, want only bob", left, err)
	}
	// The name is free again.
	if _, _, err := f.client.SSHKey.Create(ctx, hcloud.SSHKeyCreateOpts{Name: "alice-laptop", PublicKey: pubA}); err != nil {
		t.Errorf("re-create with a freed name and key: %v", err)
	}
}

func TestSSHKeyCreateValidation(t *testing.T) {
	f := newFixture(t, Options{})
	pubA, _ := sshPublicKey(1, "a")
	pubB, _ := sshPublicKey(2, "b")
	if _, _, err := f.client.SSHKey.Create(t.Context(), hcloud.SSHKeyCreateOpts{Name: "taken", PublicKey: pubA}); err != nil {
		t.Fatal(err)
	}
	body := func(name, key string) string {
		return string(mustJSON(t, map[string]string{"name": name, "public_key": key}))
	}
	notAKey := base64.StdEncoding.EncodeToString([]byte("this is not a key blob"))
	tests := []struct {
		name string
		body string
		want int
		code string
	}{
		{"duplicate name", body("taken", pubB), 409, "uniqueness_error"},
		{"duplicate key", body("other", pubA), 409, "uniqueness_error"},
		{"not a key", body("x", "hello world"), 422, "invalid_input"},
		{"empty key", body("x", ""), 422, "invalid_input"},
		{"type only", body("x", "ssh-ed25519"), 422, "invalid_input"},
		{"bad base64", body("x", "ssh-rsa !!!not-base64!!!"), 422, "invalid_input"},
		{"blob is not a key", body("x", "ssh-ed25519 "+notAKey), 422, "invalid_input"},
		{"blob of another type", body("x", "ssh-rsa "+strings.Fields(pubB)[1]), 422, "invalid_input"},
		{"missing name", body("", pubB), 422, "invalid_input"},
		{"reserved label", `{"name":"x","public_key":"` + pubB + `","labels":{"hetzner.cloud/x":"y"}}`, 422, "invalid_input"},
		{"malformed", `{"name":`, 422, "json_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, got := f.do(t, "POST", "/v1/ssh_keys", tt.body)
			if resp.StatusCode != tt.want || !containsCode(got, tt.code) {
				t.Fatalf("got %d %s, want %d %s", resp.StatusCode, got, tt.want, tt.code)
			}
		})
	}
	_, _, err := f.client.SSHKey.Create(t.Context(), hcloud.SSHKeyCreateOpts{Name: "x", PublicKey: "ssh-rsa AAAA"})
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)
	keys, err := f.client.SSHKey.All(t.Context())
	if err != nil || len(keys) != 1 {
		t.Errorf("keys after refused creates: %d %v, want 1", len(keys), err)
	}
}
