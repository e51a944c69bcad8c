package minheap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

type item struct{ k, seq int }

func (a *item) Before(b *item) bool {
	if a.k != b.k {
		return a.k < b.k
	}
	return a.seq < b.seq
}

// TestPopsInOrder: pushes and pops interleaved at random come out as a
// sorted reference list says, ties in insertion order.
func TestPopsInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q []item
	var ref []item
	seq := 0
	for step := 0; step < 20000; step++ {
		if len(q) == 0 || rng.IntN(3) > 0 {
			x := item{k: rng.IntN(50), seq: seq}
			seq++
			q = Push(q, x)
			ref = append(ref, x)
			continue
		}
		var got item
		got, q = Pop(q)
		slices.SortFunc(ref, func(a, b item) int {
			if a.Before(&b) {
				return -1
			}
			return 1
		})
		if got != ref[0] {
			t.Fatalf("step %d: popped %v, want %v", step, got, ref[0])
		}
		ref = ref[1:]
	}
	if len(q) != len(ref) {
		t.Fatalf("%d left, want %d", len(q), len(ref))
	}
}
