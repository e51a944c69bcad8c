package llm

import "fmt"

// Sharding is how data-parallel replicas divide the model states.
type Sharding int

const (
	// Replicated is plain data parallelism (DDP): every replica holds all
	// states; gradients are all-reduced once per step.
	Replicated Sharding = iota
	// ShardOptimizer is ZeRO-1: the optimiser state is divided over d;
	// a reduce-scatter and an all-gather per step (an all-reduce's volume).
	ShardOptimizer
	// ShardGradOp is ZeRO-2 (FSDP SHARD_GRAD_OP): optimiser state and
	// gradients divided over d; weights all-gathered and gradients
	// reduce-scattered per micro-batch (an all-reduce's volume each).
	ShardGradOp
	// FullShard is ZeRO-3 (FSDP FULL_SHARD): weights too; two all-gathers
	// and a reduce-scatter per micro-batch (1.5× an all-reduce's volume).
	FullShard
)

var shardingNames = [...]string{"none", "zero1", "shard_grad_op", "full_shard"}

func (s Sharding) String() string {
	if s < 0 || int(s) >= len(shardingNames) {
		return fmt.Sprintf("Sharding(%d)", int(s))
	}
	return shardingNames[s]
}

// Parallelism is how a job lays one training step over t·p·d GPUs.
type Parallelism struct {
	TP, PP, DP int // tensor, pipeline and data-parallel degrees
	// MicroBatch is the sequences per micro-batch per replica (b).
	MicroBatch int
	// MicroBatches is the micro-batches per step per replica (m): the
	// pipeline's micro-batches or the gradient-accumulation steps.
	MicroBatches int
	Sharding     Sharding
	// Recompute checkpoints every layer's input and recomputes the rest
	// in the backward pass (full activation recomputation).
	Recompute bool
	// FlashAttention never stores the s×s attention scores.
	FlashAttention bool
}

// GPUs is t·p·d.
func (c Parallelism) GPUs() int { return c.TP * c.PP * c.DP }

// GlobalBatch is the sequences per step, d·m·b.
func (c Parallelism) GlobalBatch() int { return c.DP * c.MicroBatches * c.MicroBatch }

// Validate reports the first degree or size that cannot run model m.
func (c Parallelism) Validate(m Transformer) error {
	switch {
	case c.TP < 1 || c.PP < 1 || c.DP < 1 || c.TP > 1<<20 || c.PP > 1<<20 || c.DP > 1<<24:
		return fmt.Errorf("parallelism t=%d p=%d d=%d: each degree must be ≥ 1 and of a plausible size", c.TP, c.PP, c.DP)
	case c.MicroBatch < 1 || c.MicroBatches < 1 || c.MicroBatch > 1<<24 || c.MicroBatches > 1<<24:
		return fmt.Errorf("micro-batch %d × %d micro-batches: both must be ≥ 1 and of a plausible size", c.MicroBatch, c.MicroBatches)
	case c.PP > m.Layers:
		return fmt.Errorf("pipeline degree %d exceeds the %d layers of %q", c.PP, m.Layers, m.Name)
	case m.Heads%c.TP != 0:
		return fmt.Errorf("tensor degree %d does not divide the %d heads of %q", c.TP, m.Heads, m.Name)
	case c.Sharding < Replicated || c.Sharding > FullShard:
		return fmt.Errorf("unknown sharding %d", int(c.Sharding))
	}
	return nil
}
