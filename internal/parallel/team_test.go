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
	var got []int
	NewTeam(1).Run(5, func(m, i int) {
		if m != 0 {
			t.Fatalf("member %d", m)
		}
		got = append(got, i)
	})
	for i, v := range got {
		if v != i {
			t.Fatalf("order %v", got)
		}
	}
	if len(got) != 5 {
		t.Fatalf("calls %v", got)
	}
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
	panics := 0
	for trial := range 50 {
		team := NewTeam(3)
		var inflight, calls atomic.Int32
		func() {
			defer func() {
				if recover() != nil {
					panics++
				}
			}()
			team.Run(200, func(m, i int) {
				inflight.Add(1)
				defer inflight.Add(-1)
				calls.Add(1)
				if m == 0 { // (the helpers may, rarely, take every index)
					panic("broken policy")
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
			t.Fatalf("trial %d: %d calls still running after Run", trial, n)
		}
		c := calls.Load()
		time.Sleep(time.Millisecond)
		if calls.Load() != c {
			t.Fatalf("trial %d: calls started after Run", trial)
		}
		team.Release()
	}
	if panics < 10 {
		t.Fatalf("the caller panicked in only %d of 50 trials", panics)
	}
}
