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

var registry = reg.New[Registration]("autoscaler")

// options is the registration as the policies' options machinery sees it.
func (r Registration) options() policies.Registration {
	return policies.Registration{Name: r.Name, Doc: r.Doc, Defaults: r.Defaults, Kind: "autoscaler"}
}

// Register adds an autoscaler to the registry; it panics when the
// registration is malformed or the name is taken (programming errors found
// at start-up).
func Register(r Registration) {
	if !reg.CheckName(r.Name) || r.New == nil {
		panic(fmt.Sprintf("autoscalers.Register: bad registration %q (name of lower-case letters, digits and '-', and a New)", r.Name))
	}
	if _, err := policies.DescribeOptions(r.options()); err != nil {
		panic("autoscalers.Register: " + err.Error())
	}
	if err := registry.Add(r.Name, r); err != nil {
		panic("autoscalers.Register: " + err.Error())
	}
}

// Names lists the registered autoscalers in alphabetical order.
func Names() []string { return registry.Names() }

// Lookup returns the registration of an autoscaler.
func Lookup(name string) (Registration, bool) { return registry.Lookup(name) }

func lookup(name string) (Registration, error) { return registry.Get(name) }

// Resolve returns the effective option set of an autoscaler: base (empty
// for the defaults), then each layer (a JSON object as json.RawMessage or
// "key=value" strings), as policies.Resolve.
func Resolve(name string, base policies.OptionSet, layers ...any) (policies.OptionSet, error) {
	r, err := lookup(name)
	if err != nil {
		return "", err
	}
	return policies.ResolveOptions(r.options(), base, layers...)
}

// Describe lists an autoscaler's options with their defaults.
func Describe(name string) ([]policies.OptionDoc, error) {
	r, err := lookup(name)
	if err != nil {
		return nil, err
	}
	return policies.DescribeOptions(r.options())
}

// Build creates an autoscaler from its name and option set (empty: the
// defaults).
func Build(name string, opts policies.OptionSet) (Autoscaler, error) {
	r, err := lookup(name)
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
