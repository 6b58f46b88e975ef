package world

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
)

// SSHFingerprint is the MD5 fingerprint the API shows for an OpenSSH key.
func SSHFingerprint(pub string) (string, bool) {
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
