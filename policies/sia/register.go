package sia

import (
	"fmt"
	"math"

	"github.com/polluxsim/polluxsim/policies"
)

// Name is the policy's registered name.
const Name = "sia"

// Options are Sia's user-settable options, with the paper's defaults.
type Options struct {
	P              float64 `option:"p" doc:"fairness exponent applied to each job's normalised goodput, in [-10, -0.01] or [0.01, 10] (< 0 minimises, > 0 maximises)"`
	LambdaN        float64 `option:"lambda_n" doc:"penalty per job left without GPUs, in (1, 1e6] when p < 0 (at most 1, a job's one-GPU value, nothing is worth allocating), in (0, 1e6] when p > 0"`
	Clip           float64 `option:"clip" doc:"largest value of a powered goodput, in [1, 1e6] (Sia clips at 3000)"`
	RestartPenalty float64 `option:"restart_penalty_s" doc:"seconds a re-allocation costs in the restart factor, in [0, 1e6] (0: Sia's measured per-model penalties)"`
	MaxNodes       int     `option:"max_search_nodes" doc:"most branch-and-bound nodes per round before the best allocation found is used unproven (counted in summary.json policy_stats); in [0, 1e9] (0: no limit, always exact)"`
	DoublingCap    bool    `option:"doubling_cap" doc:"offer a job on each GPU type at most twice the most GPUs it has run on there (at least 1; the one-GPU bootstrap counts), as the Sia artifact does (cluster.py get_sia_multi_job_info); false: only the batch limits cap it"`
	ShareCap       bool    `option:"share_cap" doc:"with doubling_cap: one cap for all GPU types, the largest of the per-type caps, as the Sia artifact's evaluation runs it (run_experiment.sh: --share_max_replicas, implied by --project_throughputs; sia.py optimize_mip)"`
	Project        bool    `option:"project_throughputs" doc:"model a GPU type only once the job has run there, and value the types it has not run on by projecting its goodput from the first type it ran on through the types' one-GPU throughput ratio, as the Sia artifact's evaluation runs it (run_experiment.sh: --project_throughputs; sia.py _compute_goodputs_v2); implies share_cap, and the doubling cap counts only GPUs run on; false: every type is valued from the job's one-GPU bootstrap model there"`
	IdleFactor     bool    `option:"idle_restart_factor" doc:"discount a job that holds no GPUs (waiting, or preempted) by its restart factor on every configuration, as this package always has; false: as the Sia artifact's code does (sia.py __solve_mip_rescaled scales only a job with an allocation, on the configurations other than its current one; the sia-table3 experiment runs it so)"`
	WorkloadBatch  bool    `option:"workload_batch" doc:"value each configuration's goodput over total batch sizes up to the job's own (the workload's) batch size, as the Sia artifact does (job.py get_speedup_fn, target_batch_size); false: up to the application's largest batch"`
	// Rigid holds each job at its requested GPU count: its only
	// configurations are its request on each GPU type (on the fewest nodes
	// it fits, valued so, placed on whole nodes when it fills them, else
	// wherever its type has GPUs free); the batch size still adapts. It is
	// not an option but a policy of its own (RigidName, RigidRegistration):
	// an option would change every Sia run's options and so its run_id.
	Rigid bool
}

// DefaultOptions are the Sia paper's settings, with the two mechanisms of
// its artifact's code (DoublingCap, WorkloadBatch) on. IdleFactor stays
// on, as before the artifact's code was read: turning it off moves every
// Sia number measured so far (docs/heterogeneous.md).
func DefaultOptions() Options {
	return Options{P: -0.5, LambdaN: 1.1, Clip: 3000, MaxNodes: 10_000_000, DoublingCap: true, WorkloadBatch: true, IdleFactor: true}
}

// Bounds of the options (see their docs): beyond them the policy is not
// meaningful (|p| > 10 or lambda_n at most 1 with p < 0 leave no
// allocation worth making, and a run starved to the time limit) or the
// values lose precision against each other.
const (
	minAbsP    = 0.01
	maxAbsP    = 10
	maxLambdaN = 1e6
	maxClip    = 1e6
	maxPenalty = 1e6
	maxNodes   = 1_000_000_000
)

// Validate checks the options against their bounds.
func (o *Options) Validate() error {
	switch {
	case !(math.Abs(o.P) >= minAbsP && math.Abs(o.P) <= maxAbsP):
		return fmt.Errorf("p must satisfy %v <= |p| <= %v, got %v", minAbsP, maxAbsP, o.P)
	case o.P < 0 && !(o.LambdaN > 1 && o.LambdaN <= maxLambdaN):
		// A job's powered goodput on its slowest configuration is 1, and
		// allocating is worth lambda_n minus it: at most 1, nothing is.
		return fmt.Errorf("lambda_n must be in (1, %g] with p < 0 (at most 1, no allocation is worth making), got %v", float64(maxLambdaN), o.LambdaN)
	case !(o.LambdaN > 0 && o.LambdaN <= maxLambdaN):
		// 0 would value leaving a job without GPUs as much as running it.
		return fmt.Errorf("lambda_n must be in (0, %g], got %v", float64(maxLambdaN), o.LambdaN)
	case !(o.Clip >= 1 && o.Clip <= maxClip):
		return fmt.Errorf("clip must be in [1, %g], got %v", float64(maxClip), o.Clip)
	case !(o.RestartPenalty >= 0 && o.RestartPenalty <= maxPenalty):
		return fmt.Errorf("restart_penalty_s must be in [0, %g] seconds, got %v", float64(maxPenalty), o.RestartPenalty)
	case o.MaxNodes < 0 || o.MaxNodes > maxNodes:
		return fmt.Errorf("max_search_nodes must be in [0, %d] (0: no limit), got %d", maxNodes, o.MaxNodes)
	}
	return nil
}

var _ policies.Policy = (*Policy)(nil)

// Registration is the policy's registration, for a policies.Registry
// (policies/builtin.Registrations lists it with the other built-ins).
func Registration() policies.Registration {
	return policies.Typed(policies.Registration{
		Name: Name,
		Doc:  "Sia (SOSP'23): heterogeneity-aware goodput-optimised; an exact integer program over (GPU type, nodes, GPUs) per job each round",
	}, DefaultOptions, func(o Options, env policies.Env) (policies.Policy, error) {
		return New(o, env), nil
	})
}

// RigidName is the registered name of Sia's rigid twin.
const RigidName = "sia-rigid"

// RigidRegistration is Sia held at each job's requested GPU count
// (Options.Rigid), with Sia's options: the twin that isolates what
// elasticity buys (docs/failures.md).
func RigidRegistration() policies.Registration {
	return policies.Typed(policies.Registration{
		Name: RigidName,
		Doc:  "Sia held at each job's requested GPU count (its batch size still adapts): a rigid twin of sia for isolating what elasticity buys",
	}, DefaultOptions, func(o Options, env policies.Env) (policies.Policy, error) {
		o.Rigid = true
		return New(o, env), nil
	})
}
