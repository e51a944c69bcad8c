package conformance_test

import (
	"testing"

	"github.com/polluxsim/polluxsim/policies/builtin"
	"github.com/polluxsim/polluxsim/policies/conformance"
)

// TestRegisteredPolicies runs the suite over every built-in policy
// (policies/builtin) with its default options: a policy is covered as soon as it
// registers.
func TestRegisteredPolicies(t *testing.T) {
	reg := builtin.Registry()
	shipped := reg.Names()
	if len(shipped) < 9 {
		t.Fatalf("only %d policies registered: %v", len(shipped), shipped)
	}
	for _, name := range shipped {
		t.Run(name, func(t *testing.T) { conformance.Run(t, reg, name) })
	}
}
