package policies

import (
	"fmt"
	"math"
	"strings"

	reg "github.com/polluxsim/polluxsim/internal/registry"
)

// Registration describes one policy to a registry. A policy package
// exports its registration (a function Registration, say); a binary adds
// it to its registry (the CLI: app.WithPolicy), so that the CLI, sweeps
// and the conformance suite know it by name without any other file naming
// it. Typed fills Defaults and New from a typed
// options struct and constructor, so that no factory converts an any.
type Registration struct {
	// Name is how users select the policy (e.g. "tiresias"): lower-case
	// letters, digits and '-'.
	Name string
	// Doc is a one-line description.
	Doc string
	// Defaults returns a pointer to a new options struct holding the
	// policy's defaults, or nil for a policy without options. Its exported
	// fields tagged `option:"key"` (with a one-line `doc:"..."`) are the
	// options users can set; their types may be float64, int, uint64, bool
	// or string. A field also tagged `for:"name,..."` applies to those
	// policies only (of a family sharing one struct): Describe lists it
	// for them alone. If the struct's pointer has a method Validate()
	// error, it is called after every decoding.
	Defaults func() any
	// New builds a policy from decoded, validated options (a pointer of
	// Defaults' type, or nil without options) and the run's environment.
	// Typed writes Defaults and New of a policy with options.
	New func(opts any, env Env) (Policy, error)
	// Cost is a hint of what one round costs per active job relative to a
	// policy that scans its job list (1; 0 means 1), for ordering work:
	// sweeps start expensive runs first. Pollux's is 100.
	Cost float64
	// Kind names what is registered in messages (default "policy"); other
	// registries that reuse the options machinery (DecodeOptions,
	// ResolveOptions, DescribeOptions) set it, e.g. "autoscaler".
	Kind string
	// Effects are what building or running the policy does outside the
	// computation of its decisions (none for a policy that only decides).
	// A service that takes options from its callers (polluxsim serve)
	// offers a policy with effects only when its operator enables it.
	Effects Effects
	// Code, for a policy whose code lives outside the binary (an external
	// policy's script), returns a digest of that code's content, from
	// decoded and validated options (a pointer of Defaults' type); it is
	// part of the run's identity (outputs.Identity.PolicyCode), so that
	// editing the code changes the run_id. nil, or "", for a policy whose
	// code is the binary's.
	Code func(opts any) (string, error)
}

// Effects are the actions outside its own computation that a policy may
// take, as set by its options: a policy declares them in its
// Registration, and whoever lets others choose options reads them there.
type Effects uint8

// The effects a policy may declare.
const (
	// StartsProcesses: the policy runs a command (which may then do
	// anything the user running polluxsim may do).
	StartsProcesses Effects = 1 << iota
	// ReadsFiles: the policy opens a file an option names.
	ReadsFiles
	// ReadsEnv: the policy reads an environment variable an option names.
	ReadsEnv
	// ReachesNetwork: the policy connects to an address an option names.
	ReachesNetwork
)

