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
