package fakecloud

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/statefile"
)

// fullDisk fails every write with ENOSPC until it is freed.
type fullDisk struct {
	freed atomic.Bool
	tries atomic.Int64
}

func (d *fullDisk) write(path string, data []byte) error {
	d.tries.Add(1)
	if !d.freed.Load() {
		return &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
	}
	return statefile.WriteAtomic(path, data)
}

// openFailing opens a state file for fc as OpenStateFile does, writing
// through disk.
func openFailing(t *testing.T, fc *Server, path string, disk *fullDisk) *StateFile {
	t.Helper()
	sf, _, err := statefile.Open(path, fc.world, statefile.Options{Write: disk.write})
	if err != nil {
		t.Fatal(err)
	}
	fc.stateFile.Store(sf)
	return sf
}

// TestStateFileRetriesFailedWrites: a write that fails (disk full) is
// tried again at every interval (at least three times here); meanwhile the status says the changes
// are unsaved (503 on GET /_fakecloud/state-file), and once a write
// succeeds the file holds the acknowledged server.
func TestStateFileRetriesFailedWrites(t *testing.T) {
	f := newFixture(t, Options{})
	path := filepath.Join(t.TempDir(), "state.json")
	disk := &fullDisk{}
	sf := openFailing(t, f.fc, path, disk)
	sf.Persist(10 * time.Millisecond)
	newServer(t, f, hcloud.ServerCreateOpts{Name: "acknowledged"})
	waitFor(t, func() bool { return disk.tries.Load() >= 3 })
	if st, _ := f.fc.StateFileStatus(); !st.Unsaved || st.Failures == 0 || !strings.Contains(st.LastError, "no space left") || st.FailingSince.IsZero() {
		t.Errorf("while writes fail: %+v", st)
	}
	if code := f.admin(t, "GET", "/state-file", "", nil); code != 503 {
		t.Errorf("GET /_fakecloud/state-file while unsaved: %d, want 503", code)
	}
	disk.freed.Store(true)
	waitFor(t, func() bool { st, _ := f.fc.StateFileStatus(); return !st.Unsaved })
	if got := serversIn(t, path); got != 1 {
		t.Errorf("the state file holds %d servers, want the acknowledged one", got)
	}
	if code := f.admin(t, "GET", "/state-file", "", nil); code != 200 {
		t.Errorf("GET /_fakecloud/state-file once saved: %d, want 200", code)
	}
	if err := sf.Close(); err != nil {
		t.Errorf("close after the disk recovered: %v", err)
	}
}

// TestStateFileCloseReportsUnsaved: when the last write fails too, Close
// says so, so fakecloud does not exit 0 with acknowledged changes lost.
func TestStateFileCloseReportsUnsaved(t *testing.T) {
	f := newFixture(t, Options{})
	sf := openFailing(t, f.fc, filepath.Join(t.TempDir(), "state.json"), &fullDisk{})
	sf.Persist(time.Millisecond)
	newServer(t, f, hcloud.ServerCreateOpts{Name: "lost"})
	if err := sf.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("close with every write failing: %v, want ENOSPC", err)
	}
}

// TestStateFileHeldByOneProcess: a second fakecloud on the same state
// file is refused, naming the holder; once the first closes it, the
// second may take it. A directory that takes no files is refused at once.
func TestStateFileHeldByOneProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	first, _, err := New(Options{}).OpenStateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = New(Options{}).OpenStateFile(path)
	if err == nil || !strings.Contains(err.Error(), "in use by another fakecloud") || !strings.Contains(err.Error(), "pid ") {
		t.Fatalf("a second open: %v, want refused naming the holder", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, _, err := New(Options{}).OpenStateFile(path)
	if err != nil {
		t.Fatalf("an open after the first closed: %v", err)
	}
	_ = second.Close()

	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	readOnly := t.TempDir()
	if err := os.Chmod(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		readOnly = "/proc/self" // root writes into a 0555 directory; nobody creates files here
	}
	for _, bad := range []string{filepath.Join(t.TempDir(), "missing", "state.json"), filepath.Join(file, "state.json"), filepath.Join(readOnly, "state.json")} {
		if _, _, err := New(Options{}).OpenStateFile(bad); err == nil || !strings.Contains(err.Error(), "does not take new files") {
			t.Errorf("%s: %v, want refused at start", bad, err)
		}
	}
}

func serversIn(t *testing.T, path string) int {
	t.Helper()
	fc := New(Options{})
	if _, err := fc.LoadStateFile(path); err != nil {
		t.Fatal(err)
	}
	return len(worldOf(t, fc).Servers)
}
