// Package exptest holds what the tests of the experiments packages share:
// a small run written to a folder, and a tiny sweep (tiny.json: a few
// cells on a few small generated workloads) made once per test binary.
// It is for tests only.
package exptest

import (
	"context"
	_ "embed"
	"os"
	"sync"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/internal/testext"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/internal/digest"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
)

//go:embed tiny.json
var tinySpec []byte

// FigureKinds are the figure kinds Ext adds. Without them Ext has the
// built-in sweep kinds as checks only (testext.CheckKinds), enough to
// parse specs: a test package that draws figures, and so imports package
// figures, sets them (figures.Extension(figures.Builtin()...)) before its
// tests run. exptest cannot import figures, whose tests import exptest.
var FigureKinds []extensions.FigureKind

// Ext are the built-in extensions for tests (testext.Base) with
// FigureKinds (see there), with more options applied.
func Ext(opts ...extensions.Option) *extensions.Extensions {
	kinds := FigureKinds
	if kinds == nil {
		kinds = testext.CheckKinds()
	}
	return testext.Base(append([]extensions.Option{extensions.WithKind(kinds...)}, opts...)...)
}

// Tiny returns the tiny experiment and its spec file's content.
func Tiny(tb testing.TB) (*experiments.Experiment, []byte) {
	tb.Helper()
	e, err := experiments.ParseExperiment(tinySpec, "tiny.json", Ext())
	if err != nil {
		tb.Fatal(err)
	}
	return e, tinySpec
}

// TinyOptions are the tiny sweep's options writing to out: the compact
// profiles, two runs at a time, no timing.
func TinyOptions(tb testing.TB, out string) sweep.SweepOptions {
	return sweep.SweepOptions{Profiles: profiles.Compact(), ProfilesID: "compact", Out: out, Parallel: 2,
		NoTiming: true, Version: "test", Spec: tinySpec}
}

// The unsharded tiny sweep, made once and shared by the tests that only
// read it.
var (
	tinyOnce sync.Once
	tinyDir  string
	tinyErr  error
)

// TinyFull returns the folder of the whole tiny sweep, with the jobs'
// rounds kept, made on first use; tests must only read it.
func TinyFull(tb testing.TB) string {
	tb.Helper()
	tinyOnce.Do(func() {
		tinyDir, tinyErr = os.MkdirTemp("", "polluxsim-tiny-")
		if tinyErr != nil {
			return
		}
		e, _ := Tiny(tb)
		opt := TinyOptions(tb, tinyDir)
		opt.JobRounds = true
		_, tinyErr = sweep.Sweep(context.Background(), e, opt)
	})
	if tinyErr != nil {
		tb.Fatal(tinyErr)
	}
	return tinyDir
}

// RunWithOptions simulates a small generated workload (24 jobs on 4 × 4
// GPUs, the last four arriving after a gap with no active job) under
// policy with the options opts ("key=value,..." or "") and writes its
// outputs to dir.
func RunWithOptions(tb testing.TB, policy, opts string, dir string) *sim.Result {
	tb.Helper()
	tb.Helper()
	set := profiles.Compact()
	w, err := runspec.GenerateWorkload(nil, set, 24, 3, "tuned", 4)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range w.Jobs {
		w.Jobs[i].Replicas = min(w.Jobs[i].Replicas, 16)
		// A gap with no active job: the last jobs arrive late.
		if i >= 20 {
			w.Jobs[i].Time += 40000
		}
	}
	spec := runspec.DefaultSpec(policy)
	spec.Nodes = 4
	var layers []any
	if opts != "" {
		layers = append(layers, []string{opts})
	}
	if spec, err = spec.WithOptions(Ext(), layers...); err != nil {
		tb.Fatal(err)
	}
	p, err := Ext().Policies.Build(spec.Policy, spec.Options, spec.Env(1))
	if err != nil {
		tb.Fatal(err)
	}
	res, err := sim.Run(spec.SimConfig(), set, w, p)
	if err != nil {
		tb.Fatal(err)
	}
	meta := outputs.RunMeta{Version: "test", Seed: spec.Seed, InputsHash: digest.Parts([]byte("x")), Workload: w.Source}
	if err := outputs.WriteRun(dir, res, spec, meta, outputs.OutputOptions{}); err != nil {
		tb.Fatal(err)
	}
	return res
}

// Main runs a package's tests and then removes the tiny sweep's folder if
// a test made it: call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if tinyDir != "" {
		os.RemoveAll(tinyDir)
	}
	os.Exit(code)
}
