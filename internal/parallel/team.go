package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Team runs many short fork-join loops, such as the generations of a
// genetic algorithm, on the calling goroutine and Size−1 helper
// goroutines. Each member has an index in [0, Size): the caller is member
// 0. Waking a sleeping goroutine takes tens of microseconds, as long as a
// loop of small tasks may take in all, so a helper that has finished a
// loop waits for the next one by spinning for up to IdleSpin before it
// exits; the next loop then starts a new one. Members take the loop's
// indices one at a time, so a late helper takes less of the work instead
// of holding the caller up. A Team leaves no goroutine behind once it has
// been idle for IdleSpin.
//
// The zero Team is not usable: make one with NewTeam. Run must not be
// called concurrently on the same Team.
type Team struct {
	size    int
	loop    atomic.Pointer[teamLoop]
	helpers []teamHelper
}

// IdleSpin is how long a helper spins waiting for the next loop before it
// exits.
const IdleSpin = 200 * time.Microsecond

// teamLoop is one call of Run. A helper that comes late holds a finished
// loop and finds no index left in it.
type teamLoop struct {
	f    func(member, i int)
	n    int64
	next atomic.Int64 // the next index to take
	done atomic.Int64 // indices finished
}

// teamHelper is one helper's slot: whether its goroutine is running.
type teamHelper struct {
	mu      sync.Mutex
	running bool
	_       [48]byte // keep the slots on separate cache lines
}

// NewTeam makes a team of size members (at least 1): the caller of Run
// and size−1 helpers.
func NewTeam(size int) *Team {
	size = max(size, 1)
	return &Team{size: size, helpers: make([]teamHelper, size-1)}
}

// Size is the number of members, the caller included.
func (t *Team) Size() int { return t.size }

// Run calls f(member, i) for every i in [0, n) and returns when all calls
// have returned. Calls with the same member never overlap, so f may use
// per-member scratch; what f computes must not depend on the member, so
// that results do not depend on the team's size or timing. With one
// member or n ≤ 1 it calls f(0, i) in order in the calling goroutine.
// If f panics in the calling goroutine, Run lets no further call start,
// waits for the helpers' calls under way and passes the panic on; a panic
// in a helper ends the program, as in any goroutine.
func (t *Team) Run(n int, f func(member, i int)) {
	if t.size <= 1 || n <= 1 {
		for i := 0; i < n; i++ {
			f(0, i)
		}
		return
	}
	l := &teamLoop{f: f, n: int64(n)}
	t.loop.Store(l)
	for k := range t.helpers {
		h := &t.helpers[k]
		h.mu.Lock()
		if !h.running {
			h.running = true
			go t.help(k+1, h, l)
		}
		h.mu.Unlock()
	}
	returned := false
	defer func() {
		if !returned {
			// f panicked here: no helper takes another index, and
			// the calls under way end before the panic goes on, so
			// that none runs after Run.
			l.stop()
		}
	}()
	l.work(0)
	returned = true
	l.waitDone(l.n)
}

// waitDone spins until done reaches want.
func (l *teamLoop) waitDone(want int64) {
	for spins := 0; l.done.Load() < want; spins++ {
		if spins%64 == 63 {
			runtime.Gosched()
		}
	}
}

// stop ends l after a call of the caller panicked: it takes the indices
// no one has taken yet, then waits for the calls of the others (all taken
// indices but the caller's).
func (l *teamLoop) stop() {
	for {
		taken := l.next.Load()
		if taken >= l.n {
			l.waitDone(l.n - 1)
			return
		}
		if l.next.CompareAndSwap(taken, l.n) {
			l.waitDone(taken - 1)
			return
		}
	}
}

// Release tells the helpers to exit now instead of spinning for the next
// loop: call it when no loop will follow soon, so that they leave the
// processors to other work. A later Run starts them again. A nil Team
// has nothing to release.
func (t *Team) Release() {
	if t != nil && t.size > 1 {
		t.loop.Store(released)
	}
}

// released is the loop published by Release: it has no index to take.
var released = &teamLoop{}

// work takes and runs indices of l as member m until none is left.
func (l *teamLoop) work(m int) {
	for i := l.next.Add(1) - 1; i < l.n; i = l.next.Add(1) - 1 {
		l.f(m, int(i))
		l.done.Add(1)
	}
}

// help is helper member m: it works on l, then on each loop published
// after it, until none comes for IdleSpin.
func (t *Team) help(m int, h *teamHelper, l *teamLoop) {
	for {
		l.work(m)
		next := t.wait(l)
		if next == released {
			next = nil
		}
		if next == nil {
			h.mu.Lock()
			// Run publishes a loop before it looks at running, so
			// a loop published before this check is seen here.
			if next = t.loop.Load(); next == l || next == released {
				h.running = false
				h.mu.Unlock()
				return
			}
			h.mu.Unlock()
		}
		l = next
	}
}

// wait spins until a loop other than l is published, for up to IdleSpin;
// nil if none came.
func (t *Team) wait(l *teamLoop) *teamLoop {
	var start time.Time
	for spins := 0; ; spins++ {
		if next := t.loop.Load(); next != l {
			return next
		}
		if spins%64 == 63 {
			if start.IsZero() {
				start = time.Now()
			} else if time.Since(start) > IdleSpin {
				return nil
			}
			runtime.Gosched()
		}
	}
}
