package llm_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/models/llm"
)

// A 7B model on two H100 nodes: check that the configuration fits, then
// predict its step with the calibration fitted to the public measurements.
func Example() {
	gpu, err := llm.GPUType("h100")
	if err != nil {
		panic(err)
	}
	model := llm.Transformer{Name: "7b", Params: 6.66e9, Layers: 32, Hidden: 4096, Heads: 32, Vocab: 50368, SeqLen: 2048}
	par := llm.Parallelism{TP: 1, PP: 1, DP: 16, MicroBatch: 4, MicroBatches: 8,
		Sharding: llm.FullShard, FlashAttention: true}

	mem, err := llm.CheckMemory(model, par, gpu)
	if err != nil {
		panic(err)
	}
	step, err := llm.Fitted().Step(llm.Job{Model: model, Par: par, GPU: gpu, Stack: llm.StackLLMFoundry})
	if err != nil {
		panic(err)
	}
	fmt.Printf("memory per GPU: %.0f GiB of %.0f\n", mem.Total()/(1<<30), gpu.HBM/(1<<30))
	fmt.Printf("step: %.2f s for %d sequences, %.0f tokens/s per GPU\n",
		step.Time, par.GlobalBatch(), step.TokensPerGPUSecond(par.GPUs()))
	fmt.Printf("exposed data-parallel traffic: %.0f %% of the step\n", 100*step.DataExposed/step.Time)
	// Output:
	// memory per GPU: 42 GiB of 80
	// step: 6.22 s for 512 sequences, 10540 tokens/s per GPU
	// exposed data-parallel traffic: 7 % of the step
}
