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
	checkInOrder(t, func(body func(i int)) { Each(1, 5, body) })
}

// When a call in the calling goroutine panics, Each passes the panic on
// only after the other goroutines' calls have ended, and no call starts
// after.
func TestEachPanicLeavesNoCallRunning(t *testing.T) {
	checkPanicLeavesNoCallRunning(t, func(body func(onCaller bool)) {
		caller := goroutineID()
		Each(3, 200, func(int) { body(goroutineID() == caller) })
	})
}
