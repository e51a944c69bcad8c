package experiments

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/polluxsim/polluxsim/profiles"
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
			s.Jobs = referenceJobs
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
	if w.Load != 0 || w.Config != "" || w.Jobs != 0 || w.Uniform != nil {
		return fmt.Errorf("workload: set %q excludes load, config, jobs and uniform (the set's files are read as they are)", w.Set)
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

// usedSets lists the workload sets the experiment's cells run on, in the
// order of workloads.sets.
func (e *Experiment) usedSets() []NamedSet {
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

// inputsHint is the experiment's Inputs sentence for messages.
func (e *Experiment) inputsHint() string {
	if e.Inputs == "" {
		return ""
	}
	return "; experiment " + e.Name + " needs " + e.Inputs
}

// checkSetFiles verifies, before a sweep starts, that the --workloads
// folder holds every file of every workload set the experiment uses.
func checkSetFiles(e *Experiment, dir string) error {
	sets := e.usedSets()
	if len(sets) == 0 {
		return nil
	}
	var folders []string
	for _, s := range sets {
		folders = append(folders, s.Name+"/")
	}
	want := strings.Join(folders, ", ")
	if dir == "" || dir == GeneratedWorkloads {
		return fmt.Errorf("experiment %s reads workload sets %s from --workloads DIR, none given%s", e.Name, want, e.inputsHint())
	}
	fsys := os.DirFS(dir)
	for _, s := range sets {
		for i := 1; i <= s.Count; i++ {
			rel := path.Join(s.Name, fmt.Sprintf("workload-%d.csv", i))
			st, err := fs.Stat(fsys, rel)
			if err == nil && st.Mode().IsRegular() {
				continue
			}
			if err == nil || errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("--workloads %s has no file %s (experiment %s reads sets %s)%s", dir, filepath.FromSlash(rel), e.Name, want, e.inputsHint())
			}
			return fmt.Errorf("--workloads %s: %w", dir, err)
		}
	}
	return nil
}

// checkClusterTables verifies, before a sweep starts, that every GPU type
// of every cell's cluster has tables for some application of the profile
// set (sim.Run checks the same per workload, later).
func checkClusterTables(e *Experiment, set *profiles.Set) error {
	for i := range e.Cells {
		c := &e.Cells[i]
		if c.spec.Cluster == "" {
			continue
		}
		cl, err := ParseCluster(c.spec.Cluster)
		if err != nil {
			return fmt.Errorf("cell %q: %w", c.Name, err)
		}
		for _, t := range cl.Types() {
			served := false
			for _, a := range set.Apps {
				if a.ForType(t) != nil {
					served = true
					break
				}
			}
			if !served {
				return fmt.Errorf("--profiles %s has no tables for GPU type %s (cell %s, cluster %s)%s", set.Source, t, c.Name, c.spec.Cluster, e.inputsHint())
			}
		}
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
