package llm

import (
	"math"
	"strings"
	"testing"
)

// llama70B is a 70B-parameter transformer of Llama 2 70B's shape (80
// layers, hidden 8192, 64 heads; its 70·10⁹ parameters as published).
var llama70B = Transformer{Name: "70b", Params: 70e9, Layers: 80, Hidden: 8192, Heads: 64, Vocab: 32000, SeqLen: 4096}

// TestMemory70B: a 70B model cannot train on one 80 GB GPU (its Adam
// states alone are 16 × 70·10⁹ bytes = 1.12 TB), and can with enough
// sharding: ZeRO-3 over 64 GPUs with recomputation, or t = 8, p = 8 with
// ZeRO-1 over d = 4.
func TestMemory70B(t *testing.T) {
	g, _ := GPUType("h100")
	one := Parallelism{TP: 1, PP: 1, DP: 1, MicroBatch: 1, MicroBatches: 1, Recompute: true, FlashAttention: true}
	mem, err := CheckMemory(llama70B, one, g)
	if err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("70B on one GPU accepted (%.0f GiB)", mem.Total()/giB)
	}
	if want := 16 * 70e9; math.Abs(mem.States-want) > 1 {
		t.Errorf("states %g bytes, want 16 bytes × 70e9 = %g", mem.States, want)
	}
	for _, c := range []Parallelism{
		{TP: 1, PP: 1, DP: 64, MicroBatch: 1, MicroBatches: 1, Sharding: FullShard, Recompute: true, FlashAttention: true},
		{TP: 8, PP: 8, DP: 4, MicroBatch: 1, MicroBatches: 16, Sharding: ShardOptimizer, Recompute: true},
	} {
		if mem, err := CheckMemory(llama70B, c, g); err != nil {
			t.Errorf("%+v refused: %v (%.1f GiB)", c, err, mem.Total()/giB)
		}
	}
	// Sharding alone over too few GPUs is not enough: ZeRO-3 over 8 GPUs
	// still holds 140 GB of states per GPU.
	eight := Parallelism{TP: 1, PP: 1, DP: 8, MicroBatch: 1, MicroBatches: 1, Sharding: FullShard, Recompute: true, FlashAttention: true}
	if _, err := CheckMemory(llama70B, eight, g); err == nil {
		t.Error("70B under ZeRO-3 over 8 GPUs accepted")
	}
}

// TestMemoryClosedForms checks each term against its formula on one
// configuration.
func TestMemoryClosedForms(t *testing.T) {
	m := Transformer{Name: "x", Params: 8e9, Layers: 32, Hidden: 4096, Heads: 32, Vocab: 50000, SeqLen: 2048}
	c := Parallelism{TP: 2, PP: 4, DP: 8, MicroBatch: 2, MicroBatches: 3}
	perGPU := 8e9 / 8
	for _, tc := range []struct {
		sh   Sharding
		want float64
	}{
		{Replicated, 16 * perGPU},
		{ShardOptimizer, (4 + 12.0/8) * perGPU},
		{ShardGradOp, (2 + 14.0/8) * perGPU},
		{FullShard, 16.0 / 8 * perGPU},
	} {
		c.Sharding = tc.sh
		if got := MemoryOf(m, c).States; math.Abs(got-tc.want) > 1e-6*tc.want {
			t.Errorf("%s: states %g, want %g", tc.sh, got, tc.want)
		}
	}
	s, b, h, a := 2048.0, 2.0, 4096.0, 32.0
	// Korthikanti et al.'s per-layer form with t = 2, × 8 layers per stage
	// × min(p, m) = 3 micro-batches in flight.
	want := 3 * 8 * s * b * h * (10 + 24/2.0 + 5*a*s/(h*2))
	if got := MemoryOf(m, c).Activations; math.Abs(got-want) > 1e-9*want {
		t.Errorf("activations %g, want %g", got, want)
	}
	c.Recompute = true
	want = 3*8*2*s*b*h + s*b*h*(10+24/2.0+5*a*s/(h*2))
	if got := MemoryOf(m, c).Activations; math.Abs(got-want) > 1e-9*want {
		t.Errorf("activations with recomputation %g, want %g", got, want)
	}
	if got, want := MemoryOf(m, c).Logits, 4*s*b*50000/2; got != want {
		t.Errorf("logits %g, want %g", got, want)
	}
	// Without recomputation, one layer at t = 1 is 34 + 5·a·s/h bytes per
	// token-hidden, the paper's headline form.
	one := Parallelism{TP: 1, PP: 1, DP: 1, MicroBatch: 1, MicroBatches: 1}
	m1 := m
	m1.Layers = 1
	if got, want := MemoryOf(m1, one).Activations, s*h*(34+5*a*s/h); math.Abs(got-want) > 1e-9*want {
		t.Errorf("one layer %g, want %g", got, want)
	}
}

// TestMeasuredConfigurationsFit: every configuration the sources ran fits
// in its GPU under the memory model.
func TestMeasuredConfigurationsFit(t *testing.T) {
	for _, m := range measurements(t) {
		if mem, err := CheckMemory(m.Job.Model, m.Job.Par, m.Job.GPU); err != nil {
			t.Errorf("%s: %v (states %.1f, activations %.1f GiB)", m.Label(), err, mem.States/giB, mem.Activations/giB)
		}
	}
}
