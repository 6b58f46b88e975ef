package statefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// lock holds <state file>.lock with flock(2) for as long as a
// process writes the state file. The kernel drops the lock when the
// process ends however it ends, kill -9 included; the file stays, with
// the last holder written in it.
type lock struct{ f *os.File }

// lockFile takes the state file's lock, or says who holds it. It
// also checks that the directory takes new files (the state file is
// replaced through one), so a read-only directory is refused at start,
// not found out at the first write.
func lockFile(path string) (*lock, error) {
	dir := filepath.Dir(path)
	probe, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("state file %s: its directory does not take new files, so it could not be written: %w", path, err)
	}
	probe.Close()
	_ = os.Remove(probe.Name())
	lockPath := path + ".lock"
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("state file %s: open its lock %s: %w", path, lockPath, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(lockPath)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("state file %s is in use by another fakecloud (%s); stop it, or give this one another --state-file",
				path, strings.TrimSpace(string(holder)))
		}
		return nil, fmt.Errorf("state file %s: lock %s: %w", path, lockPath, err)
	}
	host, _ := os.Hostname()
	_ = f.Truncate(0)
	_, _ = f.WriteAt(fmt.Appendf(nil, "pid %d on %s since %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339)), 0)
	return &lock{f}, nil
}

// release lets another process take the state file.
func (l *lock) release() {
	if l != nil && l.f != nil {
		_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		_ = l.f.Close()
		l.f = nil
	}
}
