package elasticflow

import (
	"slices"
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// linearOracle is a job whose remaining run time alone on k GPUs is w/k:
// one remaining step whose time is w over the GPUs held.
type linearOracle struct {
	policies.Oracle // unused methods
	w               float64
}

func (o linearOracle) RemainingIterations(int) float64 { return 1 }
func (o linearOracle) IterTime(placement []int, _ float64, _ int) float64 {
	return o.w / float64(policies.Sum(placement))
}

// job is a job of run time w/k alone, due at deadline (0: best-effort).
func job(name string, w, deadline float64) policies.Job {
	return policies.Job{
		Name: name, App: "app", Deadline: deadline,
		Request: policies.Request{GPUs: 1, Batch: 64},
		Limits:  models.Limits{InitBatch: 64, MaxBatch: 64, MinLocal: 1, MaxLocal: 64},
		Oracle:  linearOracle{w: w},
	}
}

// Admission on one node of 4 GPUs without restart delay, in closed form:
// a job needing 2 GPUs to its deadline fits beside another needing 2, a
// third does not; one due earlier that needs all 4 first would make an
// admitted job late; one that cannot make it even alone is declined; a
// job admitted earlier that is late already runs as fast as it can in its
// place in deadline order, so a newcomer due before it is admitted and one
// due after it, behind its whole remaining run, is not; best-effort jobs
// and, without admission control, every job are admitted.
func TestAdmit(t *testing.T) {
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 4}
	p := New(DefaultOptions(), policies.Env{})
	a := job("a", 400, 200) // 2 GPUs over [0, 200)
	b := job("b", 400, 200)
	cases := []struct {
		name   string
		j      policies.Job
		active []policies.Job
		want   string
	}{
		{"fits beside", b, []policies.Job{a}, ""},
		{"no room left", job("c", 400, 200), []policies.Job{a, b}, DeclineShare},
		{"earlier, pushes an admitted job late", job("d", 400, 100), []policies.Job{job("a4", 800, 200)}, DeclineOthers},
		{"earlier, leaves room", job("d", 200, 100), []policies.Job{a}, ""},
		{"late even alone", job("e", 1000, 100), nil, DeclineShare},
		{"best-effort", job("f", 1e9, 0), []policies.Job{a, b}, ""},
		{"due before an admitted job late already", job("g", 100, 50), []policies.Job{job("late", 1e6, 100)}, ""},
		{"due after an admitted job late already", job("h", 100, 500), []policies.Job{job("late", 1e6, 100)}, DeclineShare},
	}
	for _, tc := range cases {
		if got := p.Admit(0, c, &tc.j, tc.active); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if got := New(Options{Marginal: MarginalGPUTime}, policies.Env{}).Admit(0, c, &tc.j, tc.active); got != "" {
			t.Errorf("%s without admission control: declined (%q)", tc.name, got)
		}
	}
	// The restart delay is kept as a margin: 2 GPUs over 200 s is exactly
	// the work, so with a delay of 1 s the job needs 4.
	q := New(DefaultOptions(), policies.Env{RestartDelay: 1})
	if got := q.Admit(0, c, &b, []policies.Job{job("x", 800, 1000)}); got != "" {
		t.Errorf("with a delay, beside a loose job: %q", got)
	}
	if got := q.Admit(0, c, &b, []policies.Job{a}); got != DeclineShare {
		t.Errorf("with a delay, beside a job holding 2 GPUs: %q, want %q", got, DeclineShare)
	}
}

