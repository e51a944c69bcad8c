package gavel

import (
	"slices"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// placement=workers places as Gavel's code: larger jobs first from a
// forward-only pointer over the type's GPUs in order, a job keeping last
// round's GPUs only if no larger job took one of them. Allocations worked
// out by hand from gavel.py schedule_jobs_on_workers.
func TestPlaceWorkers(t *testing.T) {
	c := policies.NewCluster(policies.Pool{Type: "t4", Nodes: 4, GPUsPerNode: 4})
	types := []string{"t4"}
	thr := map[string]float64{"t4": 1}
	// A (4 GPUs) ran on node 1; B (8) is new and taken first: it fills
	// nodes 0 and 1, so A loses its GPUs and moves to node 2; C and D (2
	// each) share node 3.
	jobs := []policies.Job{mkJob("A", 4, thr), mkJob("B", 8, thr), mkJob("C", 2, thr), mkJob("D", 2, thr)}
	prev := map[string][]worker{"A": {{1, 0}, {1, 1}, {1, 2}, {1, 3}}}
	pick := []int{0, 0, 0, 0}
	alloc, now := placeWorkers(c, types, jobs, pick, []int{0, 1, 2, 3}, prev)
	want := [][]int{{0, 0, 4, 0}, {4, 4, 0, 0}, {0, 0, 0, 2}, {0, 0, 0, 2}}
	for i := range jobs {
		if !slices.Equal(alloc[i], want[i]) {
			t.Errorf("%s: %v, want %v", jobs[i].Name, alloc[i], want[i])
		}
	}
	if len(now) != 4 || !slices.Equal(now["C"], []worker{{3, 0}, {3, 1}}) {
		t.Errorf("workers %v", now)
	}
	// The default placement keeps A where it was and packs B elsewhere.
	jobs[0].Alloc = []int{0, 4, 0, 0}
	packed := placePacked(c, types, jobs, pick)
	if !slices.Equal(packed[0], []int{0, 4, 0, 0}) || policies.NodesUsed(packed[1]) != 2 || packed[1][1] != 0 {
		t.Errorf("packed: A %v, B %v; want A kept on node 1, B on two other nodes", packed[0], packed[1])
	}

	// Fragmentation: E (6) takes node 0 and half of node 1, so F (4)
	// spans nodes 1 and 2 where packing would give it node 2 alone. Next
	// round, with nothing larger picked, F keeps its GPUs.
	c3 := policies.NewCluster(policies.Pool{Type: "t4", Nodes: 3, GPUsPerNode: 4})
	jobs = []policies.Job{mkJob("F", 4, thr), mkJob("E", 6, thr)}
	alloc, now = placeWorkers(c3, types, jobs, []int{0, 0}, []int{0, 1}, nil)
	if !slices.Equal(alloc[1], []int{4, 2, 0}) || !slices.Equal(alloc[0], []int{0, 2, 2}) {
		t.Errorf("E %v, F %v; want [4 2 0] and [0 2 2]", alloc[1], alloc[0])
	}
	if p := placePacked(c3, types, jobs, []int{0, 0}); policies.NodesUsed(p[0]) != 1 {
		t.Errorf("packed F %v, want one node", p[0])
	}
	alloc, _ = placeWorkers(c3, types, jobs[:1], []int{0}, []int{0}, now)
	if !slices.Equal(alloc[0], []int{0, 2, 2}) {
		t.Errorf("F alone next round: %v, want its GPUs kept [0 2 2]", alloc[0])
	}
	// A job not picked loses its workers.
	if _, now = placeWorkers(c3, types, jobs, []int{-1, 0}, []int{1}, now); now["F"] != nil {
		t.Errorf("unpicked F keeps workers %v", now["F"])
	}
}

// The options reach the policy: placement=workers over a round, ties=type
// orders equal pairs by type.
func TestPlacementOptions(t *testing.T) {
	opt := DefaultOptions()
	opt.Placement = "spread"
	if _, err := New(Throughput, opt); err == nil {
		t.Error("placement=spread accepted")
	}
	opt = DefaultOptions()
	opt.Ties = "random"
	if _, err := New(Throughput, opt); err == nil {
		t.Error("ties=random accepted")
	}
	opt = DefaultOptions()
	opt.Placement = PlaceWorkers
	p := mustNew(t, Throughput, opt)
	c := policies.NewCluster(policies.Pool{Type: "t4", Nodes: 3, GPUsPerNode: 4})
	thr := map[string]float64{"t4": 1}
	jobs := []policies.Job{mkJob("F", 4, thr), mkJob("E", 6, thr)}
	d := p.Schedule(0, c, jobs)
	if !slices.Equal(d.Alloc[1], []int{4, 2, 0}) || !slices.Equal(d.Alloc[0], []int{0, 2, 2}) {
		t.Errorf("placement=workers: E %v, F %v; want [4 2 0] and [0 2 2]", d.Alloc[1], d.Alloc[0])
	}
	// ties: pairs of equal priority and time fraction; job 0 runs on
	// type 1 now. By default its current type comes first, then
	// submission order; by type, type 0's pairs in submission order first.
	cands := []candidate{{i: 0, k: 0, x: .5, prio: 1}, {i: 0, k: 1, x: .5, prio: 1, current: true}, {i: 1, k: 0, x: .5, prio: 1}, {i: 1, k: 1, x: .5, prio: 1}, {i: 2, k: 0, x: .9, prio: 1}}
	for _, tc := range []struct {
		ties string
		want []candidate
	}{
		{TiesCurrent, []candidate{cands[4], cands[1], cands[0], cands[2], cands[3]}},
		{TiesType, []candidate{cands[4], cands[0], cands[2], cands[1], cands[3]}},
	} {
		got := slices.Clone(cands)
		sortCandidates(got, tc.ties)
		if !slices.Equal(got, tc.want) {
			t.Errorf("ties=%s: %v, want %v", tc.ties, got, tc.want)
		}
	}
}
