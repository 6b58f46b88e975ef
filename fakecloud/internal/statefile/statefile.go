package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// Source is the world a state file holds.
type Source interface {
	// Import replaces the world with an encoded snapshot.
	Import(data []byte) error
	// ExportChanged returns the world encoded and the count of changes
	// it holds, or nil data when the count is still since and always is
	// false.
	ExportChanged(since uint64, always bool) (data []byte, changes uint64, err error)
	// Changes is the count of changes acknowledged so far; each is counted
	// before it is answered.
	Changes() uint64
}

// Load imports a state file written by Persist. A missing file is not an
// error (found is false); a file that cannot be read or imported is, and
// is left untouched.
func Load(path string, src Source) (found bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read state file: %w", err)
	}
	if err := src.Import(data); err != nil {
		return true, fmt.Errorf("state file %s is corrupt, so fakecloud will not use or overwrite it (move it away to start afresh): %w", path, err)
	}
	return true, nil
}

// Options configure a state file.
type Options struct {
	// Logger receives failed writes and the first write after them
	// (default: discarded).
	Logger *slog.Logger
	// Write replaces writing the file, which is atomic by default: to a
	// temporary file, synced and renamed over the state file.
	Write func(path string, data []byte) error
}

// File is a state file this process holds: locked, restored from, and,
// once Persist is called, kept up to date.
type File struct {
	src  Source
	path string
	lock *lock
	opts Options
	stop func() error
	p    atomic.Pointer[persister] // set by Persist
}

// Open takes a state file for this process: it locks it (a second
// fakecloud on the same file is refused, naming the holder), checks that
// its directory takes new files, and restores the world from it when it
// exists. Nothing is written before Persist.
func Open(path string, src Source, opts Options) (f *File, restored bool, err error) {
	l, err := lockFile(path)
	if err != nil {
		return nil, false, err
	}
	if restored, err = Load(path, src); err != nil {
		l.release()
		return nil, false, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Write == nil {
		opts.Write = WriteAtomic
	}
	return &File{src: src, path: path, lock: l, opts: opts}, restored, nil
}

// Persist keeps the file up to date from now on: every interval, if the
// world changed, it is written to a temporary file, synced and renamed
// over the state file, so a crash leaves either the old or the new state.
// A write that takes longer than the interval is followed at once by the
// next, so a change is in the file at most the interval plus two writes
// after it was acknowledged (one write when writes are shorter than the
// interval); StatusOf says what the file holds. A write that fails is
// tried again at every interval until one succeeds, logged, counted and
// shown by StatusOf.
func (f *File) Persist(interval time.Duration) {
	if f.stop == nil {
		f.stop = f.persist(interval)
	}
}

// Close writes a last time, trying a few times, and releases the lock;
// its error means acknowledged changes are not in the file. Without
// Persist it only releases the lock.
func (f *File) Close() error {
	var err error
	if f.stop != nil {
		err = f.stop()
	}
	f.lock.release()
	return err
}

// stopTries is how often stop tries its last write.
const stopTries = 5

func (f *File) persist(interval time.Duration) func() error {
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	// Temporary files of a writer that was killed mid-write are garbage.
	if stale, err := filepath.Glob(filepath.Join(filepath.Dir(f.path), "."+filepath.Base(f.path)+".tmp-*")); err == nil {
		for _, f := range stale {
			_ = os.Remove(f)
		}
	}
	p := &persister{src: f.src, path: f.path, opts: f.opts, status: Status{Path: f.path}}
	f.p.Store(p)
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
	src     Source
	path    string
	opts    Options
	written []byte // the file's content
	saved   uint64 // the world's change count the file holds
	mu      sync.Mutex
	status  Status
}

// Status tells whether the state file holds what fakecloud acknowledged:
// GET /_fakecloud/state-file and the metrics show it. Change counts start
// again at each start of fakecloud.
type Status struct {
	Path string `json:"path"`
	// Changes counts the changes acknowledged so far.
	Changes uint64 `json:"changes"`
	// SavedChanges: the file holds every change up to this count, and
	// every change acknowledged before SavedAsOf, when the write that
	// wrote it (or found it up to date) began.
	SavedChanges uint64    `json:"saved_changes"`
	SavedAsOf    time.Time `json:"saved_as_of,omitzero"`
	SavedAt      time.Time `json:"saved_at,omitzero"` // the last successful write ended
	// WriteSeconds is how long the last successful write took, from
	// taking the world to syncing the file.
	WriteSeconds float64   `json:"write_seconds"`
	Unsaved      bool      `json:"unsaved"`                // the last write failed: changes are not in the file
	Failures     uint64    `json:"failures"`               // failed writes since the start
	LastError    string    `json:"last_error,omitempty"`   // why the last failed write failed
	FailingSince time.Time `json:"failing_since,omitzero"` // the first failure of the current run of failures
}

// StatusOf reports a state file's writes; ok is false without a file or
// before Persist.
func StatusOf(f *File) (st Status, ok bool) {
	if f == nil {
		return Status{}, false
	}
	p := f.p.Load()
	if p == nil {
		return Status{}, false
	}
	changes := p.src.Changes() // before the file's count, which it never trails then
	p.mu.Lock()
	defer p.mu.Unlock()
	st = p.status
	st.Changes = max(changes, st.SavedChanges)
	return st, true
}

// flush writes the world if it changed since the last successful write.
// The change count is taken with the world, so a failed write leaves it
// behind and the next flush tries again.
func (p *persister) flush() error {
	start := time.Now()
	data, changes, err := p.src.ExportChanged(p.saved, p.written == nil)
	if err == nil && (data == nil || bytes.Equal(data, p.written)) {
		p.saved = changes
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.status.Unsaved {
			p.status.SavedChanges, p.status.SavedAsOf = changes, start
		}
		return nil
	}
	if err == nil {
		err = p.opts.Write(p.path, data)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if err != nil {
		if !p.status.Unsaved {
			p.status.FailingSince = now
			p.opts.Logger.Error("write state file; trying again at every interval", "file", p.path, "error", err)
		}
		p.status.Unsaved, p.status.LastError = true, err.Error()
		p.status.Failures++
		return err
	}
	if p.status.Unsaved {
		p.opts.Logger.Info("state file written again", "file", p.path, "failed_writes", p.status.Failures)
	}
	p.written, p.saved = data, changes
	p.status.SavedChanges, p.status.SavedAsOf, p.status.SavedAt, p.status.WriteSeconds = changes, start, now, now.Sub(start).Seconds()
	p.status.Unsaved, p.status.LastError, p.status.FailingSince = false, "", time.Time{}
	return nil
}

// WriteAtomic, the default Write, writes data next to path, syncs it and renames it over path.
func WriteAtomic(path string, data []byte) error {
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
