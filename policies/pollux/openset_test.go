package pollux

import (
	"math/rand/v2"
	"testing"
)

// TestOpenNodesSparseEqualsDense: the open set of a mutation (addUsed
// closing nodes in a bitmap, countOpen, openAt, isOpen) is the dense one,
// a scan of every node for a free GPU, in the same order, on random
// clusters with nodes of no capacity, over several generations of the
// scratch: small ones, of one word, and up to 300 nodes, of several
// words, some of them with no open node.
func TestOpenNodesSparseEqualsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.IntN(12)
		if trial%2 == 1 {
			n = 1 + rng.IntN(300)
		}
		pr := &problem{nNodes: n, caps: make([]int32, n)}
		for c := range pr.caps {
			pr.caps[c] = int32(rng.IntN(5)) // 0: a node of no GPUs
			if pr.caps[c] == 0 {
				pr.empty = append(pr.empty, int32(c))
			}
		}
		w := newWorker(n)
		for gen := 0; gen < 3; gen++ {
			w.next()
			w.startOpen(pr)
			used := make([]int32, n)
			for e := rng.IntN((2 + 4*(gen%2)) * n); e > 0; e-- { // some trials close whole words
				c := int32(rng.IntN(n))
				v := int32(1 + rng.IntN(3))
				w.addUsed(pr, c, v)
				used[c] += v
			}
			var open []int32
			for c := range n {
				isOpen := used[c] < pr.caps[c]
				if got := w.isOpen(pr, int32(c)); got != isOpen {
					t.Fatalf("trial %d: isOpen(%d) = %v, want %v (used %d of %d)", trial, c, got, isOpen, used[c], pr.caps[c])
				}
				if isOpen {
					open = append(open, int32(c))
				}
			}
			if m := w.countOpen(pr); m != len(open) {
				t.Fatalf("trial %d: %d open nodes, want %d (caps %v, used %v)", trial, m, len(open), pr.caps, used)
			}
			for r, c := range open {
				if got := w.openAt(int32(r)); got != c {
					t.Fatalf("trial %d: open node %d is %d, want %d (caps %v, used %v)", trial, r, got, c, pr.caps, used)
				}
			}
		}
	}
}
