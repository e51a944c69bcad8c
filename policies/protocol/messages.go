package protocol

import (
	_ "embed"

	"github.com/polluxsim/polluxsim/models"
)

// Version is the newest protocol version this package speaks, and
// MinVersion the oldest: an engine offers both in hello (MinVersion as
// protocol, Version as max_protocol) and the policy's ready picks one
// (Negotiate). docs/protocol.md#versioning holds the changelog.
const (
	Version    = 4
	MinVersion = 1
)

// Message types: the "type" field of every message.
const (
	TypeHello               = "hello"
	TypeReady               = "ready"
	TypeRound               = "round"
	TypeDecision            = "decision"
	TypeIncrementalRound    = "incremental_round"
	TypeIncrementalDecision = "incremental_decision"
	TypeQuery               = "query"
	TypeAnswer              = "answer"
	TypeError               = "error"
	// Since version 3: admission control, for a policy whose ready says
	// "admission": true.
	TypeAdmit     = "admit"
	TypeAdmission = "admission"
)

// AdmissionVersion is the protocol version that added admission control
// (ready.admission, admit, admission).
const AdmissionVersion = 3

// LLMVersion is the protocol version that added what a policy needs to
// size and place LLM jobs: the trait traits.sizes_llm_jobs, a job's
// node_unit, and a cluster's two-tier network (racks, oversubscription).
// In a conversation of an older version the engine sends none of them
// and a policy may not declare the trait.
const LLMVersion = 4

// Schema is the JSON Schema of every message (schema.json).
//
//go:embed schema.json
var Schema []byte

// Envelope is the part every message shares: its type. A reader decodes
// the envelope first, then the message of that type.
type Envelope struct {
	Type string `json:"type"`
}

// Hello opens a conversation: the protocol versions the engine speaks
// and what the policy may learn about the run (policies.Env).
type Hello struct {
	Type string `json:"type"`
	// Protocol is the oldest version the engine speaks, MaxProtocol the
	// newest (absent: Protocol, as a version 1 engine sends it). A
	// version 1 policy reads Protocol as the engine's version and answers
	// 1, so it keeps working with a newer engine.
	Protocol    int `json:"protocol"`
	MaxProtocol int `json:"max_protocol,omitempty"`
	// Seed seeds any randomness of the policy.
	Seed uint64 `json:"seed"`
	// RestartDelay is the engine's restart delay after a re-allocation,
	// seconds.
	RestartDelay float64 `json:"restart_delay"`
}

// Ready answers Hello: the protocol version the conversation speaks (one
// the engine offered, chosen by the policy), the policy's name, traits,
// whether it decides incrementally, and its effective options (any JSON
// object; recorded in the run's log, not interpreted).
type Ready struct {
	Type     string `json:"type"`
	Protocol int    `json:"protocol"`
	Name     string `json:"name"`
	Traits   Traits `json:"traits"`
	// Incremental says that the policy answers incremental_round
	// messages (policies.Incremental); the engine then sends them
	// whenever the simulator decides a run incrementally.
	Incremental bool `json:"incremental,omitempty"`
	// Admission says that the policy answers admit messages
	// (policies.Admitter): it may decline a job at its submission. Since
	// version 3; a conversation of an older version may not set it.
	Admission bool           `json:"admission,omitempty"`
	Options   map[string]any `json:"options,omitempty"`
}

// Traits is policies.Traits.
type Traits struct {
	AdaptiveBatch bool `json:"adaptive_batch"`
	NeedsOracle   bool `json:"needs_oracle"`
	UserGPUs      bool `json:"user_gpus"`
	// SizesLLMJobs is optional (absent when false): the policy sizes jobs
	// with a memory floor itself. Since version 4 (LLMVersion).
	SizesLLMJobs bool `json:"sizes_llm_jobs,omitempty"`
}

