package experiments

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/internal/inputfile"
	reg "github.com/polluxsim/polluxsim/internal/registry"
	"github.com/polluxsim/polluxsim/internal/strictjson"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/traces"
)

// Experiment is a named, versioned sweep read from a spec file (JSON, see
// specs/): cells — each a policy with settings and a kind of workload —
// every one run on workloads 1..N. A run is one cell on one workload.
//
// A cell's settings are DefaultSpec(policy), then the experiment's
// settings, then the cell's own, each a JSON object with RunSpec's engine
// keys (interval_s, interference, nodes, ...); its policy options are the
// policy's defaults, then the experiment's "options" for that policy, then
// the cell's own "options" (e.g. {"p": 1} for Pollux).
// Its workload is the experiment's workload set with the cell's overrides:
// jobs = round(load × jobs at 1.0 load) unless the cell gives a job count.
type Experiment struct {
	// stored: read from a sweep's folder (ParseStoredExperiment).
	stored bool
	// ext: what the binary knows (policies, workload sources, trace
	// formats, figure kinds), against which the spec was resolved.
	ext *extensions.Extensions
	// skipped: what a stored experiment names that this binary does not
	// know (see Skipped).
	skipped []string
	// files: the spec's folder, where the fault logs its cells name are
	// (nil: the working directory); faultLogs: those its cells name, and
	// faultContent each one's bytes as the cells read it.
	files        fs.FS
	faultLogs    []string
	faultContent map[string][]byte

	Name    string `json:"name"`
	Version int    `json:"version"`
	// Description says what the experiment measures.
	Description string `json:"description"`
	// Paper says what the paper reports for it, in words.
	Paper string `json:"paper,omitempty"`
	// Sources names where each set of reference numbers comes from (the
	// keys of Cell.Reference and Ratio.Reference), e.g. "paper" or
	// "simulator".
	Sources   map[string]string `json:"sources,omitempty"`
	Workloads WorkloadSet       `json:"workloads"`
	// Settings are RunSpec overrides for every cell.
	Settings json.RawMessage `json:"settings,omitempty"`
	// Options are policy options for every cell of a policy, by policy
	// name, e.g. {"pollux": {"population": 16}}; a cell's own options go on
	// top.
	Options map[string]json.RawMessage `json:"options,omitempty"`
	Cells   []Cell                     `json:"cells"`
	// Grid, when set, adds cells as every one of its policies under every
	// one of its settings, and plots of them (grid.go). It is expanded
	// into Cells and Plots when the spec is read, and is then nil (so the
	// experiment written back as JSON has its cells once).
	Grid *Grid `json:"grid,omitempty"`
	// Ratios are paired comparisons of two cells, per workload.
	Ratios []Ratio `json:"ratios,omitempty"`
	// Plots lists the figures `polluxsim plot` draws (default: JCT and ρ
	// CDFs and the GPU/efficiency timeline of every cell).
	Plots []PlotSpec `json:"plots,omitempty"`
	// Inputs, when set, says in a few words which --profiles and
	// --workloads the experiment needs; a sweep refusing its inputs
	// repeats it (e.g. an experiment on another artifact's data).
	Inputs string `json:"inputs,omitempty"`
}

// WorkloadSet describes the workloads every cell runs on.
type WorkloadSet struct {
	// Count is the number of workloads, numbered 1..Count (default 8);
	// workload i is read from file workload-i.csv or generated with seed i.
	Count int `json:"count,omitempty"`
	// Jobs is the number of jobs at 1.0 load (default 160, the reference's).
	Jobs int `json:"jobs,omitempty"`
	// Load and Config are the defaults of the cells' workloads (1.0,
	// "tuned").
	Load   float64 `json:"load,omitempty"`
	Config string  `json:"config,omitempty"`
	// Sets are named workload sets read from folders of --workloads (see
	// NamedSet); a cell runs on one of them when its workload names it.
	Sets []NamedSet `json:"sets,omitempty"`
}

