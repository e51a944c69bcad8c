package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/profiles"
)

// checkSetFiles verifies, before a sweep starts, that the --workloads
// folder holds every file of every workload set the experiment uses.
func checkSetFiles(e *experiments.Experiment, dir string) error {
	var sets []experiments.NamedSet
	for _, s := range e.UsedSets() {
		if s.Source == "" { // a workload source's set has no files
			sets = append(sets, s)
		}
	}
	if len(sets) == 0 {
		return nil
	}
	var folders []string
	for _, s := range sets {
		folders = append(folders, s.Name+"/")
	}
	want := strings.Join(folders, ", ")
	if dir == "" || dir == GeneratedWorkloads {
		return fmt.Errorf("experiment %s reads workload sets %s from --workloads DIR, none given%s", e.Name, want, e.InputsHint())
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
				return fmt.Errorf("--workloads %s has no file %s (experiment %s reads sets %s)%s", dir, filepath.FromSlash(rel), e.Name, want, e.InputsHint())
			}
			return fmt.Errorf("--workloads %s: %w", dir, err)
		}
	}
	return nil
}

// checkClusterTables verifies, before a sweep starts, that every GPU type
// of every cell's cluster has tables for some application of the profile
// set (sim.Run checks the same per workload, later).
func checkClusterTables(e *experiments.Experiment, set *profiles.Set) error {
	for i := range e.Cells {
		c := &e.Cells[i]
		if c.Spec().Cluster == "" {
			continue
		}
		cl, err := runspec.ParseCluster(c.Spec().Cluster)
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
				return fmt.Errorf("--profiles %s has no tables for GPU type %s (cell %s, cluster %s)%s", set.Source, t, c.Name, c.Spec().Cluster, e.InputsHint())
			}
		}
	}
	return nil
}
