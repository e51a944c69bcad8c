package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/internal/fserr"
	"github.com/polluxsim/polluxsim/internal/inputfile"
	"github.com/polluxsim/polluxsim/traces"
)

// MergeReport tells what Merge did.
type MergeReport struct {
	Runs    int      // runs in the merged folder
	Missing []string // runs no input folder had
	Summary *SweepSummary
	// Experiment is the experiment merged, as the extensions read it (its
	// Skipped lists what they lack).
	Experiment *experiments.Experiment
}

// Merge joins the output folders of the shards of one sweep into out:
// every stored run is copied to out/cells, then out/results.parquet and
// out/summary.json are rebuilt with ext's metrics (ext.MetricSet). The
// inputs must hold the same experiment spec and runs made with the same
// profiles, polluxsim build and workload sources; a run present in
// several inputs must have the same hash in each. out may be one of the
// inputs; merge holds its lock while writing.
func Merge(ext *extensions.Extensions, out string, dirs []string) (*MergeReport, error) {
	ms := ext.MetricSet()
	if len(dirs) == 0 {
		return nil, errors.New("merge: no folders to merge")
	}
	if out == "" {
		return nil, errors.New("merge: --out DIR is required")
	}
	var spec []byte
	var exp *experiments.Experiment
	for _, d := range dirs {
		data, err := inputfile.ReadFile(filepath.Join(d, ExperimentFile))
		if err != nil {
			return nil, fmt.Errorf("merge: %s is not a sweep's output folder: %w", d, fserr.Cause(err))
		}
		if spec == nil {
			spec = data
			if exp, err = experiments.ParseStoredExperiment(data, filepath.Join(d, ExperimentFile), ext); err != nil {
				return nil, fmt.Errorf("merge: %w", err)
			}
			continue
		}
		if !sameJSON(spec, data) {
			return nil, fmt.Errorf("merge: %s and %s ran different experiment specs", dirs[0], d)
		}
	}
	if err := CheckSweepOut(out, exp); err != nil {
		return nil, err
	}
	type found struct {
		dir  string
		hash string
		data []byte
	}
	runs := map[string]found{}
	var inputs *mergeInputs
	for _, r := range exp.Runs() {
		id := r.ID()
		for _, d := range dirs {
			path := RunPath(d, id)
			data, err := inputfile.ReadFileLimit(path, inputfile.MaxStoredSize)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("merge: %w", err)
			}
			rr, err := results.ReadRunResult(path)
			if err != nil {
				return nil, fmt.Errorf("merge: %w", err)
			}
			if !runMatches(rr, exp, r) {
				continue // a stale file of an older spec
			}
			if inputs == nil {
				inputs = &mergeInputs{first: d, profilesID: rr.ProfilesID, version: rr.PolluxsimVersion, origin: map[string]string{}}
			}
			if err := inputs.check(d, rr); err != nil {
				return nil, err
			}
			if prev, ok := runs[id]; ok {
				if prev.hash != rr.Hash {
					return nil, fmt.Errorf("merge: run %s differs between %s and %s (other inputs or polluxsim version)", id, prev.dir, d)
				}
				continue
			}
			runs[id] = found{d, rr.Hash, data}
		}
	}
	if err := os.MkdirAll(filepath.Join(out, CellsDir), 0o755); err != nil {
		return nil, fmt.Errorf("merge: %w", fserr.Cause(err))
	}
	release, err := lockOut(out, "merge")
	if err != nil {
		return nil, err
	}
	defer release()
	if err := atomicfile.WriteBytes(filepath.Join(out, ExperimentFile), spec); err != nil {
		return nil, err
	}
	if err := exp.WriteFaultLogs(out); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	for id, f := range runs {
		dst := RunPath(out, id)
		if inputfile.SameFile(RunPath(f.dir, id), dst) {
			continue
		}
		if err := atomicfile.WriteBytes(dst, f.data); err != nil {
			return nil, err
		}
		// The run's rounds table, when the shard kept it.
		if data, err := os.ReadFile(RunRoundsPath(f.dir, id)); err == nil {
			if err := atomicfile.WriteBytes(RunRoundsPath(out, id), data); err != nil {
				return nil, err
			}
		}
	}
	sum, err := Rebuild(out, exp, ms)
	if err != nil {
		return nil, err
	}
	return &MergeReport{Runs: sum.Runs, Missing: sum.Missing, Summary: sum, Experiment: exp}, nil
}

// mergeInputs are what every run of a merged sweep must share beyond the
// spec: the profiles, the polluxsim build and, per cell, where the
// workloads came from (a folder, or the generator and its source).
type mergeInputs struct {
	first      string // the folder the first run came from
	profilesID string
	version    string
	origin     map[string]string // cell -> workload origin
}

// check fails if rr, found in dir, was made with other inputs.
func (m *mergeInputs) check(dir string, rr *results.RunResult) error {
	what := ""
	switch o, seen := m.origin[rr.Cell]; {
	case rr.ProfilesID != m.profilesID:
		what = "other profiles"
	case rr.PolluxsimVersion != m.version:
		what = "another polluxsim build"
	case seen && o != workloadOrigin(rr.WorkloadSource):
		what = "workloads from elsewhere (cell " + rr.Cell + ")"
	}
	if what != "" {
		return fmt.Errorf("merge: the runs in %s were made with %s than those in %s: merge only the shards of one sweep", dir, what, m.first)
	}
	m.origin[rr.Cell] = workloadOrigin(rr.WorkloadSource)
	return nil
}

// workloadOrigin is a run's workload source without the workload's own
// part: "generated from <source>", the reference set of paper:N
// (paper-realistic:N), or the folder a file was read from.
func workloadOrigin(desc string) string {
	if traces.IsPaperName(desc) {
		set, _, _ := strings.Cut(desc, ":")
		return set
	}
	if g, _, ok := strings.Cut(desc, ":"); ok && strings.HasPrefix(g, "generated from ") {
		return g
	}
	return path.Dir(desc)
}

// sameJSON reports whether two JSON documents are equal up to layout.
func sameJSON(a, b []byte) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}
