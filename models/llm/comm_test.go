package llm

import (
	"math"
	"testing"
)

// simulateRing runs a ring all-reduce of n ranks, each holding bytes split
// into n chunks: n−1 reduce-scatter steps then n−1 all-gather steps, each
// rank sending one chunk per step. It returns the bytes each rank sends.
func simulateRing(n int, bytes float64) float64 {
	chunk := bytes / float64(n)
	sent := make([]float64, n)
	for range 2 * (n - 1) {
		for r := range n {
			sent[r] += chunk // to rank (r+1) mod n
		}
	}
	return sent[0]
}

func TestRingAllReduceClosedForm(t *testing.T) {
	for _, n := range []int{1, 2, 3, 8, 64, 1000} {
		for _, bytes := range []float64{1, 1e9} {
			bw := 25e9
			want := simulateRing(n, bytes) / bw
			if got := RingAllReduce(n, bytes, bw); math.Abs(got-want) > 1e-12*math.Max(want, 1e-30) {
				t.Errorf("n=%d bytes=%g: %g s, want %g", n, bytes, got, want)
			}
		}
	}
	// The limit: a large ring sends twice the buffer.
	if got := RingAllReduce(1<<20, 1, 1); math.Abs(got-2) > 1e-5 {
		t.Errorf("large ring: %g, want → 2", got)
	}
}

// simulatePipeline runs a synchronous pipeline of p stages and m
// micro-batches, each taking one unit on each stage, in the order micro-
// batch j enters stage i once stage i−1 has passed it and stage i has
// finished micro-batch j−1; it returns the idle fraction of the stages
// over the makespan (forward and backward are symmetric, so one direction
// suffices).
func simulatePipeline(p, m int) float64 {
	finish := make([][]float64, p)
	for i := range finish {
		finish[i] = make([]float64, m)
		for j := range m {
			start := 0.0
			if i > 0 {
				start = finish[i-1][j]
			}
			if j > 0 {
				start = math.Max(start, finish[i][j-1])
			}
			finish[i][j] = start + 1
		}
	}
	makespan := finish[p-1][m-1]
	return 1 - float64(m)/makespan
}

func TestPipelineBubbleClosedForm(t *testing.T) {
	for _, p := range []int{1, 2, 4, 8, 35, 64} {
		for _, m := range []int{1, 2, 7, 64, 512} {
			want := simulatePipeline(p, m)
			if got := PipelineBubble(p, m); math.Abs(got-want) > 1e-12 {
				t.Errorf("p=%d m=%d: bubble %g, want %g", p, m, got, want)
			}
		}
	}
}
