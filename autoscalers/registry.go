package autoscalers

import (
	"fmt"

	reg "github.com/polluxsim/polluxsim/internal/registry"
	"github.com/polluxsim/polluxsim/policies"
)

// Registration describes one autoscaler to the registry, as
// policies.Registration does a policy: Defaults returns a pointer to a new
// options struct (fields tagged `option:"key"` with a `doc:"..."`,
// optionally with a Validate() error method), or nil; New builds the
// autoscaler from decoded, validated options.
type Registration struct {
	Name     string
	Doc      string
	Defaults func() any
	New      func(opts any) (Autoscaler, error)
}

// Typed completes r (its name and doc) with the options and constructor of
// an autoscaler whose options are a struct of type O, as policies.Typed
// does for a policy: defaults returns them with their defaults, build makes
// the autoscaler from the decoded and validated options.
func Typed[O any](r Registration, defaults func() O, build func(opts O) (Autoscaler, error)) Registration {
	r.Defaults = func() any {
		o := defaults()
		return &o
	}
	r.New = func(v any) (Autoscaler, error) {
		o, ok := v.(*O)
		if !ok {
			return nil, fmt.Errorf("autoscaler %s: options of type %T, want %T", r.Name, v, o)
		}
		return build(*o)
	}
	return r
}

// Registry is a set of autoscalers by name, a value as policies.Registry
// is: Builtin lists the built-in ones; a binary's is part of its
// extensions (experiments/extensions).
type Registry struct{ m *reg.Registry[Registration] }

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{m: reg.New[Registration]("autoscaler")} }

// RegistryOf returns a registry of the given autoscalers; a malformed
// registration or a name given twice is an error.
func RegistryOf(regs ...Registration) (*Registry, error) {
	g := NewRegistry()
	for _, r := range regs {
		if err := g.Register(r); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// MustRegistry is RegistryOf that panics on an error (a programming
// error).
func MustRegistry(regs ...Registration) *Registry {
	g, err := RegistryOf(regs...)
	if err != nil {
		panic("autoscalers: " + err.Error())
	}
	return g
}

// options is the registration as the policies' options machinery sees it.
func (r Registration) options() policies.Registration {
	return policies.Registration{Name: r.Name, Doc: r.Doc, Defaults: r.Defaults, Kind: "autoscaler"}
}

// Register adds an autoscaler; a malformed registration (its name of
// lower-case letters, digits and '-', a New, well-formed options) or a
// name taken is an error.
func (g *Registry) Register(r Registration) error {
	if !reg.CheckName(r.Name) || r.New == nil {
		return fmt.Errorf("autoscaler %q: bad registration (name of lower-case letters, digits and '-', and a New)", r.Name)
	}
	if _, err := policies.DescribeOptions(r.options()); err != nil {
		return err
	}
	return g.m.Add(r.Name, r)
}

// Registrations lists the registered autoscalers by name.
func (g *Registry) Registrations() []Registration { return g.m.All() }

// Names lists the registered autoscalers in alphabetical order.
func (g *Registry) Names() []string { return g.m.Names() }

// Lookup returns the registration of an autoscaler.
func (g *Registry) Lookup(name string) (Registration, bool) { return g.m.Lookup(name) }

func (g *Registry) lookup(name string) (Registration, error) { return g.m.Get(name) }

// Resolve returns the effective option set of an autoscaler: base (empty
// for the defaults), then each layer (a JSON object as json.RawMessage or
// "key=value" strings), as policies.Registry.Resolve.
func (g *Registry) Resolve(name string, base policies.OptionSet, layers ...any) (policies.OptionSet, error) {
	r, err := g.lookup(name)
	if err != nil {
		return "", err
	}
	return policies.ResolveOptions(r.options(), base, layers...)
}

// Describe lists an autoscaler's options with their defaults.
func (g *Registry) Describe(name string) ([]policies.OptionDoc, error) {
	r, err := g.lookup(name)
	if err != nil {
		return nil, err
	}
	return policies.DescribeOptions(r.options())
}

// Build creates an autoscaler from its name and option set (empty: the
// defaults).
func (g *Registry) Build(name string, opts policies.OptionSet) (Autoscaler, error) {
	r, err := g.lookup(name)
	if err != nil {
		return nil, err
	}
	v, err := policies.DecodeOptions(r.options(), opts)
	if err != nil {
		return nil, err
	}
	a, err := r.New(v)
	if err != nil {
		return nil, fmt.Errorf("autoscaler %s: %w", name, err)
	}
	return a, nil
}
