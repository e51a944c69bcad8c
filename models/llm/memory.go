package llm

import (
	"fmt"
	"math"
)

// Bytes per parameter of mixed-precision Adam (Rajbhandari et al. 2020,
// ZeRO, §3.1): 2 for 16-bit weights, 2 for 16-bit gradients, 12 for the
// optimiser (32-bit master weights, momentum and variance).
const (
	weightBytes    = 2
	gradBytes      = 2
	optimizerBytes = 12
)

// Reserve is the device memory a training process cannot use for states
// and activations: the CUDA context, the collectives' buffers and the
// allocator's fragmentation (an assumption: 2 GiB).
const Reserve = 2 * giB

// Memory is the bytes one GPU holds at its peak during a step.
type Memory struct {
	States      float64 // weights, gradients and optimiser state
	Activations float64 // stored activations of the micro-batches in flight
	Logits      float64 // the last stage's output logits (32-bit)
}

// Total is the sum of the parts.
func (m Memory) Total() float64 { return m.States + m.Activations + m.Logits }

// MemoryOf is the per-GPU memory of training model m with configuration c
// (the first pipeline stage, which holds the most micro-batches), for
// inputs that pass their Validate (CheckMemory checks them):
//
//   - states: N/(t·p) parameters × (2 + 2 + 12) bytes, with the optimiser
//     (ZeRO-1), also the gradients (ZeRO-2) or everything (ZeRO-3) divided
//     by d;
//   - activations per layer and micro-batch, without recomputation,
//     s·b·h·(10 + 24/t + 5·a·s/(h·t)) bytes (Korthikanti et al. 2022, with
//     tensor parallelism; 34 + 5·a·s/h at t = 1), without the 5·a·s/(h·t) scores under flash
//     attention; with full recomputation only each layer's input (2·s·b·h
//     bytes) is kept, plus one layer's activations while it is recomputed;
//   - ⌈L/p⌉ layers per stage and min(p, m) micro-batches in flight on the
//     first stage of a 1F1B pipeline (one without pipelining);
//   - logits: 4·s·b·V/t bytes.
func MemoryOf(m Transformer, c Parallelism) Memory {
	t, p, d := float64(c.TP), float64(c.PP), float64(c.DP)
	perGPU := m.Params / (t * p)
	w, g, o := perGPU*weightBytes, perGPU*gradBytes, perGPU*optimizerBytes
	switch c.Sharding {
	case ShardOptimizer:
		o /= d
	case ShardGradOp:
		g, o = g/d, o/d
	case FullShard:
		w, g, o = w/d, g/d, o/d
	}
	s, b, h := float64(m.SeqLen), float64(c.MicroBatch), float64(m.Hidden)
	perToken := 10 + 24/t
	if !c.FlashAttention {
		perToken += 5 * float64(m.Heads) * s / (h * t)
	}
	layer := s * b * h * perToken
	layers := math.Ceil(float64(m.Layers) / p)
	inflight := float64(min(c.PP, c.MicroBatches))
	act := inflight * layers * layer
	if c.Recompute {
		act = inflight*layers*2*s*b*h + layer
	}
	return Memory{
		States:      w + g + o,
		Activations: act,
		Logits:      4 * s * b * float64(m.Vocab) / t,
	}
}

// CheckMemory returns the memory of m under c and nil when it fits in
// the GPU's HBM less Reserve, or an error saying by how much it does not
// (or which input is malformed).
func CheckMemory(m Transformer, c Parallelism, g GPU) (Memory, error) {
	if err := validate(m, c, g); err != nil {
		return Memory{}, err
	}
	mem := MemoryOf(m, c)
	if tot, budget := mem.Total(), g.HBM-Reserve; tot > budget {
		return mem, fmt.Errorf("%s with t=%d p=%d d=%d b=%d (%s): %.1f GiB per GPU exceeds the %.1f GiB usable on %s",
			m.Name, c.TP, c.PP, c.DP, c.MicroBatch, c.Sharding, tot/giB, budget/giB, g.Name)
	}
	return mem, nil
}

// validate checks a model, a configuration and a GPU type together.
func validate(m Transformer, c Parallelism, g GPU) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if err := c.Validate(m); err != nil {
		return err
	}
	return g.Validate()
}
