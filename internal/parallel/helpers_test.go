package parallel

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// checkInOrder runs loop, which must call its body for 0..4, and checks
// the calls came in order.
func checkInOrder(t *testing.T, loop func(body func(i int))) {
	t.Helper()
	var got []int
	loop(func(i int) { got = append(got, i) })
	for i, v := range got {
		if v != i {
			t.Fatalf("order %v", got)
		}
	}
	if len(got) != 5 {
		t.Fatalf("calls %v", got)
	}
}

// checkPanicLeavesNoCallRunning runs loop 50 times; loop must call body
// for 200 indices and report with onCaller whether a call runs in the
// calling goroutine, where body panics. After each panic passes on, no
// call may be running or start.
func checkPanicLeavesNoCallRunning(t *testing.T, loop func(body func(onCaller bool))) {
	t.Helper()
	panics := 0
	for trial := range 50 {
		var inflight, calls atomic.Int32
		func() {
			defer func() {
				if recover() != nil {
					panics++
				}
			}()
			loop(func(onCaller bool) {
				inflight.Add(1)
				defer inflight.Add(-1)
				calls.Add(1)
				if onCaller { // (the others may, rarely, take every index)
					panic("broken task")
				}
				spin := 0
				for k := 0; k < 2000; k++ {
					spin += k
				}
				_ = spin
			})
		}()
		// The panicking call itself has ended (its defer ran).
		if n := inflight.Load(); n != 0 {
			t.Fatalf("trial %d: %d calls still running after the loop", trial, n)
		}
		c := calls.Load()
		time.Sleep(time.Millisecond)
		if calls.Load() != c {
			t.Fatalf("trial %d: calls started after the loop", trial)
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