// NamedSet is a set of workload files in its own sub-folder of
// --workloads: <name>/workload-1.csv … <name>/workload-<count>.csv, read
// as they are (e.g. the Sia artifact's philly/, saturn/ and newtrace/).
// A cell on a set never falls back to generated workloads: the sweep
// refuses to start when a file is missing.
type NamedSet struct {
	// Name is the set's name and sub-folder.
	Name string `json:"name"`
	// Count is the number of workloads (default 8).
	Count int `json:"count,omitempty"`
	// Jobs is about how many jobs a workload has (default 160): only
	// used to order the runs, the files decide.
	Jobs int `json:"jobs,omitempty"`
	// Source, when set, makes the set's workloads with a workload source
	// of the binary's (workloads.Source, app.WithSource) instead of
	// reading files: workload i is the reference Source with "{i}"
	// replaced by i, e.g. "mini:data/mini-{i}.csv" (a relative path is
	// the source's business: the CSV sources read it from the working
	// folder). Params, a JSON object, are handed to the source
	// (workloads.Env.Params), which decodes them itself.
	Source string          `json:"source,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Ref is the workload reference of workload i of a set made by a source.
func (s NamedSet) Ref(i int) string { return strings.ReplaceAll(s.Source, "{i}", strconv.Itoa(i)) }

// SourceName is the name of the workload source a set names ("" for
// none).
func (s NamedSet) SourceName() string {
	name, _, _ := strings.Cut(s.Source, ":")
	return name
}

// CellWorkload overrides the workload of one cell.
type CellWorkload struct {
	// Load multiplies the job count (and so the arrival rate: the window
	// stays 8 hours).
	Load float64 `json:"load,omitempty"`
	// Config is "tuned" (TunedJobs) or "realistic" (the users' own GPU
	// counts and batch sizes).
	Config string `json:"config,omitempty"`
	// Jobs, when positive, is the job count itself (generated workloads
	// only: a workload folder is not consulted).
	Jobs int `json:"jobs,omitempty"`
	// Uniform, when set, makes the workload Jobs identical jobs of one
	// application instead (Jobs is then required).
	Uniform *runspec.Uniform `json:"uniform,omitempty"`
	// Set names one of the experiment's workload sets (WorkloadSet.Sets)
	// to run on instead; it excludes the other fields.
	Set string `json:"set,omitempty"`
	// Trace, when set, samples the cell's workloads from a registered
	// trace by name (itp:cluster02, helios:FOLDER, ...) by the paper's
	// method (traces.SampleTrace): workload i is the cell's job count
	// with seed i, in its Config, never read from --workloads.
	Trace string `json:"trace,omitempty"`
	// Window is the trace's arrival window (traces.TraceSampleOptions.
	// SetWindow: daily, the paper's and the default, daily:H1-H2,
	// span:FROM-UNTIL); only with Trace.
	Window string `json:"window,omitempty"`
}

// Cell is one setting of an experiment.
type Cell struct {
	// Name identifies the cell (letters, digits, '.', '_', '-'); its runs
	// are stored as cells/<name>.w<i>.json.
	Name string `json:"name"`
	// Label names the cell in plots and tables (default: Name).
	Label    string          `json:"label,omitempty"`
	Policy   string          `json:"policy"`
	Settings json.RawMessage `json:"settings,omitempty"`
	// Options are the cell's policy options (a JSON object of the
	// policy's option keys, see `polluxsim policies`); the rest keep the
	// policy's defaults.
	Options  json.RawMessage `json:"options,omitempty"`
	Workload *CellWorkload   `json:"workload,omitempty"`
	// Reference holds published numbers per source (see
	// Experiment.Sources), metric name → value, e.g. {"simulator":
	// {"avg_jct_s": 2751.13}}.
	Reference map[string]map[string]float64 `json:"reference,omitempty"`

	spec   runspec.RunSpec
	load   float64
	config string
	jobs   int
	// fixedJobs: the job count was given, not derived from a load.
	fixedJobs bool
	// unresolved: the cell's policy or autoscaler is not registered in
	// this binary (a stored experiment, see ParseStoredExperiment).
	unresolved bool
	uniform    runspec.Uniform
	// set is the cell's workload set ("" for none) and count its number of
	// workloads.
	set   string
	count int
	// trace and window: the trace the cell's workloads are sampled from
	// ("" for none) and its window.
	trace, window string
}

// Ratio compares two cells on a metric: per workload num/den, then the
// mean and confidence interval of those ratios.
type Ratio struct {
	Name      string             `json:"name"`
	Num       string             `json:"num"`
	Den       string             `json:"den"`
	Metric    string             `json:"metric"`
	Reference map[string]float64 `json:"reference,omitempty"`
}

// Spec returns the cell's resolved settings.
func (c *Cell) Spec() runspec.RunSpec { return c.spec }

// Title is the cell's label, or its name.
func (c *Cell) Title() string {
	if c.Label != "" {
		return c.Label
	}
	return c.Name
}

// Load, Config and Jobs describe the cell's resolved workload.
func (c *Cell) Load() float64  { return c.load }
func (c *Cell) Config() string { return c.config }
func (c *Cell) Jobs() int      { return c.jobs }

// OptionsResolved reports whether the cell's options were resolved
// against its policy's and autoscaler's registrations (false only for a
// stored experiment whose policy or autoscaler this binary does not
// know).
func (c *Cell) OptionsResolved() bool { return !c.unresolved }

// FixedJobs reports whether the job count was given rather than derived
// from a load; UniformWorkload is the cell's uniform workload (zero when
// it has none).
func (c *Cell) FixedJobs() bool                  { return c.fixedJobs }
func (c *Cell) UniformWorkload() runspec.Uniform { return c.uniform }

// Set is the workload set the cell runs on ("" when none) and Count the
// number of its workloads.
func (c *Cell) Set() string { return c.set }
func (c *Cell) Count() int  { return c.count }

// Cell returns the cell called name, or nil.
func (e *Experiment) Cell(name string) *Cell {
	for i := range e.Cells {
		if e.Cells[i].Name == name {
			return &e.Cells[i]
		}
	}
	return nil
}

// Run is one cell on one workload: the unit of work of a sweep.
type Run struct {
	Cell     *Cell
	Workload int // 1-based
}

// ID identifies the run: <cell>.w<workload>.
func (r Run) ID() string { return fmt.Sprintf("%s.w%d", r.Cell.Name, r.Workload) }

// Runs lists every run of the experiment, cell by cell in spec order,
// workloads in order.
func (e *Experiment) Runs() []Run {
	runs := make([]Run, 0, len(e.Cells)*e.Workloads.Count)
	for i := range e.Cells {
		for w := 1; w <= e.Cells[i].count; w++ {
			runs = append(runs, Run{Cell: &e.Cells[i], Workload: w})
		}
	}
	return runs
}

var cellNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// MaxNameLen bounds the names of experiments, cells and plots: they become
// file names (cells/<cell>.w<i>.json and its hidden temporary twin,
// <plot>.png), which most file systems limit to 255 bytes.
const MaxNameLen = 200

// checkName checks a name that becomes part of a file name.
func checkName(name string) error {
	if !cellNameRE.MatchString(name) {
		return fmt.Errorf("name %q must be letters, digits, '.', '_' or '-'", name)
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("name is %d bytes long, at most %d (it becomes a file name)", len(name), MaxNameLen)
	}
	return nil
}

// ParseExperiment reads an experiment spec (JSON; unknown keys and data
// after the object are errors) and resolves and checks every cell against
// ext, what the binary knows (its policies, workload sources, trace
// formats and figure kinds). name is used in messages.
func ParseExperiment(data []byte, name string, ext *extensions.Extensions) (*Experiment, error) {
	return parseExperiment(data, name, false, nil, ext)
}

// ParseExperimentIn is ParseExperiment for a spec whose folder is files:
// the fault logs its cells name (settings "failures", docs/failures.md)
// are read from there, by paths relative to the spec, rather than from
// the working directory.
func ParseExperimentIn(data []byte, name string, files fs.FS, ext *extensions.Extensions) (*Experiment, error) {
	return parseExperiment(data, name, false, files, ext)
}

// FaultLogs lists the fault logs the experiment's cells replay, as the
// spec names them (relative to its folder), sorted, each once.
func (e *Experiment) FaultLogs() []string { return e.faultLogs }

// WriteFaultLogs copies the fault logs the experiment's cells replay
// into dir, at the paths the spec names them by, so that a spec stored
// in dir (a sweep's experiment.json) reads them as the spec did.
func (e *Experiment) WriteFaultLogs(dir string) error {
	for _, p := range e.faultLogs {
		data := e.faultContent[p]
		out := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if err := atomicfile.WriteBytes(out, data); err != nil {
			return err
		}
	}
	return nil
}

// Extensions are what the experiment was resolved against.
func (e *Experiment) Extensions() *extensions.Extensions { return e.ext }

// MetricSet is the run-level metrics of the binary that parsed the spec
// (its extensions' set; the built-ins without extensions): a sweep's
// tables, summary and report of exp use it unless given one.
func (e *Experiment) MetricSet() outputs.Metrics { return e.ext.MetricSet() }

// Skipped lists, one line each, what a stored experiment names that this
// binary does not know and the read-only commands therefore skip or show
// from the stored results only: policies and autoscalers (their options
// unresolved),
// figure kinds and plots of metrics it lacks (not drawn) and ratios of
// metrics it lacks (not computed). Empty for a spec parsed to be run.
func (e *Experiment) Skipped() []string { return e.skipped }

// UnknownMetric returns a metric p names (its own or a group's) that
// this binary does not know (not in MetricSet), "" when it knows them
// all: a stored spec's plot of such a metric is not drawn.
func (e *Experiment) UnknownMetric(p *PlotSpec) string {
	names := []string{p.Metric}
	for _, g := range p.Groups {
		names = append(names, g.Metric)
	}
	for _, m := range names {
		if m != "" && !results.KnownMetric(e.MetricSet(), m) {
			return m
		}
	}
	return ""
}

func (e *Experiment) skip(msg string) {
	for _, m := range e.skipped {
		if m == msg {
			return
		}
	}
	e.skipped = append(e.skipped, msg)
}

// ParseStoredExperiment reads a sweep's stored experiment.json as
// ParseExperiment does, except that a cell's policy and autoscaler need
// not be registered in this binary: such a cell keeps its options as the
// spec gives them,
// merged but not resolved against defaults (Cell.OptionsResolved is
// false), so that report, plot, merge and regress can read a sweep made by
// a binary with a policy of its own. A plot of a figure kind the binary
// does not know is kept unchecked (the figures skip it). Skipped lists
// each.
func ParseStoredExperiment(data []byte, name string, ext *extensions.Extensions) (*Experiment, error) {
	return parseExperiment(data, name, true, os.DirFS(filepath.Dir(name)), ext)
}

func parseExperiment(data []byte, name string, stored bool, files fs.FS, ext *extensions.Extensions) (*Experiment, error) {
	e := Experiment{stored: stored, ext: ext, files: files}
	data = strictjson.TrimBOM(data)
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("experiment %s: empty file, expected a JSON object", name)
	}
	// Keys are exact and unique ("Cells" and a second "cells" passed).
	if err := strictjson.CheckKeys(data, reflect.TypeOf(&e)); err != nil {
		return nil, fmt.Errorf("experiment %s: %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("experiment %s: %w", name, strictjson.Explain(data, err))
	}
	e.stored, e.ext, e.files = stored, ext, files
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("experiment %s: unexpected data after the JSON object", name)
	}
	if err := checkExplicit(data, &e); err != nil {
		return nil, fmt.Errorf("experiment %s: %w", name, err)
	}
	if e.Grid != nil {
		if err := e.Grid.expand(&e); err != nil {
			return nil, fmt.Errorf("experiment %s: %w", name, err)
		}
		e.Grid = nil
	}
	if err := e.resolve(); err != nil {
		return nil, fmt.Errorf("experiment %s: %w", name, err)
	}
	return &e, nil
}

// checkExplicit refuses a count, job count or load written as 0 (or
// less): left out, each has a default; written, it must be positive.
func checkExplicit(data []byte, e *Experiment) error {
	type counts struct {
		Count *int     `json:"count"`
		Jobs  *int     `json:"jobs"`
		Load  *float64 `json:"load"`
	}
	var raw struct {
		Workloads struct {
			counts
			Sets []counts `json:"sets"`
		} `json:"workloads"`
		Cells []struct {
			Workload *counts `json:"workload"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	check := func(c counts) error {
		switch {
		case c.Count != nil && *c.Count < 1:
			return fmt.Errorf("count must be at least 1, got %d", *c.Count)
		case c.Jobs != nil && *c.Jobs < 1:
			return fmt.Errorf("jobs must be at least 1, got %d", *c.Jobs)
		case c.Load != nil && !(*c.Load > 0):
			return fmt.Errorf("load must be positive, got %v", *c.Load)
		}
		return nil
	}
	if err := check(raw.Workloads.counts); err != nil {
		return fmt.Errorf("workloads: %w", err)
	}
	for i, s := range raw.Workloads.Sets {
		if err := check(counts{Count: s.Count, Jobs: s.Jobs}); err != nil && i < len(e.Workloads.Sets) {
			return fmt.Errorf("workloads: set %q: %w", e.Workloads.Sets[i].Name, err)
		}
	}
	for i, c := range raw.Cells {
		if c.Workload == nil || i >= len(e.Cells) {
			continue
		}
		if err := check(*c.Workload); err != nil {
			return fmt.Errorf("cell %q: workload: %w", e.Cells[i].Name, err)
		}
	}
	return nil
}

