package release

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

// Limits of the registry on one request's body: the release's image and
// chart are tens of MiB, sent from loopback in seconds.
const (
	maxRegistryBody  = 1 << 30
	registryBodyTime = 5 * time.Minute
	maxPageSize      = 10000
)

// Registry is an in-memory OCI registry (go-containerregistry's) that
// keeps to the distribution API toward every client: each request's body
// is read before the registry sees it, within registryBodyTime and up to
// maxRegistryBody, so a client that stalls mid-upload holds no lock
// another waits for; a manifest or blob written under a digest is stored
// only when its content has that digest; and a malformed query is refused
// with the API's error, not a panic.
func Registry(opts ...registry.Option) http.Handler { return guard(registry.New(opts...)) }

// manifestByDigest is /v2/<name>/manifests/<algorithm>:<encoded>; a tag
// has no colon. Only sha256 content matches a digest here.
var manifestByDigest = regexp.MustCompile(`^/v2/.+/manifests/([^/:]+:[^/]+)$`)

func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.URL.Query().Get("n"); v != "" {
			if n, err := strconv.Atoi(v); err != nil || n < 0 || n > maxPageSize {
				registryError(w, http.StatusBadRequest, "PAGINATION_NUMBER_INVALID", fmt.Sprintf("n=%q: want a whole number from 0 to %d", v, maxPageSize))
				return
			}
		}
		if r.Body != nil && r.Method != http.MethodGet && r.Method != http.MethodHead {
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(registryBodyTime))
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistryBody))
			var tooBig *http.MaxBytesError
			switch {
			case errors.As(err, &tooBig):
				registryError(w, http.StatusRequestEntityTooLarge, "SIZE_INVALID", fmt.Sprintf("a body over %d MiB", maxRegistryBody>>20))
				return
			case err != nil:
				registryError(w, http.StatusBadRequest, "BLOB_UPLOAD_INVALID", fmt.Sprintf("reading the body: %v", err))
				return
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			if want, ok := claimedDigest(r); ok && want != digestOf(body) {
				registryError(w, http.StatusBadRequest, "DIGEST_INVALID", fmt.Sprintf("the content's digest is %s, not %s", digestOf(body), want))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// claimedDigest is the digest a write says its whole body has: a manifest
// PUT by digest, or a blob uploaded in one POST with ?digest=.
func claimedDigest(r *http.Request) (string, bool) {
	if r.Method == http.MethodPut {
		if m := manifestByDigest.FindStringSubmatch(r.URL.Path); m != nil {
			return m[1], true
		}
	}
	if d := r.URL.Query().Get("digest"); d != "" && r.Method == http.MethodPost && strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/blobs/uploads") {
		return d, true
	}
	return "", false
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// registryError writes the distribution API's error envelope.
func registryError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]string{{"code": code, "message": message}}})
}