// Round asks for the allocations of one scheduling round
// (policies.Policy.Schedule). Round numbers the policy's rounds from 1.
type Round struct {
	Type    string  `json:"type"`
	Round   int     `json:"round"`
	Now     float64 `json:"now"`
	Cluster Cluster `json:"cluster"`
	Jobs    []Job   `json:"jobs"`
}

// Decision answers Round: Alloc holds, for each job of the round in
// order, its GPUs on each node (Cluster.Nodes entries), or null for none.
type Decision struct {
	Type  string  `json:"type"`
	Round int     `json:"round"`
	Alloc [][]int `json:"alloc"`
}

// IncrementalRound asks an incremental policy for one round's changes
// (policies.Incremental.ScheduleIncremental). Added are the jobs that
// became active, in increasing key; Updated the tracked jobs whose view
// changed since it was last sent (every job holding GPUs, and those that
// lost them since the last round), in increasing key; Removed the keys of
// tracked jobs that finished. A tracked job not in Updated has the view
// last sent for it (its Age then stale, as in process).
type IncrementalRound struct {
	Type    string  `json:"type"`
	Round   int     `json:"round"`
	Now     float64 `json:"now"`
	Cluster Cluster `json:"cluster"`
	Added   []Keyed `json:"added"`
	Updated []Keyed `json:"updated"`
	Removed []int64 `json:"removed"`
}

// Keyed is a job with the key that identifies it across incremental
// rounds (policies.Tracked).
type Keyed struct {
	Key int64 `json:"key"`
	Job Job   `json:"job"`
}

// IncrementalDecision answers IncrementalRound: the jobs whose allocation
// changes, each at most once (policies.Change).
type IncrementalDecision struct {
	Type    string   `json:"type"`
	Round   int      `json:"round"`
	Changes []Change `json:"changes"`
}

// Change is a job's new allocation: GPUs per node, or null for none.
type Change struct {
	Key   int64 `json:"key"`
	Alloc []int `json:"alloc"`
}

// Admit asks a policy with admission control whether to admit Job,
// submitted at Now, given the jobs active at that moment (Active, in
// submission order, the job itself not among them): policies.Admitter's
// Admit on the wire. Within it the policy may send queries about Job and
// the active jobs, as within a round. Since version 3.
type Admit struct {
	Type    string  `json:"type"`
	Now     float64 `json:"now"`
	Cluster Cluster `json:"cluster"`
	Job     Job     `json:"job"`
	Active  []Job   `json:"active"`
}

// Admission answers Admit: Job is the name of the job asked about;
// Declined is empty (absent) to admit it, else the reason it is declined
// (one line; the engine keeps at most 200 bytes). Since version 3.
type Admission struct {
	Type     string `json:"type"`
	Job      string `json:"job"`
	Declined string `json:"declined,omitempty"`
}

// Oracle facts a Query may ask for (the methods of policies.Oracle).
const (
	FactEpochs              = "epochs"
	FactIterations          = "iterations"
	FactIterTime            = "iter_time"
	FactRemainingIterations = "remaining_iterations"
	FactTypeIterTime        = "type_iter_time"
	// Since version 2.
	FactStepTime        = "step_time"
	FactCompletionEpoch = "completion_epoch"
)

// FactVersion is the protocol version that introduced fact (0 for a fact
// this package does not know): a conversation of an older version may not
// ask it.
func FactVersion(fact string) int {
	switch fact {
	case FactEpochs, FactIterations, FactIterTime, FactRemainingIterations, FactTypeIterTime:
		return 1
	case FactStepTime, FactCompletionEpoch:
		return 2
	}
	return 0
}