func (e *Experiment) resolve() error {
	if err := checkName(e.Name); err != nil {
		return err
	}
	switch {
	case e.Version < 1:
		return fmt.Errorf("version must be at least 1, got %d", e.Version)
	case len(e.Cells) == 0:
		return errors.New("no cells")
	}
	ws := &e.Workloads
	if ws.Count == 0 {
		ws.Count = 8
	}
	if ws.Jobs == 0 {
		ws.Jobs = ReferenceJobs
	}
	if ws.Load == 0 {
		ws.Load = 1
	}
	if ws.Config == "" {
		ws.Config = traces.ConfigTuned
	}
	if err := checkSetSize(ws.Count, ws.Jobs); err != nil {
		return fmt.Errorf("workloads: %w", err)
	}
	if err := ws.resolveSets(e.ext, e.stored); err != nil {
		return fmt.Errorf("workloads: %w", err)
	}
	for _, set := range ws.Sets {
		if _, known := e.ext.SourceRegistry().Get(set.SourceName()); set.Source != "" && !known {
			e.skip(fmt.Sprintf("workload source %q (set %s): not in this binary; the set's runs are shown from their stored results", set.SourceName(), set.Name))
		}
	}
	seen := map[string]bool{}
	for i := range e.Cells {
		c := &e.Cells[i]
		if err := checkName(c.Name); err != nil {
			return fmt.Errorf("cell %d: %w", i+1, err)
		}
		if seen[c.Name] {
			return fmt.Errorf("cell %q appears twice", c.Name)
		}
		seen[c.Name] = true
		if err := c.resolve(e); err != nil {
			return fmt.Errorf("cell %q: %w", c.Name, err)
		}
		for src := range c.Reference {
			if _, ok := e.Sources[src]; !ok {
				return fmt.Errorf("cell %q: reference source %q is not described in \"sources\"", c.Name, src)
			}
		}
	}
	for name := range e.Options {
		if _, ok := e.ext.PolicyRegistry().Lookup(name); !ok && !e.stored {
			return fmt.Errorf("options: unknown policy %q (%s)", name, reg.Known(name, e.ext.PolicyRegistry().Names()))
		}
	}
	for _, r := range e.Ratios {
		if e.Cell(r.Num) == nil || e.Cell(r.Den) == nil {
			return fmt.Errorf("ratio %q: cells %q and %q must both exist", r.Name, r.Num, r.Den)
		}
		if !results.KnownMetric(e.MetricSet(), r.Metric) {
			if e.stored {
				e.skip(fmt.Sprintf("ratio %q: metric %q is not in this binary; not computed", r.Name, r.Metric))
				continue
			}
			return fmt.Errorf("ratio %q: unknown metric %q (known: %s)", r.Name, r.Metric, strings.Join(e.MetricSet().Names(), ", "))
		}
		if n, d := e.Cell(r.Num), e.Cell(r.Den); n.set != d.set {
			return fmt.Errorf("ratio %q: cells %q and %q run on different workload sets (%q, %q): their workloads do not pair", r.Name, r.Num, r.Den, n.set, d.set)
		} else if n.trace != d.trace || n.window != d.window {
			return fmt.Errorf("ratio %q: cells %q and %q sample different traces (%q, %q): their workloads do not pair", r.Name, r.Num, r.Den, n.traceRef(), d.traceRef())
		}
	}
	plotNames := map[string]bool{}
	for i := range e.Plots {
		if m := e.UnknownMetric(&e.Plots[i]); m != "" && e.stored {
			e.skip(fmt.Sprintf("plot %q: metric %q is not in this binary; not drawn", e.Plots[i].Name, m))
		} else if err := e.Plots[i].check(e); err != nil {
			return fmt.Errorf("plot %q: %w", e.Plots[i].Name, err)
		}
		// Plots are written to files named after them.
		if plotNames[e.Plots[i].Name] {
			return fmt.Errorf("plot %q: two plots have this name", e.Plots[i].Name)
		}
		plotNames[e.Plots[i].Name] = true
	}
	return nil
}

