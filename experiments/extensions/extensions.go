// Package extensions is the one value that says what a polluxsim binary
// or library user knows: its policies, autoscalers, trace formats,
// workload sources, figure kinds, run-level metrics and output tables of
// its own. It is built by the binary (app.New(app.WithPolicy(...), ...))
// or by a library user (New(WithPolicy(...), ...)) and passed down: to
// the run pipeline (runner.Options.Ext), sweeps (sweep.SweepOptions.Ext),
// spec parsing (experiments.ParseExperiment) and the figures and report.
// Nothing here is a global and nothing registers at init: the built-ins
// are one value merged in (experiments/intree.Extensions), as the
// Kubernetes scheduler merges its NewInTreeRegistry with a binary's
// WithPlugin, and a binary may leave them out.
package extensions

import (
	"fmt"

	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/workloads"
	reg "github.com/polluxsim/polluxsim/internal/registry"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// FigureKind is a figure kind as this package holds it: package figures'
// Kind is one (figures.Kind implements it and is what the figures and the
// report draw; the spec format checks a sweep kind through its
// CheckPlot). Kinds are held by this interface, not figures.Kind, because
// figures sits above the pipeline that carries the extensions.
type FigureKind interface {
	// KindName is the kind's name (a spec's plot "kind").
	KindName() string
}

// Extensions is what a binary knows. Its registries are never nil in a
// value made by New; the zero value knows nothing.
type Extensions struct {
	Policies     *policies.Registry
	Autoscalers  *autoscalers.Registry
	TraceFormats *traces.TraceFormats
	Sources      *workloads.Registry
	Kinds        *Kinds
	// Metrics is the binary's run-level metrics: the built-ins (the zero
	// outputs.Metrics is that set) and those WithMetric adds. A run's
	// summary.json, a sweep's results.parquet and summary.json, merge,
	// the report, regress, the figures and the spec format's metric names
	// read it (MetricSet) where no set is given explicitly.
	Metrics outputs.Metrics
	// Tables are the binary's output tables of its own
	// (outputs.NewRunTable): every run and sweep writes them beside the
	// built-in tables and export converts them.
	Tables []outputs.RunTable
}

// Kinds is a registry of figure kinds by name.
type Kinds struct{ r *reg.Registry[FigureKind] }

// Register adds a kind; a name taken is an error.
func (k *Kinds) Register(f FigureKind) error {
	if !reg.CheckName(kindName(f.KindName())) {
		return fmt.Errorf("figure kind %q: want lower-case letters, digits, '-' and '_'", f.KindName())
	}
	return k.r.Add(f.KindName(), f)
}

// kindName maps '_' (allowed in kind names, e.g. jct_cdf) to '-'.
func kindName(n string) string {
	b := []byte(n)
	for i, c := range b {
		if c == '_' {
			b[i] = '-'
		}
	}
	return string(b)
}

// Lookup returns the kind called name.
func (k *Kinds) Lookup(name string) (FigureKind, bool) {
	if k == nil {
		return nil, false
	}
	return k.r.Lookup(name)
}

// Names lists the kinds by name.
func (k *Kinds) Names() []string {
	if k == nil {
		return nil
	}
	return k.r.Names()
}

// All lists the kinds by name.
func (k *Kinds) All() []FigureKind {
	var out []FigureKind
	for _, n := range k.Names() {
		f, _ := k.Lookup(n)
		out = append(out, f)
	}
	return out
}

// Option adds to the extensions New builds.
type Option func(*Extensions) error

// New returns the extensions the options give, starting from none.
func New(opts ...Option) (*Extensions, error) {
	e := &Extensions{
		Policies:     policies.MustRegistry(),
		Autoscalers:  autoscalers.MustRegistry(),
		TraceFormats: traces.NewTraceFormats(),
		Sources:      workloads.MustRegistry(),
		Kinds:        &Kinds{r: reg.New[FigureKind]("figure kind")},
	}
	for _, o := range opts {
		if err := o(e); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Must is New that panics on an error (a programming error: a malformed
// registration or a name given twice).
func Must(opts ...Option) *Extensions {
	e, err := New(opts...)
	if err != nil {
		panic("extensions: " + err.Error())
	}
	return e
}

// WithPolicy adds policies.
func WithPolicy(rs ...policies.Registration) Option {
	return func(e *Extensions) error {
		for _, r := range rs {
			if err := e.Policies.Register(r); err != nil {
				return err
			}
		}
		return nil
	}
}

// WithAutoscaler adds autoscalers.
func WithAutoscaler(rs ...autoscalers.Registration) Option {
	return func(e *Extensions) error {
		for _, r := range rs {
			if err := e.Autoscalers.Register(r); err != nil {
				return err
			}
		}
		return nil
	}
}

// WithTraceFormat adds trace formats.
func WithTraceFormat(fs ...traces.TraceFormat) Option {
	return func(e *Extensions) error {
		for _, f := range fs {
			if err := e.TraceFormats.Register(f); err != nil {
				return err
			}
		}
		return nil
	}
}

// WithSource adds workload sources.
func WithSource(ss ...workloads.Source) Option {
	return func(e *Extensions) error {
		for _, s := range ss {
			if err := e.Sources.Register(s); err != nil {
				return err
			}
		}
		return nil
	}
}

// WithKind adds figure kinds (figures.Kind values).
func WithKind(ks ...FigureKind) Option {
	return func(e *Extensions) error {
		for _, k := range ks {
			if err := e.Kinds.Register(k); err != nil {
				return err
			}
		}
		return nil
	}
}

// WithMetric adds run-level metrics to the set (built-ins included); a
// name already known, or a metric without a name or a Value, is an error.
func WithMetric(ms ...outputs.Metric) Option {
	return func(e *Extensions) error {
		add, err := outputs.NewMetrics(ms...)
		if err != nil {
			return err
		}
		set, err := e.Metrics.Merge(add)
		if err != nil {
			return err
		}
		e.Metrics = set // unchanged on an error
		return nil
	}
}

// WithTable adds output tables of one's own; a file name polluxsim or
// another table writes is an error (outputs.CheckFile).
func WithTable(ts ...outputs.RunTable) Option {
	return func(e *Extensions) error {
		for _, t := range ts {
			f := t.Schema().File
			if err := outputs.CheckFile(f); err != nil {
				return err
			}
			for _, o := range e.Tables {
				if o.Schema().File == f {
					return fmt.Errorf("table %q added twice", f)
				}
			}
			e.Tables = append(e.Tables, t)
		}
		return nil
	}
}

// TableDocs documents the binary's tables of its own.
func (e *Extensions) TableDocs() []outputs.TableDoc {
	docs := make([]outputs.TableDoc, len(e.Tables))
	for i, t := range e.Tables {
		docs[i] = t.Schema()
	}
	return docs
}

// WithExtensions merges another value in (the built-ins, say).
func WithExtensions(o *Extensions) Option { return func(e *Extensions) error { return e.Merge(o) } }

// Merge adds everything o knows to e; a name both know is an error.
func (e *Extensions) Merge(o *Extensions) error {
	if o == nil {
		return nil
	}
	opts := []Option{WithKind(o.Kinds.All()...), WithMetric(ownMetrics(o.Metrics)...), WithTable(o.Tables...)}
	if o.Policies != nil {
		opts = append(opts, WithPolicy(o.Policies.Registrations()...))
	}
	if o.Autoscalers != nil {
		opts = append(opts, WithAutoscaler(o.Autoscalers.Registrations()...))
	}
	if o.TraceFormats != nil {
		opts = append(opts, WithTraceFormat(o.TraceFormats.Formats()...))
	}
	if o.Sources != nil {
		opts = append(opts, WithSource(o.Sources.Sources()...))
	}
	for _, opt := range opts {
		if err := opt(e); err != nil {
			return err
		}
	}
	return nil
}

// ownMetrics are the metrics of ms that are not built-ins (every set
// holds those, so Merge adds only the others).
func ownMetrics(ms outputs.Metrics) []outputs.Metric {
	var out []outputs.Metric
	for _, m := range ms.All() {
		if _, builtin := outputs.LookupMetric(m.Name); !builtin {
			out = append(out, m)
		}
	}
	return out
}

// MetricSet is the run-level metrics (the built-ins for nil).
func (e *Extensions) MetricSet() outputs.Metrics {
	if e == nil {
		return outputs.Metrics{}
	}
	return e.Metrics
}

// PolicyRegistry is the policies (runspec.Registries).
func (e *Extensions) PolicyRegistry() *policies.Registry {
	if e == nil || e.Policies == nil {
		return policies.MustRegistry()
	}
	return e.Policies
}

// AutoscalerRegistry is the autoscalers (runspec.Registries).
func (e *Extensions) AutoscalerRegistry() *autoscalers.Registry {
	if e == nil || e.Autoscalers == nil {
		return autoscalers.MustRegistry()
	}
	return e.Autoscalers
}

// SourceRegistry is the workload sources.
func (e *Extensions) SourceRegistry() *workloads.Registry {
	if e == nil || e.Sources == nil {
		return workloads.MustRegistry()
	}
	return e.Sources
}

// Traces is the trace formats.
func (e *Extensions) Traces() *traces.TraceFormats {
	if e == nil || e.TraceFormats == nil {
		return traces.NewTraceFormats()
	}
	return e.TraceFormats
}

// WorkloadEnv is the environment of a workload source: the profiles, the
// cluster's GPUs per node and these trace formats.
func (e *Extensions) WorkloadEnv(set *profiles.Set, gpusPerNode int) workloads.Env {
	return workloads.Env{Profiles: set, GPUsPerNode: gpusPerNode, Traces: e.Traces()}
}

// ResolveWorkload makes the workload ref names with these sources.
func (e *Extensions) ResolveWorkload(ref string, env workloads.Env) (*traces.Workload, []string, error) {
	if env.Traces == nil {
		env.Traces = e.Traces()
	}
	return e.SourceRegistry().Resolve(ref, env)
}

// FigureKinds is the figure kinds (never nil).
func (e *Extensions) FigureKinds() *Kinds {
	if e == nil || e.Kinds == nil {
		return &Kinds{r: reg.New[FigureKind]("figure kind")}
	}
	return e.Kinds
}
