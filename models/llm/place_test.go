package llm

import (
	"math/rand/v2"
	"testing"
)

// bruteMinRacks is the fewest racks whose usable GPUs (free rounded down
// to unit) hold gpus, by trying every subset of racks; -1 if none does.
func bruteMinRacks(free []int, topo Topology, gpus, unit int) int {
	rackOf := map[int]int{}
	var racks []int
	for n := range free {
		r := topo.Rack(n)
		if _, ok := rackOf[r]; !ok {
			rackOf[r] = len(racks)
			racks = append(racks, r)
		}
	}
	best := -1
	for set := 0; set < 1<<len(racks); set++ {
		sum, k := 0, 0
		for i := range racks {
			if set>>i&1 == 1 {
				k++
			}
		}
		for n, f := range free {
			if set>>rackOf[topo.Rack(n)]&1 == 1 {
				sum += f / unit * unit
			}
		}
		if sum >= gpus && (best < 0 || k < best) {
			best = k
		}
	}
	return best
}

// bruteMinNodes is the fewest nodes, among those whose rack allowed says
// yes, whose usable GPUs hold gpus, by trying every subset of nodes.
func bruteMinNodes(free []int, gpus, unit int, allowed func(n int) bool) int {
	best := -1
	for set := 0; set < 1<<len(free); set++ {
		sum, k, ok := 0, 0, true
		for n, f := range free {
			if set>>n&1 == 1 {
				ok = ok && allowed(n)
				sum += f / unit * unit
				k++
			}
		}
		if ok && sum >= gpus && (best < 0 || k < best) {
			best = k
		}
	}
	return best
}

// checkAllocation reports the first way a is not a placement of gpus GPUs
// in multiples of unit within free.
func checkAllocation(t *testing.T, free []int, a Allocation, gpus, unit int) {
	t.Helper()
	seen := map[int]bool{}
	sum := 0
	for i, s := range a {
		if s.Node < 0 || s.Node >= len(free) || seen[s.Node] || s.GPUs < 1 || s.GPUs > free[s.Node] || s.GPUs%unit != 0 {
			t.Fatalf("free %v, %d GPUs in units of %d: share %+v of %v is not a whole number of units within the node's free GPUs", free, gpus, unit, s, a)
		}
		if i > 0 && a[i-1].Node >= s.Node {
			t.Fatalf("allocation %v not in node order", a)
		}
		seen[s.Node] = true
		sum += s.GPUs
	}
	if sum != gpus {
		t.Fatalf("free %v: %v holds %d GPUs, want %d", free, a, sum, gpus)
	}
}

// TestPlaceExhaustive: on every cluster of four nodes with free GPUs from
// a set of counts, one tier or racks of two, every unit and job size,
// Place fits exactly when the usable GPUs suffice, never splits a unit,
// uses the fewest racks possible, the fewest nodes possible within the
// racks it uses, and, when one rack suffices (always on one tier), the
// fewest nodes of any one-rack placement.
func TestPlaceExhaustive(t *testing.T) {
	counts := []int{0, 1, 2, 3, 4, 6, 8}
	topos := []Topology{{}, {RackNodes: 2, Oversubscription: 3}}
	free := make([]int, 4)
	checked := 0
	var rec func(i int)
	rec = func(i int) {
		if i < len(free) {
			for _, c := range counts {
				free[i] = c
				rec(i + 1)
			}
			return
		}
		for _, topo := range topos {
			for _, unit := range []int{1, 2, 4, 8} {
				for gpus := unit; gpus <= 32; gpus += unit {
					a, err := Place(free, topo, gpus, unit)
					minRacks := bruteMinRacks(free, topo, gpus, unit)
					if (err == nil) != (minRacks >= 0) {
						t.Fatalf("free %v, %v, %d GPUs in units of %d: error %v, but a placement exists: %v", free, topo, gpus, unit, err, minRacks >= 0)
					}
					if err != nil {
						continue
					}
					checked++
					checkAllocation(t, free, a, gpus, unit)
					used := map[int]bool{}
					for _, s := range a {
						used[topo.Rack(s.Node)] = true
					}
					if len(used) != minRacks {
						t.Fatalf("free %v, %v, %d GPUs in units of %d: %v uses %d racks, %d suffice", free, topo, gpus, unit, a, len(used), minRacks)
					}
					within := bruteMinNodes(free, gpus, unit, func(n int) bool { return used[topo.Rack(n)] })
					if len(a) != within {
						t.Fatalf("free %v, %v, %d GPUs in units of %d: %v uses %d nodes, %d suffice in its racks", free, topo, gpus, unit, a, len(a), within)
					}
					if minRacks == 1 {
						for r := range 2 {
							k := bruteMinNodes(free, gpus, unit, func(n int) bool { return topo.Rack(n) == r })
							if k >= 0 && k < len(a) {
								t.Fatalf("free %v, %v, %d GPUs in units of %d: %v uses %d nodes, rack %d needs %d", free, topo, gpus, unit, a, len(a), r, k)
							}
						}
					}
				}
			}
		}
	}
	rec(0)
	if checked < 10000 {
		t.Fatalf("only %d placements checked", checked)
	}
}

