package llm

import (
	"fmt"
	"sort"
)

// Space is what a configuration search may choose for a job.
type Space struct {
	// Stack is the software stack (a key of the calibration with the GPU
	// type), and Flash whether it uses flash attention.
	Stack string
	Flash bool
	// MaxMicroBatch bounds the micro-batch (64 when zero).
	MaxMicroBatch int
	// Shardings are the data-parallel shardings allowed (all four when
	// empty).
	Shardings []Sharding
}

// Candidate is a configuration that fits, with its predicted step.
type Candidate struct {
	Par    Parallelism
	Step   Step
	Memory Memory
	// Layout is how the configuration fills its nodes: ReplicasInNodes
	// (the layout Step assumes) from Configurations, the faster of the
	// two from Plan.
	Layout Layout
}

// Configurations lists every configuration of model m on gpus GPUs of type
// g training globalBatch sequences per step that fits in memory, fastest
// first (ties in a fixed order of t, p, b, sharding, recomputation). Tensor
// groups stay inside a node (t ≤ g.PerNode, a power of two dividing the
// heads); p divides the layers into equal stages;
// d = gpus/(t·p); b divides globalBatch/d and m = globalBatch/(d·b).
// Sharded modes need d > 1. Steps are Step's: replicas packed whole into
// consecutive nodes (Plan times a concrete allocation).
func (cal Calibration) Configurations(m Transformer, g GPU, gpus, globalBatch int, sp Space) ([]Candidate, error) {
	return cal.search(m, g, gpus, globalBatch, sp, func(int) bool { return true },
		func(job Job) (Step, Layout, error) {
			st, err := cal.Step(job)
			return st, ReplicasInNodes, err
		})
}

// search lists the configurations of m on gpus GPUs for globalBatch that
// fit in memory and whose tensor degree tensorOK allows, each timed by
// timed, fastest first.
func (cal Calibration) search(m Transformer, g GPU, gpus, globalBatch int, sp Space,
	tensorOK func(t int) bool, timed func(Job) (Step, Layout, error)) ([]Candidate, error) {
	if gpus < 1 || globalBatch < 1 || gpus > 1<<24 || globalBatch > 1<<30 {
		return nil, fmt.Errorf("configurations: %d GPUs and a batch of %d sequences must be ≥ 1 and of a plausible size", gpus, globalBatch)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	maxB := sp.MaxMicroBatch
	if maxB <= 0 {
		maxB = 64
	}
	shardings := sp.Shardings
	if len(shardings) == 0 {
		shardings = []Sharding{Replicated, ShardOptimizer, ShardGradOp, FullShard}
	}
	var out []Candidate
	for t := 1; t <= g.PerNode && t <= gpus; t *= 2 {
		if m.Heads%t != 0 || gpus%t != 0 || !tensorOK(t) {
			continue
		}
		for p := 1; p <= m.Layers && t*p <= gpus; p++ {
			if (gpus/t)%p != 0 || m.Layers%p != 0 {
				continue
			}
			d := gpus / (t * p)
			if globalBatch%d != 0 {
				continue
			}
			perReplica := globalBatch / d
			for b := 1; b <= maxB && b <= perReplica; b++ {
				if perReplica%b != 0 {
					continue
				}
				for _, sh := range shardings {
					if sh != Replicated && d == 1 {
						continue
					}
					for _, rc := range []bool{false, true} {
						c := Parallelism{TP: t, PP: p, DP: d, MicroBatch: b, MicroBatches: perReplica / b,
							Sharding: sh, Recompute: rc, FlashAttention: sp.Flash}
						mem, err := CheckMemory(m, c, g)
						if err != nil {
							continue
						}
						st, l, err := timed(Job{Model: m, Par: c, GPU: g, Stack: sp.Stack})
						if err != nil {
							return nil, err
						}
						out = append(out, Candidate{Par: c, Step: st, Memory: mem, Layout: l})
					}
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Step.Time < out[j].Step.Time })
	return out, nil
}
