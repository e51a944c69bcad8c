package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Every index of every loop is visited exactly once, by a member in
// range, and calls of one member never overlap.
func TestTeamVisitsEveryIndexOnce(t *testing.T) {
	for _, size := range []int{0, 1, 2, 3, 8} {
		team := NewTeam(size)
		busy := make([]atomic.Bool, team.Size())
		for loop, n := range []int{0, 1, 2, 7, 100, 3, 1000} {
			counts := make([]atomic.Int32, n)
			team.Run(n, func(m, i int) {
				if m < 0 || m >= team.Size() {
					t.Errorf("size %d: member %d", size, m)
					return
				}
				if !busy[m].CompareAndSwap(false, true) {
					t.Errorf("size %d: member %d called twice at once", size, m)
				}
				counts[i].Add(1)
				busy[m].Store(false)
			})
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("size %d, loop %d (n %d): index %d visited %d times", size, loop, n, i, c)
				}
			}
			if loop == 3 {
				team.Release() // the helpers exit; the next loop starts them again
			}
		}
	}
}

// With one member the calls run in order in the calling goroutine.
func TestTeamOfOneInOrder(t *testing.T) {
	checkInOrder(t, func(body func(i int)) {
		NewTeam(1).Run(5, func(m, i int) {
			if m != 0 {
				t.Fatalf("member %d", m)
			}
			body(i)
		})
	})
}

// A team leaves no goroutine behind once idle, released or not.
func TestTeamHelpersExitWhenIdle(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, release := range []bool{true, false} {
		team := NewTeam(4)
		for range 10 {
			team.Run(64, func(m, i int) {})
		}
		if release {
			team.Release()
		}
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				t.Fatalf("release %v: %d goroutines, %d before", release, runtime.NumGoroutine(), before)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// When a call on the caller panics, Run passes the panic on only after
// the helpers' calls under way have ended, and no call starts after.
func TestTeamPanicLeavesNoCallRunning(t *testing.T) {
	checkPanicLeavesNoCallRunning(t, func(body func(onCaller bool)) {
		team := NewTeam(3)
		defer team.Release()
		team.Run(200, func(m, i int) { body(m == 0) })
	})
}
