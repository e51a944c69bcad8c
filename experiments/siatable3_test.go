package experiments

import (
	"strings"
	"testing"
)

// TestSiaTable3Spec: the sia-table3 experiment runs Sia, unaware Pollux and
// Gavel max-sum-throughput on Sia's cluster under the artifact's engine
// calibration, each cell with the paper's average JCT and makespan.
func TestSiaTable3Spec(t *testing.T) {
	e, _, err := LoadExperiment("sia-table3", testExt())
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Cells) != 9 {
		t.Fatalf("%d cells, want 9", len(e.Cells))
	}
	for i := range e.Cells {
		c := &e.Cells[i]
		s := c.Spec()
		if s.Cluster != "t4:6x4,a100:2x8,rtx2080ti:3x8" || s.Calibration != "sia-engine" || s.Interval != 60 {
			t.Errorf("cell %s: settings %+v", c.Name, s)
		}
		ref := c.Reference["paper"]
		if !(ref["avg_jct_s"] > 0) || !(ref["makespan_s"] > ref["avg_jct_s"]) {
			t.Errorf("cell %s: paper reference %v", c.Name, ref)
		}
		switch s.Policy {
		case "gavel-throughput":
			if o := string(s.Options); !strings.Contains(o, `"round_s":360`) || !strings.Contains(o, `"placement":"workers"`) || !strings.Contains(o, `"ties":"type"`) || !strings.Contains(o, `"lp":"interior"`) {
				t.Errorf("cell %s: options %s", c.Name, s.Options)
			}
		case "pollux":
			if !strings.Contains(string(s.Options), `"p":-1`) {
				t.Errorf("cell %s: options %s", c.Name, s.Options)
			}
		case "sia":
			if o := string(s.Options); !strings.Contains(o, `"share_cap":true`) || !strings.Contains(o, `"project_throughputs":true`) || !strings.Contains(o, `"idle_restart_factor":false`) {
				t.Errorf("cell %s: options %s", c.Name, s.Options)
			}
		default:
			t.Errorf("cell %s: policy %s", c.Name, s.Policy)
		}
	}
}
