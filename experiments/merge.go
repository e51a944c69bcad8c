package experiments

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// MergeReport tells what Merge did.
type MergeReport struct {
	Runs    int      // runs in the merged folder
	Missing []string // runs no input folder had
	Summary *SweepSummary
}

// Merge joins the output folders of the shards of one sweep into out:
// every stored run is copied to out/cells, then out/results.parquet and
// out/summary.json are rebuilt. The inputs must hold the same experiment
// spec; a run present in several inputs must have the same hash in each.
// out may be one of the inputs.
func Merge(out string, dirs []string) (*MergeReport, error) {
	if len(dirs) == 0 {
		return nil, errors.New("merge: no folders to merge")
	}
	if out == "" {
		return nil, errors.New("merge: --out DIR is required")
	}
	var spec []byte
	var exp *Experiment
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join(d, ExperimentFile))
		if err != nil {
			return nil, fmt.Errorf("merge: %s is not a sweep's output folder: %w", d, unwrapPathError(err))
		}
		if spec == nil {
			spec = data
			if exp, err = ParseExperiment(data, filepath.Join(d, ExperimentFile)); err != nil {
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
	for _, r := range exp.Runs() {
		id := r.ID()
		for _, d := range dirs {
			path := runPath(d, id)
			data, err := os.ReadFile(path)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("merge: %w", err)
			}
			rr, err := ReadRunResult(path)
			if err != nil {
				return nil, fmt.Errorf("merge: %w", err)
			}
			if !rr.matches(exp, r) {
				continue // a stale file of an older spec
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
		return nil, fmt.Errorf("merge: %w", unwrapPathError(err))
	}
	if err := writeFileAtomic(filepath.Join(out, ExperimentFile), spec); err != nil {
		return nil, err
	}
	for id, f := range runs {
		dst := runPath(out, id)
		if same, _ := sameFile(runPath(f.dir, id), dst); same {
			continue
		}
		if err := writeFileAtomic(dst, f.data); err != nil {
			return nil, err
		}
		// The run's rounds table, when the shard kept it.
		if data, err := os.ReadFile(runRoundsPath(f.dir, id)); err == nil {
			if err := writeFileAtomic(runRoundsPath(out, id), data); err != nil {
				return nil, err
			}
		}
	}
	sum, err := Rebuild(out, exp)
	if err != nil {
		return nil, err
	}
	return &MergeReport{Runs: sum.Runs, Missing: sum.Missing, Summary: sum}, nil
}

// sameJSON reports whether two JSON documents are equal up to layout.
func sameJSON(a, b []byte) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// sameFile reports whether a and b are the same file.
func sameFile(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}
