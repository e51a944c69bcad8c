// Package testext builds, for the tests of the experiments packages, the
// built-in extensions from the packages below the figures (which tests
// of packages the figures import cannot import): the built-in policies,
// autoscalers, trace formats and workload sources, and the built-in sweep
// figure kinds as their spec checks only. It is for tests only.
package testext

import (
	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/workloads"
	"github.com/polluxsim/polluxsim/policies/builtin"
	"github.com/polluxsim/polluxsim/traces"
)

// checkKind is a built-in sweep kind as the spec format checks it.
type checkKind string

func (k checkKind) KindName() string { return string(k) }
func (checkKind) DrawsSweep() bool   { return true }
func (k checkKind) CheckPlot(p *experiments.PlotSpec, e *experiments.Experiment) error {
	return experiments.BuiltinPlotCheck(string(k))(p, e)
}

// CheckKinds are the built-in sweep kinds as their checks only.
func CheckKinds() []extensions.FigureKind {
	var out []extensions.FigureKind
	for _, k := range []string{experiments.PlotJCTCDF, experiments.PlotRhoCDF, experiments.PlotTimeline, experiments.PlotLines, experiments.PlotBars, experiments.PlotElastic} {
		out = append(out, checkKind(k))
	}
	return out
}

// Base is the built-in policies, autoscalers, trace formats and workload
// sources, without figure kinds, with more options applied.
func Base(opts ...extensions.Option) *extensions.Extensions {
	return extensions.Must(append([]extensions.Option{
		extensions.WithPolicy(builtin.Registrations()...),
		extensions.WithAutoscaler(autoscalers.Builtin()...),
		extensions.WithTraceFormat(traces.BuiltinTraceFormats()...),
		extensions.WithSource(workloads.Builtin()...),
	}, opts...)...)
}

// Ext is Base with the built-in sweep kinds' checks (CheckKinds).
func Ext(opts ...extensions.Option) *extensions.Extensions {
	return Base(append([]extensions.Option{extensions.WithKind(CheckKinds()...)}, opts...)...)
}
