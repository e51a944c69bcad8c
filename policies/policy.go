// Package policies holds the Policy interface that every cluster
// scheduling policy implements, the registry through which policies are
// found by name with their options (Registry; Register, Typed, Build,
// Resolve, Describe over the default one), the optional capabilities
// (StatsReporter, Incremental, Fallible, AppChecker, Admitter, io.Closer; see
// optional.go), the cluster's shape (Cluster, Pool) and placement
// helpers. The policies themselves live in subpackages — Pollux
// (policies/pollux), Sia (policies/sia), the Gavel family (policies/gavel:
// gavel-las, gavel-ftf, gavel-throughput), Optimus+Oracle
// (policies/optimus), Tiresias (policies/tiresias), SRTF (policies/srtf),
// EDF and the artifact's elastic EDF (policies/edf), ElasticFlow (policies/elasticflow), Themis (policies/themis), Chronus (policies/chronus), Gandiva (policies/gandiva), FIFO (policies/fifo) — each registering itself at init; policies/builtin
// imports them all, and policies/conformance is the suite every registered
// policy must pass. A policy may also run in another process:
// policies/protocol is this interface as messages, and policies/external
// the policy "external" that speaks them to a child process.
//
// A policy sees only what a live scheduler sees: the cluster's shape and,
// per job, its public description, its current allocation and what its
// agent reports (fitted throughput parameters, gradient statistics). The
// package imports only models, so a live scheduler can import it unchanged.
package policies

import (
	"github.com/polluxsim/polluxsim/models"
)

// Cluster describes the GPUs a policy may allocate: Nodes identical nodes of
// GPUsPerNode GPUs each (of DefaultType) when Pools is empty; otherwise the
// nodes of Pools in order (see NewCluster), Nodes their total.
//
// Policies ask per node: NodeGPUs(n) and NodeType(n) are node n's GPUs and
// GPU type, MaxNodeGPUs the largest node's GPUs, TotalGPUs and TypeGPUs
// the sums. GPUsPerNode is how a cluster without pools is written down
// (Cluster{Nodes: 16, GPUsPerNode: 4}); with pools it is the largest
// node's GPUs, which policy code reads as MaxNodeGPUs.
type Cluster struct {
	Nodes int
	// GPUsPerNode is every node's GPUs without pools, the largest node's
	// with them (NewCluster sets it).
	GPUsPerNode int
	// Pools, when set, are the cluster's node pools (see cluster.go).
	Pools []Pool
	// Racks, when positive, makes the network two-tier: the nodes form
	// Racks racks of Nodes/Racks consecutive nodes each (Rack), meeting
	// at a spine whose uplinks carry 1/Oversubscription of what a rack's
	// NICs can send (≥ 1; 1 is non-blocking). 0 is one tier, every node
	// under one non-blocking switch. Only LLM jobs' steps depend on it
	// (docs/llm.md); CheckNetwork validates both.
	Racks            int
	Oversubscription float64
}

// TotalGPUs is the number of GPUs in the cluster.
func (c Cluster) TotalGPUs() int {
	if len(c.Pools) == 0 {
		return c.Nodes * c.GPUsPerNode
	}
	k := 0
	for _, p := range c.Pools {
		k += p.Nodes * p.GPUsPerNode
	}
	return k
}

// Request is what the user asked for when submitting a job.
type Request struct {
	GPUs  int // number of GPUs
	Batch int // total batch size
}

