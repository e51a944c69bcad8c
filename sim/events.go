package sim

import "container/heap"

// eventKind orders simultaneous events: arrivals first, then job events,
// then the scheduling tick, so that a tick sees every job that arrived or
// changed at its time (as the reference simulator does).
type eventKind int

const (
	evArrival eventKind = iota
	evRestartDone
	evEpoch
	evTick
)

func (k eventKind) String() string {
	return [...]string{"arrival", "restart done", "epoch boundary", "tick"}[k]
}

type event struct {
	time    float64
	kind    eventKind
	seq     uint64 // insertion order breaks remaining ties
	job     int    // index into the engine's jobs; -1 for ticks
	version int    // job version when scheduled; stale events are dropped
}

type eventQueue []event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	a, b := &q[i], &q[j]
	if a.time != b.time {
		return a.time < b.time
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// scheduler wraps the heap with a sequence counter.
type scheduler struct {
	q   eventQueue
	seq uint64
}

func (s *scheduler) push(e event) {
	e.seq = s.seq
	s.seq++
	heap.Push(&s.q, e)
}

func (s *scheduler) pop() (event, bool) {
	if len(s.q) == 0 {
		return event{}, false
	}
	return heap.Pop(&s.q).(event), true
}
