package report

import (
	"slices"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/runspec"
)

// TestReportedNames: the provenance names, per cell, the names its runs'
// policies reported when they differ from the policy (an external
// policy's), once each and sorted; none for a built-in policy.
func TestReportedNames(t *testing.T) {
	run := func(cell, policy, name string) *results.RunResult {
		return &results.RunResult{Cell: cell, Settings: runspec.RunSpec{Policy: policy}, PolicyName: name}
	}
	runs := []*results.RunResult{run("py", "external", "order"), run("py", "external", "order"), run("py", "external", "alpha"),
		run("t", "tiresias", ""), run("bare", "external", "")}
	for _, c := range []struct {
		cell, policy string
		want         []string
	}{
		{"py", "external", []string{"policy_name=alpha", "policy_name=order"}},
		{"t", "tiresias", nil},
		{"bare", "external", nil},
	} {
		if got := reportedNames(runs, c.cell, c.policy); !slices.Equal(got, c.want) {
			t.Errorf("cell %s: %v, want %v", c.cell, got, c.want)
		}
	}
}
