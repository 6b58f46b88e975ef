package release

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func quietRegistry(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(Registry(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	return srv
}

// send makes a request and returns its status and body.
func send(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRegistryStalledUploadHoldsNoOne: a client that stops mid-upload
// does not hold up another client's push and pull.
func TestRegistryStalledUploadHoldsNoOne(t *testing.T) {
	srv := quietRegistry(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v2/stalled/blobs/uploads/", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "PATCH %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 1000\r\n\r\nten bytes.", resp.Header.Get("Location"), host)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // far above a push on loopback
	defer cancel()
	img, err := random.Image(1024, 3)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := name.ParseReference(host+"/other:v1", name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img, remote.WithContext(ctx)); err != nil {
		t.Fatalf("a push beside a stalled upload: %v", err)
	}
	if _, err := remote.Image(ref, remote.WithContext(ctx)); err != nil {
		t.Fatalf("a pull beside a stalled upload: %v", err)
	}
}

// TestRegistryVerifiesDigests: a manifest put under a digest that is not
// its content's, or a blob posted whole with a wrong ?digest=, is refused
// with DIGEST_INVALID and not stored.
func TestRegistryVerifiesDigests(t *testing.T) {
	srv := quietRegistry(t)
	manifest := `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},"layers":[]}`
	wrong := "sha256:" + strings.Repeat("0", 64)
	if status, body := send(t, http.MethodPut, srv.URL+"/v2/x/manifests/"+wrong, manifest); status != http.StatusBadRequest || !strings.Contains(body, "DIGEST_INVALID") {
		t.Errorf("a manifest under a digest not its own: %d %s", status, body)
	}
	if status, _ := send(t, http.MethodGet, srv.URL+"/v2/x/manifests/"+wrong, ""); status != http.StatusNotFound {
		t.Errorf("the refused manifest is served: %d", status)
	}
	if status, body := send(t, http.MethodPost, srv.URL+"/v2/x/blobs/uploads/?digest="+wrong, "blob"); status != http.StatusBadRequest || !strings.Contains(body, "DIGEST_INVALID") {
		t.Errorf("a blob under a digest not its own: %d %s", status, body)
	}
	if status, body := send(t, http.MethodPut, srv.URL+"/v2/x/manifests/"+digestOf([]byte(manifest)), manifest); status != http.StatusCreated {
		t.Errorf("a manifest under its own digest: %d %s", status, body)
	}
}

// TestRegistryRefusesBadQueries: a malformed page size is the API's
// error, not a panic, and the registry keeps answering.
func TestRegistryRefusesBadQueries(t *testing.T) {
	srv := quietRegistry(t)
	manifest := `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},"layers":[]}`
	if status, body := send(t, http.MethodPut, srv.URL+"/v2/x/manifests/v1", manifest); status != http.StatusCreated {
		t.Fatalf("a tag: %d %s", status, body)
	}
	for _, target := range []string{"/v2/x/tags/list?n=-1", "/v2/x/tags/list?n=abc", "/v2/_catalog?n=-5", "/v2/_catalog?n=99999999999999999999"} {
		if status, body := send(t, http.MethodGet, srv.URL+target, ""); status != http.StatusBadRequest || !strings.Contains(body, "PAGINATION_NUMBER_INVALID") {
			t.Errorf("GET %s: %d %s", target, status, body)
		}
	}
	if status, body := send(t, http.MethodGet, srv.URL+"/v2/x/tags/list?n=1", ""); status != http.StatusOK || !strings.Contains(body, `"v1"`) {
		t.Errorf("a good page: %d %s", status, body)
	}
}
