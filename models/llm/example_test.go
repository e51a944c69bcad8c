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
	// step: 6.47 s for 512 sequences, 10123 tokens/s per GPU
	// exposed data-parallel traffic: 9 % of the step
}

// Which configurations of a 70B model fit on 64 H100s, and the fastest.
func ExampleCalibration_Configurations() {
	gpu, _ := llm.GPUType("h100")
	model := llm.Transformer{Name: "70b", Params: 70e9, Layers: 80, Hidden: 8192, Heads: 64, Vocab: 32000, SeqLen: 4096}
	cs, err := llm.Fitted().Configurations(model, gpu, 64, 512, llm.Space{Stack: llm.StackLLMFoundry, Flash: true, MaxMicroBatch: 4})
	if err != nil {
		panic(err)
	}
	best := cs[0]
	fmt.Printf("%d configurations fit; fastest t=%d p=%d d=%d b=%d %s recompute=%v: %.0f tokens/s per GPU\n",
		len(cs), best.Par.TP, best.Par.PP, best.Par.DP, best.Par.MicroBatch, best.Par.Sharding, best.Par.Recompute,
		best.Step.TokensPerGPUSecond(64))
	// Output:
	// 178 configurations fit; fastest t=2 p=16 d=2 b=1 zero1 recompute=false: 931 tokens/s per GPU
}

// The critical batch grows as the loss falls (Kaplan et al. 2020), and
// with it the batch at which Pollux's efficiency stays high.
func ExampleCriticalBatchTokens() {
	for _, loss := range []float64{3.5, 3, 2.5, 2} {
		b := llm.CriticalBatchTokens(loss)
		eff := llm.GradStatsAt(loss, 2048, 256).Efficiency(256, 2048)
		fmt.Printf("loss %.1f: B_crit %4.1fM tokens; efficiency of 2,048 sequences against 256: %.2f\n", loss, b/1e6, eff)
	}
	// Output:
	// loss 3.5: B_crit  0.5M tokens; efficiency of 2,048 sequences against 256: 0.22
	// loss 3.0: B_crit  1.1M tokens; efficiency of 2,048 sequences against 256: 0.30
	// loss 2.5: B_crit  2.5M tokens; efficiency of 2,048 sequences against 256: 0.46
	// loss 2.0: B_crit  7.4M tokens; efficiency of 2,048 sequences against 256: 0.68
}

// Place a 13B job of 32 GPUs on a cluster of racks of four H100 nodes
// under a 3:1 oversubscribed spine, whole tensor groups of 8 per node;
// plan its configuration there, and on the same GPU count split over two
// racks.
func ExampleCalibration_Plan() {
	gpu, _ := llm.GPUType("h100")
	model := llm.Transformer{Name: "13b", Params: 12.85e9, Layers: 40, Hidden: 5120, Heads: 40, Vocab: 50368, SeqLen: 2048}
	topo := llm.Topology{RackNodes: 4, Oversubscription: 3}
	free := []int{8, 8, 0, 8, 8, 8, 4, 8, 8, 8, 8, 8}
	alloc, err := llm.Place(free, topo, 32, 8)
	if err != nil {
		panic(err)
	}
	sp := llm.Space{Stack: llm.StackLLMFoundry, Flash: true, MaxMicroBatch: 4}
	for _, a := range []llm.Allocation{alloc, {{Node: 0, GPUs: 8}, {Node: 1, GPUs: 8}, {Node: 4, GPUs: 8}, {Node: 5, GPUs: 8}}} {
		best, err := llm.Fitted().Plan(model, gpu, a, topo, 256, sp)
		if err != nil {
			panic(err)
		}
		p := best.Par
		fmt.Printf("%v: t=%d p=%d d=%d b=%d %s, %s: %.0f tokens/s per GPU, data-parallel %.2f s (%.2f s exposed)\n",
			a, p.TP, p.PP, p.DP, p.MicroBatch, p.Sharding, best.Layout, best.Step.TokensPerGPUSecond(32),
			best.Step.DataComm, best.Step.DataExposed)
	}
	// Output:
	// [8:8 9:8 10:8 11:8]: t=2 p=1 d=16 b=4 zero1, replicas-in-nodes: 5681 tokens/s per GPU, data-parallel 0.27 s (0.04 s exposed)
	// [0:8 1:8 4:8 5:8]: t=2 p=1 d=16 b=4 zero1, replicas-in-nodes: 5609 tokens/s per GPU, data-parallel 0.51 s (0.08 s exposed)
}
