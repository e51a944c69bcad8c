package service

import (
	"encoding/json"

	"github.com/polluxsim/polluxsim/policies/protocol"
)

// The messages of the service, as JSON. Field names in snake_case are
// polluxsim's; the hints of a job keep AdaptDL's camelCase keys so that an
// AdaptDL client's hints can be passed through unchanged.

// SessionRequest creates a session (POST /v1/sessions).
type SessionRequest struct {
	// Policy is a registered policy's name (polluxsim policies lists them).
	Policy string `json:"policy"`
	// Options are the policy's options as a JSON object (absent: the
	// defaults), as in a sweep spec's cell.
	Options json.RawMessage `json:"options,omitempty"`
	// Seed seeds the policy's randomness.
	Seed uint64 `json:"seed"`
	// RestartDelay is the cluster's restart delay after a re-allocation,
	// seconds, for policies that account for it.
	RestartDelay float64 `json:"restart_delay_s,omitempty"`
	// Autoscaler, when set, makes every round's answer carry the desired
	// node count.
	Autoscaler *AutoscalerRequest `json:"autoscaler,omitempty"`
	// PolicyStats, when set, makes every decision carry what the policy
	// reports about its rounds (policy_stats), for a policy that does.
	PolicyStats bool `json:"policy_stats,omitempty"`
}

// AutoscalerRequest names the autoscaler of a session and its bounds.
type AutoscalerRequest struct {
	Name     string          `json:"name"`
	Options  json.RawMessage `json:"options,omitempty"`
	MinNodes int             `json:"min_nodes"`
	MaxNodes int             `json:"max_nodes"`
}

// SessionResponse describes a created session.
type SessionResponse struct {
	Session string `json:"session"`
	Policy  string `json:"policy"`
	// Options are the policy's effective options, defaults included.
	Options json.RawMessage `json:"options"`
	Traits  protocol.Traits `json:"traits"`
	// IdleTimeout is how long the session lives without a request.
	IdleTimeout float64 `json:"idle_timeout_s"`
	// Incremental says that the policy decides incrementally: the session
	// also takes changes-only rounds (POST /v1/sessions/{id}/changes).
	Incremental bool `json:"incremental,omitempty"`
	// Admission says that the policy has admission control: the session
	// takes admission requests (POST /v1/sessions/{id}/admissions).
	Admission bool `json:"admission,omitempty"`
}

// RoundRequest is one scheduling round (POST /v1/sessions/{id}/rounds).
type RoundRequest struct {
	// Time is the round's time, seconds (the clock of submission times).
	Time float64 `json:"time"`
	// Nodes are the cluster's nodes, in the order the policy numbers them.
	Nodes []Node `json:"nodes"`
	// Jobs are the active (submitted, unfinished) jobs, in the order the
	// policy sees them (the submission order).
	Jobs []Job `json:"jobs"`
	// Provisioning is the number of nodes ordered but not yet ready (for
	// the autoscaler).
	Provisioning int `json:"provisioning,omitempty"`
	// Racks and Oversubscription, optional, make the network two-tier
	// (policies.Cluster.Racks): the nodes, in the order given, form Racks
	// racks of equal size under a spine of that oversubscription (1 when
	// absent). Not with preemptible nodes or non-preemptible jobs holding
	// GPUs, whose views reorder the nodes. Racks, when given, is at least
	// 1 (absent, or null, is one tier; 0 is refused: the protocol writes
	// one tier as no racks, never as 0 racks).
	Racks            *int    `json:"racks,omitempty"`
	Oversubscription float64 `json:"oversubscription,omitempty"`
}

// Node is one node of the cluster.
type Node struct {
	Name string `json:"name"`
	GPUs int    `json:"gpus"`
	// GPUType is the canonical GPU type name, e.g. "t4" (absent: "t4").
	GPUType string `json:"gpu_type,omitempty"`
	// Preemptible says the node may be taken away (AdaptDL's
	// NodeInfo.preemptible): such nodes come last in the policy's order,
	// as AdaptDL's policy prefers the others.
	Preemptible bool `json:"preemptible,omitempty"`
}

