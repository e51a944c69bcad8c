package parallel

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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

// When a call in the calling goroutine panics, Each passes the panic on
// only after the other goroutines' calls have ended, and no call starts
// after.
func TestEachPanicLeavesNoCallRunning(t *testing.T) {
	panics := 0
	for trial := range 50 {
		var inflight, calls atomic.Int32
		func() {
			defer func() {
				if recover() != nil {
					panics++
				}
			}()
			caller := goroutineID()
			Each(3, 200, func(i int) {
				inflight.Add(1)
				defer inflight.Add(-1)
				calls.Add(1)
				if goroutineID() == caller {
					panic("broken task")
				}
				spin := 0
				for k := 0; k < 2000; k++ {
					spin += k
				}
				_ = spin
			})
		}()
		if n := inflight.Load(); n != 0 {
			t.Fatalf("trial %d: %d calls still running after Each", trial, n)
		}
		c := calls.Load()
		time.Sleep(time.Millisecond)
		if calls.Load() != c {
			t.Fatalf("trial %d: calls started after Each", trial)
		}
	}
	if panics < 10 {
		t.Fatalf("the caller panicked in only %d of 50 trials", panics)
	}
}

// goroutineID is the calling goroutine's number, from its stack trace's
// first line ("goroutine N [...").
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	f := strings.Fields(string(buf))
	if len(f) < 2 {
		return ""
	}
	return f[1]
}
