package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/statefile"
)

// TestProjectsStateFileOneCut: a client creates a network in project b,
// then one in project c, a hundred times or until five writes were made,
// while the state file is written every millisecond; b holds 500 servers, so each write takes a while. Every write is one cut of the projects: one that
// holds c's k-th network holds b's k-th too. The last one holds every
// change the status counts.
func TestProjectsStateFileOneCut(t *testing.T) {
	fc, url := twoProjects(t, Options{RateLimit: -1})
	b, _ := fc.Project("b")
	var seed strings.Builder
	seed.WriteString("servers:\n")
	for i := range 500 {
		fmt.Fprintf(&seed, "  - {name: s-%d}\n", i)
	}
	if w, err := ParseWorld([]byte(seed.String())); err != nil || b.Seed(w) != nil {
		t.Fatalf("seed b: %v", err)
	}
	var mu sync.Mutex
	var writes [][]byte
	record := func(path string, data []byte) error {
		mu.Lock()
		writes = append(writes, data)
		mu.Unlock()
		return statefile.WriteAtomic(path, data)
	}
	sf, _, err := statefile.Open(filepath.Join(t.TempDir(), "state.json"), fc.stateSource(), statefile.Options{Write: record})
	if err != nil {
		t.Fatal(err)
	}
	fc.stateFile.Store(sf)
	sf.Persist(time.Millisecond)
	written := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(writes)
	}
	for k := 0; k < 100 || (written() < 5 && k < 5000); k++ { // at least five writes under way
		for _, token := range []string{tokenB, tokenC} {
			req, _ := http.NewRequest("POST", url+"/v1/networks", strings.NewReader(fmt.Sprintf(`{"name":"n-%d","ip_range":"10.0.0.0/16"}`, k)))
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("create n-%d: %d", k, resp.StatusCode)
			}
		}
	}
	if err := sf.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, data := range writes {
		var file struct {
			Projects map[string]struct{ Networks []struct{ Name string } } `json:"projects"`
		}
		if err := json.Unmarshal(data, &file); err != nil {
			t.Fatal(err)
		}
		b, c := len(file.Projects["b"].Networks), len(file.Projects["c"].Networks)
		if c > b {
			t.Fatalf("write %d of %d holds %d networks of c but only %d of b, created before each of c's: not one cut", i, len(writes), c, b)
		}
	}
	if st, _ := fc.StateFileStatus(); st.SavedChanges != st.Changes || len(writes) < 5 {
		t.Errorf("after Close: %d writes, status %+v: the file does not hold every change counted", len(writes), st)
	}
}