// Oracle exposes ground truth to policies that are defined with an oracle
// (Optimus+Oracle, SRTF). Other policies never receive one. It gives plain facts
// of the measured profiles; what a policy makes of them (e.g. Optimus's
// remaining-work estimate) is the policy's business.
type Oracle interface {
	// Epochs is the number of epochs the job trains for (the one in
	// progress is Job.Epoch, 0-based).
	Epochs() int
	// Iterations is the number of optimizer steps at total batch size
	// batch from the start of training to the end of epoch (0-based), as
	// measured on the job's training curve.
	Iterations(batch, epoch int) float64
	// IterTime is the true time of one optimizer step on placement (GPUs
	// per node) at per-GPU batch local with accum gradient accumulation
	// steps.
	IterTime(placement []int, local float64, accum int) float64
	// StepTime is the true time of one step without gradient
	// accumulation on placement at per-GPU batch local, and its
	// synchronisation part sync (sync ≤ step): the two measured times
	// IterTime is made of, IterTime = step + accum·(step − sync)
	// (profiles.IterTime).
	StepTime(placement []int, local float64) (step, sync float64)
	// CompletionEpoch is the last epoch (0-based) the job trains at total
	// batch size batch: it completes when that epoch ends. The engine's
	// jobs train Epochs() epochs whatever their batch size, so it answers
	// Epochs() − 1; the question takes the batch as the Pollux artifact's
	// get_completion_epoch does (there a target metric can end training
	// earlier at some batch sizes).
	CompletionEpoch(batch int) int
	// RemainingIterations is the exact number of optimizer steps the job
	// still needs at total batch size batch from its current progress.
	RemainingIterations(batch int) float64
	// TypeIterTime is the true time of one optimizer step at total batch
	// size batch on placement (GPUs per node) of GPU type t, also a type
	// other than the one the job runs on: what a heterogeneity-aware
	// scheduler with measured throughputs (Gavel) is given. The batch is
	// split into per-GPU batches and accumulation steps as the engine runs
	// a job of fixed batch there (Limits.Split with t's limits). ok is
	// false when the job's application has no tables for t.
	TypeIterTime(t string, placement []int, batch int) (seconds float64, ok bool)
}

// Job is the observable state of one active (submitted, unfinished) job.
type Job struct {
	Name   string
	App    string
	Submit float64 // submission time, seconds
	// Deadline, when positive, is the time (seconds, on Submit's clock)
	// by which the job is to finish; 0 means none: a best-effort job.
	Deadline float64
	Age      float64 // now − Submit
	Restarts int     // re-allocations so far, not counting the first start
	// Interruptions counts the times the job lost its GPUs to a failure
	// (of a node it held, or its own) so far: always 0 without a fault
	// model. A job whose count grew since the last round was interrupted
	// in between and holds no GPU (docs/failures.md).
	Interruptions int
	Attained      float64 // attained service, GPU-seconds
	// Alloc is the current allocation: GPUs on each node (length
	// Cluster.Nodes), or nil when the job holds no GPU.
	Alloc   []int
	Request Request
	Limits  models.Limits
	// FixedBatch, when positive, is a batch size the job cannot change
	// even under an adaptive policy.
	FixedBatch int
	// MaxGPUs, when positive, is an application cap on the job's GPUs.
	MaxGPUs int
	// MinGPUs, when positive, is the fewest GPUs the job fits in (its
	// memory refuses fewer: an LLM job). The simulator treats an
	// allocation of fewer as none, as AdaptDL's min_replicas.
	MinGPUs int
	// NodeUnit, when positive, is the GPUs of the NVLink domain (a node
	// of an LLM GPU type: 8) that the job's tensor-parallel groups must
	// stay inside: its tensor degree is a power of two up to it that
	// divides the job's GPUs on every node. A policy that places such a
	// job on K GPUs keeps every tensor degree of K open by giving it a
	// multiple of TensorUnit(K) GPUs on each node it uses (Pollux does).
	// 0 for jobs without tensor parallelism (the six measured
	// applications).
	NodeUnit int
	// MaxSeenGPUs is the largest number of GPUs the job has run on.
	MaxSeenGPUs int
	// Params is θ_sys as fitted by the job's agent; nil before the job has
	// run at all.
	Params *models.Params
	// Grad holds the job's current gradient statistics (its PGNS).
	Grad  models.GradStats
	Epoch int
	// Oracle is non-nil only for policies whose Traits ask for it
	// (NeedsOracle).
	Oracle Oracle
	// Types, on a cluster of several GPU types, are the types the job may
	// run on (its application has measured tables there); empty means
	// every type. A job holds GPUs of one type at a time.
	Types []string
	// TypeModels, on a cluster of several GPU types, hold per offered type
	// the job's throughput model and batch limits there: θ_sys fitted by
	// its agent from what it ran on that type or, before that, from the
	// one-GPU bootstrap measurement taken when the job arrived. Nil on a
	// single-type cluster and for non-adaptive policies.
	TypeModels map[string]TypeModel
}

