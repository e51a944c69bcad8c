package fifo

import (
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

func job(name string, gpus int, alloc []int) policies.Job {
	return policies.Job{Name: name, App: "x", Request: policies.Request{GPUs: gpus, Batch: 32 * gpus}, Alloc: alloc}
}

func check(t *testing.T, what string, d policies.Decision, want [][]int) {
	t.Helper()
	for i, w := range want {
		if !policies.Equal(d.Alloc[i], w) {
			t.Errorf("%s: job %d: %v, want %v", what, i, d.Alloc[i], w)
		}
	}
}

// TestHeadOfLineBlocking on 2 nodes × 4 GPUs: a holds node 0; b, next in
// line, needs all 8 GPUs and waits, and so does c behind it although its
// one GPU would fit. When a finishes, b starts and c still waits; a
// running job is never preempted, even for an earlier one.
func TestHeadOfLineBlocking(t *testing.T) {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	p := New()
	d := p.Schedule(60, c, []policies.Job{job("a", 4, []int{4, 0}), job("b", 8, nil), job("c", 1, nil)})
	check(t, "a running", d, [][]int{{4, 0}, nil, nil})

	d = p.Schedule(120, c, []policies.Job{job("b", 8, nil), job("c", 1, nil)})
	check(t, "a done", d, [][]int{{4, 4}, nil})

	// c got GPUs from an earlier decision while b (earlier) waits: c
	// keeps them, b stays blocked.
	d = p.Schedule(180, c, []policies.Job{job("b", 8, nil), job("c", 1, []int{0, 1})})
	check(t, "no preemption", d, [][]int{nil, {0, 1}})
}

// TestStartsInOrderWhileTheHeadFits: waiting jobs start in order, each on
// the nodes with the most free GPUs, until one does not fit.
func TestStartsInOrderWhileTheHeadFits(t *testing.T) {
	c := policies.Cluster{Nodes: 3, GPUsPerNode: 4}
	// Free GPUs 1, 4, 2 around the running a. b (3) takes 3 of node 1's
	// 4 (free 1, 1, 2); c (3) takes node 2's 2, then 1 on node 0 (the
	// lower of two tied nodes); 1 GPU is left, d (2) does not fit, and e
	// (1) waits behind it.
	jobs := []policies.Job{job("a", 5, []int{3, 0, 2}), job("b", 3, nil), job("c", 3, nil), job("d", 2, nil), job("e", 1, nil)}
	d := New().Schedule(0, c, jobs)
	check(t, "fill", d, [][]int{{3, 0, 2}, {0, 3, 0}, {1, 0, 2}, nil, nil})
}
