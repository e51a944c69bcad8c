package autoscalers

import (
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// table is a hand-written curve: ratio[n] of the ideal 100·n at n nodes.
func table(ratio ...float64) Curve {
	return func(n int) (float64, float64, bool) {
		if n < 1 || n >= len(ratio) {
			return 0, 0, false
		}
		return ratio[n] * 100 * float64(n), 100 * float64(n), true
	}
}

// hand: 1 node 100 %, then 80, 70, 60, 50, 45, 40 %.
var hand = table(0, 1, 0.8, 0.7, 0.6, 0.5, 0.45, 0.4)

func TestRuleScalesUpToTheLTarget(t *testing.T) {
	r := Rule{U: 0.75, L: 0.5}
	for _, tc := range []struct {
		name            string
		c               Curve
		cur, lo, hi, to int
	}{
		// 1 node: 100 % > 75 %: up through 80, 70, 60, 50 % (≥ L) to 5; 6 is 45 %.
		{"from one node", hand, 1, 1, 7, 5},
		{"from two nodes", hand, 2, 1, 7, 5},
		// 3 nodes: 70 % is inside [L, U]: stay.
		{"inside the band", hand, 3, 1, 7, 3},
		// Exactly U is not above it; a hair more is.
		{"at U exactly", table(0, 1, 0.75, 0.5, 0.4), 2, 1, 4, 2},
		{"just above U", table(0, 1, 0.75+1e-12, 0.5, 0.4), 2, 1, 4, 3},
		// The L target is capped by the maximum.
		{"capped at max", hand, 1, 1, 3, 3},
		{"at max already", hand, 3, 1, 3, 3},
		// Below L: the paper's rule stays (it only scales up).
		{"below L", hand, 7, 1, 7, 7},
		// Never below one node, whatever the minimum says.
		{"min zero", func(int) (float64, float64, bool) { return 0, 0, false }, 0, 0, 2, 1},
		// No prediction (no fitted model): keep the count.
		{"no model", func(int) (float64, float64, bool) { return 0, 0, false }, 4, 1, 8, 4},
	} {
		if got := r.Target(tc.c, tc.cur, tc.lo, tc.hi); got != tc.to {
			t.Errorf("%s: Target(cur=%d, [%d, %d]) = %d, want %d", tc.name, tc.cur, tc.lo, tc.hi, got, tc.to)
		}
	}
}

// With scale_down, below L goes down to the largest count that reaches L.
func TestRuleScalesDownWhenAsked(t *testing.T) {
	r := Rule{U: 0.75, L: 0.5, Down: true}
	for _, tc := range []struct{ cur, lo, to int }{{7, 1, 5}, {6, 1, 5}, {7, 6, 6}, {5, 1, 5}, {3, 1, 3}} {
		if got := r.Target(hand, tc.cur, tc.lo, 7); got != tc.to {
			t.Errorf("cur %d min %d: %d, want %d", tc.cur, tc.lo, got, tc.to)
		}
	}
}

func TestRuleValidate(t *testing.T) {
	for _, r := range []Rule{{U: 0.5, L: 0.5}, {U: 0.4, L: 0.5}, {U: 1.5, L: 0.5}, {U: 0.5, L: 0}} {
		if err := r.Validate(); err == nil {
			t.Errorf("%+v accepted", r)
		}
	}
	if _, err := MustRegistry(Builtin()...).Resolve(GoodputName, "", []string{"u=0.5", "l=0.5"}); err == nil ||
		!strings.Contains(err.Error(), "autoscaler goodput: u must be greater than l") {
		t.Errorf("u = l: got %v", err)
	}
}

func TestBandKeepsUtilityInTheBand(t *testing.T) {
	b := Band{Low: 0.4, High: 0.9, Window: 3}
	// 1 node at 100 % > 90 %: nothing for two rounds, then binary search
	// for the largest count at least the middle 65 %: 3 nodes (70 %).
	for i, want := range []int{1, 1, 3} {
		if got := b.Target(hand, 1, 1, 7); got != want {
			t.Fatalf("round %d: %d, want %d", i+1, got, want)
		}
	}
	// History cleared after a change: in band at 3 nodes (70 %).
	for i := 0; i < 5; i++ {
		if got := b.Target(hand, 3, 1, 7); got != 3 {
			t.Fatalf("in band: %d", got)
		}
	}
	// Below the band (35 % < 40 %) at 7 nodes: down to 3 (70 % ≥ 65 %).
	low := table(0, 1, 0.8, 0.7, 0.6, 0.5, 0.45, 0.35)
	b = Band{Low: 0.4, High: 0.9, Window: 1}
	if got := b.Target(low, 7, 1, 7); got != 3 {
		t.Errorf("below the band: %d, want 3", got)
	}
}

// A single job's curve is 1 at one node by construction, and its goodput
// ratio falls with the node count when synchronisation costs.
func TestJobsCurveOfOneJob(t *testing.T) {
	p := models.Params{AlphaC: 0.01, BetaC: 0.001, AlphaR: 0.02, BetaR: 0.001, AlphaN: 0.1, BetaN: 0.005, Gamma: 1}
	jobs := []policies.Job{{Name: "a", Params: &p, Grad: models.GradStats{Sqr: 1, Var: 20},
		Limits: models.Limits{InitBatch: 128, MaxBatch: 4096, MinLocal: 16, MaxLocal: 256}}}
	for _, tput := range []bool{false, true} {
		c := JobsCurve(jobs, 4, tput)
		r1, ok := c.Ratio(1)
		if !ok || r1 < 1-1e-12 || r1 > 1+1e-12 {
			t.Fatalf("throughputOnly=%v: ratio at one node %v %v", tput, r1, ok)
		}
		prev := r1
		for n := 2; n <= 8; n++ {
			r, _ := c.Ratio(n)
			if !(r < prev+1e-12) || !(r > 0) {
				t.Errorf("throughputOnly=%v: ratio %v at %d nodes after %v", tput, r, n, prev)
			}
			prev = r
		}
	}
	if _, ok := JobsCurve([]policies.Job{{Name: "new"}}, 4, false).Ratio(2); ok {
		t.Error("a job without a model predicts something")
	}
}

// The goodput autoscaler scales less than the throughput one while the
// gradient noise is small (large batches waste samples).
func TestGoodputScalesLessThanThroughputEarly(t *testing.T) {
	p := models.Params{AlphaC: 0.01, BetaC: 0.001, AlphaR: 0.02, BetaR: 0.001, AlphaN: 0.05, BetaN: 0.002, Gamma: 1}
	job := policies.Job{Name: "a", Params: &p, Grad: models.GradStats{Sqr: 1, Var: 1},
		Limits: models.Limits{InitBatch: 128, MaxBatch: 8192, MinLocal: 16, MaxLocal: 256}}
	s := State{Cluster: policies.Cluster{Nodes: 1, GPUsPerNode: 4}, MinNodes: 1, MaxNodes: 16, Jobs: []policies.Job{job}}
	g, _ := MustRegistry(Builtin()...).Build(GoodputName, "")
	th, _ := MustRegistry(Builtin()...).Build(ThroughputName, "")
	ng, nt := g.Target(s), th.Target(s)
	if !(ng < nt) {
		t.Errorf("goodput wants %d nodes, throughput %d: want fewer", ng, nt)
	}
	// Later in training (large noise scale) the goodput autoscaler grows.
	job.Grad = models.GradStats{Sqr: 1, Var: 1000}
	s.Jobs = []policies.Job{job}
	if ng2 := g.Target(s); !(ng2 > ng) {
		t.Errorf("goodput wants %d nodes with large PGNS, %d with small", ng2, ng)
	}
}
