package conformance_test

import (
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	_ "github.com/polluxsim/polluxsim/policies/builtin"
	"github.com/polluxsim/polluxsim/policies/conformance"
)

// shipped are the policies registered by the imported packages, taken
// before any test registers its own (broken) ones.
var shipped = policies.Names()

// TestRegisteredPolicies runs the suite over every registered policy with
// its default options: a policy is covered as soon as it registers.
func TestRegisteredPolicies(t *testing.T) {
	if len(shipped) < 4 {
		t.Fatalf("only %d policies registered: %v", len(shipped), shipped)
	}
	for _, name := range shipped {
		t.Run(name, func(t *testing.T) { conformance.Run(t, name) })
	}
}