// String lists the effects in words, e.g. "reads files, reaches the
// network"; "none" for none.
func (e Effects) String() string {
	var out []string
	for _, f := range []struct {
		e    Effects
		name string
	}{{StartsProcesses, "starts processes"}, {ReadsFiles, "reads files"}, {ReadsEnv, "reads environment variables"},
		{ReachesNetwork, "reaches the network"}} {
		if e&f.e != 0 {
			out = append(out, f.name)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// RelativeCost is the registration's Cost, 1 when it is not set.
func (r Registration) RelativeCost() float64 {
	if r.Cost > 0 {
		return r.Cost
	}
	return 1
}

// label names the registration in messages, e.g. "policy pollux".
func (r Registration) label() string {
	if r.Kind != "" {
		return r.Kind + " " + r.Name
	}
	return "policy " + r.Name
}

// Env is what a policy may learn about the run it schedules, beyond its
// own options.
type Env struct {
	// Seed seeds any randomness of the policy (the run's --seed).
	Seed uint64
	// RestartDelay is the engine's restart delay after a re-allocation, in
	// seconds, for policies that account for it.
	RestartDelay float64
	// RestartDelayByApp overrides RestartDelay per application (a
	// calibration's restart delays), for policies that account for it.
	RestartDelayByApp map[string]float64
	// Workers is the number of goroutines a policy may use within a round
	// (0: the policy's default). Decisions must not depend on it.
	Workers int
}

// RestartDelayFor is the restart delay of a job of application app: its
// override in RestartDelayByApp, else RestartDelay.
func (e Env) RestartDelayFor(app string) float64 {
	if d, ok := e.RestartDelayByApp[app]; ok {
		return d
	}
	return e.RestartDelay
}

// Typed completes r (its name, doc and other fields) with the options and
// constructor of a policy whose options are a struct of type O: defaults
// returns them with the policy's defaults, build makes the policy from the
// decoded and validated options. O's exported fields tagged
// `option:"key"` are the options; a Validate() error method on *O is
// called after every decoding. A policy without options sets r.New itself
// and leaves Defaults nil.
func Typed[O any](r Registration, defaults func() O, build func(opts O, env Env) (Policy, error)) Registration {
	r.Defaults = func() any {
		o := defaults()
		return &o
	}
	r.New = func(v any, env Env) (Policy, error) {
		o, ok := v.(*O)
		if !ok {
			return nil, fmt.Errorf("%s: options of type %T, want %T", r.label(), v, o)
		}
		return build(*o, env)
	}
	return r
}

// Registry is a set of policy registrations by name. It is a value, not
// a global: a binary builds one (policies/builtin.Registrations are the
// built-in policies; the CLI's is part of its extensions, see
// experiments/extensions) and passes it down; a test builds its own.
type Registry struct {
	m *reg.Registry[Registration]
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{m: reg.New[Registration]("policy")} }

// RegistryOf returns a registry of the given policies; a malformed
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
// error: a malformed registration or a name given twice).
func MustRegistry(regs ...Registration) *Registry {
	g, err := RegistryOf(regs...)
	if err != nil {
		panic("policies: " + err.Error())
	}
	return g
}

// Registrations lists the registered policies by name.
func (g *Registry) Registrations() []Registration { return g.m.All() }

// Register adds a policy to the registry; a malformed registration or a
// name already taken is an error.
func (g *Registry) Register(r Registration) error {
	if err := checkRegistration(r); err != nil {
		return err
	}
	return g.m.Add(r.Name, r)
}

// Lookup returns the registration of a policy.
func (g *Registry) Lookup(name string) (Registration, bool) { return g.m.Lookup(name) }

// Names lists the registered policies in alphabetical order.
func (g *Registry) Names() []string { return g.m.Names() }

// get returns a registration or an error listing the known policies.
func (g *Registry) get(name string) (Registration, error) { return g.m.Get(name) }

// Build creates a policy from its name, an option set (see Resolve; the
// empty set means the defaults) and the run's environment.
func (g *Registry) Build(name string, opts OptionSet, env Env) (Policy, error) {
	r, err := g.get(name)
	if err != nil {
		return nil, err
	}
	v, err := decode(r, opts)
	if err != nil {
		return nil, err
	}
	p, err := r.New(v, env)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", name, err)
	}
	return p, nil
}

// CodeDigest is the digest of the code outside the binary that a policy
// with these options runs (Registration.Code), "" when its code is the
// binary's. An error names the policy.
func (g *Registry) CodeDigest(name string, opts OptionSet) (string, error) {
	r, err := g.get(name)
	if err != nil || r.Code == nil {
		return "", err
	}
	v, err := decode(r, opts)
	if err != nil {
		return "", err
	}
	d, err := r.Code(v)
	if err != nil {
		return "", fmt.Errorf("policy %s: %w", name, err)
	}
	return d, nil
}

// Resolve returns the effective option set of a policy: base (empty for
// the defaults), then each layer in turn. A layer is either a JSON object
// (json.RawMessage, as in spec files) or a list of "key=value" strings
// ([]string, as from --policy-opt). Unknown keys, ill-typed values and
// values the policy's Validate rejects are errors naming the policy and,
// for unknown keys, its valid options.
func (g *Registry) Resolve(name string, base OptionSet, layers ...any) (OptionSet, error) {
	r, err := g.get(name)
	if err != nil {
		return "", err
	}
	return ResolveOptions(r, base, layers...)
}

// Describe lists a policy's options with their defaults, in declaration
// order.
func (g *Registry) Describe(name string) ([]OptionDoc, error) {
	r, err := g.get(name)
	if err != nil {
		return nil, err
	}
	return DescribeOptions(r)
}

func checkRegistration(r Registration) error {
	if !reg.CheckName(r.Name) {
		return fmt.Errorf("policy name %q must be lower-case letters, digits and '-'", r.Name)
	}
	if r.New == nil {
		return fmt.Errorf("policy %q has no New", r.Name)
	}
	if !(r.Cost >= 0) || math.IsInf(r.Cost, 0) {
		return fmt.Errorf("policy %q: cost must be a non-negative number, got %v", r.Name, r.Cost)
	}
	if r.Defaults != nil {
		if _, err := optionFields(r.Defaults()); err != nil {
			return fmt.Errorf("policy %q: %w", r.Name, err)
		}
	}
	return nil
}
