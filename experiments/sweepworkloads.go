package experiments

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// WorkloadFolder is the sub-folder of a --workloads folder that holds
// workload-1.csv … workload-N.csv of a configuration and load, named as in
// the reference artifact: workloads (tuned, 1.0×), workloads-realistic,
// workloads-0.5, workloads-realistic-1.5, …
func WorkloadFolder(config string, load float64) string {
	name := "workloads"
	if config == traces.ConfigRealistic {
		name += "-realistic"
	}
	if load != 1 {
		l := strconv.FormatFloat(load, 'f', -1, 64)
		if !strings.Contains(l, ".") {
			l += ".0"
		}
		name += "-" + l
	}
	return name
}

// sweepWorkload is one workload as a sweep uses it.
type sweepWorkload struct {
	w    *traces.Workload
	desc string // where it came from, without machine-specific paths
	csv  []byte // its content in the workload format, for hashing
}

type workloadKey struct {
	config      string
	load        float64
	jobs        int
	fixedJobs   bool
	gpusPerNode int
	index       int
}

// workloadStore reads or generates each workload a sweep needs once and
// shares it between cells (simulations do not modify workloads).
type workloadStore struct {
	dir string // --workloads folder, or ""
	set *profiles.Set

	mu      sync.Mutex
	cache   map[workloadKey]*sweepWorkload
	notes   map[string]bool
	noteLog []string
	src     traces.Source
	srcDesc string
}

func newWorkloadStore(dir string, set *profiles.Set) *workloadStore {
	return &workloadStore{dir: dir, set: set, cache: map[workloadKey]*sweepWorkload{}, notes: map[string]bool{}}
}

func (s *workloadStore) note(msg string) {
	if !s.notes[msg] {
		s.notes[msg] = true
		s.noteLog = append(s.noteLog, msg)
	}
}

// get returns workload index of the cell's kind.
func (s *workloadStore) get(c *Cell, index int) (*sweepWorkload, error) {
	k := workloadKey{c.config, c.load, c.jobs, c.fixedJobs, c.spec.GPUsPerNode, index}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.cache[k]; ok {
		return w, nil
	}
	w, err := s.load(k)
	if err != nil {
		return nil, err
	}
	s.cache[k] = w
	return w, nil
}

func (s *workloadStore) load(k workloadKey) (*sweepWorkload, error) {
	if s.dir != "" && !k.fixedJobs {
		folder := WorkloadFolder(k.config, k.load)
		if st, err := os.Stat(filepath.Join(s.dir, folder)); err == nil && st.IsDir() {
			rel := filepath.ToSlash(filepath.Join(folder, fmt.Sprintf("workload-%d.csv", k.index)))
			w, _, err := traces.ReadFile(filepath.Join(s.dir, rel), traces.ReadOptions{Apps: s.set.Names()})
			if err != nil {
				return nil, fmt.Errorf("workloads: %w", err)
			}
			s.note(fmt.Sprintf("workloads %s %.4gx: read from %s", k.config, k.load, folder))
			return finishWorkload(w, rel)
		}
		s.note(fmt.Sprintf("workloads %s %.4gx: generated (%s has no folder %s)", k.config, k.load, s.dir, folder))
	}
	src, srcDesc, err := s.source()
	if err != nil {
		return nil, err
	}
	w, err := GenerateWorkload(src, s.set, k.jobs, uint64(k.index), k.config, k.gpusPerNode)
	if err != nil {
		return nil, err
	}
	return finishWorkload(w, fmt.Sprintf("generated from %s: %d jobs, seed %d, %s", srcDesc, k.jobs, k.index, k.config))
}

func finishWorkload(w *traces.Workload, desc string) (*sweepWorkload, error) {
	var buf bytes.Buffer
	if err := traces.Write(&buf, w); err != nil {
		return nil, err
	}
	return &sweepWorkload{w: w, desc: desc, csv: buf.Bytes()}, nil
}

// source is what generated workloads are sampled from: the reduced Philly
// table traces/philly.csv of the --workloads folder when it has one (as
// the reference data does), else the embedded Philly summary.
func (s *workloadStore) source() (traces.Source, string, error) {
	if s.src != nil {
		return s.src, s.srcDesc, nil
	}
	if s.dir != "" {
		p := filepath.Join(s.dir, "traces", "philly.csv")
		if _, err := os.Stat(p); err == nil {
			t, _, err := traces.ReadPhilly(p)
			if err != nil {
				return nil, "", fmt.Errorf("workloads: %w", err)
			}
			s.src, s.srcDesc = t, "traces/philly.csv"
			return s.src, s.srcDesc, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, "", fmt.Errorf("workloads: %w", err)
		}
	}
	sum, err := traces.DefaultSummary()
	if err != nil {
		return nil, "", err
	}
	s.src, s.srcDesc = sum, "the embedded Philly summary"
	return s.src, s.srcDesc, nil
}
