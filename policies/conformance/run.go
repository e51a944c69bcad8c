package conformance

import (
	"fmt"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// Run checks the policy name of registry reg, with options opts
// ("key=value", as given to --policy-opt; none for the defaults), against
// every scenario, one subtest each, reporting each violation as a test
// error, and runs the option-bounds check (OptionBounds, subtest
// "option-bounds"): every numeric option documents its bounds and values
// just outside them are refused.
func Run(t *testing.T, reg *policies.Registry, name string, opts ...string) {
	t.Helper()
	RunRegistered(t, reg, name, opts...)
}

// RunRegistered is Run (the name it had when Run read a global
// registry).
func RunRegistered(t *testing.T, reg *policies.Registry, name string, opts ...string) {
	t.Helper()
	newPolicy, err := Registered(reg, name, opts...)
	if err != nil {
		t.Fatal(err)
	}
	RunFactory(t, newPolicy)
	t.Run("option-bounds", func(t *testing.T) { OptionBounds(t, reg, name) })
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

// CheckRegistered checks the policy name of registry reg, with options
// opts, against every scenario and returns the violations found; the
// error is for a policy that cannot be built at all.
func CheckRegistered(reg *policies.Registry, name string, opts ...string) ([]*Violation, error) {
	newPolicy, err := Registered(reg, name, opts...)
	if err != nil {
		return nil, err
	}
	var out []*Violation
	for _, sc := range Scenarios() {
		out = append(out, Check(sc, newPolicy)...)
	}
	return out, nil
}

// Registered returns a factory for the policy name of registry reg with
// options opts, after checking that it builds and names itself as
// registered; Check plays each scenario against it (the conformance
// command reports scenario by scenario this way).
func Registered(reg *policies.Registry, name string, opts ...string) (Factory, error) {
	set, err := reg.Resolve(name, "", opts)
	if err != nil {
		return nil, err
	}
	newPolicy := func(env policies.Env) (policies.Policy, error) { return reg.Build(name, set, env) }
	p, err := newPolicy(policies.Env{Seed: Seed})
	if err != nil {
		return nil, err
	}
	defer policies.Close(p)
	if p.Name() != name {
		return nil, fmt.Errorf("policy registered as %q names itself %q", name, p.Name())
	}
	return newPolicy, nil
}
