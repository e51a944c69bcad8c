package sim

import (
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/traces"
)

// fixedCount gives every job the same number of GPUs, filling nodes in
// order, whatever the job's caps: with traits that make the count wrong, a
// buggy policy the engine must catch.
type fixedCount struct {
	gpus   int
	traits policies.Traits
}

func (fixedCount) Name() string              { return "fixed-count" }
func (p fixedCount) Traits() policies.Traits { return p.traits }
func (p fixedCount) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	free := policies.FreeGPUs(c, nil)
	for i := range jobs {
		a := make([]int, c.Nodes)
		for n, left := 0, p.gpus; n < c.Nodes && left > 0; n++ {
			take := min(free[n], left)
			a[n], free[n], left = take, free[n]-take, left-take
		}
		d.Alloc[i] = a
	}
	return d
}

// TestEngineEnforcesCaps: a decision above a job's application cap or its
// batch limits, or off its request under a UserGPUs policy, stops the run
// with an error naming the policy, the job and the round; decisions within
// the caps run to the end.
func TestEngineEnforcesCaps(t *testing.T) {
	// The toy application: MinLocal 8, MaxBatch 1024.
	for _, tc := range []struct {
		name     string
		capped   bool // the application's cap is 2 GPUs
		replicas int  // the job's request (default 1, at batch 32 per GPU)
		p        fixedCount
		want     string // "" when the run must succeed
	}{
		{"application cap", true, 0, fixedCount{3, policies.Traits{}}, "3 GPUs in the round at t=60, above its cap of 2"},
		{"application cap, adaptive", true, 0, fixedCount{3, policies.Traits{AdaptiveBatch: true}}, "above its cap of 2"},
		{"within application cap", true, 0, fixedCount{2, policies.Traits{}}, ""},
		// Requested batch 32 at no less than 8 per GPU: 4 GPUs at most.
		{"batch cap", false, 0, fixedCount{5, policies.Traits{}}, "5 GPUs in the round at t=60, above its cap of 4"},
		{"within batch cap", false, 0, fixedCount{4, policies.Traits{}}, ""},
		// An adaptive job may grow its batch to 1024: 128 GPUs.
		{"adaptive batch", false, 0, fixedCount{5, policies.Traits{AdaptiveBatch: true}}, ""},
		// Under a UserGPUs policy the request rules, caps or not.
		{"not the request", false, 0, fixedCount{2, policies.Traits{UserGPUs: true}}, "toy-7 2 GPUs, it asked for exactly 1 (t=60)"},
		{"request above the application cap", true, 3, fixedCount{3, policies.Traits{UserGPUs: true}}, ""},
	} {
		set := fakeSet()
		if tc.capped {
			set.Apps["toy"].MaxGPUs = 2
		}
		r := max(tc.replicas, 1)
		w := fakeWorkload(traces.Job{Name: "toy-7", Time: 5, App: "toy", Replicas: r, Batch: 32 * r})
		_, err := Run(smallConfig(), set, w, tc.p)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && err == nil:
			t.Errorf("%s: no error", tc.name)
		case tc.want != "":
			msg := err.Error()
			for _, part := range []string{"fixed-count", "toy-7", tc.want} {
				if !strings.Contains(msg, part) {
					t.Errorf("%s: error %q does not name %q", tc.name, msg, part)
				}
			}
		}
	}
}
