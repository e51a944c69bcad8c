package llm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// wholeNodes is an allocation of k whole nodes of size per, nodes 0..k−1.
func wholeNodes(k, per int) Allocation {
	a := make(Allocation, k)
	for i := range a {
		a[i] = NodeShare{Node: i, GPUs: per}
	}
	return a
}

// TestPlacedStepIsStepOnWholeNodes: with replicas packed into whole nodes
// of one rack, PlacedStep is Step, bit for bit, for every configuration
// whose replica divides or fills whole nodes (the layout Step assumes).
func TestPlacedStepIsStepOnWholeNodes(t *testing.T) {
	g, _ := GPUType("h100")
	cal := Fitted()
	n := 0
	for _, nodes := range []int{1, 2, 4, 8} {
		a := wholeNodes(nodes, g.PerNode)
		gpus := a.GPUs()
		for tp := 1; tp <= 8; tp *= 2 {
			for pp := 1; pp <= 80 && tp*pp <= gpus; pp++ {
				if gpus%(tp*pp) != 0 || 80%pp != 0 || (g.PerNode%(tp*pp) != 0 && (tp*pp)%g.PerNode != 0) {
					continue
				}
				for _, sh := range []Sharding{Replicated, FullShard} {
					c := Parallelism{TP: tp, PP: pp, DP: gpus / (tp * pp), MicroBatch: 1, MicroBatches: 8, Sharding: sh, FlashAttention: true}
					job := Job{Model: llama70B, Par: c, GPU: g, Stack: StackLLMFoundry}
					want, err := cal.Step(job)
					if err != nil {
						t.Fatal(err)
					}
					got, err := cal.PlacedStep(job, a, Topology{RackNodes: nodes, Oversubscription: 4}, ReplicasInNodes)
					if err != nil {
						t.Fatal(err)
					}
					if got != want {
						t.Errorf("%+v on %d nodes: placed %+v, Step %+v", c, nodes, got, want)
					}
					n++
				}
			}
		}
	}
	if n < 40 {
		t.Fatalf("only %d configurations compared", n)
	}
}

// TestCrossRackClosedForm: a data-parallel ring over two nodes of
// different racks runs its bytes at 1/O of the speed it has within a
// rack, so the data-parallel time grows by exactly (O − 1) times the
// ring's term (and by the factor O itself when the latency α is zero),
// for every sharding; compute and tensor traffic are unchanged.
func TestCrossRackClosedForm(t *testing.T) {
	g, _ := GPUType("h100")
	m := Transformer{Name: "7b", Params: 6.66e9, Layers: 32, Hidden: 4096, Heads: 32, Vocab: 50368, SeqLen: 2048}
	a := Allocation{{Node: 0, GPUs: 8}, {Node: 1, GPUs: 8}}
	// volume is the ring all-reduces' worth of each sharding per step.
	volume := map[Sharding]float64{Replicated: 1, ShardOptimizer: 1, ShardGradOp: 4, FullShard: 6}
	for _, alpha := range []float64{0, Fitted().Latency} {
		cal := Fitted()
		cal.Latency = alpha
		for _, o := range []float64{1, 2, 4, 7.5} {
			for _, sh := range []Sharding{Replicated, ShardOptimizer, ShardGradOp, FullShard} {
				c := Parallelism{TP: 1, PP: 1, DP: 16, MicroBatch: 2, MicroBatches: 4, Sharding: sh, FlashAttention: true}
				job := Job{Model: m, Par: c, GPU: g, Stack: StackLLMFoundry}
				in, err := cal.PlacedStep(job, a, Topology{RackNodes: 2, Oversubscription: o}, ReplicasInNodes)
				if err != nil {
					t.Fatal(err)
				}
				across, err := cal.PlacedStep(job, a, Topology{RackNodes: 1, Oversubscription: o}, ReplicasInNodes)
				if err != nil {
					t.Fatal(err)
				}
				// 8 members of the ring per node drive 8 NICs: 8·Network
				// within a rack (under NVLink), 8·Network/O across.
				ring := RingAllReduce(16, 2*m.Params, 8*g.Network)
				if want := (o - 1) * volume[sh] * ring; math.Abs(across.DataComm-in.DataComm-want) > 1e-9*want+1e-15 {
					t.Errorf("α=%g O=%g %s: data-parallel time grows by %g s across racks, want (O−1)·%g·ring = %g", alpha, o, sh, across.DataComm-in.DataComm, volume[sh], want)
				}
				if alpha == 0 && math.Abs(across.DataComm/in.DataComm-o) > 1e-12*o {
					t.Errorf("α=0 O=%g %s: slowdown %g, want O", o, sh, across.DataComm/in.DataComm)
				}
				if across.Compute != in.Compute || across.TensorComm != in.TensorComm || across.Time < in.Time {
					t.Errorf("O=%g %s: crossing racks changed compute or tensor traffic, or sped the step", o, sh)
				}
			}
		}
	}
}

