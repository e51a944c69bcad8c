package sim

import (
	"fmt"
	"math"

	"github.com/polluxsim/polluxsim/faults"
	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// Config holds the settings of one simulation.
type Config struct {
	// Cluster is the cluster's shape (default 16 nodes × 4 GPUs).
	Cluster policies.Cluster
	// Interval is the scheduling interval in seconds (default 60).
	Interval float64
	// RestartDelay is the time in seconds a job makes no progress after any
	// change of its placement, a first start included (default 30).
	RestartDelay float64
	// RestartDelayByApp overrides RestartDelay per application.
	RestartDelayByApp map[string]float64
	// StepScale, when set, multiplies the true step and sync times of the
	// named applications (a calibration to a slower or faster cluster; see
	// profiles.ScaleStepTimes). Agents observe the scaled times.
	StepScale map[string]float64
	// Interference is the slowdown in [0, 1) of a multi-node job that
	// shares a node with another multi-node job.
	Interference float64
	// Step selects the reference simulator's fixed-interval stepping with
	// epoch crossings rounded to whole seconds, for side-by-side checks.
	Step bool
	// MaxTime stops a simulation that has not finished by then (seconds;
	// default 10^8, about three years of simulated time).
	MaxTime float64
	// MaxJobRounds stops a simulation whose work, active jobs summed over
	// scheduling rounds, passes it (default 10^9, minutes to hours of
	// wall time); CheckFeasible refuses workloads that would, up front. A
	// run decided incrementally (Incremental) counts only the jobs its rounds
	// visit: those holding GPUs and those that arrived.
	MaxJobRounds int64
	// MaxRounds stops a simulation that passes this many scheduling rounds
	// (default 2·10⁶: more than MaxTime's default holds at the default
	// 60 s interval). The engine keeps one small record per round
	// (Result.RoundStats), so this bounds its memory under a very short
	// interval; CheckFeasible refuses up front a workload whose last
	// arrival or GPU time alone needs more rounds.
	MaxRounds int64
	// SeedParams, when set, holds offline-fitted throughput parameters θ_sys
	// per application ("offline-seeded" agents, paper §5.3.2): under an
	// adaptive policy a job of such an application starts with them, before
	// it has run at all, and keeps them instead of refitting from its own
	// observations (a refit would reapply the exploration priors and throw
	// the offline knowledge away). Other applications learn online.
	SeedParams map[string]models.Params
	// Rounds selects the per-job round records (default RoundsAll).
	Rounds RoundsMode
	// RoundSink, if set, receives the round records as the run goes
	// instead of Result.Rounds, so that memory does not grow with them.
	RoundSink RoundSink
	// Elastic, if set, makes the cluster elastic: an autoscaler resizes it
	// between rounds, starting from Cluster.Nodes (see Elastic).
	Elastic *Elastic
	// ClosedLoop, if positive, submits the workload's jobs N at a time:
	// each further job the moment one finishes (see closedloop.go).
	ClosedLoop int
	// SeedSeenGPUs, per application with SeedParams, is the GPU count a
	// seeded agent reports as the most it has run on (policies.Job's
	// MaxSeenGPUs) before the job has run at all: the largest placement of
	// its offline profile. Without it a seeded job is still held to one GPU
	// at first and to twice its largest allocation after, like a job that
	// learns online (Pollux's exploration limit).
	SeedSeenGPUs map[string]int
	// FitWorkers is the number of goroutines that run the agents' refits
	// (0: GOMAXPROCS; at most 8). Results do not depend on it; a sweep
	// running several simulations at once gives each a share.
	FitWorkers int
	// FullRounds presents every active job to the policy every round even
	// when the policy could decide from what changed (see Incremental): slower
	// on an overloaded cluster, with the same results.
	FullRounds bool
	// PolicyOptions describes the policy's options in messages (the run's
	// effective options, e.g. a policies.OptionSet); no effect on results.
	PolicyOptions string
	// Failures, if set, is the fault model: nodes fail and come back, and
	// jobs on failed nodes lose the work since their last checkpoint (see
	// faults.go). Nil: no node ever fails.
	Failures *faults.Model
	// FaultSeed seeds the fault stream (the run's seed), with the
	// workload's name: every policy run on a workload with the same seed
	// sees the same faults, another workload other faults.
	FaultSeed uint64
	// Observer, if set, is called after every scheduling round with the
	// simulated time and the number of finished jobs (e.g. for progress
	// bars). It must not keep the engine busy.
	Observer func(now float64, finished, total int)
}

// DefaultConfig returns the reference setting: 16 nodes × 4 GPUs, 60 s
// interval, 30 s restart delay, no interference, exact event times.
func DefaultConfig() Config {
	return Config{
		Cluster:      policies.Cluster{Nodes: 16, GPUsPerNode: 4},
		Interval:     60,
		RestartDelay: 30,
	}
}

func (c *Config) normalise() error {
	if c.Cluster.Nodes <= 0 {
		return fmt.Errorf("cluster must have at least one node, got %d", c.Cluster.Nodes)
	}
	if c.Cluster.GPUsPerNode <= 0 {
		return fmt.Errorf("nodes must have at least one GPU, got %d", c.Cluster.GPUsPerNode)
	}
	if err := checkPools(c.Cluster); err != nil {
		return err
	}
	if err := c.checkNetwork(); err != nil {
		return err
	}
	if !(c.Interval > 0) || math.IsInf(c.Interval, 0) {
		return fmt.Errorf("scheduling interval must be positive, got %v s", c.Interval)
	}
	if c.Step && c.Interval != math.Trunc(c.Interval) {
		return fmt.Errorf("step mode needs a whole-second interval, got %v s", c.Interval)
	}
	if c.RestartDelay < 0 || math.IsNaN(c.RestartDelay) || math.IsInf(c.RestartDelay, 0) {
		return fmt.Errorf("restart delay must be non-negative, got %v s", c.RestartDelay)
	}
	for app, d := range c.RestartDelayByApp {
		if d < 0 || math.IsNaN(d) || math.IsInf(d, 0) {
			return fmt.Errorf("restart delay of %s must be non-negative, got %v s", app, d)
		}
	}
	if c.Interference < 0 || c.Interference >= 1 || math.IsNaN(c.Interference) {
		return fmt.Errorf("interference slowdown must be in [0, 1), got %v", c.Interference)
	}
	if c.FitWorkers < 0 {
		return fmt.Errorf("fit workers must not be negative, got %d", c.FitWorkers)
	}
	if c.Rounds < RoundsAll || c.Rounds > RoundsNone {
		return fmt.Errorf("unknown rounds mode %d", int(c.Rounds))
	}
	if c.Elastic != nil {
		if err := c.Elastic.Check(c.Cluster.Nodes); err != nil {
			return err
		}
	}
	if c.Failures != nil {
		if err := c.Failures.Check(); err != nil {
			return err
		}
	}
	if c.ClosedLoop < 0 {
		return fmt.Errorf("closed-loop concurrency must be non-negative, got %d", c.ClosedLoop)
	}
	if c.MaxTime == 0 {
		c.MaxTime = 1e8
	}
	if c.MaxJobRounds == 0 {
		c.MaxJobRounds = 1e9
	}
	if c.MaxJobRounds < 0 {
		return fmt.Errorf("work limit must be positive, got %d job-rounds", c.MaxJobRounds)
	}
	if c.MaxRounds == 0 {
		c.MaxRounds = DefaultMaxRounds
	}
	if c.MaxRounds < 0 {
		return fmt.Errorf("round limit must be positive, got %d rounds", c.MaxRounds)
	}
	return nil
}

// DefaultMaxRounds is Config.MaxRounds's default.
const DefaultMaxRounds = 2_000_000

func (c *Config) restartDelay(app string) float64 {
	if d, ok := c.RestartDelayByApp[app]; ok {
		return d
	}
	return c.RestartDelay
}
