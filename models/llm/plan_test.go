package llm

import (
	"testing"
)

// TestConfigurations70B: no configuration of a 70B model fits on 8 H100s
// (its states alone are 140 GB per GPU however they are sharded); on 64
// every listed one fits, keeps tensor groups inside a node, covers the
// batch, and the list runs fastest first.
func TestConfigurations70B(t *testing.T) {
	g, _ := GPUType("h100")
	cal := Fitted()
	sp := Space{Stack: StackLLMFoundry, Flash: true, MaxMicroBatch: 8}
	none, err := cal.Configurations(llama70B, g, 8, 512, sp)
	if err != nil || len(none) != 0 {
		t.Fatalf("70B on 8 GPUs: %d configurations (%v), want none", len(none), err)
	}
	cs, err := cal.Configurations(llama70B, g, 64, 512, sp)
	if err != nil || len(cs) == 0 {
		t.Fatalf("70B on 64 GPUs: %d configurations (%v), want some", len(cs), err)
	}
	seen := map[Parallelism]bool{}
	for i, c := range cs {
		p := c.Par
		if seen[p] {
			t.Errorf("%+v listed twice", p)
		}
		seen[p] = true
		if p.TP > g.PerNode || p.GPUs() != 64 || p.GlobalBatch() != 512 {
			t.Errorf("%+v: t > %d, or not 64 GPUs, or not a batch of 512", p, g.PerNode)
		}
		if _, err := CheckMemory(llama70B, p, g); err != nil {
			t.Errorf("%+v listed but does not fit: %v", p, err)
		}
		if i > 0 && c.Step.Time < cs[i-1].Step.Time {
			t.Errorf("not fastest first at %d", i)
		}
	}
	// Exhaustive check on the same space: every configuration that fits
	// is listed.
	n := 0
	for _, tp := range []int{1, 2, 4, 8} {
		for pp := 1; pp <= 64/tp; pp++ {
			if 64%(tp*pp) != 0 || 80%pp != 0 {
				continue
			}
			d := 64 / (tp * pp)
			if 512%d != 0 {
				continue
			}
			for b := 1; b <= 8; b++ {
				if (512/d)%b != 0 {
					continue
				}
				for _, sh := range []Sharding{Replicated, ShardOptimizer, ShardGradOp, FullShard} {
					for _, rc := range []bool{false, true} {
						p := Parallelism{TP: tp, PP: pp, DP: d, MicroBatch: b, MicroBatches: 512 / (d * b), Sharding: sh, Recompute: rc, FlashAttention: true}
						if sh != Replicated && d == 1 {
							continue
						}
						if _, err := CheckMemory(llama70B, p, g); err == nil {
							n++
							if !seen[p] {
								t.Errorf("%+v fits but is not listed", p)
							}
						}
					}
				}
			}
		}
	}
	if n != len(cs) {
		t.Errorf("%d configurations fit, %d listed", n, len(cs))
	}
}

func TestConfigurationsRejects(t *testing.T) {
	g, _ := GPUType("h100")
	if _, err := Fitted().Configurations(llama70B, g, 0, 512, Space{Stack: StackLLMFoundry}); err == nil {
		t.Error("0 GPUs accepted")
	}
	if _, err := Fitted().Configurations(llama70B, g, 64, 512, Space{Stack: "none"}); err == nil {
		t.Error("an uncalibrated stack accepted")
	}
}
