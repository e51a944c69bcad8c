package experiments

import (
	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/workloads"
	"github.com/polluxsim/polluxsim/policies/builtin"
	"github.com/polluxsim/polluxsim/traces"
)

// checkKind is a built-in sweep kind as the spec format checks it (the
// figures, which draw them, import this package).
type checkKind string

func (k checkKind) KindName() string { return string(k) }
func (checkKind) DrawsSweep() bool   { return true }
func (k checkKind) CheckPlot(p *PlotSpec, e *Experiment) error {
	return BuiltinPlotCheck(string(k))(p, e)
}

// figureKind is a built-in sweep kind of package figures with a check of
// its own (failure-rate), which figures tests: here it accepts any plot.
type figureKind string

func (k figureKind) KindName() string                     { return string(k) }
func (figureKind) DrawsSweep() bool                       { return true }
func (figureKind) CheckPlot(*PlotSpec, *Experiment) error { return nil }

// testExt are the built-ins these tests know, with more options applied.
func testExt(opts ...extensions.Option) *extensions.Extensions {
	var kinds []extensions.FigureKind
	for _, k := range []string{PlotJCTCDF, PlotRhoCDF, PlotTimeline, PlotLines, PlotBars, PlotElastic} {
		kinds = append(kinds, checkKind(k))
	}
	kinds = append(kinds, figureKind("failure-rate"))
	return extensions.Must(append([]extensions.Option{
		extensions.WithPolicy(builtin.Registrations()...),
		extensions.WithAutoscaler(autoscalers.Builtin()...),
		extensions.WithTraceFormat(traces.BuiltinTraceFormats()...),
		extensions.WithSource(workloads.Builtin()...),
		extensions.WithKind(kinds...),
	}, opts...)...)
}
