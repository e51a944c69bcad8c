package conformance_test

import (
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	_ "github.com/polluxsim/polluxsim/policies/builtin"
	"github.com/polluxsim/polluxsim/policies/conformance"
)

// TestRegisteredPolicies runs the suite over every policy of the default
// registry (every built-in one; tests register theirs in registries of
// their own) with its default options: a policy is covered as soon as it
// registers.
func TestRegisteredPolicies(t *testing.T) {
	shipped := policies.Names()
	if len(shipped) < 9 {
		t.Fatalf("only %d policies registered: %v", len(shipped), shipped)
	}
	for _, name := range shipped {
		t.Run(name, func(t *testing.T) { conformance.Run(t, name) })
	}
}
