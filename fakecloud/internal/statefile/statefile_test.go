package statefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// source is a world of one string and a change count.
type source struct {
	mu      sync.Mutex
	content string
	changes uint64
	exports int
}

func (s *source) Import(data []byte) error {
	if !strings.HasPrefix(string(data), "world:") {
		return errors.New("not a world")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.content = string(data)
	return nil
}

func (s *source) ExportChanged(since uint64, always bool) ([]byte, uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changes == since && !always {
		return nil, s.changes, nil
	}
	s.exports++
	return []byte(s.content), s.changes, nil
}

func (s *source) Changes() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changes
}

func (s *source) change(content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.content, s.changes = content, s.changes+1
}

// TestLoad: a missing file is no error and restores nothing; a corrupt
// one is refused, naming the way out, and stays as it was.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	src := &source{content: "world:empty"}
	if found, err := Load(filepath.Join(dir, "missing.json"), src); found || err != nil {
		t.Errorf("a missing file: found %v, %v", found, err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if found, err := Load(bad, src); !found || err == nil || !strings.Contains(err.Error(), "move it away") {
		t.Errorf("a corrupt file: found %v, %v", found, err)
	}
	if data, _ := os.ReadFile(bad); string(data) != "garbage" || src.content != "world:empty" {
		t.Errorf("after refusing: file %q, world %q", data, src.content)
	}
}

// TestPersistWritesChangesOnly: the file follows the world's changes and
// is not rewritten while nothing changes; Close writes the last change.
func TestPersistWritesChangesOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	src := &source{content: "world:one"}
	f, restored, err := Open(path, src, Options{})
	if err != nil || restored {
		t.Fatalf("open: restored %v, %v", restored, err)
	}
	if _, ok := StatusOf(f); ok {
		t.Error("a status before Persist")
	}
	f.Persist(time.Millisecond)
	waitFor(t, func() bool { data, _ := os.ReadFile(path); return string(data) == "world:one" })
	time.Sleep(20 * time.Millisecond) // twenty intervals with no change
	src.mu.Lock()
	exports := src.exports
	src.mu.Unlock()
	if exports != 1 {
		t.Errorf("the world was exported %d times without a change, want once", exports)
	}
	src.change("world:two")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "world:two" {
		t.Errorf("after Close the file holds %q", data)
	}
	if st, ok := StatusOf(f); !ok || st.Unsaved || st.SavedAt.IsZero() {
		t.Errorf("status after Close: %+v, %v", st, ok)
	}
	next := &source{}
	g, restored, err := Open(path, next, Options{})
	if err != nil || !restored || next.content != "world:two" {
		t.Fatalf("reopen: restored %v, world %q, %v", restored, next.content, err)
	}
	_ = g.Close()
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("condition not met within 2.5 s")
}

// TestStatusSaysWhatTheFileHolds: the status names the changes the file
// holds, by count and by the moment its write began; a change made while
// a write is under way is not claimed until the next write has it.
func TestStatusSaysWhatTheFileHolds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	src := &source{content: "world:0"}
	release := make(chan struct{})
	writing := make(chan struct{}, 1)
	write := func(path string, data []byte) error {
		if string(data) == "world:1" {
			writing <- struct{}{}
			<-release // a slow disk
		}
		return WriteAtomic(path, data)
	}
	f, _, err := Open(path, src, Options{Write: write})
	if err != nil {
		t.Fatal(err)
	}
	f.Persist(time.Millisecond)
	waitFor(t, func() bool { st, _ := StatusOf(f); return st.SavedChanges == 0 && !st.SavedAsOf.IsZero() })
	src.change("world:1")
	<-writing
	src.change("world:2") // acknowledged while world:1 is written
	between := time.Now()
	if st, _ := StatusOf(f); st.Changes != 2 || st.SavedChanges != 0 {
		t.Errorf("during the write: %+v, want changes 2 and saved_changes 0", st)
	}
	close(release)
	waitFor(t, func() bool { st, _ := StatusOf(f); return st.SavedChanges == 2 })
	st, _ := StatusOf(f)
	if data, _ := os.ReadFile(path); string(data) != "world:2" || !st.SavedAsOf.After(between) || !st.SavedAt.After(between) || st.WriteSeconds < 0 {
		t.Errorf("after the writes: file %q, status %+v (world:2 acknowledged at %v)", data, st, between)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
