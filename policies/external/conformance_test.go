package external_test

import (
	"slices"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/conformance"
	"github.com/polluxsim/polluxsim/policies/external"
)

// TestConformanceOverTheWire runs the conformance suite on the Python
// policies through the protocol: FIFO and Tiresias (each in full rounds
// only and with changes-only rounds, which the suite checks against full
// ones), the starting example, SRTF (oracle queries over the wire,
// answered from the suite's oracle) and EDF with admission control (every
// job's admission asked over the wire). With -short, Tiresias only.
func TestConformanceOverTheWire(t *testing.T) {
	for _, tc := range []struct{ name, example, args string }{
		{"fifo", "fifo", ""},
		{"fifo-full", "fifo", "--full"},
		{"tiresias", "tiresias", ""},
		{"tiresias-full", "tiresias", "--full"},
		{"smallest-first", "smallest_first", ""},
		{"srtf", "srtf", ""},
		{"edf-admission", "edf", "--admission"},
	} {
		if testing.Short() && tc.name != "tiresias" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			conformance.Run(t, policies.MustRegistry(external.Registration()), "external", "command="+example(t, tc.example, tc.args))
		})
	}
}

// TestConformanceCatchesBrokenPython: the broken Python policy is caught
// by the rules that catch the same policy in Go, in the same scenarios
// and rounds.
func TestConformanceCatchesBrokenPython(t *testing.T) {
	py, err := conformance.CheckRegistered(policies.MustRegistry(external.Registration()), "external", "command="+example(t, "broken"))
	if err != nil {
		t.Fatal(err)
	}
	var goV []*conformance.Violation
	for _, sc := range conformance.Scenarios() {
		goV = append(goV, conformance.Check(sc, func(policies.Env) (policies.Policy, error) {
			return conformance.OverCapacity{PolicyName: "external"}, nil
		})...)
	}
	key := func(vs []*conformance.Violation) []string {
		var out []string
		for _, v := range vs {
			out = append(out, v.Scenario+"/"+string(v.Rule)+"/"+v.Detail)
		}
		return out
	}
	if len(py) == 0 {
		t.Fatal("the broken policy passed")
	}
	if !slices.Equal(key(py), key(goV)) {
		t.Errorf("violations over the wire:\n%v\nin Go:\n%v", key(py), key(goV))
	}
	for _, v := range py {
		if v.Rule != conformance.RuleCapacity {
			t.Errorf("caught by %s, want capacity: %v", v.Rule, v)
		}
	}
}
