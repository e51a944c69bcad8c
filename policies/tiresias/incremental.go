package tiresias

import (
	"cmp"
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

var _ policies.Incremental = (*Policy)(nil)

// inc is the policy's state when driven by ScheduleIncremental. Each queue is
// kept as one list per requested GPU count (a bucket), in queue order, so that
// the round's scan visits only the jobs it runs: the next job in queue order
// that fits is the earliest head among the buckets whose count still fits
// (Schedule's scan skips a job that does not fit, and the free GPUs only
// shrink, so such a job would never fit later in the scan).
type inc struct {
	byKey   map[int64]*node
	queues  [2]queue
	running []*node // the last decision's running jobs, by key
	next    []*node // scratch: this round's running jobs
	started []*node // scratch: running jobs to place
}

// node is a job's entry: its policy state and its links in its bucket.
type node struct {
	key       int64
	job       *policies.Job
	want      int
	executed  float64
	lastCheck float64
	running   bool
	demoted   bool
	pos       int64 // place in its queue (increasing along it)
	b         *bucket
	prev, nxt *node
}

// queue is one priority queue as buckets by GPU count.
type queue struct {
	buckets map[int]*bucket
	wants   []int // the bucket counts, sorted
	pos     int64 // next position
}

// bucket holds the queue's jobs of one GPU count, in queue order.
type bucket struct {
	want       int
	head, tail *node
	cur        *node // scan cursor
}

func (q *queue) push(n *node) {
	if q.buckets == nil {
		q.buckets = map[int]*bucket{}
	}
	b := q.buckets[n.want]
	if b == nil {
		b = &bucket{want: n.want}
		q.buckets[n.want] = b
		i, _ := slices.BinarySearch(q.wants, n.want)
		q.wants = slices.Insert(q.wants, i, n.want)
	}
	n.pos, q.pos = q.pos, q.pos+1
	n.b, n.prev, n.nxt = b, b.tail, nil
	if b.tail != nil {
		b.tail.nxt = n
	} else {
		b.head = n
	}
	b.tail = n
}

func unlink(n *node) {
	b := n.b
	if n.prev != nil {
		n.prev.nxt = n.nxt
	} else {
		b.head = n.nxt
	}
	if n.nxt != nil {
		n.nxt.prev = n.prev
	} else {
		b.tail = n.prev
	}
	n.b, n.prev, n.nxt = nil, nil, nil
}

// scan runs, in queue order, every job of q that fits in left GPUs,
// appending them to run; it returns the GPUs left.
func (q *queue) scan(left int, run []*node) (int, []*node) {
	for _, w := range q.wants {
		q.buckets[w].cur = q.buckets[w].head
	}
	for left > 0 {
		var best *bucket
		for _, w := range q.wants {
			if w > left {
				break
			}
			if b := q.buckets[w]; b.cur != nil && (best == nil || b.cur.pos < best.cur.pos) {
				best = b
			}
		}
		if best == nil {
			break
		}
		run = append(run, best.cur)
		left -= best.want
		best.cur = best.cur.nxt
	}
	return left, run
}

// ScheduleIncremental implements policies.Incremental: it makes Schedule's
// decision at a cost of the jobs that run (times the distinct GPU counts) plus
// those added, removed or demoted.
func (p *Policy) ScheduleIncremental(now float64, c policies.Cluster, r policies.IncrementalRound) []policies.Change {
	s := &p.inc
	if s.byKey == nil {
		s.byKey = map[int64]*node{}
	}
	var changes []policies.Change
	for _, k := range r.Removed {
		if n := s.byKey[k]; n != nil {
			unlink(n)
			n.running = false
			delete(s.byKey, k)
		}
	}
	// Account executed time and demote, in key order (Schedule's input
	// order), among the jobs the last round ran and that are still here.
	live := s.running[:0]
	for _, n := range s.running {
		if n.running {
			live = append(live, n)
		}
	}
	clear(s.running[len(live):])
	s.running = live
	for _, n := range s.running {
		n.executed += now - n.lastCheck
		n.lastCheck = now
		if float64(n.want)*n.executed >= p.threshold && !n.demoted {
			n.demoted = true
			unlink(n)
			s.queues[1].push(n)
		}
	}
	// New jobs enter the high-priority queue in key order, after the
	// demotions (Schedule places them in queue 0, demotions go to queue 1:
	// the two do not interact).
	for _, t := range r.Added {
		n := &node{key: t.Key, job: t.Job, want: t.Job.Request.GPUs, lastCheck: now}
		s.byKey[t.Key] = n
		s.queues[0].push(n)
		if policies.Sum(t.Job.Alloc) > 0 {
			// Placed before the policy knew it: it may lose its GPUs
			// like a job the last round ran (having run for no time).
			s.running = append(s.running, n)
		}
	}
	// Decide who runs.
	left := c.TotalGPUs()
	run := s.next[:0]
	left, run = s.queues[0].scan(left, run)
	_, run = s.queues[1].scan(left, run)
	for _, n := range s.running {
		n.running = false
	}
	kept := make([][]int, 0, len(run))
	s.started = s.started[:0]
	for _, n := range run {
		if !n.running {
			n.lastCheck = now // Schedule sets it every round
		}
		n.running = true
		if policies.Sum(n.job.Alloc) > 0 {
			kept = append(kept, n.job.Alloc)
		} else {
			s.started = append(s.started, n)
		}
	}
	// The last round's running jobs that no longer run lose their GPUs.
	for _, n := range s.running {
		if !n.running && policies.Sum(n.job.Alloc) > 0 {
			changes = append(changes, policies.Change{Key: n.key})
		}
	}
	// Place the started jobs, in queue order, on the most free nodes.
	free := policies.FreeGPUs(c, kept)
	for _, n := range s.started {
		if a := policies.PlaceJob(c, free, n.want, n.job); a != nil {
			changes = append(changes, policies.Change{Key: n.key, Alloc: a})
		}
	}
	slices.SortFunc(run, func(a, b *node) int { return cmp.Compare(a.key, b.key) })
	s.next, s.running = s.running[:0], run
	return changes
}
