package conformance

import (
	"fmt"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// Run checks the registered policy name, with options opts ("key=value",
// as given to --policy-opt; none for the defaults), against every
// scenario, one subtest each, reporting each violation as a test error.
func Run(t *testing.T, name string, opts ...string) {
	t.Helper()
	newPolicy, err := registered(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	RunFactory(t, newPolicy)
}

// RunFactory checks the policies newPolicy builds against every scenario,
// one subtest each, reporting each violation as a test error.
func RunFactory(t *testing.T, newPolicy Factory) {
	t.Helper()
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			for _, v := range Check(sc, newPolicy) {
				t.Error(v)
			}
		})
	}
}

// CheckPolicy checks the registered policy name, with options opts,
// against every scenario and returns the violations found; the error is
// for a policy that cannot be built at all.
func CheckPolicy(name string, opts ...string) ([]*Violation, error) {
	newPolicy, err := registered(name, opts)
	if err != nil {
		return nil, err
	}
	var out []*Violation
	for _, sc := range Scenarios() {
		out = append(out, Check(sc, newPolicy)...)
	}
	return out, nil
}

// registered returns a factory for a registered policy with options, after
// checking that it builds and names itself as registered.
func registered(name string, opts []string) (Factory, error) {
	set, err := policies.Resolve(name, "", opts)
	if err != nil {
		return nil, err
	}
	newPolicy := func(env policies.Env) (policies.Policy, error) { return policies.Build(name, set, env) }
	p, err := newPolicy(policies.Env{Seed: Seed})
	if err != nil {
		return nil, err
	}
	if p.Name() != name {
		return nil, fmt.Errorf("policy registered as %q names itself %q", name, p.Name())
	}
	return newPolicy, nil
}