// ReferenceJobs is the job count of the reference's 1.0× load.
const ReferenceJobs = 160

func (c *Cell) resolve(e *Experiment) error {
	_, known := e.ext.PolicyRegistry().Lookup(c.Policy)
	unresolved := e.stored && !known
	if unresolved {
		e.skip(fmt.Sprintf("policy %q (cell %s): not in this binary; its runs are shown from their stored results, options as the spec gives them", c.Policy, c.Name))
	}
	s := runspec.DefaultSpec(c.Policy)
	nodesGiven := false
	for _, raw := range []json.RawMessage{e.Settings, c.Settings} {
		if len(raw) == 0 {
			continue
		}
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(raw, &probe); err != nil {
			return fmt.Errorf("settings: %w", strictjson.Explain(raw, err))
		}
		_, n := probe["nodes"]
		_, g := probe["gpus_per_node"]
		nodesGiven = nodesGiven || n || g
		if _, ok := probe["policy"]; ok {
			return errors.New(`settings: give the policy as the cell's "policy", not in settings`)
		}
		if _, ok := probe["options"]; ok {
			return errors.New(`settings: give policy options as the cell's "options", not in settings`)
		}
		if err := strictjson.CheckKeys(raw, reflect.TypeOf(&s)); err != nil {
			return fmt.Errorf("settings: %w", err)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return fmt.Errorf("settings: %w", strictjson.Explain(raw, err))
		}
	}
	s.Policy = c.Policy
	if s.Failures != "" && e.files != nil {
		s.FaultFiles = e.files
	}
	// The cell's fault log is read here, once: its runs, their identities
	// and the copy a sweep stores (WriteFaultLogs) all hold what was read.
	var err error
	if s, err = s.PinFaults(); err != nil {
		return err
	}
	if s.Autoscaler != "" && e.stored {
		if _, ok := e.ext.AutoscalerRegistry().Lookup(s.Autoscaler); !ok {
			e.skip(fmt.Sprintf("autoscaler %q (cell %s): not in this binary; its runs are shown from their stored results, options as the spec gives them", s.Autoscaler, c.Name))
			unresolved = true
		}
	}
	if s.Cluster != "" {
		// As with run --cluster: the pools give the nodes and node size.
		if nodesGiven {
			return errors.New("settings: cluster (node pools) replaces nodes and gpus_per_node; give one or the other")
		}
		cl, err := runspec.ParseCluster(s.Cluster)
		if err != nil {
			return err
		}
		s.SetCluster(cl)
	}
	if unresolved {
		opts, err := mergeOptions(e.Options[c.Policy], c.Options)
		if err != nil {
			return err
		}
		s.Options = opts
		if err := s.ValidateSettings(); err != nil {
			return err
		}
	} else {
		var layers []any
		for _, raw := range []json.RawMessage{e.Options[c.Policy], c.Options} {
			if len(raw) > 0 {
				layers = append(layers, raw)
			}
		}
		var err error
		if s, err = s.WithOptions(e.ext, layers...); err != nil {
			return err
		}
		if err := s.Validate(e.ext); err != nil {
			return err
		}
	}
	c.unresolved = unresolved
	if m, err := s.FaultModel(); err == nil && m != nil && m.File != "" {
		if prev, ok := e.faultContent[m.File]; !ok {
			if e.faultContent == nil {
				e.faultContent = map[string][]byte{}
			}
			e.faultContent[m.File] = m.Content()
			e.faultLogs = append(e.faultLogs, m.File)
			slices.Sort(e.faultLogs)
		} else if !bytes.Equal(prev, m.Content()) {
			return fmt.Errorf("settings: fault log %s changed while the spec was read (its cells would replay different logs)", m.File)
		}
	}
	if !unresolved {
		var err error
		if s, err = s.WithAutoscalerOptions(e.ext); err != nil {
			return err
		}
	}
	c.spec = s
	c.load, c.config, c.jobs, c.set, c.count = e.Workloads.Load, e.Workloads.Config, 0, "", e.Workloads.Count
	c.trace, c.window = "", ""
	if w := c.Workload; w != nil && w.Set != "" {
		return c.resolveSet(e)
	}
	if err := c.resolveTrace(e.ext); err != nil {
		return err
	}
	if w := c.Workload; w != nil {
		if w.Load != 0 {
			c.load = w.Load
		}
		if w.Config != "" {
			c.config = w.Config
		}
		if w.Jobs != 0 {
			c.jobs, c.fixedJobs = w.Jobs, true
		}
		if w.Uniform != nil {
			if w.Jobs == 0 || w.Uniform.App == "" || w.Uniform.GPUs < 0 || w.Uniform.Batch < 0 {
				return fmt.Errorf("workload: a uniform workload needs \"jobs\", an \"app\" and non-negative gpus and batch")
			}
			if w.Jobs > runspec.MaxUniformJobs {
				return fmt.Errorf("workload: a uniform workload has at most %d jobs, got %d", runspec.MaxUniformJobs, w.Jobs)
			}
			c.uniform = *w.Uniform
		}
	}
	if !(c.load > 0) || c.load > 100 {
		return fmt.Errorf("workload load %v must be in (0, 100]", c.load)
	}
	if c.config != traces.ConfigTuned && c.config != traces.ConfigRealistic {
		return fmt.Errorf("workload config %q must be %q or %q", c.config, traces.ConfigTuned, traces.ConfigRealistic)
	}
	if !c.fixedJobs {
		c.jobs = int(math.Round(c.load * float64(e.Workloads.Jobs)))
	}
	if c.jobs < 1 {
		return fmt.Errorf("workload has %d jobs", c.jobs)
	}
	return nil
}

