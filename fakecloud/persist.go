package fakecloud

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// Persist keeps a state file up to date: at most every interval, if the
// world changed, it is written to a temporary file, synced and renamed over
// the state file, so a crash leaves either the old or the new state. stop
// writes a last time and ends the writer.
func (s *Server) Persist(path string, interval time.Duration) (stop func() error) {
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	// Temporary files of a writer that was killed mid-write are garbage.
	if stale, err := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")); err == nil {
		for _, f := range stale {
			_ = os.Remove(f)
		}
	}
	done := make(chan struct{})
	result := make(chan error, 1)
	go func() {
		var written []byte
		var seen uint64
		flush := func() error {
			w := s.world
			var data []byte
			var err error
			w.locked(func() {
				changed := w.changes != seen
				seen = w.changes
				if changed || written == nil {
					w.settle()
					data, err = w.export()
				}
			})
			if err != nil || data == nil || bytes.Equal(data, written) {
				return err
			}
			if err := writeAtomic(path, data); err != nil {
				return err
			}
			written = data
			return nil
		}
		ticker := time.NewTicker(interval)
		defer ticker.Stop()
		for {
			select {
			case <-ticker.C:
				if err := flush(); err != nil {
					s.opts.Logger.Error("write state file", "file", path, "error", err)
				}
			case <-done:
				result <- flush()
				return
			}
		}
	}()
	return func() error {
		close(done)
		return <-result
	}
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
