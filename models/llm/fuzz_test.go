package llm

import (
	"math"
	"testing"
)

// FuzzStep: any model, configuration and calibration either is refused
// with an error or gives a finite, positive step and finite memory; never
// a panic, NaN or infinity.
func FuzzStep(f *testing.F) {
	f.Add(6.6e9, 32, 4096, 32, 2048, 1, 1, 16, 4, 2, 3, true, 0.5, 1e-6, 0.7)
	f.Add(1e12, 128, 25600, 160, 2048, 8, 64, 6, 1, 512, 0, true, 0.46, 3e-6, 0.9)
	f.Add(0.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, -1.0, math.NaN(), 2.0)
	f.Add(1e9, 24, 2048, 16, 1, 3, 1, 1, 1, 1, 9, false, math.Inf(1), 0.0, 0.0)
	f.Fuzz(func(t *testing.T, params float64, layers, hidden, heads, seq, tp, pp, dp, b, m, sharding int, recompute bool,
		overlap, latency, emax float64) {
		model := Transformer{Name: "f", Params: params, Layers: layers, Hidden: hidden, Heads: heads, Vocab: 50000, SeqLen: seq}
		par := Parallelism{TP: tp, PP: pp, DP: dp, MicroBatch: b, MicroBatches: m, Sharding: Sharding(sharding), Recompute: recompute}
		g, _ := GPUType("h100")
		cal := Fitted()
		cal.Overlap, cal.Latency = overlap, latency
		cal.Stacks[StackKey("s", "h100")] = StackCalibration{PeakFraction: emax, Attention: 1}
		st, err := cal.Step(Job{Model: model, Par: par, GPU: g, Stack: "s"})
		if err == nil {
			if !(st.Time > 0) || math.IsInf(st.Time, 0) || math.IsNaN(st.TokensPerGPUSecond(par.GPUs())) {
				t.Fatalf("%+v %+v: step %+v", model, par, st)
			}
		}
		mem, err := CheckMemory(model, par, g)
		if err == nil && (math.IsNaN(mem.Total()) || math.IsInf(mem.Total(), 0) || mem.Total() <= 0) {
			t.Fatalf("%+v %+v: memory %+v", model, par, mem)
		}
	})
}

// FuzzPlace: any free GPUs, topology, job size and unit either is refused
// or placed within the free GPUs in whole units; and any configuration on
// that allocation is refused or gets a finite, positive step.
func FuzzPlace(f *testing.F) {
	f.Add([]byte{8, 8, 3, 8}, 2, 3.0, 16, 2, 2, 4)
	f.Add([]byte{0, 0}, 0, 0.0, 1, 1, 1, 1)
	f.Add([]byte{255, 7, 1}, -1, math.NaN(), 8, 0, 1, 1)
	f.Add([]byte{8, 8, 8, 8, 8, 8, 8, 8}, 4, math.Inf(1), 64, 8, 80, 1)
	f.Fuzz(func(t *testing.T, freeBytes []byte, rackNodes int, over float64, gpus, unit, pp, dp int) {
		free := make([]int, len(freeBytes))
		for i, b := range freeBytes {
			free[i] = int(b % 10)
		}
		topo := Topology{RackNodes: rackNodes, Oversubscription: over}
		a, err := Place(free, topo, gpus, unit)
		if err != nil {
			return
		}
		sum := 0
		for _, s := range a {
			if s.GPUs < 1 || s.GPUs%unit != 0 || s.GPUs > free[s.Node] {
				t.Fatalf("free %v, %d GPUs in units of %d: share %+v", free, gpus, unit, s)
			}
			sum += s.GPUs
		}
		if sum != gpus {
			t.Fatalf("free %v: %v holds %d GPUs, want %d", free, a, sum, gpus)
		}
		g, _ := GPUType("h100")
		model := Transformer{Name: "f", Params: 1.3e9, Layers: 24, Hidden: 2048, Heads: 16, Vocab: 50368, SeqLen: 2048}
		par := Parallelism{TP: unit, PP: pp, DP: dp, MicroBatch: 1, MicroBatches: 4, Sharding: FullShard}
		for _, l := range layouts {
			st, err := Fitted().PlacedStep(Job{Model: model, Par: par, GPU: g, Stack: StackLLMFoundry}, a, topo, l)
			if err == nil && (!(st.Time > 0) || math.IsInf(st.Time, 0)) {
				t.Fatalf("%+v on %v: step %+v", par, a, st)
			}
		}
	})
}