// Job is one active job, as policies.Job carries it.
type Job struct {
	Name string `json:"name"`
	// Application is the job's model (absent when unknown).
	Application string `json:"application,omitempty"`
	// SubmissionTime is when the job was submitted, seconds.
	SubmissionTime float64 `json:"submission_time"`
	// Deadline, when positive, is the time (seconds, on SubmissionTime's
	// clock) by which the job is to finish; absent for a best-effort job.
	Deadline float64 `json:"deadline,omitempty"`
	// Restarts are the re-allocations so far, not counting the first
	// start.
	Restarts int `json:"restarts"`
	// Interruptions counts the times the job lost its GPUs to a failure
	// so far; absent when none.
	Interruptions int `json:"interruptions,omitempty"`
	// Attained is the service attained so far, GPU-seconds.
	Attained float64 `json:"attained_gpu_seconds,omitempty"`
	// Allocation is AdaptDL's allocation: the node of each replica (one
	// replica per GPU); empty when the job holds no GPU.
	Allocation []string `json:"allocation"`
	// RequestGPUs and RequestBatch are what the user asked for.
	RequestGPUs  int `json:"request_gpus,omitempty"`
	RequestBatch int `json:"request_batch,omitempty"`
	// FixedBatch, when positive, is a batch size the job cannot change.
	FixedBatch int `json:"fixed_batch,omitempty"`
	// MaxReplicas, when positive, caps the job's GPUs (AdaptDL's
	// spec.maxReplicas).
	MaxReplicas int `json:"max_replicas,omitempty"`
	// MinReplicas is the fewest GPUs the job runs on (AdaptDL's
	// spec.minReplicas): it gets none or at least these.
	MinReplicas int `json:"min_replicas,omitempty"`
	// MinGPUs, when positive, is the fewest GPUs an LLM job's memory fits
	// in (policies.Job.MinGPUs), an input to the policy: a policy that
	// sizes LLM jobs (the session's traits.sizes_llm_jobs) gives it none or
	// at least this many, and values fewer at nothing. Unlike
	// min_replicas, the service does not enforce it on the answer.
	MinGPUs int `json:"min_gpus,omitempty"`
	// NodeUnit, when positive, is the GPUs of the NVLink domain an LLM
	// job's tensor groups stay inside (policies.Job.NodeUnit: 8).
	NodeUnit int `json:"node_unit,omitempty"`
	// Preemptible false (AdaptDL's spec.preemptible) keeps the job's
	// allocation once it has one; absent: true.
	Preemptible *bool `json:"preemptible,omitempty"`
	// Epoch is the epoch in progress, 0-based.
	Epoch int `json:"epoch,omitempty"`
	// Hints are what the job's rank 0 reports, in AdaptDL's keys.
	Hints *Hints `json:"hints,omitempty"`
	// GPUTypes, on a cluster of several GPU types, are the types the job
	// may run on (empty: every type).
	GPUTypes []string `json:"gpu_types,omitempty"`
	// TypeHints, on a cluster of several GPU types, hold per type the
	// job's throughput model and batch limits there.
	TypeHints map[string]Hints `json:"type_hints,omitempty"`
}

// Hints are AdaptDL's scheduling hints (adaptdl.sched_hints.SCHED_HINTS),
// the keys the service reads. globalBatchSize is accepted and not used
// (docs/serve.md says why).
type Hints struct {
	InitBatchSize        int              `json:"initBatchSize"`
	LocalBszBounds       []int            `json:"localBszBounds,omitempty"`
	GlobalBatchSize      int              `json:"globalBatchSize,omitempty"`
	MaxBatchSize         int              `json:"maxBatchSize,omitempty"`
	MaxProfiledReplicas  int              `json:"maxProfiledReplicas,omitempty"`
	GradientAccumulation *bool            `json:"gradientAccumulation,omitempty"`
	GradParams           *GradParams      `json:"gradParams,omitempty"`
	PerfParams           *protocol.Params `json:"perfParams,omitempty"`
}

// GradParams are a job's gradient statistics as AdaptDL's clients send
// them: "norm" is the squared gradient norm (the allocator reads the pair
// by position as (sqr, var)).
type GradParams struct {
	Norm float64 `json:"norm"`
	Var  float64 `json:"var"`
}

