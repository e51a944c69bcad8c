package policies

import (
	"fmt"
	reg "github.com/polluxsim/polluxsim/internal/registry"
)

// Registration describes one policy to the registry. Policy packages call
// Register from an init function, so importing a package makes its policy
// available by name (to the CLI, sweeps and the conformance suite) without
// any other file naming it.
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
	// or string. If the struct's pointer has a method Validate() error, it
	// is called after every decoding.
	Defaults func() any
	// New builds a policy from decoded, validated options (a pointer of
	// Defaults' type, or nil without options) and the run's environment.
	New func(opts any, env Env) (Policy, error)
	// Kind names what is registered in messages (default "policy"); other
	// registries that reuse the options machinery (DecodeOptions,
	// ResolveOptions, DescribeOptions) set it, e.g. "autoscaler".
	Kind string
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
	// Workers is the number of goroutines a policy may use within a round
	// (0: the policy's default). Decisions must not depend on it.
	Workers int
}

var registry = reg.New[Registration]("policy")

// Register adds a policy to the registry. It panics when the registration
// is malformed or the name is taken: both are programming errors found at
// start-up.
func Register(r Registration) {
	if err := checkRegistration(r); err != nil {
		panic("policies.Register: " + err.Error())
	}
	if err := registry.Add(r.Name, r); err != nil {
		panic("policies.Register: " + err.Error())
	}
}

func checkRegistration(r Registration) error {
	if !reg.CheckName(r.Name) {
		return fmt.Errorf("policy name %q must be lower-case letters, digits and '-'", r.Name)
	}
	if r.New == nil {
		return fmt.Errorf("policy %q has no New", r.Name)
	}
	if r.Defaults != nil {
		if _, err := optionFields(r.Defaults()); err != nil {
			return fmt.Errorf("policy %q: %w", r.Name, err)
		}
	}
	return nil
}

// Lookup returns the registration of a policy.
func Lookup(name string) (Registration, bool) { return registry.Lookup(name) }

// Names lists the registered policies in alphabetical order.
func Names() []string { return registry.Names() }

// lookup returns a registration or an error listing the known policies.
func lookup(name string) (Registration, error) { return registry.Get(name) }

// Build creates a policy from its name, an option set (see Resolve; the
// empty set means the defaults) and the run's environment.
func Build(name string, opts OptionSet, env Env) (Policy, error) {
	r, err := lookup(name)
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
