package llm

import (
	"math"
	"testing"
)

func TestCriticalBatchClosedForm(t *testing.T) {
	if got := CriticalBatchTokens(1); got != 2e8 {
		t.Errorf("B_crit(1) = %g, want B* = 2e8", got)
	}
	// At L = 3 nats, 2e8/3^(1/0.21) ≈ 1.07e6 tokens; at 2 nats ≈ 7.4e6.
	for _, tc := range []struct{ loss, want float64 }{{3, 2e8 / math.Pow(3, 1/0.21)}, {2, 2e8 / math.Pow(2, 1/0.21)}} {
		if got := CriticalBatchTokens(tc.loss); math.Abs(got/tc.want-1) > 1e-12 {
			t.Errorf("B_crit(%g) = %g, want %g", tc.loss, got, tc.want)
		}
	}
	if b3, b2 := CriticalBatchTokens(3), CriticalBatchTokens(2); b3 < 1e6 || b3 > 1.1e6 || b2 < 7e6 || b2 > 8e6 {
		t.Errorf("B_crit(3) = %g, B_crit(2) = %g: want about 1.07e6 and 7.4e6 tokens", b3, b2)
	}
}

// TestNoiseScaleGrowsOverARun: as a 7B model trains (Kaplan's loss falls
// with steps), the critical batch grows.
func TestNoiseScaleGrowsOverARun(t *testing.T) {
	prev := 0.0
	for _, steps := range []float64{1e2, 1e3, 1e4, 1e5} {
		l := KaplanLoss(6.4e9, steps)
		b := CriticalBatchTokens(l)
		if b <= prev {
			t.Errorf("at %g steps B_crit %g ≤ %g before", steps, b, prev)
		}
		prev = b
	}
	// The loss tends to the model-size term.
	if got, want := KaplanLoss(6.4e9, 1e15), math.Pow(8.8e13/6.4e9, 0.076); math.Abs(got-want) > 1e-3 {
		t.Errorf("L(N, ∞) = %g, want %g", got, want)
	}
}

// TestEfficiencyIsMcCandlish: Pollux's efficiency with φ = B_crit is the
// ratio of examples McCandlish et al.'s model needs, E = E_min·(1 + B/B_noise),
// computed here independently.
func TestEfficiencyIsMcCandlish(t *testing.T) {
	const seq, m0 = 2048, 256.0
	for _, loss := range []float64{2, 2.5, 3.5} {
		g := GradStatsAt(loss, seq, m0)
		bNoise := CriticalBatchTokens(loss) / seq
		examples := func(b float64) float64 { return 1 + b/bNoise }
		for _, b := range []float64{m0, 512, 4096, 65536} {
			want := examples(m0) / examples(b)
			if got := g.Efficiency(m0, b); math.Abs(got-want) > 1e-12 {
				t.Errorf("loss %g batch %g: efficiency %g, want %g", loss, b, got, want)
			}
		}
	}
}

func TestDeepSeekBatch(t *testing.T) {
	c := 1e24
	if got, want := DeepSeekOptimalBatchTokens(c), 0.2920*math.Pow(c, 0.3271); got != want {
		t.Errorf("B_opt = %g, want %g", got, want)
	}
	// DeepSeek LLM 67B trained on 2T tokens, about 6·67e9·2e12 ≈ 8e23
	// FLOPs, with batches of 4,608 sequences of 4,096 tokens (18.9M) and a
	// peak learning rate of 3.2e-4, as its paper publishes: the laws
	// give both within 10 %.
	if got, want := DeepSeekOptimalBatchTokens(8e23), 4608*4096.0; math.Abs(got/want-1) > 0.10 {
		t.Errorf("B_opt(8e23) = %g tokens, want within 10 %% of %g", got, want)
	}
	if got := DeepSeekOptimalLR(8e23); math.Abs(got/3.2e-4-1) > 0.10 {
		t.Errorf("η_opt(8e23) = %g, want within 10 %% of 3.2e-4", got)
	}
}

// TestLossAfterFixedPoint: LossAfter solves its own equation, falls as a
// run trains, and the critical batch at it grows (so does the best batch).
func TestLossAfterFixedPoint(t *testing.T) {
	const n, batch = 12 * 32 * 4096 * 4096, 4e6 // a 7B model's non-embedding parameters, 4M-token batches
	prevL, prevB := math.Inf(1), 0.0
	for _, tokens := range []float64{4e6, 4e8, 4e9, 4e10, 1.4e11} {
		l := LossAfter(n, tokens, batch)
		steps := tokens / batch
		if want := KaplanLoss(n, steps/(1+CriticalBatchTokens(l)/batch)); math.Abs(l-want) > 1e-9 {
			t.Errorf("%g tokens: L = %g but KaplanLoss(S_min(L)) = %g", tokens, l, want)
		}
		if b := CriticalBatchTokens(l); !(l < prevL) || !(b > prevB) {
			t.Errorf("%g tokens: L = %g (before %g), B_crit = %g (before %g): want L falling, B_crit growing", tokens, l, prevL, b, prevB)
		} else {
			prevL, prevB = l, b
		}
	}
	// Far beyond the critical batch S_min = S/(1 + B_crit/B) → S: the loss
	// is KaplanLoss at S steps.
	if got, want := LossAfter(n, 1e12*1e6, 1e12), KaplanLoss(n, 1e6); math.Abs(got/want-1) > 1e-6 {
		t.Errorf("at huge batches L = %g, want KaplanLoss(S) = %g", got, want)
	}
}
