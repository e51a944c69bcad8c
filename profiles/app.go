// Package profiles holds the per-application ground truth of the
// simulator: measured step and synchronisation times per placement and
// per-GPU batch size, gradient statistics along training, epoch boundaries
// and the progress target, and the applications' batch-size limits.
//
// Profiles come either from a folder in the reference (adaptdl) format,
// read unchanged (see Load), or from the compact model embedded in the
// binary (see Default).
package profiles

import (
	"fmt"
	"sort"
	"strings"

	"github.com/polluxsim/polluxsim/models"
)

// Truth is what the simulator knows about an application and a scheduler
// must not: the real costs and training curve.
type Truth interface {
	// Step returns the time of one synchronous SGD step without gradient
	// accumulation and the part of it spent synchronising gradients, for a
	// placement (GPUs used on each node; order and zero entries do not
	// matter) at per-GPU batch size local. A step with s accumulation
	// micro-steps costs step + s·(step − sync).
	Step(placement []int, local float64) (step, sync float64)
	// Grad returns the gradient statistics during epoch (0-based) when
	// training at total batch size batch.
	Grad(batch float64, epoch int) models.GradStats
	// Progress returns the scale-invariant progress (iterations at the
	// initial batch size) at the end of epoch e, for e ≥ 1; Progress(0) is 0.
	Progress(epoch int) float64
	// Iterations returns the cumulative optimizer steps taken at total batch
	// batch by the end of epoch e+1 (row e of the validation curve, 0-based).
	// Below the initial batch size, which no run measured, it is the steps
	// the simulator takes there (each epoch's progress over the gain it
	// credits a step with). It is the oracle Optimus+Oracle uses for
	// remaining work, and policies.Job.RunTimeAlone's step count.
	Iterations(batch float64, epoch int) float64
}

// AdaScale names the learning-rate scaling rule the simulator models:
// progress per step is AdaScale's gain (see models.GradStats.Gain). It is
// the only value the lr_scaler key of compact profiles accepts.
const AdaScale = "adascale"

// App is one application: its limits, training length and ground truth.
type App struct {
	// Name is the application's name as used in workloads (e.g. "cifar10").
	Name string
	// Limits are the initial batch size M0, the largest total batch size
	// and the per-GPU batch range.
	Limits models.Limits
	// Epochs is the number of epochs a job trains for; the job is done when
	// its progress reaches Truth.Progress(Epochs).
	Epochs int
	// FixedBatch, when positive, pins the job's total batch size under
	// adaptive policies (the reference does this for NeuMF: 32768).
	FixedBatch int
	// MaxGPUs, when positive, caps the GPUs a job may use under adaptive
	// policies (the reference pins NeuMF to one GPU).
	MaxGPUs int
	// MinGPUs, when positive, is the fewest GPUs a job fits in: on fewer
	// its memory refuses every configuration (the llm set; 0 elsewhere).
	// The simulator gives such a job no GPU or at least this many.
	MinGPUs int
	// NodeGPUs, when positive, is the GPUs a node of this application's
	// GPU type holds: the node its step times and memory floor model (an
	// LLM type's NVLink domain of 8; 0 elsewhere). A cluster whose nodes
	// of the type hold another number is refused before the run (on
	// thinner nodes a model may not fit at its floor: tensor groups stay
	// inside a node).
	NodeGPUs int
	// ValidatedBatches are the total batch sizes with a measured training
	// curve, ascending.
	ValidatedBatches []int
	// Tuned, when set, are precomputed TunedJobs candidates for 4-GPU
	// nodes (see TunedConfigs); compact models carry them.
	Tuned []TunedConfig
	// Truth gives the real costs and training curve.
	Truth Truth
	// Type is the GPU type of Truth's tables: "" for the unsuffixed
	// reference tables (T4), else a canonical type name (see CanonicalType).
	Type string
	// ByType, for data in the Sia artifact's layout, holds the application
	// on each GPU type it has tables for (placements-<type>.csv), keyed by
	// canonical type name; they share the training curve. See ForType.
	ByType map[string]*App
}

// Target is the progress at which a job of this application is complete.
func (a *App) Target() float64 { return a.Truth.Progress(a.Epochs) }

// Set is a collection of applications by name.
type Set struct {
	// Source says where the profiles came from (a folder, or "embedded").
	Source string
	// Digest identifies the content the set was read from: for a folder,
	// the digest (internal/digest.Files) of every file its reader read,
	// by path relative to the folder, following symbolic links; for a
	// compact profile file, of that file; for a built-in set, its name
	// (the binary's version identifies its content). "" for a set built
	// in code.
	Digest string
	Apps   map[string]*App
}

// App returns the application called name, or an error listing the known
// ones.
func (s *Set) App(name string) (*App, error) {
	if a, ok := s.Apps[name]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("unknown application %q in profiles %s (have %s)", name, s.Source, strings.Join(s.Names(), ", "))
}

// Names returns the applications' names in sorted order.
func (s *Set) Names() []string {
	names := make([]string, 0, len(s.Apps))
	for n := range s.Apps {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
