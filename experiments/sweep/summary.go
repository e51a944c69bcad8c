package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/fserr"
	"github.com/polluxsim/polluxsim/internal/inputfile"
)

// SweepSummary is the content of a sweep's summary.json: per cell, every
// metric's mean and 95 % confidence interval over the workloads, with the
// published reference numbers beside; and the paired ratios between cells
// the experiment asks for.
type SweepSummary struct {
	Experiment  string            `json:"experiment"`
	Version     int               `json:"version"`
	Description string            `json:"description"`
	Paper       string            `json:"paper,omitempty"`
	Sources     map[string]string `json:"sources,omitempty"`
	// Runs is the number of runs present, of ExpectedRuns; Missing lists
	// the others (e.g. those of other shards).
	Runs         int            `json:"runs"`
	ExpectedRuns int            `json:"expected_runs"`
	Missing      []string       `json:"missing,omitempty"`
	Cells        []CellSummary  `json:"cells"`
	Ratios       []RatioSummary `json:"ratios,omitempty"`
}

// CellSummary is one cell of a SweepSummary.
type CellSummary struct {
	Cell      string                        `json:"cell"`
	Label     string                        `json:"label"`
	Policy    string                        `json:"policy"`
	Load      float64                       `json:"load"`
	Config    string                        `json:"config"`
	Jobs      int                           `json:"jobs"`
	Settings  runspec.RunSpec               `json:"settings"`
	Metrics   map[string]results.Stat       `json:"metrics"`
	Reference map[string]map[string]float64 `json:"reference,omitempty"`
}

// RatioSummary is one paired ratio of a SweepSummary.
type RatioSummary struct {
	Name      string             `json:"name"`
	Num       string             `json:"num"`
	Den       string             `json:"den"`
	Metric    string             `json:"metric"`
	Stat      results.Stat       `json:"ratio"`
	Reference map[string]float64 `json:"reference,omitempty"`
}

// metricsOr is ms, or exp's set (the metrics of the binary that parsed
// it, experiments.Experiment.MetricSet) when ms is the zero set.
func metricsOr(ms outputs.Metrics, exp *experiments.Experiment) outputs.Metrics {
	if ms.IsZero() && exp != nil {
		return exp.MetricSet()
	}
	return ms
}

// Summarize computes the summary of the runs of exp (missing lists the
// runs absent) over the metrics ms (the zero Metrics: exp's): each column metric of ms aggregated over each cell's workloads as
// it declares (Metric.Aggregate), with the per-application and per-type
// ones.
func Summarize(ms outputs.Metrics, exp *experiments.Experiment, runs []*results.RunResult, missing []string) *SweepSummary {
	ms = metricsOr(ms, exp)
	s := &SweepSummary{
		Experiment: exp.Name, Version: exp.Version, Description: exp.Description, Paper: exp.Paper,
		Sources: exp.Sources, Runs: len(runs), ExpectedRuns: len(exp.Runs()), Missing: missing,
	}
	byCell := map[string][]*results.RunResult{}
	for _, r := range runs {
		byCell[r.Cell] = append(byCell[r.Cell], r)
	}
	names := results.MetricNamesOf(ms, runs)
	for i := range exp.Cells {
		c := &exp.Cells[i]
		cs := CellSummary{Cell: c.Name, Label: c.Title(), Policy: c.Spec().Policy, Load: c.Load(), Config: c.Config(),
			Jobs: c.Jobs(), Settings: c.Spec(), Metrics: map[string]results.Stat{}, Reference: c.Reference}
		for _, m := range names {
			ws, vs := CellValuesIn(ms, byCell[c.Name], m)
			if len(vs) > 0 {
				st := results.Describe(ws, vs)
				if d, ok := ms.Lookup(m); ok && d.Aggregate != outputs.Mean {
					v := d.Aggregate.Of(vs)
					st.Aggregate, st.Value = d.Aggregate.String(), &v
				}
				cs.Metrics[m] = st
			}
		}
		s.Cells = append(s.Cells, cs)
	}
	for _, r := range exp.Ratios {
		nw, nv := CellValuesIn(ms, byCell[r.Num], r.Metric)
		dw, dv := CellValuesIn(ms, byCell[r.Den], r.Metric)
		s.Ratios = append(s.Ratios, RatioSummary{Name: r.Name, Num: r.Num, Den: r.Den, Metric: r.Metric,
			Stat: results.PairedRatio(nw, nv, dw, dv), Reference: r.Reference})
	}
	return s
}

// CellValues returns a built-in metric of a cell's runs, per workload.
func CellValues(runs []*results.RunResult, metric string) (workloads []int, values []float64) {
	return CellValuesIn(outputs.Metrics{}, runs, metric)
}

// CellValuesIn returns a metric of ms of a cell's runs, per workload.
func CellValuesIn(ms outputs.Metrics, runs []*results.RunResult, metric string) (workloads []int, values []float64) {
	for _, r := range runs {
		if v, ok := r.Metric(ms, metric); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			workloads = append(workloads, r.Workload)
			values = append(values, v)
		}
	}
	return workloads, values
}

// Cell returns the summary of the cell called name, or nil.
func (s *SweepSummary) Cell(name string) *CellSummary {
	for i := range s.Cells {
		if s.Cells[i].Cell == name {
			return &s.Cells[i]
		}
	}
	return nil
}

// ReadSweepSummary reads a summary.json.
func ReadSweepSummary(path string) (*SweepSummary, error) {
	data, err := inputfile.ReadFileLimit(path, inputfile.MaxStoredSize)
	if err != nil {
		return nil, err
	}
	var s SweepSummary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// OpenSweep reads a sweep's output folder: its experiment (from
// experiment.json, resolved against ext as a stored experiment: what ext
// lacks is listed by its Skipped) and its stored runs.
func OpenSweep(dir string, ext *extensions.Extensions) (*experiments.Experiment, []*results.RunResult, []string, error) {
	exp, err := openExperiment(dir, ext)
	if err != nil {
		return nil, nil, nil, err
	}
	runs, missing, err := LoadRuns(dir, exp)
	if err != nil {
		return nil, nil, nil, err
	}
	return exp, runs, missing, nil
}

// openExperiment reads the experiment of a sweep's output folder (its
// experiment.json), resolved against ext as a stored experiment.
func openExperiment(dir string, ext *extensions.Extensions) (*experiments.Experiment, error) {
	data, err := inputfile.ReadFile(filepath.Join(dir, ExperimentFile))
	if err != nil {
		return nil, fmt.Errorf("%s is not a sweep's output folder: %w", dir, fserr.Cause(err))
	}
	return experiments.ParseStoredExperiment(data, filepath.Join(dir, ExperimentFile), ext)
}
