package wire

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// Body limits. The API's own requests are a few kilobytes; admin seeds
// and snapshots are larger (a seed of 1,000 servers is about 100 kB, a
// snapshot of 10,000 servers about 30 MB).
const (
	MaxBody         = 1 << 20  // an API request, and most admin requests
	MaxSeedBody     = 8 << 20  // POST /_fakecloud/seed
	MaxSnapshotBody = 64 << 20 // PUT /_fakecloud/state
	// maxDrain is how much of a refused body is read before answering, so
	// a client that is still sending finishes and reads the answer instead
	// of a connection reset. A longer body is cut off with the connection.
	maxDrain = 64 << 20
)

// LimitBody holds request bodies to limit bytes and answers a longer one
// with 413 and the error envelope. A Content-Length over the limit is
// refused before the body is read, so a client that waits for 100 Continue
// sends nothing. Otherwise the body is read into memory up to the limit
// and handlers read that copy.
func LimitBody(limitOf func(*http.Request) int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			limit := limitOf(r)
			if r.ContentLength > limit {
				refuseBody(w, r, limit)
				return
			}
			if r.Body == nil || r.Body == http.NoBody {
				next.ServeHTTP(w, r)
				return
			}
			body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
			switch {
			case int64(len(body)) > limit:
				refuseBody(w, r, limit)
				return
			case err != nil:
				WriteError(w, apierr.Errorf(apierr.CodeJSONError, "read request body: %v", err))
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r)
		})
	}
}

// refuseBody answers 413. Unless the client waits for 100 Continue, it
// reads up to maxDrain of the body first; past that the connection closes.
func refuseBody(w http.ResponseWriter, r *http.Request, limit int64) {
	if r.Header.Get("Expect") == "" && r.Body != nil {
		if n, _ := io.CopyN(io.Discard, r.Body, maxDrain); n == maxDrain {
			w.Header().Set("Connection", "close")
		}
	}
	WriteError(w, apierr.Errorf(apierr.CodeRequestTooLarge, "request body larger than %s", Size(limit)))
}

// APIBodyLimit is the limit of every API request.
func APIBodyLimit(*http.Request) int64 { return MaxBody }

// Size writes a byte count in MiB or KiB.
func Size(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