// TestInsideOneNode: a job on one node (or whose rings stay in nodes)
// all-reduces at NVLink with no latency; Plan prefers stages across nodes
// when that keeps every ring inside a node.
func TestInsideOneNode(t *testing.T) {
	g, _ := GPUType("h100")
	cal := Fitted()
	m := Transformer{Name: "7b", Params: 6.66e9, Layers: 32, Hidden: 4096, Heads: 32, Vocab: 50368, SeqLen: 2048}
	// t=1, p=2, d=8 on two nodes: stage-major puts each stage's eight
	// replicas on one node.
	c := Parallelism{TP: 1, PP: 2, DP: 8, MicroBatch: 2, MicroBatches: 8, Sharding: Replicated, FlashAttention: true}
	job := Job{Model: m, Par: c, GPU: g, Stack: StackLLMFoundry}
	a := wholeNodes(2, 8)
	st, err := cal.PlacedStep(job, a, Topology{}, StagesAcrossNodes)
	if err != nil {
		t.Fatal(err)
	}
	if want := RingAllReduce(8, 2*m.Params/2, g.NVLink); math.Abs(st.DataComm-want) > 1e-12*want {
		t.Errorf("rings inside nodes: %g s, want %g (NVLink, no latency)", st.DataComm, want)
	}
	rep, _ := cal.PlacedStep(job, a, Topology{}, ReplicasInNodes)
	if !(rep.DataComm > st.DataComm) {
		t.Errorf("replicas in nodes %g s not slower than stages across nodes %g s", rep.DataComm, st.DataComm)
	}
}

// TestSpreadNeverFaster: splitting a node's share of an allocation over two
// nodes of the same rack never speeds the same configuration up (in the
// faster of the two layouts, as Plan chooses), on random allocations,
// configurations and topologies; and whole nodes beat half nodes.
func TestSpreadNeverFaster(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 50))
	g, _ := GPUType("h100")
	cal := Fitted()
	m := Transformer{Name: "1.3b", Params: 1.3e9, Layers: 24, Hidden: 2048, Heads: 16, Vocab: 50368, SeqLen: 2048}
	best := func(job Job, a Allocation, topo Topology) float64 {
		tm := math.Inf(1)
		for _, l := range layouts {
			st, err := cal.PlacedStep(job, a, topo, l)
			if err != nil {
				t.Fatalf("%+v on %v: %v", job.Par, a, err)
			}
			tm = math.Min(tm, st.Time)
		}
		return tm
	}
	compared := 0
	for range 3000 {
		tp := 1 << rng.IntN(3)
		k := 1 + rng.IntN(6)
		topo := Topology{}
		if rng.IntN(2) == 0 {
			topo = Topology{RackNodes: 2 + rng.IntN(3), Oversubscription: 1 + 3*rng.Float64()}
		}
		var a Allocation
		for i := range k {
			a = append(a, NodeShare{Node: 2 * i, GPUs: tp * (1 + rng.IntN(8/tp))})
		}
		// Split a share of at least two tensor groups over its node and
		// the free node beside it (same rack when racks are even-sized).
		i := rng.IntN(k)
		if a[i].GPUs < 2*tp || topo.Rack(a[i].Node) != topo.Rack(a[i].Node+1) {
			continue
		}
		part := tp * (1 + rng.IntN(a[i].GPUs/tp-1))
		b := append(Allocation(nil), a...)
		b[i].GPUs -= part
		b = append(b, NodeShare{Node: a[i].Node + 1, GPUs: part})
		gpus := a.GPUs()
		var pps []int
		for pp := 1; pp <= 24 && tp*pp <= gpus; pp++ {
			if gpus%(tp*pp) == 0 && 24%pp == 0 {
				pps = append(pps, pp)
			}
		}
		pp := pps[rng.IntN(len(pps))]
		c := Parallelism{TP: tp, PP: pp, DP: gpus / (tp * pp), MicroBatch: 1, MicroBatches: 1 + rng.IntN(8),
			Sharding: Sharding(rng.IntN(4)), Recompute: rng.IntN(2) == 0, FlashAttention: true}
		if c.DP == 1 {
			c.Sharding = Replicated
		}
		job := Job{Model: m, Par: c, GPU: g, Stack: StackLLMFoundry}
		if ta, tb := best(job, a, topo), best(job, b, topo); tb < ta {
			t.Fatalf("%+v: %v takes %g s, spread to %v %g s (faster)", c, a, ta, b, tb)
		}
		compared++
	}
	if compared < 500 {
		t.Fatalf("only %d splits compared", compared)
	}
	c := Parallelism{TP: 1, PP: 1, DP: 16, MicroBatch: 4, MicroBatches: 2, Sharding: FullShard, FlashAttention: true}
	job := Job{Model: m, Par: c, GPU: g, Stack: StackLLMFoundry}
	if whole, halves := best(job, wholeNodes(2, 8), Topology{}), best(job, wholeNodes(4, 4), Topology{}); !(halves > whole) {
		t.Errorf("16 GPUs on four half nodes %g s, on two whole nodes %g s: want slower", halves, whole)
	}
}

