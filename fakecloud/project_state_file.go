package fakecloud

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/statefile"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// stateSource is what the state file holds: the default project's world,
// and with further projects each one's under "projects", by name.
func (s *Server) stateSource() statefile.Source {
	if len(s.projects) == 0 {
		return s.world
	}
	return &projectsState{s: s}
}

// projectsState is a state file's view of every project: its change count
// is the sum of theirs, and a write holds one cut of them all.
type projectsState struct {
	s  *Server
	mu sync.Mutex // one export at a time
}

// worlds are the projects' worlds by name, the default one under "".
func (p *projectsState) worlds() map[string]*world.State {
	out := map[string]*world.State{"": p.s.world}
	for name, sub := range p.s.projects {
		out[name] = sub.world
	}
	return out
}

// Changes is the sum of the projects' change counts.
func (p *projectsState) Changes() uint64 {
	var sum uint64
	for _, w := range p.worlds() {
		sum += w.Changes()
	}
	return sum
}

// ExportChanged writes every project when any changed since the count
// given (or always), from one cut of them all.
func (p *projectsState) ExportChanged(since uint64, always bool) ([]byte, uint64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if now := p.Changes(); !always && now == since {
		return nil, now, nil
	}
	worlds := p.worlds()
	names := slices.Sorted(maps.Keys(worlds)) // "" first
	states := make([]*world.State, len(names))
	for i, name := range names {
		states[i] = worlds[name]
	}
	exports, changes, err := world.ExportTogether(states...)
	if err != nil {
		return nil, 0, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(exports[0], &top); err != nil {
		return nil, 0, err
	}
	projects := map[string]json.RawMessage{}
	for i, name := range names[1:] {
		projects[name] = exports[i+1]
	}
	raw, err := json.Marshal(projects)
	if err != nil {
		return nil, 0, err
	}
	top["projects"] = raw
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return nil, 0, err
	}
	return out, changes, nil
}

// Import restores every project from a state file, or none: each
// project's snapshot is checked in a scratch world first. A project the
// file names that is not configured is refused; one it leaves out is
// left as it is.
func (p *projectsState) Import(data []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	var projects map[string]json.RawMessage
	if raw, ok := top["projects"]; ok {
		if err := json.Unmarshal(raw, &projects); err != nil {
			return fmt.Errorf("projects: %w", err)
		}
		delete(top, "projects")
	}
	own, err := json.Marshal(top)
	if err != nil {
		return err
	}
	worlds := p.worlds()
	for _, name := range slices.Sorted(maps.Keys(projects)) {
		if _, ok := worlds[name]; !ok || name == "" {
			return fmt.Errorf("projects.%s: no project of this name is configured (--project)", name)
		}
	}
	check := func(name string, snap []byte) error {
		scratch := world.New(world.Config{Now: p.s.opts.Now})
		if err := scratch.Import(snap); err != nil {
			if name == "" {
				return err
			}
			return fmt.Errorf("projects.%s: %w", name, err)
		}
		return nil
	}
	if err := check("", own); err != nil {
		return err
	}
	for name, snap := range projects {
		if err := check(name, snap); err != nil {
			return err
		}
	}
	if err := p.s.world.Import(own); err != nil {
		return err
	}
	for name, snap := range projects {
		if err := worlds[name].Import(snap); err != nil {
			return fmt.Errorf("projects.%s: %w", name, err)
		}
	}
	return nil
}
