package profiles

import (
	"math/rand/v2"
	"testing"

	"github.com/polluxsim/polluxsim/models/llm"
)

// TestRackedIsTheClusterTopology: the step of a placement told its racks
// (Network, as the engine builds it) is, to the bit, Plan's on the
// allocation's own nodes under the cluster's topology of racks of k
// consecutive nodes: the renumbering keeps which shares share a rack and
// their order. Random clusters, rack sizes, shares and oversubscriptions.
func TestRackedIsTheClusterTopology(t *testing.T) {
	cal := llm.Fitted()
	g, err := llm.GPUType("h100")
	if err != nil {
		t.Fatal(err)
	}
	m := llmModels[1].arch // 7B
	rng := rand.New(rand.NewPCG(45, 5))
	crossing := 0
	for trial := range 60 {
		nodes, k := 4+rng.IntN(9), 1+rng.IntN(4)
		topo := llm.Topology{RackNodes: k, Oversubscription: []float64{1, 2, 4, 7.5}[rng.IntN(4)]}
		perNode := make([]int, nodes)
		var placement, racks []int
		for n := range perNode {
			if rng.IntN(2) == 0 {
				perNode[n] = []int{2, 4, 8}[rng.IntN(3)]
				placement = append(placement, perNode[n])
				racks = append(racks, topo.Rack(n))
			}
		}
		if len(placement) == 0 {
			continue
		}
		net := Network{Racks: racks, Oversub: topo.Oversubscription}
		if net.spansRacks() {
			crossing++
		}
		local := 1 + rng.IntN(4)
		got, ok, err := llmStep(cal, m, g, placement, net, local)
		if err != nil || !ok {
			t.Fatalf("trial %d: %v %v", trial, ok, err)
		}
		gpus := 0
		for _, v := range placement {
			gpus += v
		}
		want, err := cal.Plan(m, g, llm.AllocationOf(perNode), topo, gpus*local, llmSpace)
		if err != nil {
			t.Fatal(err)
		}
		if got.Step != want.Step || got.Par != want.Par || got.Layout != want.Layout {
			t.Errorf("trial %d: %v in racks %v (O=%g): %+v, on the cluster's nodes %+v", trial, placement, racks, topo.Oversubscription, got, want)
		}
	}
	if crossing < 20 {
		t.Fatalf("only %d of the placements cross racks", crossing)
	}
}

// TestStepAcrossRacks: for the llm set, a placement in one rack or under a
// non-blocking spine steps as on one tier, to the bit; across racks the
// step never shortens as the spine's oversubscription grows, and a 7B
// job whose rings cross a 16:1 spine is slower. (A 70B job on 32 GPUs
// keeps its rings inside nodes, pipeline stages across them, and pipeline
// traffic is not modelled: racks cost it nothing, docs/llm.md.)
func TestStepAcrossRacks(t *testing.T) {
	set := LLM()
	for _, name := range []string{"llm-7b", "llm-70b-sft"} {
		a := set.Apps[name].ForType("h100")
		pl := []int{8, 8, 8, 8}
		step, sync := a.Truth.Step(pl, 2)
		for _, net := range []Network{{Racks: []int{0, 0, 0, 0}, Oversub: 4}, {Racks: []int{0, 0, 1, 1}, Oversub: 1}} {
			p := a.PerfAcross(pl, net, 2, 0, 0)
			if p.Step != step || p.Sync != sync {
				t.Errorf("%s in racks %v under %g:1: step %v (sync %v), one tier %v (%v)", name, net.Racks, net.Oversub, p.Step, p.Sync, step, sync)
			}
		}
		prev := step
		for _, o := range []float64{1, 2, 4, 16} {
			p := a.PerfAcross(pl, Network{Racks: []int{0, 0, 1, 1}, Oversub: o}, 2, 0, 0)
			if p.Step < prev {
				t.Errorf("%s: step %v under %g:1, below %v", name, p.Step, o, prev)
			}
			prev = p.Step
		}
		if name == "llm-7b" && !(prev > step) {
			t.Errorf("%s: crossing a 16:1 spine costs nothing (%v against %v)", name, prev, step)
		}
	}
}