// RoundResponse is the answer to a round or to oracle answers: either
// the decision (Jobs) or, for a policy with an oracle, OracleQueries to
// answer first (POST /v1/sessions/{id}/oracle). The queries are the
// protocol's query messages (policies/protocol), one at a time.
type RoundResponse struct {
	// Jobs hold, in the request's order, each job's new allocation and
	// configuration.
	Jobs []Decision `json:"jobs,omitempty"`
	// DesiredNodes is the node count the cluster should have: the
	// session's autoscaler's or, without one, AdaptDL's rule
	// (desiredNodes); in every decision.
	DesiredNodes int `json:"desired_nodes,omitempty"`
	// OracleQueries, when present, are questions the policy asks about
	// the jobs; there is no decision yet.
	OracleQueries []protocol.Query `json:"oracle_queries,omitempty"`
	// QueryID, with OracleQueries, identifies the query: its answer
	// carries it. Ids grow from 1 over a session's queries.
	QueryID int64 `json:"query_id,omitempty"`
	// Changes, the answer to a changes-only round instead of Jobs, are
	// the jobs whose allocation changes (non-nil, perhaps empty, in such
	// an answer).
	Changes []JobChange `json:"changes,omitempty"`
	// PolicyStats, with a decision in a session that asked for them
	// (SessionRequest.PolicyStats), are what the policy reports about its
	// rounds (absent: it reports nothing).
	PolicyStats *PolicyStats `json:"policy_stats,omitempty"`
	// Job, the answer to an admission request instead of Jobs, names the
	// job asked about; Declined is the reason it is declined (absent:
	// admitted).
	Job      string `json:"job,omitempty"`
	Declined string `json:"declined,omitempty"`
}

// MarshalJSON writes a decision with its jobs always present (an empty
// list for a round without jobs) and a batch of queries without them.
func (r RoundResponse) MarshalJSON() ([]byte, error) {
	type plain RoundResponse // without this method
	if len(r.OracleQueries) > 0 {
		return json.Marshal(plain(r))
	}
	if r.Job != "" {
		return json.Marshal(struct {
			Job      string `json:"job"`
			Declined string `json:"declined,omitempty"`
		}{r.Job, r.Declined})
	}
	if r.Changes != nil {
		return json.Marshal(struct {
			Changes      []JobChange  `json:"changes"`
			DesiredNodes int          `json:"desired_nodes,omitempty"`
			PolicyStats  *PolicyStats `json:"policy_stats,omitempty"`
		}{r.Changes, r.DesiredNodes, r.PolicyStats})
	}
	jobs := r.Jobs
	if jobs == nil {
		jobs = []Decision{}
	}
	return json.Marshal(struct {
		Jobs         []Decision   `json:"jobs"`
		DesiredNodes int          `json:"desired_nodes"`
		PolicyStats  *PolicyStats `json:"policy_stats,omitempty"`
	}{jobs, r.DesiredNodes, r.PolicyStats})
}

// Decision is one job's allocation after a round.
type Decision struct {
	Name string `json:"name"`
	// Allocation is the node of each replica (empty: no GPU).
	Allocation []string `json:"allocation"`
	// Config, for a job holding GPUs, is the configuration its agent
	// runs at there.
	Config *JobConfig `json:"config,omitempty"`
}

// JobConfig is a job's per-GPU batch, gradient accumulation steps and total
// batch on its allocation: under an adaptive policy the goodput-optimal
// configuration of its hints (M0 before it has perfParams), otherwise the
// user's batch (request_batch) split over its GPUs.
type JobConfig struct {
	LocalBsz   int `json:"local_bsz"`
	AccumSteps int `json:"accum_steps"`
	BatchSize  int `json:"batch_size"`
}

// OracleAnswers answer the pending oracle query of a session: exactly
// one protocol answer message, and the query's id (a retried or stray
// answer, carrying another id, is refused).
type OracleAnswers struct {
	QueryID int64             `json:"query_id"`
	Answers []protocol.Answer `json:"answers"`
}

// ErrorResponse is the body of every 4xx and 5xx answer: one line.
type ErrorResponse struct {
	Error string `json:"error"`
}
