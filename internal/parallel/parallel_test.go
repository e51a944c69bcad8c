package parallel

import (
	"sync/atomic"
	"testing"
)

// Every index is visited exactly once, whatever the number of workers.
func TestEachVisitsEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 3, 8} {
		for _, n := range []int{0, 1, 2, 7, 100} {
			counts := make([]atomic.Int32, n)
			Each(workers, n, func(i int) { counts[i].Add(1) })
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("workers %d, n %d: index %d visited %d times", workers, n, i, c)
				}
			}
		}
	}
}

// With one worker the calls run in order in the calling goroutine.
func TestEachSequentialInOrder(t *testing.T) {
	var got []int
	Each(1, 5, func(i int) { got = append(got, i) })
	for i, v := range got {
		if v != i {
			t.Fatalf("order %v", got)
		}
	}
	if len(got) != 5 {
		t.Fatalf("calls %v", got)
	}
}
