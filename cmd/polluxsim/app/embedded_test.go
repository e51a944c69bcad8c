package app

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/runner"
)

// TestProfilesListSources: profiles list names every built-in set with the
// source of its figures and marks the one in use.
func TestProfilesListSources(t *testing.T) {
	for _, tc := range []struct{ arg, marked string }{{"", "* embedded"}, {"embedded", "* embedded"}, {"compact", "* compact"}} {
		args := []string{"profiles", "list"}
		if tc.arg != "" {
			args = append(args, "--profiles", tc.arg)
		}
		out, err := runCLI(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{tc.marked, "measured T4 tables", "petuum/adaptdl", "osdi21-artifact",
			"c793c7089bd307462686339d29707925c461f9a9", "Apache-2.0", "compact model", "profiles: " + strings.TrimPrefix(tc.marked, "* ")} {
			if !strings.Contains(out, want) {
				t.Errorf("profiles list %s lacks %q:\n%s", tc.arg, want, out)
			}
		}
	}
	set, err := runner.LoadProfiles("compact")
	if err != nil || set.Source != "compact" {
		t.Fatalf("compact: %v %v", set, err)
	}
	if _, err := runner.LoadProfiles("compactt"); err == nil || !strings.Contains(err.Error(), "built-in sets: embedded, compact") {
		t.Errorf("misspelt set: %v", err)
	}
}

// TestRunPaperWorkload: with no data and no --profiles, Tiresias on the
// embedded reference workload 1 in step mode gives the reference
// simulator's result (2474 s) within 2 %.
func TestRunPaperWorkload(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t1")
	printed, err := runCLI(t, "run", "--policy", "tiresias", "--workload", "paper:1", "--step", "--no-timing", "--quiet", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		AvgJCT   float64 `json:"avg_jct_s"`
		Jobs     int     `json:"jobs"`
		Workload string  `json:"workload_source"`
		Profiles string  `json:"profiles"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.Jobs != 160 || s.Workload != "paper:1" || s.Profiles != "embedded" {
		t.Errorf("summary %+v", s)
	}
	if math.Abs(s.AvgJCT/2474-1) > 0.02 {
		t.Errorf("avg JCT %.1f s, want the reference's 2474 s ± 2 %%", s.AvgJCT)
	}
	for _, tc := range []struct{ arg, want string }{
		{"paper:9", "paper:9: no such reference workload"},
		{"paper-realistic:0", "paper-realistic:0: no such reference workload"},
	} {
		if _, err := runCLI(t, "run", "--workload", tc.arg, "--out", filepath.Join(t.TempDir(), "x")); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--workload %s: %v", tc.arg, err)
		}
	}
}