// IsSpecFile says whether LoadExperiment takes name as the path of a spec
// file (it contains a path separator or ends in .json) rather than as an
// embedded experiment's name: "deadlines" is the experiment, whatever the
// working folder holds; ./deadlines or deadlines.json a file.
func IsSpecFile(name string) bool {
	return strings.ContainsRune(name, os.PathSeparator) || strings.HasSuffix(name, ".json")
}

// LoadExperiment returns the embedded experiment called name, or reads a
// spec file when name is a path to one (IsSpecFile), resolved against ext
// (see ParseExperiment).
func LoadExperiment(name string, ext *extensions.Extensions) (*Experiment, []byte, error) {
	if IsSpecFile(name) {
		data, err := inputfile.ReadFile(name)
		if err != nil {
			return nil, nil, fmt.Errorf("experiment: %w", err)
		}
		e, err := ParseExperimentIn(data, name, os.DirFS(filepath.Dir(name)), ext)
		return e, data, err
	}
	data, err := specFS.ReadFile("specs/" + name + ".json")
	if err != nil {
		return nil, nil, fmt.Errorf("unknown experiment %q (%s; or give a spec file path)", name, reg.Known(name, ExperimentNames()))
	}
	files, _ := fs.Sub(specFS, "specs") // a constant, valid path
	e, err := ParseExperimentIn(data, name, files, ext)
	return e, data, err
}

// GPUs is the GPUs of the experiment's first cell's cluster, every pool's
// (on node pools it was nodes × the largest node).
func (e *Experiment) GPUs() int {
	if len(e.Cells) == 0 {
		return 0
	}
	return e.Cells[0].spec.ClusterGPUs()
}

// mergeOptions merges option layers (JSON objects, later keys winning)
// without a policy's registration, as canonical JSON (sorted keys).
func mergeOptions(layers ...json.RawMessage) (policies.OptionSet, error) {
	m := map[string]json.RawMessage{}
	for _, raw := range layers {
		if len(raw) == 0 {
			continue
		}
		var layer map[string]json.RawMessage
		if err := json.Unmarshal(raw, &layer); err != nil {
			return "", fmt.Errorf("options: %w", strictjson.Explain(raw, err))
		}
		maps.Copy(m, layer)
	}
	b, err := json.Marshal(m) // map keys are sorted
	if err != nil {
		return "", err
	}
	return policies.OptionSet(b), nil
}
