package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/sim"
)

// A run in which no job has a ρ has no ρ metrics (left out of means and
// null in results.parquet), not 0; its other metrics stay.
func TestNoRhoMetrics(t *testing.T) {
	r := &RunResult{RunStats: RunStats{Summary: sim.Summary{AvgJCT: 10, NoFairness: true}}}
	for _, m := range []string{"avg_fairness_rho", "p99_fairness_rho", "max_fairness_rho", "frac_rho_above_1"} {
		if v, ok := r.Metric(outputs.Metrics{}, m); ok {
			t.Errorf("%s = %v, want none", m, v)
		}
	}
	if _, ok := r.Metric(outputs.Metrics{}, "avg_fairness_rho_equal_share"); !ok {
		t.Error("the equal-share ρ was dropped with the other")
	}
	if v, ok := r.Metric(outputs.Metrics{}, "avg_jct_s"); !ok || v != 10 {
		t.Errorf("avg_jct_s = %v, %v", v, ok)
	}
}

// A stored run reads back as written; edited, or not a stored run at all
// (not JSON, no run, cell or hash), it is corrupt; without a checksum (an
// older polluxsim's) it is refused, but not as corrupt.
func TestRunResultChecksum(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.json")
	r := &RunResult{Run: "a.w1", Cell: "a", Hash: "h", RunStats: RunStats{Summary: sim.Summary{AvgJCT: 660.5}}, AppAvgJCT: map[string]float64{}}
	if err := WriteRunResult(p, r); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRunResult(p)
	if err != nil || back.Summary.AvgJCT != 660.5 || back.Checksum == "" {
		t.Fatalf("read back: %v %+v", err, back)
	}
	data, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(data), "660.5", "1660.5", 1)), 0o644)
	if _, err := ReadRunResult(p); !errors.Is(err, ErrCorrupt) {
		t.Errorf("edited: %v", err)
	}
	for _, garbage := range []string{"garbage", "{", `{"run": 5}`, "{}", "null", "[]", string(data) + "x"} {
		os.WriteFile(p, []byte(garbage), 0o644)
		if _, err := ReadRunResult(p); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), p+": stored run corrupt: ") {
			t.Errorf("%q: %v", garbage, err)
		}
	}
	os.WriteFile(p, []byte(strings.Replace(string(data), `"checksum": "`+back.Checksum+`"`, `"checksum": ""`, 1)), 0o644)
	if _, err := ReadRunResult(p); err == nil || errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "without a checksum") {
		t.Errorf("no checksum: %v", err)
	}
}

// TestDeclaration: earlier names, per-application and per-type metrics
// read as the metric they stand for or split.
func TestDeclaration(t *testing.T) {
	for name, label := range map[string]string{
		"avg_jct_s":          "average JCT",
		"max_rho":            "largest finish-time fairness ρ",
		"avg_jct_s_imagenet": "average JCT of imagenet",
		"gpu_hours_a100":     "GPU time of a100",
	} {
		m, ok := Declaration(outputs.Metrics{}, name)
		if !ok || m.Label != label {
			t.Errorf("Declaration(%q) = %q, %v; want %q", name, m.Label, ok, label)
		}
	}
	if _, ok := Declaration(outputs.Metrics{}, "avg_jct_s_"); ok {
		t.Error("avg_jct_s_ (no application) declared")
	}
	if _, ok := Declaration(outputs.Metrics{}, "nope"); ok {
		t.Error("nope declared")
	}
}
