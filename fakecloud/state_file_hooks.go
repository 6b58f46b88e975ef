package fakecloud

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/statefile"

// StateFile is a state file this process holds: locked, restored from,
// and, once Persist is called, kept up to date.
type StateFile = statefile.File

// StateFileStatus tells whether the state file holds what fakecloud
// acknowledged: GET /_fakecloud/state-file and the metrics show it.
type StateFileStatus = statefile.Status

// LoadStateFile imports a state file written by Persist. A missing file is
// not an error (found is false); a file that cannot be read or imported is,
// and is left untouched.
func (s *Server) LoadStateFile(path string) (found bool, err error) {
	return statefile.Load(path, s.stateSource())
}

// OpenStateFile takes a state file for this process: it locks it (a
// second fakecloud on the same file is refused, naming the holder),
// checks that its directory takes new files, and restores the world from
// it when it exists. Nothing is written before Persist.
func (s *Server) OpenStateFile(path string) (f *StateFile, restored bool, err error) {
	f, restored, err = statefile.Open(path, s.stateSource(), statefile.Options{Logger: s.opts.Logger})
	if err == nil {
		s.stateFile.Store(f)
	}
	return f, restored, err
}

// StateFileStatus reports the state file's writes; ok is false without one.
func (s *Server) StateFileStatus() (st StateFileStatus, ok bool) {
	return statefile.StatusOf(s.stateFile.Load())
}