// TestPlaceBestFit: the rest of a job goes to the smallest hole that holds
// it, leaving the large one whole.
func TestPlaceBestFit(t *testing.T) {
	a, err := Place([]int{8, 8, 3, 8}, Topology{}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Allocation{{Node: 0, GPUs: 8}, {Node: 2, GPUs: 2}}); a.String() != want.String() {
		t.Errorf("placed %v, want %v", a, want)
	}
	// Racks of two: 12 GPUs fit in rack 1 (nodes 2, 3: 4 + 8), not in
	// rack 0 (8 + 2 in units of 2, one GPU of node 1 unusable).
	a, err = Place([]int{8, 3, 4, 8}, Topology{RackNodes: 2, Oversubscription: 2}, 12, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Allocation{{Node: 2, GPUs: 4}, {Node: 3, GPUs: 8}}); a.String() != want.String() {
		t.Errorf("placed %v, want %v", a, want)
	}
}

func TestPlaceRejects(t *testing.T) {
	for _, c := range []struct {
		free        []int
		topo        Topology
		gpus, unit  int
		description string
	}{
		{[]int{8, 8}, Topology{}, 17, 1, "more GPUs than free"},
		{[]int{7, 7}, Topology{}, 16, 8, "units of 8 on nodes of 7 free"},
		{[]int{8, 8}, Topology{}, 12, 8, "a job not a multiple of its unit"},
		{[]int{8, 8}, Topology{}, 8, 0, "unit 0"},
		{[]int{8, 8}, Topology{}, 0, 1, "no GPUs"},
		{[]int{8, -1}, Topology{}, 8, 1, "negative free GPUs"},
		{[]int{8, 8}, Topology{RackNodes: 1}, 8, 1, "racks without an oversubscription"},
		{[]int{8, 8}, Topology{RackNodes: 1, Oversubscription: 0.5}, 8, 1, "oversubscription below 1"},
	} {
		if a, err := Place(c.free, c.topo, c.gpus, c.unit); err == nil {
			t.Errorf("%s: placed %v", c.description, a)
		}
	}
}

// TestPlaceNeverSplitsTensorGroups: on random clusters and jobs, the
// allocation Place returns for a tensor degree t, planned by Plan, runs
// tensor groups of at most t GPUs each on one node: every rank of every
// tensor group maps to a single node, and each node runs as many ranks as
// its share.
func TestPlaceNeverSplitsTensorGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 5))
	g, _ := GPUType("h100")
	cal := Fitted()
	model := Transformer{Name: "1.3b", Params: 1.3e9, Layers: 24, Hidden: 2048, Heads: 16, Vocab: 50368, SeqLen: 2048}
	sp := Space{Stack: StackLLMFoundry, Flash: true, MaxMicroBatch: 4}
	placed := 0
	for trial := range 300 {
		free := make([]int, 1+rng.IntN(12))
		for n := range free {
			free[n] = rng.IntN(9)
		}
		topo := Topology{}
		if rng.IntN(2) == 0 {
			topo = Topology{RackNodes: 1 + rng.IntN(4), Oversubscription: 1 + 3*rng.Float64()}
		}
		unit := 1 << rng.IntN(4)
		units := 0
		for _, f := range free {
			units += f / unit
		}
		if units == 0 {
			continue
		}
		gpus := unit * (1 + rng.IntN(units))
		a, err := Place(free, topo, gpus, unit)
		if err != nil {
			t.Fatalf("trial %d: %d GPUs in units of %d on %v: %v", trial, gpus, unit, free, err)
		}
		placed++
		checkAllocation(t, free, a, gpus, unit)
		best, err := cal.Plan(model, g, a, topo, 64*gpus/unit, sp)
		if err != nil {
			t.Fatalf("trial %d: plan on %v: %v", trial, a, err)
		}
		for _, sh := range a {
			if sh.GPUs%best.Par.TP != 0 {
				t.Fatalf("trial %d: tensor degree %d planned on %v", trial, best.Par.TP, a)
			}
		}
		for _, l := range layouts {
			checkLayout(t, a, topo, best.Par, l)
		}
	}
	if placed < 150 {
		t.Fatalf("only %d of 300 random jobs placed", placed)
	}
}

// checkLayout checks the rank map of c on a under l: every tensor group on
// one node, every node running its share.
func checkLayout(t *testing.T, a Allocation, topo Topology, c Parallelism, l Layout) {
	t.Helper()
	nodes, err := l.Nodes(a, topo, c)
	if err != nil {
		t.Fatalf("%v on %v (%s): %v", c, a, l, err)
	}
	for r := 0; r < len(nodes); r += c.TP {
		for i := 1; i < c.TP; i++ {
			if nodes[r+i] != nodes[r] {
				t.Fatalf("%+v on %v (%s): tensor group of ranks %d–%d spans nodes %d and %d", c, a, l, r, r+c.TP-1, nodes[r], nodes[r+i])
			}
		}
	}
	per := map[int]int{}
	for _, n := range nodes {
		per[n]++
	}
	for _, s := range a {
		if per[s.Node] != s.GPUs {
			t.Fatalf("%+v on %v (%s): node %d runs %d ranks, its share is %d", c, a, l, s.Node, per[s.Node], s.GPUs)
		}
	}
}
