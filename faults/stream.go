package faults

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/polluxsim/polluxsim/internal/minheap"
)

// Transition is what changes at one moment: the nodes that go down (they
// were up) and those that come back (no fault holds them down any more).
// One of the two is empty.
type Transition struct {
	Time float64
	Down []int
	Up   []int
}

// streamKey separates the fault stream from every other use of a run's
// seed ("faults" in ASCII).
const streamKey = 0x6661756c7473

// item is a pending change of the stream: a source failing or a fault
// being repaired.
type item struct {
	time   float64
	seq    uint64
	repair bool
	src    int   // index into sources; -1 for a replayed event
	nodes  []int // a repair's nodes
}

// Before orders items by time, then by when they were scheduled.
func (a *item) Before(b *item) bool {
	if a.time != b.time {
		return a.time < b.time
	}
	return a.seq < b.seq
}

// source fails at rate (per second), taking nodes down: one node, or
// every node of failure domain domain (-1 for a node).
type source struct {
	rate   float64
	nodes  []int
	domain int
	rng    *rand.Rand
}

// Stream yields a model's transitions on one cluster in time order. Each
// node and each failure domain is an alternating process: up for an
// exponential time of its rate, down for a repair time, and so on; a node
// is down while any fault (its own, its domain's, a replayed one) holds
// it. Each source draws from its own random stream, seeded from the run's
// seed and the source's number, so what happens to one node does not
// depend on how far the others have been drawn.
type Stream struct {
	m       *Model
	sources []source
	q       []item
	seq     uint64
	down    []int // faults holding each node down
	events  []Event
	// drawn, when set, records each fault drawn from a source (Generate).
	drawn *[]Event
}

// NewStream returns the stream of m on a cluster whose node n has GPU
// type types[n], drawn from seed. A replayed event naming a node or
// domain outside the cluster is an error.
func NewStream(m *Model, types []string, seed uint64) (*Stream, error) {
	nodes := len(types)
	if err := m.checkEvents(nodes); err != nil {
		return nil, err
	}
	s := &Stream{m: m, down: make([]int, nodes), events: m.Events}
	rng := func(kind, i uint64) *rand.Rand {
		return rand.New(rand.NewPCG(seed^streamKey, kind<<40|i))
	}
	for n, t := range types {
		if r := m.NodeRate(t); r > 0 {
			s.sources = append(s.sources, source{rate: r, nodes: []int{n}, domain: -1, rng: rng(1, uint64(n))})
		}
	}
	if m.DomainSize > 0 && m.DomainRate > 0 {
		for d := 0; d*m.DomainSize < nodes; d++ {
			var ns []int
			for n := d * m.DomainSize; n < min((d+1)*m.DomainSize, nodes); n++ {
				ns = append(ns, n)
			}
			s.sources = append(s.sources, source{rate: m.DomainRate / Day, nodes: ns, domain: d, rng: rng(2, uint64(d))})
		}
	}
	for i := range s.sources {
		s.push(item{time: s.sources[i].rng.ExpFloat64() / s.sources[i].rate, src: i})
	}
	for i := range s.events {
		s.push(item{time: s.events[i].Time, src: -1 - i})
	}
	return s, nil
}

func (s *Stream) push(it item) {
	it.seq = s.seq
	s.seq++
	s.q = minheap.Push(s.q, it)
}

// Next is the time of the next transition (+Inf if none is left).
func (s *Stream) Next() float64 {
	if len(s.q) == 0 {
		return math.Inf(1)
	}
	return s.q[0].time
}

// Pop returns the next change: a fault (nodes going down) or a repair
// (nodes coming back). Either may leave the nodes' state unchanged (a
// fault on nodes already down, a repair of nodes another fault still
// holds): the Transition then has no nodes. Pop on an empty stream
// panics; check Next first.
func (s *Stream) Pop() Transition {
	var it item
	it, s.q = minheap.Pop(s.q)
	tr := Transition{Time: it.time}
	if it.repair {
		for _, n := range it.nodes {
			s.down[n]--
			if s.down[n] == 0 {
				tr.Up = append(tr.Up, n)
			}
		}
		if it.src >= 0 {
			src := &s.sources[it.src]
			s.push(item{time: it.time + src.rng.ExpFloat64()/src.rate, src: it.src})
		}
		return tr
	}
	var nodes []int
	var dur float64
	if it.src >= 0 {
		src := &s.sources[it.src]
		nodes, dur = src.nodes, s.draw(src.rng)
		if s.drawn != nil {
			ev := Event{Time: it.time, Node: -1, Domain: src.domain, Duration: dur}
			if src.domain < 0 {
				ev.Node = src.nodes[0]
			}
			*s.drawn = append(*s.drawn, ev)
		}
	} else {
		ev := s.events[-1-it.src]
		dur = ev.Duration
		if ev.Node >= 0 {
			nodes = []int{ev.Node}
		} else {
			for n := ev.Domain * s.m.DomainSize; n < min((ev.Domain+1)*s.m.DomainSize, len(s.down)); n++ {
				nodes = append(nodes, n)
			}
		}
	}
	for _, n := range nodes {
		s.down[n]++
		if s.down[n] == 1 {
			tr.Down = append(tr.Down, n)
		}
	}
	s.push(item{time: it.time + dur, repair: true, src: it.src, nodes: nodes})
	return tr
}

// draw is one repair time.
func (s *Stream) draw(rng *rand.Rand) float64 {
	d := s.m.Repair
	switch d.Kind {
	case "exp":
		return rng.ExpFloat64() * d.Mean
	case "lognormal":
		mu := math.Log(d.Mean) - d.Sigma*d.Sigma/2
		return math.Exp(mu + d.Sigma*rng.NormFloat64())
	}
	return d.Mean
}

// String describes the stream's sources, for messages.
func (s *Stream) String() string {
	return fmt.Sprintf("%d fault sources, %d replayed events", len(s.sources), len(s.events))
}
