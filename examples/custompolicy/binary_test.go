package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/internal/buildtest"
)

// TestCustomBinary: the ten-line main of cmd/polluxsim-custom is a whole
// polluxsim that knows the outside policy: it lists it, runs it, sweeps it
// beside FIFO, and reports and plots the sweep; the stock polluxsim, which
// does not know the policy, still reports and plots that sweep from its
// stored results.
func TestCustomBinary(t *testing.T) {
	dir := t.TempDir()
	custom := buildtest.Must(t, dir, "polluxsim-custom", "./cmd/polluxsim-custom")
	stock := buildtest.Must(t, dir, "polluxsim", "../../cmd/polluxsim")

	if out, _ := buildtest.Run(t, custom, "policies"); !strings.Contains(out, "smallest-first") || !strings.Contains(out, "aging_hours") {
		t.Errorf("policies does not list smallest-first with its option:\n%s", out)
	}
	out, _ := buildtest.Run(t, custom, "run", "--policy", "smallest-first", "--policy-opt", "aging_hours=2", "--jobs", "24", "--quiet", "--out", filepath.Join(dir, "run"))
	if !strings.Contains(out, "policy smallest-first: 24 jobs") {
		t.Errorf("run printed %q", out)
	}
	spec, _ := filepath.Abs(filepath.Join("testdata", "smallest-first.json"))
	sw := filepath.Join(dir, "sweep")
	buildtest.Run(t, custom, "sweep", "--experiment", spec, "--quiet", "--out", sw)
	for _, f := range []string{"results.parquet", "summary.json", "experiment.json"} {
		if _, err := os.Stat(filepath.Join(sw, f)); err != nil {
			t.Errorf("sweep: %v", err)
		}
	}
	for name, bin := range map[string]string{"custom": custom, "stock": stock} {
		page := filepath.Join(dir, name+"-report.html")
		buildtest.Run(t, bin, "report", "--in", sw, "--out", page)
		html, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Smallest first / FIFO", "smallest-first", "<svg"} {
			if !bytes.Contains(html, []byte(want)) {
				t.Errorf("%s report lacks %q", name, want)
			}
		}
		plots := filepath.Join(dir, name+"-plots")
		buildtest.Run(t, bin, "plot", "--in", sw, "--out", plots)
		for _, f := range []string{"jct.png", "timeline.png"} {
			if st, err := os.Stat(filepath.Join(plots, f)); err != nil || st.Size() == 0 {
				t.Errorf("%s plot %s: %v", name, f, err)
			}
		}
	}
}
