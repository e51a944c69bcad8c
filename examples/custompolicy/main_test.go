package main

import (
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies/conformance"
)

// The example program runs a whole simulation with a policy registered
// outside policies/, and the registry decodes its option.
func TestRunsWholeSimulation(t *testing.T) {
	var out strings.Builder
	if err := run(&out, 30, [][]string{{"smallest-first", "aging_hours=1"}, {"fifo"}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`smallest-first  {"aging_hours":1}: 30 jobs`, "fifo            {}: 30 jobs"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output %q lacks %q", out.String(), want)
		}
	}
	if _, err := known.Policies.Resolve("smallest-first", "", []string{"aging_hours=-1"}); err == nil {
		t.Error("negative aging_hours accepted")
	}
}

// A policy registered outside policies/ passes the same conformance suite
// as the built-in ones, with its defaults and with aging.
func TestConformance(t *testing.T) {
	conformance.Run(t, known.Policies, "smallest-first")
	t.Run("aging", func(t *testing.T) { conformance.Run(t, known.Policies, "smallest-first", "aging_hours=0.01") })
}
