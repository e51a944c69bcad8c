// Package parallel runs independent tasks on a few goroutines. Each suits
// a few tasks of uneven length, such as model fits: its goroutines are
// started per call, and the caller blocks while it waits for them. Team
// suits many short fork-join loops in a row, such as the generations of a
// genetic algorithm: its helpers and its caller spin between loops
// instead of sleeping, which costs processor time while they wait but
// saves the tens of microseconds of waking a goroutine.
package parallel

import (
	"sync"
	"sync/atomic"
)

// Each calls f(i) for every i in [0, n), on up to workers goroutines that
// take the indices one at a time (suited to a few tasks of uneven length),
// and returns when all calls have returned. With workers ≤ 1 or n ≤ 1 it
// calls f in order in the calling goroutine. f must be safe to call
// concurrently for different i; what it computes must not depend on which
// goroutine runs it, so that results do not depend on workers. If f
// panics in the calling goroutine, no further call starts and the others'
// calls under way end before the panic goes on.
func Each(workers, n int, f func(i int)) {
	W := min(workers, n)
	if W <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
			f(i)
		}
	}
	// W−1 goroutines and this one.
	var wg sync.WaitGroup
	for range W - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	// If f panics here, the others take no further index, and their calls
	// under way end before the panic goes on.
	defer func() {
		next.Store(int64(n))
		wg.Wait()
	}()
	work()
}
