package sim

import (
	"sort"

	"github.com/polluxsim/polluxsim/internal/minheap"
)

// eventKind orders simultaneous events: arrivals first, then job events,
// then faults, then the scheduling tick, so that a tick sees every job that arrived or
// changed at its time (as the reference simulator does).
type eventKind int

const (
	evArrival eventKind = iota
	evRestartDone
	evEpoch
	evFault    // a change of the fault stream (Config.Failures)
	evJobFault // a job's own failure (faults.Model.JobFailRate)
	evTick
)

func (k eventKind) String() string {
	return [...]string{"arrival", "restart done", "epoch boundary", "fault", "job fault", "tick"}[k]
}

type event struct {
	time    float64
	kind    eventKind
	seq     uint64 // insertion order breaks remaining ties
	job     int    // index into the engine's jobs; -1 for ticks
	version int    // job version when scheduled; stale events are dropped
}

// Before is the order of events: time, then kind, then insertion order.
func (a *event) Before(b *event) bool {
	if a.time != b.time {
		return a.time < b.time
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}

// scheduler is the event queue: a binary heap of the events scheduled as
// the run goes, merged with the workload's arrivals, which are known up
// front and kept sorted apart (so the heap holds only the active jobs'
// events and the next tick). The order of events is total (insertion
// order breaks ties), so pops come in the same order however the events
// are stored.
type scheduler struct {
	q   []event
	seq uint64
	// arrivals are the up-front arrivals, sorted; next is the first not
	// yet popped.
	arrivals []event
	next     int
}

// arrive adds an up-front arrival; call sortArrivals once all are added,
// before the first pop.
func (s *scheduler) arrive(e event) {
	e.seq = s.seq
	s.seq++
	s.arrivals = append(s.arrivals, e)
}

// sortArrivals puts the up-front arrivals in event order.
func (s *scheduler) sortArrivals() {
	sort.SliceStable(s.arrivals, func(a, b int) bool { return s.arrivals[a].Before(&s.arrivals[b]) })
}

func (s *scheduler) push(e event) {
	e.seq = s.seq
	s.seq++
	s.q = minheap.Push(s.q, e)
}

func (s *scheduler) pop() (event, bool) {
	if s.next < len(s.arrivals) && (len(s.q) == 0 || s.arrivals[s.next].Before(&s.q[0])) {
		e := s.arrivals[s.next]
		s.next++
		return e, true
	}
	if len(s.q) == 0 {
		return event{}, false
	}
	var top event
	top, s.q = minheap.Pop(s.q)
	return top, true
}
