package llm

import (
	"math"

	"github.com/polluxsim/polluxsim/models"
)

// Constants of the published scaling laws used for statistical efficiency.
// Kaplan et al. 2020 ("Scaling Laws for Neural Language Models", §1.2 and
// §5) fitted them to decoder-only transformers on WebText2 with GPT-2's
// byte-pair tokenizer, losses in nats per token; on other data and
// tokenizers they are an approximation (the shape holds, the constants
// move).
const (
	// KaplanBStar is B* of B_crit(L) = B*/L^(1/α_B), tokens.
	KaplanBStar = 2e8
	// KaplanAlphaB is α_B.
	KaplanAlphaB = 0.21
	// KaplanNc and KaplanAlphaN are N_c (non-embedding parameters) and
	// α_N of the model-size term (N_c/N)^α_N.
	KaplanNc     = 8.8e13
	KaplanAlphaN = 0.076
	// KaplanSc and KaplanAlphaS are S_c (steps) and α_S of the step term
	// (S_c/S_min)^α_S, S_min the steps at batches far above B_crit.
	KaplanSc     = 2.1e3
	KaplanAlphaS = 0.76
)

// DeepSeek LLM (Bi et al. 2024, "DeepSeek LLM: Scaling Open-Source
// Language Models with Longtermism", §3.1) fitted the near-optimal batch
// size and learning rate against compute C (FLOPs):
// B_opt = 0.2920·C^0.3271 tokens, η_opt = 0.3118·C^−0.1250.
const (
	deepSeekBCoef, deepSeekBExp   = 0.2920, 0.3271
	deepSeekLRCoef, deepSeekLRExp = 0.3118, -0.1250
)

// CriticalBatchTokens is Kaplan et al.'s critical batch size at loss L
// (nats per token): B_crit(L) = B*/L^(1/α_B) tokens. It grows as the loss
// falls, so a job's best batch size grows over its run. McCandlish et
// al. 2018 ("An Empirical Model of Large-Batch Training") show B_crit is
// about the gradient noise scale B_noise, which is Pollux's φ.
func CriticalBatchTokens(loss float64) float64 {
	return KaplanBStar / math.Pow(loss, 1/KaplanAlphaB)
}

// KaplanLoss is the loss of a model of n non-embedding parameters after
// minSteps optimisation steps at batches far above the critical one
// (S_min in Kaplan et al.'s notation; at batch B a run takes
// S = S_min·(1 + B_crit/B) steps): L(N, S_min) = (N_c/N)^α_N + (S_c/S_min)^α_S.
func KaplanLoss(n, minSteps float64) float64 {
	return math.Pow(KaplanNc/n, KaplanAlphaN) + math.Pow(KaplanSc/minSteps, KaplanAlphaS)
}

// DeepSeekOptimalBatchTokens is DeepSeek LLM's fitted near-optimal batch
// size, in tokens, for a run of c FLOPs.
func DeepSeekOptimalBatchTokens(c float64) float64 {
	return deepSeekBCoef * math.Pow(c, deepSeekBExp)
}

// DeepSeekOptimalLR is DeepSeek LLM's fitted near-optimal learning rate
// for a run of c FLOPs.
func DeepSeekOptimalLR(c float64) float64 {
	return deepSeekLRCoef * math.Pow(c, deepSeekLRExp)
}

// GradStatsAt returns gradient statistics whose noise scale, at initial
// batch m0 sequences of seqLen tokens, is the critical batch at loss L in
// sequences: φ = B_crit(L)/seqLen. Pollux's efficiency
// (φ + M0)/(φ + M) is then models.GradStats.Efficiency, McCandlish et
// al.'s E_min/E: training at batch B needs E = E_min·(1 + B/B_noise)
// examples.
func GradStatsAt(loss float64, seqLen int, m0 float64) models.GradStats {
	phi := CriticalBatchTokens(loss) / float64(seqLen)
	return models.GradStats{Sqr: 1, Var: phi / m0}
}

// LossAfter is the loss of a model of n non-embedding parameters after
// training on tokens tokens in steps of batchTokens tokens, by Kaplan et
// al.'s laws: the run took S = tokens/batchTokens steps, worth
// S_min = S/(1 + B_crit(L)/batchTokens) steps at batches far above the
// critical one (their Eq. 5.4), and L = KaplanLoss(n, S_min). The loss
// appears on both sides (B_crit depends on it); L − KaplanLoss(n, S_min(L))
// increases with L, so its one root is found by bisection. Fewer tokens
// than one batch count as one step; n and batchTokens must be positive.
func LossAfter(n, tokens, batchTokens float64) float64 {
	steps := max(tokens/batchTokens, 1)
	f := func(l float64) float64 {
		return l - KaplanLoss(n, steps/(1+CriticalBatchTokens(l)/batchTokens))
	}
	lo, hi := math.Pow(KaplanNc/n, KaplanAlphaN), KaplanLoss(n, steps/(1+KaplanBStar/batchTokens))
	// f(lo) ≤ 0 (KaplanLoss exceeds its model-size term); at hi ≥ the
	// loss of S_min taken at a critical batch of B*, f(hi) ≥ 0 once
	// B_crit(hi) ≤ B*, i.e. hi ≥ 1 nat; widen until it holds.
	for f(hi) < 0 {
		hi *= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if f(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
