package sia

import (
	"errors"
	"fmt"
	"math"

	"github.com/polluxsim/polluxsim/policies"
)

// Name is the policy's registered name.
const Name = "sia"

// Options are Sia's user-settable options, with the paper's defaults.
type Options struct {
	P              float64 `option:"p" doc:"fairness exponent applied to each job's normalised goodput (not 0; < 0 minimises, > 0 maximises)"`
	LambdaN        float64 `option:"lambda_n" doc:"penalty per job left without GPUs"`
	Clip           float64 `option:"clip" doc:"largest value of a powered goodput (Sia clips at 3000)"`
	RestartPenalty float64 `option:"restart_penalty_s" doc:"seconds a re-allocation costs in the restart factor (0: Sia's measured per-model penalties)"`
	MaxNodes       int     `option:"max_search_nodes" doc:"most branch-and-bound nodes per round before the best allocation found is used unproven (counted in summary.json policy_stats); 0: no limit, always exact"`
	DoublingCap    bool    `option:"doubling_cap" doc:"offer a job on each GPU type at most twice the most GPUs it has run on there (at least 1; the one-GPU bootstrap counts), as the Sia artifact does (cluster.py get_sia_multi_job_info); false: only the batch limits cap it"`
	ShareCap       bool    `option:"share_cap" doc:"with doubling_cap: one cap for all GPU types, the largest of the per-type caps, as the Sia artifact's evaluation runs it (run_experiment.sh: --share_max_replicas, implied by --project_throughputs; sia.py optimize_mip)"`
	WorkloadBatch  bool    `option:"workload_batch" doc:"value each configuration's goodput over total batch sizes up to the job's own (the workload's) batch size, as the Sia artifact does (job.py get_speedup_fn, target_batch_size); false: up to the application's largest batch"`
}

// DefaultOptions are the Sia paper's settings, with the two mechanisms of
// its artifact's code (DoublingCap, WorkloadBatch) on.
func DefaultOptions() Options {
	return Options{P: -0.5, LambdaN: 1.1, Clip: 3000, MaxNodes: 10_000_000, DoublingCap: true, WorkloadBatch: true}
}

// Validate checks the options.
func (o *Options) Validate() error {
	switch {
	case o.P == 0 || math.IsNaN(o.P) || math.IsInf(o.P, 0):
		return fmt.Errorf("p must be a finite non-zero number, got %v", o.P)
	case !(o.LambdaN > 0) || math.IsInf(o.LambdaN, 0):
		// 0 would value leaving a job without GPUs as much as running it.
		return fmt.Errorf("lambda_n must be a positive number, got %v", o.LambdaN)
	case !(o.Clip > 0) || math.IsInf(o.Clip, 0):
		return fmt.Errorf("clip must be positive, got %v", o.Clip)
	case o.RestartPenalty < 0 || math.IsNaN(o.RestartPenalty) || math.IsInf(o.RestartPenalty, 0):
		return errors.New("restart_penalty_s must be a non-negative number of seconds")
	case o.MaxNodes < 0:
		return fmt.Errorf("max_search_nodes must be 0 (no limit) or positive, got %d", o.MaxNodes)
	}
	return nil
}

var _ policies.Policy = (*Policy)(nil)

func init() {
	policies.Register(policies.Registration{
		Name: Name,
		Doc:  "Sia (SOSP'23): heterogeneity-aware goodput-optimised; an exact integer program over (GPU type, nodes, GPUs) per job each round",
		Defaults: func() any {
			o := DefaultOptions()
			return &o
		},
		New: func(v any, env policies.Env) (policies.Policy, error) {
			return New(*v.(*Options), env), nil
		},
	})
}