// Query asks the engine, within a round, one oracle fact about a job of
// the round (by name); only a policy whose traits set needs_oracle may
// ask. The arguments each fact takes: epochs none; iterations batch and
// epoch; iter_time placement, local and accum; remaining_iterations
// batch; type_iter_time gpu_type, placement and batch; step_time
// placement and local; completion_epoch batch.
type Query struct {
	Type      string  `json:"type"`
	Job       string  `json:"job"`
	Fact      string  `json:"fact"`
	Batch     int     `json:"batch,omitempty"`
	Epoch     int     `json:"epoch,omitempty"`
	Placement []int   `json:"placement,omitempty"`
	Local     float64 `json:"local,omitempty"`
	Accum     int     `json:"accum,omitempty"`
	GPUType   string  `json:"gpu_type,omitempty"`
}

// Answer answers a Query: Value is the fact (epochs and
// completion_epoch as numbers; step_time the step's time, its
// synchronisation part in Sync, absent when 0 and for the other facts);
// OK is false only for type_iter_time on a type the job has no tables for.
type Answer struct {
	Type  string  `json:"type"`
	Value float64 `json:"value"`
	Sync  float64 `json:"sync,omitempty"`
	OK    bool    `json:"ok"`
}

// Error ends a conversation: what went wrong, in one line.
type Error struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Cluster is policies.Cluster.
type Cluster struct {
	Nodes       int    `json:"nodes"`
	GPUsPerNode int    `json:"gpus_per_node"`
	Pools       []Pool `json:"pools,omitempty"`
	// Racks and Oversubscription are optional (absent on one tier): the
	// two-tier network, racks of Nodes/Racks consecutive nodes. Since
	// version 4 (LLMVersion).
	Racks            int     `json:"racks,omitempty"`
	Oversubscription float64 `json:"oversubscription,omitempty"`
}

// Pool is policies.Pool.
type Pool struct {
	Type        string  `json:"type"`
	Nodes       int     `json:"nodes"`
	GPUsPerNode int     `json:"gpus_per_node"`
	Price       float64 `json:"price,omitempty"`
	Name        string  `json:"name,omitempty"`
}

// Job is policies.Job without its oracle.
type Job struct {
	Name     string  `json:"name"`
	App      string  `json:"app"`
	Submit   float64 `json:"submit"`
	Deadline float64 `json:"deadline,omitempty"`
	Age      float64 `json:"age"`
	Restarts int     `json:"restarts"`
	// Interruptions is optional: absent when 0 (always without failures).
	Interruptions int     `json:"interruptions,omitempty"`
	Attained      float64 `json:"attained"`
	Alloc         []int   `json:"alloc"`
	Request       Request `json:"request"`
	Limits        Limits  `json:"limits"`
	FixedBatch    int     `json:"fixed_batch,omitempty"`
	MaxGPUs       int     `json:"max_gpus,omitempty"`
	MinGPUs       int     `json:"min_gpus,omitempty"`
	// NodeUnit is optional (absent when 0): the NVLink domain an LLM
	// job's tensor groups stay inside. Since version 4 (LLMVersion).
	NodeUnit    int                  `json:"node_unit,omitempty"`
	MaxSeenGPUs int                  `json:"max_seen_gpus"`
	Params      *Params              `json:"params,omitempty"`
	Grad        GradStats            `json:"grad"`
	Epoch       int                  `json:"epoch"`
	Types       []string             `json:"types,omitempty"`
	TypeModels  map[string]TypeModel `json:"type_models,omitempty"`
}

// Request is policies.Request.
type Request struct {
	GPUs  int `json:"gpus"`
	Batch int `json:"batch"`
}

// Limits is models.Limits.
type Limits struct {
	InitBatch int `json:"init_batch"`
	MaxBatch  int `json:"max_batch"`
	MinLocal  int `json:"min_local"`
	MaxLocal  int `json:"max_local"`
}

// Params is θ_sys as fitted by a job's agent, with named fields.
type Params = models.NamedParams

// GradStats is models.GradStats.
type GradStats struct {
	Sqr float64 `json:"sqr"`
	Var float64 `json:"var"`
}

// TypeModel is policies.TypeModel.
type TypeModel struct {
	Params Params `json:"params"`
	Limits Limits `json:"limits"`
}
