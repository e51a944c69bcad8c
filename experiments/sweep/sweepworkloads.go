package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/experiments/workloads"
	"github.com/polluxsim/polluxsim/internal/adaptdl"
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
	uniform     runspec.Uniform
	set         string
	// trace and window: the trace the workload is sampled from.
	trace, window string
}

// workloadStore reads or generates each workload a sweep needs once and
// shares it between cells (simulations do not modify workloads).
type workloadStore struct {
	ext  *extensions.Extensions // the workload sources and trace formats
	sets map[string]experiments.NamedSet
	dir  string // --workloads folder, "" (embedded) or GeneratedWorkloads
	fsys fs.FS  // where workload folders are looked up; nil: generate all
	from string // how fsys is named in notes
	set  *profiles.Set

	mu      sync.Mutex
	cache   map[workloadKey]*sweepWorkload
	notes   map[string]bool
	noteLog []string
	src     traces.Source
	srcDesc string
	// tables holds the traces read, by name: each is read once.
	tables map[string]*traces.TraceTable
}

// GeneratedWorkloads, as SweepOptions.Workloads, generates every workload
// instead of reading the embedded reference workloads.
const GeneratedWorkloads = "generated"

func newWorkloadStore(ext *extensions.Extensions, sets []experiments.NamedSet, dir string, set *profiles.Set) *workloadStore {
	s := &workloadStore{ext: ext, sets: map[string]experiments.NamedSet{}, dir: dir, set: set, cache: map[workloadKey]*sweepWorkload{}, notes: map[string]bool{}}
	for _, ns := range sets {
		s.sets[ns.Name] = ns
	}
	switch dir {
	case "":
		s.fsys, s.from = adaptdl.FS(), "the embedded reference workloads"
	case GeneratedWorkloads:
	default:
		s.fsys, s.from = os.DirFS(dir), dir
	}
	return s
}

func (s *workloadStore) note(msg string) {
	if !s.notes[msg] {
		s.notes[msg] = true
		s.noteLog = append(s.noteLog, msg)
	}
}

