package llm

import (
	"math"
	"strings"
	"testing"
)

var gpt13 = Transformer{Name: "13b", Params: GPTParams(40, 5120, 51200, 2048), Layers: 40, Hidden: 5120, Heads: 40, Vocab: 51200, SeqLen: 2048}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// TestStepSingleGPU: one GPU, no parallelism: the step is m micro-batches
// of compute, each r·b·(6·N·s + A·12·L·h·s²)/(peak·e).
func TestStepSingleGPU(t *testing.T) {
	g, _ := GPUType("a100-80gb")
	cal := Fitted()
	st := cal.Stacks[StackKey(StackMegatron, g.Name)]
	for _, recompute := range []bool{false, true} {
		c := Parallelism{TP: 1, PP: 1, DP: 1, MicroBatch: 2, MicroBatches: 5, Recompute: recompute}
		got, err := cal.Step(Job{Model: gpt13, Par: c, GPU: g, Stack: StackMegatron})
		if err != nil {
			t.Fatal(err)
		}
		r := 1.0
		if recompute {
			r = 4.0 / 3
		}
		s, h, l, n := 2048.0, 5120.0, 40.0, gpt13.Params
		e := st.PeakFraction / (1 + cal.HiddenHalf/h + cal.TokensHalf/(2*s))
		compute := r * 2 * (6*n*s + st.Attention*12*l*h*s*s) / (312e12 * e)
		if !near(got.Compute, compute) || !near(got.Time, 5*compute) || got.TensorComm != 0 || got.DataComm != 0 || got.Bubble != 0 {
			t.Errorf("recompute=%v: %+v, want compute %g and time %g", recompute, got, compute, 5*compute)
		}
		if want := 5 * 2 * s / got.Time; !near(got.TokensPerGPUSecond(1), want) {
			t.Errorf("tokens/s %g, want %g", got.TokensPerGPUSecond(1), want)
		}
	}
}

// TestStepTensorAndPipeline: t = 8, p = 4, one replica: the step is
// (m + p − 1) micro-batch slots of compute plus L/p layers × 6 ring
// all-reduces (recomputation) of 2·b·s·h bytes over NVLink.
func TestStepTensorAndPipeline(t *testing.T) {
	g, _ := GPUType("a100-80gb")
	c := Parallelism{TP: 8, PP: 4, DP: 1, MicroBatch: 1, MicroBatches: 12, Recompute: true}
	got, err := Fitted().Step(Job{Model: gpt13, Par: c, GPU: g, Stack: StackMegatron})
	if err != nil {
		t.Fatal(err)
	}
	tensor := 40.0 / 4 * 6 * (2 * 7.0 / 8 * (2 * 2048 * 5120) / 300e9)
	if !near(got.TensorComm, tensor) {
		t.Errorf("tensor comm %g, want %g", got.TensorComm, tensor)
	}
	if want := 15 * (got.Compute + tensor); !near(got.Time, want) {
		t.Errorf("time %g, want (12+4−1)·(C+X) = %g", got.Time, want)
	}
	if want := 3.0 / 15; !near(got.Bubble, want) {
		t.Errorf("bubble %g, want %g", got.Bubble, want)
	}
	// More micro-batches shrink the bubble: throughput per GPU rises.
	c.MicroBatches = 48
	more, _ := Fitted().Step(Job{Model: gpt13, Par: c, GPU: g, Stack: StackMegatron})
	if more.TokensPerGPUSecond(32) <= got.TokensPerGPUSecond(32) {
		t.Errorf("48 micro-batches %g tokens/s/GPU ≤ 12 micro-batches %g", more.TokensPerGPUSecond(32), got.TokensPerGPUSecond(32))
	}
}

// TestStepDataParallel: the data-parallel traffic and what overlap
// leaves of it, across nodes, for each sharding.
func TestStepDataParallel(t *testing.T) {
	g, _ := GPUType("h100")
	cal := Fitted()
	for _, tc := range []struct {
		sh          Sharding
		volume      float64 // × the ring all-reduce of 2·N bytes
		collectives float64 // per layer per pass
		perMicro    bool
	}{
		{Replicated, 1, 1, false},
		{ShardOptimizer, 1, 1, false},
		{ShardGradOp, 1, 2, true},
		{FullShard, 1.5, 3, true},
	} {
		c := Parallelism{TP: 1, PP: 1, DP: 32, MicroBatch: 4, MicroBatches: 3, Sharding: tc.sh, FlashAttention: true}
		got, err := cal.Step(Job{Model: gpt13, Par: c, GPU: g, Stack: StackLLMFoundry})
		if err != nil {
			t.Fatal(err)
		}
		// One data-parallel group, 8 members per node: 8 NICs per ring hop.
		ring := 2 * 31.0 / 32 * (2 * gpt13.Params) / (8 * 50e9)
		want := tc.volume*ring + tc.collectives*40*2*5*cal.Latency // ⌈log₂ 32⌉ = 5
		hide := got.Compute
		if tc.perMicro {
			want *= 3
			hide *= 3
		}
		if !near(got.DataComm, want) {
			t.Errorf("%s: data comm %g, want %g", tc.sh, got.DataComm, want)
		}
		if exp := want - math.Min(cal.Overlap*want, hide); !near(got.DataExposed, exp) {
			t.Errorf("%s: exposed %g, want %g", tc.sh, got.DataExposed, exp)
		}
		if !near(got.Time, 3*got.Compute+got.DataExposed) {
			t.Errorf("%s: time %g, want 3·C + exposed", tc.sh, got.Time)
		}
	}
	// Inside one node the ring runs over NVLink with no latency term.
	c := Parallelism{TP: 1, PP: 1, DP: 8, MicroBatch: 4, MicroBatches: 1, Sharding: Replicated}
	got, _ := cal.Step(Job{Model: gpt13, Par: c, GPU: g, Stack: StackLLMFoundry})
	if want := 2 * 7.0 / 8 * 2 * gpt13.Params / 450e9; !near(got.DataComm, want) {
		t.Errorf("in-node ring %g, want %g", got.DataComm, want)
	}
}

func TestStepRejects(t *testing.T) {
	g, _ := GPUType("h100")
	ok := Parallelism{TP: 1, PP: 1, DP: 1, MicroBatch: 1, MicroBatches: 1}
	for _, tc := range []struct {
		job  Job
		want string
	}{
		{Job{Model: gpt13, Par: ok, GPU: g, Stack: StackMegatron}, "no calibration"},
		{Job{Model: gpt13, Par: Parallelism{TP: 3, PP: 1, DP: 1, MicroBatch: 1, MicroBatches: 1}, GPU: g, Stack: StackLLMFoundry}, "does not divide"},
		{Job{Model: gpt13, Par: Parallelism{TP: 1, PP: 41, DP: 1, MicroBatch: 1, MicroBatches: 1}, GPU: g, Stack: StackLLMFoundry}, "exceeds"},
		{Job{Model: gpt13, Par: Parallelism{TP: 1, PP: 1, DP: 0, MicroBatch: 1, MicroBatches: 1}, GPU: g, Stack: StackLLMFoundry}, "≥ 1"},
		{Job{Model: Transformer{Name: "bad"}, Par: ok, GPU: g, Stack: StackLLMFoundry}, "parameters"},
	} {
		if _, err := Fitted().Step(tc.job); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.job.Par, err, tc.want)
		}
	}
	if _, err := GPUType("tpu"); err == nil || !strings.Contains(err.Error(), "a100-80gb") {
		t.Errorf("unknown GPU type: %v", err)
	}
}
