package llm

import (
	"fmt"
	"math"
)

// Software stacks the calibration distinguishes: the fraction of peak the
// GEMMs reach is a property of the implementation as much as of the GPU.
const (
	// StackLLMFoundry is MosaicML's llm-foundry/Composer on PyTorch FSDP
	// with flash attention (2023).
	StackLLMFoundry = "llm-foundry"
	// StackMegatron is Megatron-LM with tensor and pipeline parallelism
	// (2021).
	StackMegatron = "megatron"
)

// Calibration holds the fitted constants of the throughput model.
type Calibration struct {
	// Stacks holds the constants of each software stack on each GPU
	// type, keyed by StackKey.
	Stacks map[string]StackCalibration
	// HiddenHalf is h₀: GEMM efficiency falls as h₀/h for small hidden
	// sizes.
	HiddenHalf float64
	// TokensHalf is x₀: and as x₀/(b·s) for micro-batches of few tokens.
	TokensHalf float64
	// Latency is α, the seconds a collective across nodes pays per
	// doubling of its group, up and down a tree (the α of the α-β cost
	// model, in the log-depth form of NCCL's algorithms for large groups):
	// 2·⌈log₂ d⌉·α on top of its bytes over bandwidth.
	Latency float64
	// Overlap is ω, the fraction of data-parallel traffic that can run
	// behind compute.
	Overlap float64
}

// StackCalibration is what depends on the implementation and the GPU.
type StackCalibration struct {
	// PeakFraction is e_max, the fraction of peak large GEMMs reach.
	PeakFraction float64
	// Attention is A, the cost of an attention FLOP relative to a GEMM
	// FLOP (attention kernels reach a different fraction of peak).
	Attention float64
}

// StackKey is the key of PeakFraction for a stack on a GPU type.
func StackKey(stack, gpu string) string { return stack + "/" + gpu }

// Job is one training configuration to time.
type Job struct {
	Model Transformer
	Par   Parallelism
	GPU   GPU
	Stack string
}

// Step is the predicted time of one iteration and its parts, in seconds.
type Step struct {
	// Time is the whole iteration.
	Time float64
	// Compute is one micro-batch's compute on one GPU (C).
	Compute float64
	// TensorComm is one micro-batch's tensor-parallel all-reduces (X).
	TensorComm float64
	// Bubble is the pipeline's idle fraction (p−1)/(m+p−1).
	Bubble float64
	// DataComm is the step's data-parallel traffic time, and DataExposed
	// the part of it not hidden behind compute.
	DataComm, DataExposed float64
	// GEMMEfficiency is e(h, b·s), the fraction of peak of the GEMMs.
	GEMMEfficiency float64
	// Tokens is the tokens the step trains (d·m·b·s).
	Tokens float64
}

// TokensPerGPUSecond is the step's tokens per second per GPU.
func (s Step) TokensPerGPUSecond(gpus int) float64 { return s.Tokens / s.Time / float64(gpus) }

// GEMMEfficiency is e(h, x) = e_max/(1 + h₀/h + x₀/x) for hidden size h and x
// tokens per micro-batch.
func (cal Calibration) GEMMEfficiency(emax float64, hidden, tokens float64) float64 {
	return emax / (1 + cal.HiddenHalf/hidden + cal.TokensHalf/tokens)
}

// validate reports the first shared constant out of its range.
func (cal Calibration) validate() error {
	switch {
	case !(cal.HiddenHalf >= 0) || !(cal.TokensHalf >= 0) || !(cal.Latency >= 0) ||
		math.IsInf(cal.HiddenHalf+cal.TokensHalf+cal.Latency, 0):
		return fmt.Errorf("calibration: h₀ %g, x₀ %g and α %g must be finite and ≥ 0", cal.HiddenHalf, cal.TokensHalf, cal.Latency)
	case !(cal.Overlap >= 0 && cal.Overlap <= 1):
		return fmt.Errorf("calibration: overlap %g not in [0, 1]", cal.Overlap)
	}
	return nil
}

// Step predicts one iteration of job (see the package comment for the
// formulas). It fails when the job is malformed or its stack has no
// calibration on its GPU type; it does not check memory (CheckMemory does).
func (cal Calibration) Step(job Job) (Step, error) {
	if err := validate(job.Model, job.Par, job.GPU); err != nil {
		return Step{}, err
	}
	return cal.step(job, job.GPU.packedLinks(job.Par))
}

