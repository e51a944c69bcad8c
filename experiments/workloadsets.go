package experiments

import (
	"fmt"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/workloads"
	reg "github.com/polluxsim/polluxsim/internal/registry"
)

// Set returns the experiment's workload set called name, or nil.
func (ws *WorkloadSet) Set(name string) *NamedSet {
	for i := range ws.Sets {
		if ws.Sets[i].Name == name {
			return &ws.Sets[i]
		}
	}
	return nil
}

// resolveSets fills in and checks the named workload sets: a set made by
// a workload source names one ext has (a stored experiment's may not: the
// read-only commands do not make workloads).
func (ws *WorkloadSet) resolveSets(ext *extensions.Extensions, stored bool) error {
	seen := map[string]bool{}
	for i := range ws.Sets {
		s := &ws.Sets[i]
		if err := checkName(s.Name); err != nil {
			return fmt.Errorf("set %d: %w", i+1, err)
		}
		if seen[s.Name] {
			return fmt.Errorf("set %q appears twice", s.Name)
		}
		seen[s.Name] = true
		if s.Count == 0 {
			s.Count = 8
		}
		if s.Jobs == 0 {
			s.Jobs = ReferenceJobs
		}
		if err := checkSetSize(s.Count, s.Jobs); err != nil {
			return fmt.Errorf("set %q: %w", s.Name, err)
		}
		if s.Source == "" {
			if len(s.Params) > 0 {
				return fmt.Errorf("set %q: params need a source", s.Name)
			}
			continue
		}
		name, _, ok := strings.Cut(s.Source, ":")
		if !ok {
			return fmt.Errorf("set %q: source %q: want NAME:ARG (ARG may hold {i}, the workload's number)", s.Name, s.Source)
		}
		if _, known := ext.SourceRegistry().Get(name); !known && !stored {
			var names []string
			for _, src := range ext.SourceRegistry().Sources() {
				names = append(names, src.Name)
			}
			return fmt.Errorf("set %q: unknown workload source %q (%s)", s.Name, name, reg.Known(name, names))
		}
	}
	return nil
}

// resolveSet resolves the workload of a cell that runs on a named set.
func (c *Cell) resolveSet(e *Experiment) error {
	w := c.Workload
	if w.Load != 0 || w.Config != "" || w.Jobs != 0 || w.Uniform != nil || w.Trace != "" || w.Window != "" {
		return fmt.Errorf("workload: set %q excludes load, config, jobs, uniform, trace and window (the set's files are read as they are)", w.Set)
	}
	s := e.Workloads.Set(w.Set)
	if s == nil {
		var names []string
		for _, s := range e.Workloads.Sets {
			names = append(names, s.Name)
		}
		return fmt.Errorf("workload: unknown set %q (the experiment's workloads.sets: %s)", w.Set, strings.Join(names, ", "))
	}
	c.set, c.count, c.jobs, c.load = s.Name, s.Count, s.Jobs, 1
	return nil
}

// UsedSets lists the workload sets the experiment's cells run on, in the
// order of workloads.sets.
func (e *Experiment) UsedSets() []NamedSet {
	used := map[string]bool{}
	for i := range e.Cells {
		used[e.Cells[i].set] = true
	}
	var out []NamedSet
	for _, s := range e.Workloads.Sets {
		if used[s.Name] {
			out = append(out, s)
		}
	}
	return out
}

// InputsHint is the experiment's Inputs sentence for messages.
func (e *Experiment) InputsHint() string {
	if e.Inputs == "" {
		return ""
	}
	return "; experiment " + e.Name + " needs " + e.Inputs
}

// MaxWorkloadCount bounds the workloads of a set (a spec's "count").
const MaxWorkloadCount = 1000

// checkSetSize checks a workload set's count and jobs, naming the one out
// of bounds (it said "count 1000000000 and jobs 4 must be positive").
func checkSetSize(count, jobs int) error {
	switch {
	case count < 1 || count > MaxWorkloadCount:
		return fmt.Errorf("count must be in [1, %d], got %d", MaxWorkloadCount, count)
	case jobs < 1 || jobs > workloads.MaxGeneratedJobs:
		return fmt.Errorf("jobs must be in [1, %d], got %d", workloads.MaxGeneratedJobs, jobs)
	}
	return nil
}

// maxCount is the largest number of workloads of a cell.
func (e *Experiment) maxCount() int {
	n := e.Workloads.Count
	for i := range e.Cells {
		n = max(n, e.Cells[i].count)
	}
	return n
}