// get returns workload index of the cell's kind.
func (s *workloadStore) get(c *experiments.Cell, index int) (*sweepWorkload, error) {
	k := workloadKey{c.Config(), c.Load(), c.Jobs(), c.FixedJobs(), c.Spec().GPUsPerNode, index, c.UniformWorkload(), c.Set(), c.Trace(), c.Window()}
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
	if ns := s.sets[k.set]; k.set != "" && ns.Source != "" { // a set made by a workload source
		ref := ns.Ref(k.index)
		env := s.ext.WorkloadEnv(s.set, k.gpusPerNode)
		env.Params = ns.Params
		w, _, err := s.ext.ResolveWorkload(ref, env)
		if err != nil {
			return nil, fmt.Errorf("workloads: set %s: %w", k.set, err)
		}
		s.note(fmt.Sprintf("workloads %s: made by workload source %s", k.set, ns.SourceName()))
		return finishWorkload(w, ref)
	}
	if k.set != "" { // a named set: its files, never generated ones
		if s.dir == "" || s.dir == GeneratedWorkloads {
			return nil, fmt.Errorf("workloads: set %s is read from --workloads DIR", k.set)
		}
		rel := path.Join(k.set, fmt.Sprintf("workload-%d.csv", k.index))
		w, err := s.read(rel, k)
		if err != nil {
			return nil, fmt.Errorf("workloads: %w", err)
		}
		s.note(fmt.Sprintf("workloads %s: read from %s", k.set, k.set))
		return finishWorkload(w, rel)
	}
	if k.trace != "" {
		return s.sample(k)
	}
	if k.uniform.App != "" {
		w, err := runspec.UniformWorkload(s.set, k.uniform, k.jobs)
		if err != nil {
			return nil, err
		}
		return finishWorkload(w, w.Source)
	}
	embeddedFits := k.jobs == int(math.Round(k.load*experiments.ReferenceJobs)) && k.index <= adaptdl.Workloads
	if s.dir == "" && !k.fixedJobs && !embeddedFits {
		s.note(fmt.Sprintf("workloads %s %.4gx: generated (the embedded reference workloads are %d of %d jobs per 1.0x load)",
			k.config, k.load, adaptdl.Workloads, experiments.ReferenceJobs))
	} else if s.fsys != nil && !k.fixedJobs {
		folder := WorkloadFolder(k.config, k.load)
		if st, err := fs.Stat(s.fsys, folder); err == nil && st.IsDir() {
			rel := path.Join(folder, fmt.Sprintf("workload-%d.csv", k.index))
			w, err := s.read(rel, k)
			if err != nil {
				return nil, fmt.Errorf("workloads: %w", err)
			}
			if s.dir == "" {
				s.note(fmt.Sprintf("workloads %s %.4gx: the embedded reference workloads (%s/ of %s %s)", k.config, k.load, folder, adaptdl.Repository, adaptdl.Branch))
				if k.load == 1 && k.index <= traces.PaperWorkloads {
					// The same workload as run's --workload paper:N.
					rel = traces.PaperName(k.config, k.index)
				}
			} else {
				s.note(fmt.Sprintf("workloads %s %.4gx: read from %s", k.config, k.load, folder))
			}
			return finishWorkload(w, rel)
		}
		s.note(fmt.Sprintf("workloads %s %.4gx: generated (%s has no folder %s)", k.config, k.load, s.from, folder))
	}
	src, srcDesc, err := s.source()
	if err != nil {
		return nil, err
	}
	g := workloads.Generate{Jobs: k.jobs, Seed: uint64(k.index), Config: k.config}
	w, err := g.MakeFrom(src, s.ext.WorkloadEnv(s.set, k.gpusPerNode))
	if err != nil {
		return nil, err
	}
	return finishWorkload(w, fmt.Sprintf("generated from %s: %d jobs, seed %d, %s", srcDesc, k.jobs, k.index, k.config))
}

// sample samples workload k from its trace by the paper's method
// (workloads.Generate.MakeFromTrace), reading the trace once per sweep.
func (s *workloadStore) sample(k workloadKey) (*sweepWorkload, error) {
	t := s.tables[k.trace]
	if t == nil {
		var err error
		if t, err = s.ext.Traces().Read(k.trace); err != nil {
			return nil, fmt.Errorf("workloads: %w", err)
		}
		if s.tables == nil {
			s.tables = map[string]*traces.TraceTable{}
		}
		s.tables[k.trace] = t
	}
	g := workloads.Generate{Jobs: k.jobs, Seed: uint64(k.index), Config: k.config, Trace: k.trace, Window: k.window}
	w, warnings, err := g.MakeFromTrace(t, s.ext.WorkloadEnv(s.set, k.gpusPerNode))
	if err != nil {
		return nil, fmt.Errorf("workloads: %w", err)
	}
	window := k.window
	if window == "" {
		window = "daily"
	}
	s.note(fmt.Sprintf("workloads %s: sampled from %s by the paper's method (window %s, workload i with seed i)", k.config, k.trace, window))
	for _, msg := range warnings {
		s.note(fmt.Sprintf("workload %d: %s", k.index, msg))
	}
	return finishWorkload(w, w.Source)
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
	if s.dir != "" && s.dir != GeneratedWorkloads {
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

// read reads the workload file rel (slash-separated) of the --workloads
// folder, or the embedded reference workload it is (paper:N,
// paper-realistic:N), through the workload sources.
func (s *workloadStore) read(rel string, k workloadKey) (*traces.Workload, error) {
	ref := workloads.CSVSource + ":" + filepath.Join(s.dir, filepath.FromSlash(rel))
	if s.dir == "" {
		ref = traces.PaperName(k.config, k.index)
	}
	w, _, err := s.ext.ResolveWorkload(ref, s.ext.WorkloadEnv(s.set, k.gpusPerNode))
	return w, err
}
