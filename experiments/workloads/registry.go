package workloads

import (
	"fmt"
	"strings"

	reg "github.com/polluxsim/polluxsim/internal/registry"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// Env is what a source may use to make a workload: the profiles (the
// applications, their batch limits and tuned configurations) and the
// cluster's GPUs per node (tuned configurations depend on it).
type Env struct {
	Profiles    *profiles.Set
	GPUsPerNode int
}

// Source is a registered kind of workload reference, "NAME:ARG".
type Source struct {
	// Name is the part before the colon: lower-case letters, digits, '-'.
	Name string
	// Usage shows the reference, e.g. "paper:N (N = 1..8)".
	Usage string
	// Doc is a one-line description, with where the data comes from.
	Doc string
	// Resolve makes the workload ARG describes, with warnings about it
	// (ignored columns, say). Errors name the reference's file and line
	// where there is one.
	Resolve func(arg string, env Env) (*traces.Workload, []string, error)
}

// Registry is a registry of workload sources. Default holds the built-in
// ones; a program or test may build its own with NewRegistry.
type Registry struct{ r *reg.Registry[Source] }

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{r: reg.New[Source]("workload source")} }

// Register adds a source; a malformed registration or a taken name is an
// error.
func (r *Registry) Register(s Source) error {
	if !reg.CheckName(s.Name) {
		return fmt.Errorf("workload source name %q: want lower-case letters, digits and '-'", s.Name)
	}
	if s.Resolve == nil {
		return fmt.Errorf("workload source %q has no Resolve", s.Name)
	}
	return r.r.Add(s.Name, s)
}

// Sources lists the registered sources by name.
func (r *Registry) Sources() []Source {
	var out []Source
	for _, n := range r.r.Names() {
		s, _ := r.r.Lookup(n)
		out = append(out, s)
	}
	return out
}

// Lookup returns the source a reference names, with its argument: the
// registered source NAME of "NAME:ARG"; the trace source for a trace name
// (any registered trace format, replayed whole); else the csv source with
// the whole reference as a file (so "./paper:1" is a file).
func (r *Registry) Lookup(ref string) (Source, string) {
	if name, arg, ok := strings.Cut(ref, ":"); ok && reg.CheckName(name) {
		if s, found := r.r.Lookup(name); found {
			return s, arg
		}
		if traces.IsTraceName(ref) {
			if s, found := r.r.Lookup(TraceSource); found {
				return s, ref
			}
		}
	}
	s, _ := r.r.Lookup(CSVSource)
	return s, ref
}

// Resolve makes the workload ref names.
func (r *Registry) Resolve(ref string, env Env) (*traces.Workload, []string, error) {
	if strings.TrimSpace(ref) == "" {
		return nil, nil, fmt.Errorf("--workload: empty reference")
	}
	s, arg := r.Lookup(ref)
	if s.Resolve == nil {
		return nil, nil, fmt.Errorf("--workload %s: no workload source reads it (known: %s)", ref, strings.Join(r.r.Names(), ", "))
	}
	return s.Resolve(arg, env)
}

// Names of the built-in sources the lookup falls back on.
const (
	CSVSource   = "csv"
	TraceSource = "trace"
)

var defaultRegistry = NewRegistry()

// Default is the registry the command line and runner use.
func Default() *Registry { return defaultRegistry }

// Register adds a source to Default; it panics on a malformed or duplicate
// registration (a programming error, found at init).
func Register(s Source) {
	if err := defaultRegistry.Register(s); err != nil {
		panic(err)
	}
}

// Resolve makes the workload ref names through Default.
func Resolve(ref string, env Env) (*traces.Workload, []string, error) {
	return defaultRegistry.Resolve(ref, env)
}