// A round on 2 nodes of 4: the deadline job gets its minimum share (2),
// the leftover goes first to the jobs without GPUs, then by marginal
// return; buddy placement puts the 4-GPU job on a node of its own.
func TestScheduleRound(t *testing.T) {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	p := New(Options{Admission: true, Marginal: MarginalRunTime}, policies.Env{})
	jobs := []policies.Job{job("due", 400, 200), job("be1", 1000, 0), job("be2", 100, 0)}
	d := p.Schedule(0, c, jobs)
	got := []int{policies.Sum(d.Alloc[0]), policies.Sum(d.Alloc[1]), policies.Sum(d.Alloc[2])}
	// 2 to "due"; 1 each to be1, be2 (zero first); 4 left: be1 saves the
	// most per GPU (1000/1 − 1000/2 = 500 vs due's (200 − 100)/2 = 50 and
	// be2's 50), then 2 → 4 (125 per GPU); 1 left: be2 1 → 2 (due's step
	// needs 2).
	if want := []int{2, 4, 2}; !slices.Equal(got, want) {
		t.Fatalf("GPUs %v, want %v", got, want)
	}
	for i, a := range d.Alloc {
		if !BuddyShape(c, a) || policies.NodesUsed(a) != 1 {
			t.Errorf("job %d on %v: not on one node", i, a)
		}
	}
}

// Buddy allocation, exhaustively over every multiset of 1-, 2-, 4- and
// 8-GPU jobs that fits 3 nodes of 4 GPUs: placed from an empty cluster
// every job fits at once (no start-over), one smaller than a node on one
// node, a larger one on whole nodes, and no node holds more than it has.
func TestPlaceBuddyExhaustive(t *testing.T) {
	c := policies.Cluster{Nodes: 3, GPUsPerNode: 4}
	sizes := []int{8, 4, 2, 1}
	var rec func(i, left int, count []int)
	n := 0
	rec = func(i, left int, count []int) {
		if i == len(sizes) {
			n++
			checkPlace(t, c, count)
			return
		}
		for m := 0; m*sizes[i] <= left; m++ {
			next := slices.Clone(count)
			for r := 0; r < m; r++ {
				next = append(next, sizes[i])
			}
			rec(i+1, left-m*sizes[i], next)
		}
	}
	rec(0, c.TotalGPUs(), nil)
	if n < 50 {
		t.Fatalf("only %d cases", n)
	}
}

func checkPlace(t *testing.T, c policies.Cluster, count []int) {
	t.Helper()
	jobs := make([]policies.Job, len(count))
	alloc, repacked := Place(c, jobs, count)
	if repacked {
		t.Errorf("%v: started over from an empty cluster", count)
	}
	used := make([]int, c.Nodes)
	for i, a := range alloc {
		if policies.Sum(a) != count[i] {
			t.Errorf("%v: job %d got %v", count, i, a)
			continue
		}
		want := 1
		if count[i] > c.GPUsPerNode {
			want = count[i] / c.GPUsPerNode
		}
		if !BuddyShape(c, a) || policies.NodesUsed(a) != want {
			t.Errorf("%v: job %d of %d GPUs on %v", count, i, count[i], a)
		}
		for n, v := range a {
			used[n] += v
		}
	}
	for n, u := range used {
		if u > c.NodeGPUs(n) {
			t.Errorf("%v: node %d holds %d", count, n, u)
		}
	}
}

// A job whose count is unchanged keeps its nodes; when the kept jobs leave
// no whole node for a larger one, placement starts over and everything
// fits.
func TestPlaceKeepsAndRepacks(t *testing.T) {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	jobs := []policies.Job{{Alloc: []int{0, 2}}, {Alloc: []int{1, 0}}, {}}
	alloc, repacked := Place(c, jobs, []int{2, 1, 2})
	if repacked || !slices.Equal(alloc[0], []int{0, 2}) || !slices.Equal(alloc[1], []int{1, 0}) {
		t.Errorf("kept jobs moved: %v (repacked %v)", alloc, repacked)
	}
	if !slices.Equal(alloc[2], []int{0, 2}) { // best fit: the fuller node
		t.Errorf("new 2-GPU job on %v, want the fuller node 1", alloc[2])
	}
	alloc, repacked = Place(c, jobs, []int{2, 1, 4})
	if !repacked || policies.Sum(alloc[2]) != 4 || policies.NodesUsed(alloc[2]) != 1 {
		t.Errorf("4-GPU job beside kept jobs on both nodes: %v (repacked %v), want a start-over", alloc, repacked)
	}
}
