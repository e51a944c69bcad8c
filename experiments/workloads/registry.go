package workloads

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	reg "github.com/polluxsim/polluxsim/internal/registry"
	"github.com/polluxsim/polluxsim/internal/strictjson"
	"github.com/polluxsim/polluxsim/internal/suggest"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// Env is what a source may use to make a workload: the profiles (the
// applications, their batch limits and tuned configurations) and the
// cluster's GPUs per node (tuned configurations depend on it).
type Env struct {
	Profiles    *profiles.Set
	GPUsPerNode int
	// Traces are the trace formats the binary knows (trace names, and
	// generate:trace=NAME), nil for none.
	Traces *traces.TraceFormats
	// Params are the parameters a sweep's workload set gives its source
	// (experiments.NamedSet.Params), a JSON object the source decodes
	// itself (DecodeParams); empty for none.
	Params json.RawMessage
}

// DecodeParams decodes env's params into v strictly (unknown keys,
// ill-typed values and data after the object are errors); no params leave
// v as it is.
func (env Env) DecodeParams(v any) error {
	if len(env.Params) == 0 {
		return nil
	}
	if err := strictjson.Decode(env.Params, v); err != nil {
		return fmt.Errorf("params: %w", err)
	}
	return nil
}

// ReadTrace reads the trace ref names with env's trace formats.
func (env Env) ReadTrace(ref string) (*traces.TraceTable, error) {
	if env.Traces == nil {
		return nil, fmt.Errorf("%s: no trace formats in this binary", ref)
	}
	return env.Traces.Read(ref)
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

// Registry is a registry of workload sources, a value: Builtin lists the
// built-in ones; a binary's is part of its extensions
// (experiments/extensions).
type Registry struct{ r *reg.Registry[Source] }

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{r: reg.New[Source]("workload source")} }

// RegistryOf returns a registry of the given sources; a malformed
// registration or a name given twice is an error.
func RegistryOf(srcs ...Source) (*Registry, error) {
	r := NewRegistry()
	for _, s := range srcs {
		if err := r.Register(s); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// MustRegistry is RegistryOf that panics on an error (a programming
// error).
func MustRegistry(srcs ...Source) *Registry {
	r, err := RegistryOf(srcs...)
	if err != nil {
		panic("workloads: " + err.Error())
	}
	return r
}

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
func (r *Registry) Sources() []Source { return r.r.All() }

// Get returns the source called name.
func (r *Registry) Get(name string) (Source, bool) { return r.r.Lookup(name) }

// Lookup returns the source a reference names, with its argument: the
// registered source NAME of "NAME:ARG"; the trace source for a trace name
// (any trace format of formats, replayed whole); else the csv source with
// the whole reference as a file (so "./paper:1" is a file).
func (r *Registry) Lookup(ref string, formats *traces.TraceFormats) (Source, string) {
	if name, arg, ok := strings.Cut(ref, ":"); ok && reg.CheckName(name) {
		if s, found := r.r.Lookup(name); found {
			return s, arg
		}
		if formats != nil && formats.IsTraceName(ref) {
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
	s, arg := r.Lookup(ref, env.Traces)
	if s.Resolve == nil {
		return nil, nil, fmt.Errorf("--workload %s: no workload source reads it (known: %s)", ref, strings.Join(r.r.Names(), ", "))
	}
	w, warns, err := s.Resolve(arg, env)
	if err != nil && s.Name == CSVSource && arg == ref && errors.Is(err, fs.ErrNotExist) {
		// Not a file: a near-miss of a source's reference ("paper1")?
		if h := r.hint(ref, env.Traces); h != "" {
			err = fmt.Errorf("%w (%s)", err, h)
		}
	}
	return w, warns, err
}

// hint suggests the sources' references a reference that is no file may
// have been meant as: its leading name (up to a colon, else its letters
// and dashes) near a source's or a trace format's name, with the rest as
// the argument: "paper1" and "papr:1" suggest paper:1; a bare name the
// form of the source's usage ("paper" paper:N). The empty string for a
// path or nothing near.
func (r *Registry) hint(ref string, formats *traces.TraceFormats) string {
	if strings.ContainsAny(ref, `/\`) {
		return ""
	}
	head, rest, colon := strings.Cut(ref, ":")
	if !colon {
		head = ref[:len(ref)-len(strings.TrimLeft(ref, "abcdefghijklmnopqrstuvwxyz-"))]
		rest = ref[len(head):]
	}
	head = strings.TrimRight(head, "-")
	if head == "" {
		return ""
	}
	usage := map[string]string{}
	var names []string
	for _, s := range r.Sources() {
		if s.Name != CSVSource && s.Name != TraceSource {
			names = append(names, s.Name)
			usage[s.Name] = s.Usage
		}
	}
	if formats != nil {
		names = append(names, formats.Names()...)
	}
	if slices.Contains(names, head) {
		names = []string{head} // the name is right, the form is not
	}
	return suggest.Hint(head, names, func(name string) string {
		switch {
		case rest != "":
			return name + ":" + rest
		case usage[name] != "":
			u, _, _ := strings.Cut(usage[name], " ") // its form, not its notes
			u, _, _ = strings.Cut(u, "[")
			return u
		}
		return name + ":ARG"
	})
}

// Names of the built-in sources the lookup falls back on.
const (
	CSVSource   = "csv"
	TraceSource = "trace"
)
