package pollux

import (
	"math/rand/v2"
	"testing"
)

// TestFreeNodesMatchesScan checks the index against a scan in node order
// over random changes of used GPUs and multi-node marks.
func TestFreeNodesMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const N = 200
	caps := make([]int32, N)
	used := make([]int32, N)
	multi := make([]int32, N)
	for c := range caps {
		caps[c] = int32(1 + rng.IntN(8))
	}
	fn := newFreeNodes(caps)
	for c := int32(0); c < N; c++ {
		fn.update(c, caps[c], true)
	}
	for it := 0; it < 5000; it++ {
		c := int32(rng.IntN(N))
		used[c] = int32(rng.IntN(int(caps[c]) + 2))
		multi[c] = int32(rng.IntN(2))
		fn.update(c, caps[c]-used[c], multi[c] == 0)
		best, bestClean := int32(-1), int32(-1)
		for c := int32(0); c < N; c++ {
			f := caps[c] - used[c]
			if f <= 0 {
				continue
			}
			if best < 0 || f > caps[best]-used[best] {
				best = c
			}
			if multi[c] == 0 && (bestClean < 0 || f > caps[bestClean]-used[bestClean]) {
				bestClean = c
			}
		}
		if b, bc := fn.best(); b != best || bc != bestClean {
			t.Fatalf("step %d: index gives %d, %d; scan %d, %d", it, b, bc, best, bestClean)
		}
	}
}