// TypeModel is what a job's agent knows about the job on one GPU type.
type TypeModel struct {
	Params models.Params
	Limits models.Limits
}

// TensorUnit is the multiple of GPUs a job with a NodeUnit takes on each
// node of an allocation of k GPUs: gcd(k, NodeUnit), the largest tensor
// degree a placement of k GPUs in whole tensor groups can use (1 for a job
// without a NodeUnit, or without GPUs).
func (j *Job) TensorUnit(k int) int {
	if j.NodeUnit <= 0 || k <= 0 {
		return 1
	}
	a, b := k, j.NodeUnit
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// GPUs is the number of GPUs in the job's current allocation.
func (j *Job) GPUs() int { return Sum(j.Alloc) }

// Decision is a policy's output for one scheduling round.
type Decision struct {
	// Alloc holds, for each input job in order, its GPUs on each node
	// (length Cluster.Nodes), or nil for none.
	Alloc [][]int
}

// Traits describe how the simulator must treat jobs under a policy.
type Traits struct {
	// AdaptiveBatch: jobs tune their own batch size for goodput (Pollux).
	// Otherwise they run at the user's requested batch size.
	AdaptiveBatch bool
	// NeedsOracle: the policy receives the jobs' ground truth
	// (Job.Oracle).
	NeedsOracle bool
	// UserGPUs: jobs run only on exactly the GPUs the user requested.
	UserGPUs bool
	// SizesLLMJobs: the policy chooses the GPUs of jobs with a memory
	// floor (Job.MinGPUs > 0: LLM jobs) itself (Pollux). Every other
	// policy sees such a job rigid at its request, as the papers of Sia,
	// Optimus, Tiresias, Gavel and FIFO would run it: its MinGPUs and
	// MaxGPUs are the GPUs it asked for. The protocol carries it from
	// version 4 (traits.sizes_llm_jobs).
	SizesLLMJobs bool
}

// Policy decides, once per scheduling round, which GPUs each job holds.
// A Policy may keep state between rounds (e.g. queues, a search
// population); create one per simulation. Given the same inputs and seed,
// a Policy must make the same decisions.
type Policy interface {
	// Name identifies the policy, e.g. "pollux".
	Name() string
	// Traits reports how jobs behave under the policy.
	Traits() Traits
	// Schedule returns the allocations for the active jobs at time now.
	// jobs and what its elements refer to (allocations, parameters)
	// belong to the caller: read them, never modify them, and copy what
	// is kept past the call (the simulator reuses them). A decision may
	// return a job's own Alloc to keep its GPUs.
	Schedule(now float64, cluster Cluster, jobs []Job) Decision
}

// Sum is the total of a per-node allocation.
func Sum(alloc []int) int {
	s := 0
	for _, v := range alloc {
		s += v
	}
	return s
}

// NodesUsed is the number of nodes with at least one GPU in alloc.
func NodesUsed(alloc []int) int {
	n := 0
	for _, v := range alloc {
		if v > 0 {
			n++
		}
	}
	return n
}

// Equal reports whether two allocations hold the same GPUs (nil and all
// zeros are equal).
func Equal(a, b []int) bool {
	if len(a) == len(b) && len(a) > 0 && &a[0] == &b[0] {
		return true // the same slice
	}
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y int
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return false
		}
	}
	return true
}
