package llm

import "testing"

func BenchmarkStep(b *testing.B) {
	g, _ := GPUType("h100")
	job := Job{Model: llama70B, GPU: g, Stack: StackLLMFoundry,
		Par: Parallelism{TP: 8, PP: 4, DP: 16, MicroBatch: 1, MicroBatches: 32, Sharding: ShardOptimizer, Recompute: true, FlashAttention: true}}
	cal := Fitted()
	for b.Loop() {
		if _, err := cal.Step(job); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConfigurations is the search a scheduler would run per job and
// GPU count: a 70B model on 512 H100s, batch 1,024.
func BenchmarkConfigurations(b *testing.B) {
	g, _ := GPUType("h100")
	cal := Fitted()
	sp := Space{Stack: StackLLMFoundry, Flash: true, MaxMicroBatch: 8}
	for b.Loop() {
		if _, err := cal.Configurations(llama70B, g, 512, 1024, sp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlan is the same search on a concrete allocation: 64 whole
// H100 nodes in racks of 16 under a 4:1 spine, both layouts timed.
func BenchmarkPlan(b *testing.B) {
	g, _ := GPUType("h100")
	cal := Fitted()
	sp := Space{Stack: StackLLMFoundry, Flash: true, MaxMicroBatch: 8}
	a := wholeNodes(64, 8)
	topo := Topology{RackNodes: 16, Oversubscription: 4}
	for b.Loop() {
		if _, err := cal.Plan(llama70B, g, a, topo, 1024, sp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlace places a 512-GPU job on a 1,000-node cluster in racks of
// 32 nodes, a third of each node busy.
func BenchmarkPlace(b *testing.B) {
	free := make([]int, 1000)
	for n := range free {
		free[n] = 8 - n%3
	}
	topo := Topology{RackNodes: 32, Oversubscription: 3}
	for b.Loop() {
		if _, err := Place(free, topo, 512, 2); err != nil {
			b.Fatal(err)
		}
	}
}
