package experiments

import (
	"fmt"
	"strings"
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

// resolveSets fills in and checks the named workload sets.
func (ws *WorkloadSet) resolveSets() error {
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
		if s.Count < 1 || s.Count > 1000 || s.Jobs < 1 {
			return fmt.Errorf("set %q: count %d and jobs %d must be positive (count at most 1000)", s.Name, s.Count, s.Jobs)
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

// maxCount is the largest number of workloads of a cell.
func (e *Experiment) maxCount() int {
	n := e.Workloads.Count
	for i := range e.Cells {
		n = max(n, e.Cells[i].count)
	}
	return n
}
