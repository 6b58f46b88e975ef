package world

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// LoadStateFile imports a state file written by Persist. A missing file is
// not an error (found is false); a file that cannot be read or imported is,
// and is left untouched.
func (s *Server) LoadStateFile(path string) (found bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read state file: %w", err)
	}
	if err := s.Import(data); err != nil {
		return true, fmt.Errorf("state file %s is corrupt, so fakecloud will not use or overwrite it (move it away to start afresh): %w", path, err)
	}
	return true, nil
}

// StateFile is a state file this process holds: locked, restored from,
// and, once Persist is called, kept up to date.
type StateFile struct {
	s     *Server
	path  string
	lock  *stateLock
	stop  func() error
	write func(path string, data []byte) error // writeAtomic; tests make it fail
}

// OpenStateFile takes a state file for this process: it locks it (a
// second fakecloud on the same file is refused, naming the holder),
// checks that its directory takes new files, and restores the world from
// it when it exists. Nothing is written before Persist.
func (s *Server) OpenStateFile(path string) (f *StateFile, restored bool, err error) {
	lock, err := lockStateFile(path)
	if err != nil {
		return nil, false, err
	}
	if restored, err = s.LoadStateFile(path); err != nil {
		lock.release()
		return nil, false, err
	}
	return &StateFile{s: s, path: path, lock: lock, write: writeAtomic}, restored, nil
}

// Persist keeps the file up to date from now on: at most every interval,
// if the world changed, it is written to a temporary file, synced and
// renamed over the state file, so a crash leaves either the old or the
// new state. A write that fails is tried again at every interval until
// one succeeds, logged, counted and shown by StateFileStatus.
func (f *StateFile) Persist(interval time.Duration) {
	if f.stop == nil {
		f.stop = f.s.persist(f.path, interval, f.write)
	}
}

// Close writes a last time, trying a few times, and releases the lock;
// its error means acknowledged changes are not in the file. Without
// Persist it only releases the lock.
func (f *StateFile) Close() error {
	var err error
	if f.stop != nil {
		err = f.stop()
	}
	f.lock.release()
	return err
}

// stopTries is how often stop tries its last write.
const stopTries = 5

func (s *Server) persist(path string, interval time.Duration, write func(string, []byte) error) func() error {
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	// Temporary files of a writer that was killed mid-write are garbage.
	if stale, err := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")); err == nil {
		for _, f := range stale {
			_ = os.Remove(f)
		}
	}
	p := &persister{s: s, path: path, write: write, status: StateFileStatus{Path: path}}
	s.stateFile.Store(p)
	done := make(chan struct{})
	result := make(chan error, 1)
	go func() {
		ticker := time.NewTicker(interval)
		defer ticker.Stop()
		for {
			select {
			case <-ticker.C:
				_ = p.flush()
			case <-done:
				var err error
				for try := range stopTries {
					if err = p.flush(); err == nil {
						break
					}
					if try < stopTries-1 {
						time.Sleep(interval)
					}
				}
				result <- err
				return
			}
		}
	}()
	var once sync.Once
	var err error
	return func() error {
		once.Do(func() {
			close(done)
			err = <-result
		})
		return err
	}
}

// persister writes one state file and reports how that goes.
type persister struct {
	s       *Server
	path    string
	write   func(path string, data []byte) error
	written []byte // the file's content
	saved   uint64 // the world's change count the file holds
	mu      sync.Mutex
	status  StateFileStatus
}

// StateFileStatus tells whether the state file holds what fakecloud
// acknowledged: GET /_fakecloud/state-file and the metrics show it.
type StateFileStatus struct {
	Path         string    `json:"path"`
	SavedAt      time.Time `json:"saved_at,omitzero"`      // the last successful write
	Unsaved      bool      `json:"unsaved"`                // the last write failed: changes are not in the file
	Failures     uint64    `json:"failures"`               // failed writes since the start
	LastError    string    `json:"last_error,omitempty"`   // why the last failed write failed
	FailingSince time.Time `json:"failing_since,omitzero"` // the first failure of the current run of failures
}

// StateFileStatus reports the state file's writes; ok is false without one.
func (s *Server) StateFileStatus() (st StateFileStatus, ok bool) {
	p := s.stateFile.Load()
	if p == nil {
		return StateFileStatus{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status, true
}

// flush writes the world if it changed since the last successful write.
// The change count is taken with the world, so a failed write leaves it
// behind and the next flush tries again.
func (p *persister) flush() error {
	w := p.s.world
	var data []byte
	var err error
	var changes uint64
	var st state
	changed := false
	w.locked(func() {
		changes = w.changes
		if changed = changes != p.saved || p.written == nil; changed {
			w.settle()
			st, err = w.snapshot()
		}
	})
	if err == nil && changed {
		data, err = encodeState(st)
	}
	if err == nil && (data == nil || bytes.Equal(data, p.written)) {
		p.saved = changes
		return nil
	}
	if err == nil {
		err = p.write(p.path, data)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if err != nil {
		if !p.status.Unsaved {
			p.status.FailingSince = now
			p.s.opts.Logger.Error("write state file; trying again at every interval", "file", p.path, "error", err)
		}
		p.status.Unsaved, p.status.LastError = true, err.Error()
		p.status.Failures++
		return err
	}
	if p.status.Unsaved {
		p.s.opts.Logger.Info("state file written again", "file", p.path, "failed_writes", p.status.Failures)
	}
	p.written, p.saved = data, changes
	p.status.SavedAt, p.status.Unsaved, p.status.LastError, p.status.FailingSince = now, false, "", time.Time{}
	return nil
}

// writeAtomic writes data next to path, syncs it and renames it over path.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