// TestPlan70B: a 70B model on eight whole H100 nodes: Plan's choice fits,
// keeps tensor groups in nodes, is no slower than any configuration
// Configurations lists (timed on the same allocation), and a rack split
// with an oversubscribed spine never makes it faster.
func TestPlan70B(t *testing.T) {
	g, _ := GPUType("h100")
	cal := Fitted()
	sp := Space{Stack: StackLLMFoundry, Flash: true, MaxMicroBatch: 2}
	a := wholeNodes(8, 8)
	one := Topology{}
	best, err := cal.Plan(llama70B, g, a, one, 256, sp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CheckMemory(llama70B, best.Par, g); err != nil || best.Par.GPUs() != 64 || best.Par.GlobalBatch() != 256 {
		t.Fatalf("plan %+v: %v", best.Par, err)
	}
	checkLayout(t, a, one, best.Par, best.Layout)
	cs, err := cal.Configurations(llama70B, g, 64, 256, sp)
	if err != nil || len(cs) == 0 {
		t.Fatal(len(cs), err)
	}
	for _, c := range cs {
		for _, l := range layouts {
			st, err := cal.PlacedStep(Job{Model: llama70B, Par: c.Par, GPU: g, Stack: sp.Stack}, a, one, l)
			if err != nil {
				t.Fatal(err)
			}
			if st.Time < best.Step.Time {
				t.Fatalf("%+v in %s takes %g s, the plan %+v %g s", c.Par, l, st.Time, best.Par, best.Step.Time)
			}
		}
	}
	split, err := cal.Plan(llama70B, g, a, Topology{RackNodes: 4, Oversubscription: 4}, 256, sp)
	if err != nil {
		t.Fatal(err)
	}
	if split.Step.Time < best.Step.Time {
		t.Errorf("across two racks %g s, in one %g s", split.Step.Time, best.Step.Time)
	}
	// On an allocation of nodes of 2 GPUs a tensor degree above 2 would
	// split a group: Plan never picks one.
	small := Transformer{Name: "1.3b", Params: 1.3e9, Layers: 24, Hidden: 2048, Heads: 16, Vocab: 50368, SeqLen: 2048}
	p, err := cal.Plan(small, g, Allocation{{0, 2}, {3, 2}, {5, 2}, {6, 2}}, one, 64, sp)
	if err != nil || p.Par.TP > 2 {
		t.Errorf("plan on nodes of 2 GPUs: %+v, %v", p.Par, err)
	}
}

func TestPlacementRejects(t *testing.T) {
	g, _ := GPUType("h100")
	cal := Fitted()
	sp := Space{Stack: StackLLMFoundry, Flash: true}
	c := Parallelism{TP: 4, PP: 1, DP: 3, MicroBatch: 1, MicroBatches: 1, FlashAttention: true}
	job := Job{Model: llama70B, Par: c, GPU: g, Stack: sp.Stack}
	for _, x := range []struct {
		a           Allocation
		topo        Topology
		description string
	}{
		{nil, Topology{}, "no nodes"},
		{Allocation{{0, 8}, {1, 4}, {1, 0}}, Topology{}, "a share of 0"},
		{Allocation{{0, 8}, {0, 4}}, Topology{}, "a node twice"},
		{Allocation{{0, 12}}, Topology{}, "more GPUs than a node has"},
		{Allocation{{-1, 8}, {1, 4}}, Topology{}, "a negative node"},
		{Allocation{{0, 8}, {1, 4}}, Topology{RackNodes: 2}, "racks without an oversubscription"},
		{Allocation{{0, 8}, {1, 4}}, Topology{RackNodes: -1}, "negative rack size"},
		{Allocation{{0, 6}, {1, 6}}, Topology{}, "tensor degree 4 on nodes of 6"},
		{Allocation{{0, 8}}, Topology{}, "8 GPUs for a 12-GPU configuration"},
	} {
		if st, err := cal.PlacedStep(job, x.a, x.topo, ReplicasInNodes); err == nil {
			t.Errorf("PlacedStep, %s: accepted (%g s)", x.description, st.Time)
		}
	}
	if _, err := cal.PlacedStep(job, Allocation{{0, 8}, {1, 4}}, Topology{}, Layout(7)); err == nil {
		t.Error("an unknown layout accepted")
	}
	if _, err := cal.Plan(llama70B, g, Allocation{{0, 8}}, Topology{}, 64, sp); err == nil {
		t.Error("Plan: 70B on one node accepted")
	}
	if _, err := cal.Plan(llama70B, g, Allocation{{0, 9}}, Topology{}, 64, sp); err == nil {
		t.Error("Plan: 9 GPUs on an 8-GPU node accepted")
	}
}

// TestLayoutsExhaustive: on every allocation of one to three nodes with 1
// to 8 GPUs each, for every tensor degree, pipeline degree and layout,
// Layout.Nodes keeps each tensor group on one node and gives each node its
// share when the tensor degree divides every share, and refuses otherwise.
func TestLayoutsExhaustive(t *testing.T) {
	topo := Topology{RackNodes: 2, Oversubscription: 2}
	checked, refused := 0, 0
	var shares []int
	var rec func()
	rec = func() {
		if len(shares) > 0 {
			a := AllocationOf(append([]int{0}, shares...)) // nodes 1..k, racks 0, 1
			gpus := a.GPUs()
			for tp := 1; tp <= 8; tp *= 2 {
				divides := true
				for _, s := range shares {
					divides = divides && s%tp == 0
				}
				for pp := 1; tp*pp <= gpus; pp++ {
					if gpus%(tp*pp) != 0 {
						continue
					}
					c := Parallelism{TP: tp, PP: pp, DP: gpus / (tp * pp), MicroBatch: 1, MicroBatches: 1}
					for _, l := range layouts {
						if !divides {
							if _, err := l.Nodes(a, topo, c); err == nil {
								t.Fatalf("%+v on %v (%s): a tensor group across nodes accepted", c, a, l)
							}
							refused++
							continue
						}
						checkLayout(t, a, topo, c, l)
						checked++
					}
				}
			}
		}
		if len(shares) == 3 {
			return
		}
		for s := 1; s <= 8; s++ {
			shares = append(shares, s)
			rec()
			shares = shares[:len(shares)-1]
		}
	}
	rec()
	if checked < 1000 || refused < 1000 {
		t.Fatalf("only %d layouts checked and %d refused", checked, refused)
	}
}

func TestAllocationPerNode(t *testing.T) {
	v := []int{0, 3, 0, 8, 1}
	a := AllocationOf(v)
	if a.String() != "[1:3 3:8 4:1]" || a.GPUs() != 12 {
		t.Fatalf("AllocationOf(%v) = %v (%d GPUs)", v, a, a.GPUs())
	}
	if got := a.PerNode(len(v)); fmt.Sprint(got) != fmt.Sprint(v) {
		t.Errorf("PerNode: %v, want %v", got, v)
	}
	if got := a.PerNode(4); fmt.Sprint(got) != "[0 3 0 8]" {
		t.Errorf("PerNode(4): %v, want the share on node 4 left out", got)
	}
}

// TestLayoutNodesRejects: Layout.Nodes, exported, refuses what it cannot
// lay out instead of indexing out of range.
func TestLayoutNodesRejects(t *testing.T) {
	for _, x := range []struct {
		a Allocation
		c Parallelism
	}{
		{Allocation{{0, 4}, {1, -2}}, Parallelism{TP: 1, PP: 1, DP: 2}},
		{Allocation{{0, -2}}, Parallelism{TP: 1, PP: 1, DP: -2}},
		{Allocation{{0, 0}}, Parallelism{TP: 1, PP: 0, DP: 0}},
		{nil, Parallelism{TP: 0, PP: 0, DP: 0}},
		{Allocation{{0, 8}}, Parallelism{TP: 0, PP: 8, DP: 1}},
	} {
		for _, l := range layouts {
			if nodes, err := l.Nodes(x.a, Topology{}, x.c); err == nil {
				t.Errorf("%+v on %v (%s): accepted, %v", x.c, x.a, l, nodes)
			}
		}
	}
}
