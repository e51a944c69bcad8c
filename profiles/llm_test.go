package profiles_test

import (
	"math"
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/models/llm"
	"github.com/polluxsim/polluxsim/profiles"
)

func llmApp(t *testing.T, name string) *profiles.App {
	t.Helper()
	set, ok := profiles.Named(profiles.LLMSource)
	if !ok {
		t.Fatal("no llm set")
	}
	a, err := set.App(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestLLMSetShape: every size has every kind on every LLM GPU type, with
// positive steps whose synchronisation part is at most the step.
func TestLLMSetShape(t *testing.T) {
	set := profiles.LLM()
	if len(set.Apps) != len(profiles.LLMSizes())*len(profiles.LLMKinds()) {
		t.Fatalf("%d applications, want %d", len(set.Apps), len(profiles.LLMSizes())*len(profiles.LLMKinds()))
	}
	for _, size := range profiles.LLMSizes() {
		for _, kind := range profiles.LLMKinds() {
			a, err := set.App(profiles.LLMAppName(size, kind))
			if err != nil {
				t.Fatal(err)
			}
			if a.ForType("t4") != nil {
				t.Errorf("%s runs on t4", a.Name)
			}
			for _, typ := range []string{"h100", "a100-80gb", "a100-40gb"} {
				ta := a.ForType(typ)
				if ta == nil {
					t.Fatalf("%s has no profile on %s", a.Name, typ)
				}
				for _, k := range []int{ta.MinGPUs, 8, 64} {
					k = max(k, ta.MinGPUs)
					step, sync := ta.Truth.Step(models.PackedPlacement(k, 8), 2)
					if !(step > 0) || !(sync >= 0) || sync > step || math.IsInf(step, 0) {
						t.Errorf("%s on %d %s: step %g, sync %g", a.Name, k, typ, step, sync)
					}
				}
			}
		}
	}
}

// TestLLMMemoryRefusesTooFewGPUs: a 70B model fits on no single 80 GB GPU
// nor on MinGPUs − 1 of them in any configuration, and on MinGPUs it does;
// the 40 GB A100 needs more GPUs than the 80 GB one.
func TestLLMMemoryRefusesTooFewGPUs(t *testing.T) {
	a := llmApp(t, "llm-70b")
	h := a.ForType("h100")
	if h.MinGPUs <= 8 || h.MinGPUs > 64 {
		t.Fatalf("70B fits on %d H100s: want more than one node (1.1 TB of states) and at most 64", h.MinGPUs)
	}
	g, _ := llm.GPUType("h100")
	m := llm.Transformer{Name: "llama2-70b", Params: 69.0e9, Layers: 80, Hidden: 8192, Heads: 64, Vocab: 32000, SeqLen: 4096}
	sp := llm.Space{Stack: llm.StackLLMFoundry, Flash: true, MaxMicroBatch: 16}
	for _, k := range []int{1, 8, h.MinGPUs - 1} {
		if c, err := llm.Fitted().Configurations(m, g, k, k, sp); err != nil || len(c) > 0 {
			t.Errorf("70B on %d H100s: %d configurations fit (%v), want none", k, len(c), err)
		}
	}
	if c, err := llm.Fitted().Configurations(m, g, h.MinGPUs, h.MinGPUs, sp); err != nil || len(c) == 0 {
		t.Errorf("70B on MinGPUs = %d H100s: nothing fits (%v)", h.MinGPUs, err)
	}
	if a40 := a.ForType("a100-40gb"); a40.MinGPUs <= h.MinGPUs {
		t.Errorf("70B fits on %d A100-40GB and %d H100: want more of the smaller GPU", a40.MinGPUs, h.MinGPUs)
	}
	if s := llmApp(t, "llm-1b").ForType("h100"); s.MinGPUs != 1 {
		t.Errorf("1.1B fits on %d H100s, want 1", s.MinGPUs)
	}
}

// TestLLMBestBatchGrows: as a pre-training run's loss falls its noise
// scale grows, and so does the batch that maximises its goodput on a
// fixed allocation.
func TestLLMBestBatchGrows(t *testing.T) {
	a := llmApp(t, "llm-7b")
	pl := models.PackedPlacement(64, 8)
	best := func(epoch int) int {
		b, top := 0, 0.0
		for local := 1; local <= a.Limits.MaxLocal; local++ {
			for accum := 0; accum < 8; accum++ {
				p := a.Perf(pl, local, accum, epoch)
				if int(p.Batch) < a.Limits.InitBatch || int(p.Batch) > a.Limits.MaxBatch {
					continue
				}
				if p.Goodput > top {
					b, top = int(p.Batch), p.Goodput
				}
			}
		}
		return b
	}
	m0 := float64(a.Limits.InitBatch)
	prevPhi, prevBest := 0.0, 0
	for e := 0; e < a.Epochs; e++ {
		phi := a.Truth.Grad(m0, e).PGNS(m0)
		if !(phi > prevPhi) {
			t.Errorf("epoch %d: φ = %g, not above %g", e, phi, prevPhi)
		}
		b := best(e)
		if b < prevBest {
			t.Errorf("epoch %d: best batch %d below %d before", e, b, prevBest)
		}
		prevPhi, prevBest = phi, b
	}
	if first, last := best(0), best(a.Epochs-1); !(last > first) {
		t.Errorf("best batch %d at the start and %d at the end: want growth", first, last)
	} else {
		t.Logf("best batch on 64 H100s: %d at the start, %d at the end", first, last)
	}
}

// TestLLMKinds: fine-tuning keeps the base model's noise scale; evaluation
// pays nothing for a large batch; progress and iterations in closed form.
func TestLLMKinds(t *testing.T) {
	sft := llmApp(t, "llm-7b-sft")
	m0 := float64(sft.Limits.InitBatch)
	if a, b := sft.Truth.Grad(m0, 0), sft.Truth.Grad(m0, sft.Epochs-1); a != b {
		t.Errorf("SFT noise changes over the run: %v then %v", a, b)
	}
	ev := llmApp(t, "llm-7b-eval")
	if e := ev.Truth.Grad(64, 0).Efficiency(float64(ev.Limits.InitBatch), float64(ev.Limits.MaxBatch)); e < 0.999999 {
		t.Errorf("evaluation efficiency at the largest batch %g, want 1", e)
	}
	pre := llmApp(t, "llm-7b")
	// 20 tokens per parameter in steps of M0 sequences of 4,096 tokens.
	want := 20 * 6.74e9 / (float64(pre.Limits.InitBatch) * 4096)
	if got := pre.Target(); math.Abs(got/want-1) > 1e-12 {
		t.Errorf("7B target %g steps at M0, want %g", got, want)
	}
	// At M0 a step's gain is 1: the steps are the progress.
	if got := pre.Truth.Iterations(float64(pre.Limits.InitBatch), pre.Epochs-1); math.Abs(got/want-1) > 1e-9 {
		t.Errorf("iterations at M0 %g, want %g", got, want)
	}
	// At a larger batch fewer steps, more than the batch ratio implies.
	big := float64(pre.Limits.MaxBatch)
	if got := pre.Truth.Iterations(big, pre.Epochs-1); !(got < want) || got < want*float64(pre.Limits.InitBatch)/big {
		t.Errorf("iterations at %g: %g, want in [%g, %g)", big, got, want*float64(pre.Limits.InitBatch)/big, want)
	}
	// The initial batch is where GPT-3's warm-up starts, 32k tokens; the
	// largest twice DeepSeek's optimal batch for the run, to a power of two.
	if pre.Limits.InitBatch != 8 {
		t.Errorf("M0 %d sequences of 4,096 tokens, want 8", pre.Limits.InitBatch)
	}
	opt := llm.DeepSeekOptimalBatchTokens(6*6.74e9*20*6.74e9) / 4096
	if r := float64(pre.Limits.MaxBatch) / 2 / opt; r < 1/math.Sqrt2 || r > math.Sqrt2 {
		t.Errorf("largest batch %d sequences, DeepSeek's optimum %g", pre.Limits.MaxBatch, opt)
	}
}