// links are the bandwidths a step's collectives see where its GPUs sit.
type links struct {
	// data is the per-GPU bandwidth of the slowest data-parallel ring,
	// bytes/s.
	data float64
	// acrossNodes is whether some data-parallel group spans nodes (and so
	// pays the latency of a collective across nodes).
	acrossNodes bool
}

// packedLinks are the links of a job whose replicas are packed whole into
// consecutive nodes (the layout Step assumes).
func (g GPU) packedLinks(c Parallelism) links {
	return links{data: g.dataLink(c), acrossNodes: c.GPUs() > g.PerNode}
}

// step is Step for a validated job whose data-parallel rings see l;
// tensor groups are always inside a node.
func (cal Calibration) step(job Job, l links) (Step, error) {
	m, c, g := job.Model, job.Par, job.GPU
	if err := cal.validate(); err != nil {
		return Step{}, err
	}
	st, ok := cal.Stacks[StackKey(job.Stack, g.Name)]
	if !ok || !(st.PeakFraction > 0 && st.PeakFraction <= 1) || !(st.Attention > 0) || math.IsInf(st.Attention, 0) {
		return Step{}, fmt.Errorf("no calibration for stack %q on %s", job.Stack, g.Name)
	}
	t, p, b := float64(c.TP), float64(c.PP), float64(c.MicroBatch)
	s, h := float64(m.SeqLen), float64(m.Hidden)
	recompute, allReduces := 1.0, 4.0
	if c.Recompute {
		recompute, allReduces = 4.0/3, 6
	}
	eff := cal.GEMMEfficiency(st.PeakFraction, h, b*s)
	flops := recompute * b * (m.DenseFLOPsPerSeq() + st.Attention*m.AttentionFLOPsPerSeq()) / (t * p)
	compute := flops / (g.PeakFLOPS * eff)
	tensor := float64(m.Layers) / p * allReduces * RingAllReduce(c.TP, 2*b*s*h, g.link(c.TP))
	micro := compute + tensor
	pipeline := float64(c.MicroBatches+c.PP-1) * micro

	// 16-bit weights are gathered and 16-bit gradients reduced: 2 bytes
	// a parameter of the replica's shard of the model.
	shardBytes := gradBytes * m.Params / (t * p)
	ring := RingAllReduce(c.DP, shardBytes, l.data)
	var hops float64 // latency of one collective over the replicas
	if l.acrossNodes {
		hops = 2 * math.Ceil(math.Log2(float64(c.DP))) * cal.Latency
	}
	mb, layers := float64(c.MicroBatches), float64(m.Layers)/p
	// One collective per layer and pass: a DDP bucket per layer per step;
	// per micro-batch an all-gather and a reduce-scatter (ZeRO-2), and a
	// second all-gather (ZeRO-3).
	var data, hide float64
	switch c.Sharding {
	case Replicated, ShardOptimizer:
		data, hide = ring+layers*hops, compute // behind the last micro-batch's backward
	case ShardGradOp:
		data, hide = mb*(ring+2*layers*hops), mb*compute
	case FullShard:
		data, hide = mb*(1.5*ring+3*layers*hops), mb*compute
	}
	exposed := data - math.Min(cal.Overlap*data, hide)
	return Step{
		Time:           pipeline + exposed,
		Compute:        compute,
		TensorComm:     tensor,
		Bubble:         PipelineBubble(c.PP, c.MicroBatches),
		DataComm:       data,
		DataExposed:    exposed,
		GEMMEfficiency: eff,
		Tokens:         float64(c.GlobalBatch()) * s,
	}, nil
}

// link is the per-GPU bandwidth of a collective over n consecutive GPUs:
// NVLink when they fit in one node, the network otherwise.
func (g GPU) link(n int) float64 {
	if n <= g.PerNode {
		return g.NVLink
	}
	return g.Network
}

// dataLink is the bandwidth of a data-parallel ring of configuration c.
// Inside one node it is NVLink. Across nodes, a node's q = PerNode/(t·p)
// members of one data-parallel group (at least 1) share the ring's
// node-to-node hops over q NICs at once (NCCL runs one ring channel per
// NIC), so the ring moves at q·Network per GPU, at most NVLink.
func (g GPU) dataLink(c Parallelism) float64 {
	if c.GPUs() <= g.PerNode {
		return g.NVLink
	}
	q := max(1, g.PerNode/(c.TP*c.PP))
	return math.Min(g.NVLink, float64(q)*g.Network)
}
