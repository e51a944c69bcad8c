package runspec

import (
	"errors"
	"fmt"
	"io/fs"
	"math"

	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/sim"
)

// Registries are what a spec is resolved, checked and built against: the
// policies and autoscalers a binary knows. A binary's extensions
// (*extensions.Extensions) are one; Known is one made of two registries.
// runspec names no policy: every policy comes from here.
type Registries interface {
	PolicyRegistry() *policies.Registry
	AutoscalerRegistry() *autoscalers.Registry
}

// Known is Registries made of a policy and an autoscaler registry (nil:
// none known).
type Known struct {
	Policies    *policies.Registry
	Autoscalers *autoscalers.Registry
}

// PolicyRegistry implements Registries.
func (k Known) PolicyRegistry() *policies.Registry {
	if k.Policies == nil {
		return policies.MustRegistry()
	}
	return k.Policies
}

// AutoscalerRegistry implements Registries.
func (k Known) AutoscalerRegistry() *autoscalers.Registry {
	if k.Autoscalers == nil {
		return autoscalers.MustRegistry()
	}
	return k.Autoscalers
}

// RunSpec fully describes one simulation run: the policy and its
// effective options, the cluster, the engine's settings and the seed.
// Inputs (profiles and workload) are passed to Run separately.
type RunSpec struct {
	Policy string `json:"policy"`
	// Options are the policy's effective options, every one of them (see
	// policies.Resolve); the empty set stands for the defaults until
	// Resolve fills it in.
	Options      policies.OptionSet `json:"options"`
	Nodes        int                `json:"nodes"`
	GPUsPerNode  int                `json:"gpus_per_node"`
	Interval     float64            `json:"interval_s"`
	RestartDelay float64            `json:"restart_delay_s"`
	Interference float64            `json:"interference"`
	Step         bool               `json:"step"`
	Seed         uint64             `json:"seed"`
	// OfflinePriors seeds every job's agent with θ_sys fitted offline on
	// its application's full profile instead of learning it online (see
	// OfflineParams and sim.Config.SeedParams); adaptive policies only.
	OfflinePriors bool `json:"offline_priors,omitempty"`
	// Rounds selects the per-job round records: "all" (also when empty),
	// "changes" or "none" (see sim.RoundsMode).
	Rounds string `json:"rounds,omitempty"`
	// Elastic cluster (paper §5.4.1; see ElasticSpec and sim.Elastic):
	// Autoscaler names an autoscaler (`polluxsim autoscalers`), which
	// resizes the cluster from Nodes within [MinNodes, MaxNodes].
	ElasticSpec
	// ClosedLoop, when positive, submits the workload's jobs that many at
	// a time, each further one when a job finishes (paper §5.4.2).
	ClosedLoop int `json:"closed_loop,omitempty"`
	// Cluster, when set, gives the cluster as node pools in ParseCluster's
	// syntax (e.g. "t4:6x4,a100:2x8"); Nodes and GPUsPerNode are then its
	// total nodes and largest node. Empty: Nodes × GPUsPerNode T4 GPUs.
	Cluster string `json:"cluster,omitempty"`
	// OfflinePriorsScaleOut, with OfflinePriors, also lets a seeded job
	// count as having run on its offline profile's largest placement, so
	// that Pollux may scale it out from its first round instead of
	// starting it on one GPU and at most doubling it per round (see
	// sim.Config.SeedSeenGPUs).
	OfflinePriorsScaleOut bool `json:"offline_priors_scale_out,omitempty"`
	// Calibration names a calibration of the simulated cluster to a
	// physical one (see Calibrations), "" for none: the measured tables as
	// they are, one restart delay for all.
	Calibration string `json:"calibration,omitempty"`
	// Failures is the fault model in faults.Parse's syntax: a preset
	// (llama3, rsc1), a fault log, or key=value settings; "" or "none"
	// for none (see docs/failures.md). Faults are drawn from Seed.
	Failures string `json:"failures,omitempty"`
	// FaultFiles holds the fault logs Failures names when they are not
	// the operating system's files relative to the working directory: an
	// experiment's cell reads them relative to its spec (an embedded
	// experiment, from the binary). Not a setting (their content is part
	// of a run's identity through FaultLog, not their place).
	FaultFiles fs.FS `json:"-"`
	// pinned is the fault model read once for Failures (PinFaults).
	pinned pinnedFaults
}

// DefaultSpec is the reference setting for a policy: its default options
// (the empty set, which WithOptions makes the policy's full set), 16 × 4
// GPUs, 60 s interval, 30 s restart delay, no interference, seed 1.
func DefaultSpec(policy string) RunSpec {
	return RunSpec{Policy: policy, Nodes: 16, GPUsPerNode: 4, Interval: 60, RestartDelay: 30, Seed: 1}
}

// WithOptions returns s with option layers (JSON objects or "key=value"
// lists, see policies.Registry.Resolve) applied on top of its options,
// which it makes canonical (every option, defaults included; with no
// layers, that is all it does), against the policies of reg.
func (s RunSpec) WithOptions(reg Registries, layers ...any) (RunSpec, error) {
	opts, err := reg.PolicyRegistry().Resolve(s.Policy, s.Options, layers...)
	if err != nil {
		return s, err
	}
	s.Options = opts
	return s, nil
}

// Bounds of a RunSpec beyond which memory, not the model, is the limit
// (per-node arrays are allocated every round).
const (
	MaxNodes       = 100000
	MaxGPUsPerNode = 1024
)

// MaxSeconds bounds the durations of a run's settings (the round
// interval, the re-allocation and provisioning delays): a longer one would
// leave the run grinding to the simulation's time limit. MaxPrice bounds
// prices (per GPU-hour or node-hour), so that costs stay finite.
const (
	MaxSeconds = 1e6
	MaxPrice   = 1e9
)

// Validate checks a spec's values, naming the offending setting: the
// policy and its options, and the autoscaler and its options (against
// reg), then ValidateSettings.
func (s RunSpec) Validate(reg Registries) error {
	if _, err := reg.PolicyRegistry().Resolve(s.Policy, s.Options); err != nil {
		return err
	}
	if s.Autoscaler != "" {
		if _, err := reg.AutoscalerRegistry().Resolve(s.Autoscaler, s.AutoscalerOptions); err != nil {
			return err
		}
	}
	return s.ValidateSettings()
}

// ValidateSettings checks every value of the spec but the policy, the
// autoscaler and their options (which only their registrations can
// check): what a stored run of a policy this binary does not know can
// still be checked for.
func (s RunSpec) ValidateSettings() error {
	switch {
	case s.Nodes < 1 || s.Nodes > MaxNodes:
		return fmt.Errorf("--nodes must be in [1, %d], got %d", MaxNodes, s.Nodes)
	case s.GPUsPerNode < 1 || s.GPUsPerNode > MaxGPUsPerNode:
		return fmt.Errorf("--gpus-per-node must be in [1, %d], got %d", MaxGPUsPerNode, s.GPUsPerNode)
	case !(s.Interval > 0) || s.Interval > MaxSeconds:
		return fmt.Errorf("--interval must be in (0, %g] s, got %v s", MaxSeconds, s.Interval)
	case s.Step && s.Interval != math.Trunc(s.Interval):
		return fmt.Errorf("--interval must be whole seconds with --step, got %v s", s.Interval)
	case !(s.RestartDelay >= 0) || s.RestartDelay > MaxSeconds:
		return fmt.Errorf("--realloc-delay must be in [0, %g] s, got %v s", MaxSeconds, s.RestartDelay)
	case s.Interference < 0 || s.Interference >= 1 || math.IsNaN(s.Interference):
		return fmt.Errorf("--interference must be in [0, 1), got %v", s.Interference)
	case s.ClosedLoop < 0:
		return fmt.Errorf("--closed-loop must be non-negative, got %d", s.ClosedLoop)
	}
	if s.OfflinePriorsScaleOut && !s.OfflinePriors {
		return errors.New("offline_priors_scale_out needs offline_priors")
	}
	if _, err := LookupCalibration(s.Calibration); err != nil {
		return err
	}
	if err := s.checkFailures(); err != nil {
		return err
	}
	if s.Cluster != "" {
		if err := s.checkClusterFields(); err != nil {
			return err
		}
		if s.Autoscaler != "" {
			return errors.New("--cluster (node pools) and --autoscaler cannot be combined: elastic clusters are homogeneous")
		}
	}
	if err := s.ElasticSpec.validate(s.Nodes); err != nil {
		return err
	}
	if _, err := s.RoundsMode(); err != nil {
		return err
	}
	return nil
}

// RoundsMode is the spec's rounds mode ("" is all).
func (s RunSpec) RoundsMode() (sim.RoundsMode, error) {
	if s.Rounds == "" {
		return sim.RoundsAll, nil
	}
	m, err := sim.ParseRoundsMode(s.Rounds)
	if err != nil {
		return 0, fmt.Errorf("--rounds must be all, changes or none, got %q", s.Rounds)
	}
	return m, nil
}

// SimConfig is the engine configuration the spec describes, but for an
// elastic cluster's autoscaler (which EngineConfig builds).
func (s RunSpec) SimConfig() sim.Config {
	c := sim.DefaultConfig()
	c.Cluster = s.ClusterOf()
	c.Interval = s.Interval
	c.RestartDelay = s.RestartDelay
	c.Interference = s.Interference
	c.Step = s.Step
	c.Rounds, _ = s.RoundsMode()
	c.Elastic = s.ElasticSpec.config(s.Nodes)
	c.ClosedLoop = s.ClosedLoop
	c.PolicyOptions = string(s.Options) // named if the policy stalls
	if cal, err := LookupCalibration(s.Calibration); err == nil {
		c.StepScale, c.RestartDelayByApp = cal.StepScale, cal.RestartDelay
	}
	if m, err := s.FaultModel(); err == nil && m != nil {
		c.Failures, c.FaultSeed = m, s.Seed
	}
	return c
}

// Env is the environment the spec gives its policy: the seed and the
// engine's restart delays (the calibration's per application); workers is
// the policy's goroutine budget (0: its default).
func (s RunSpec) Env(workers int) policies.Env {
	env := policies.Env{Seed: s.Seed, RestartDelay: s.RestartDelay, Workers: workers}
	if cal, err := LookupCalibration(s.Calibration); err == nil {
		env.RestartDelayByApp = cal.RestartDelay
	}
	return env
}

// EngineConfig is SimConfig with an elastic cluster's autoscaler built
// from reg.
func (s RunSpec) EngineConfig(reg Registries) (sim.Config, error) {
	c := s.SimConfig()
	if c.Elastic != nil {
		a, err := reg.AutoscalerRegistry().Build(s.Autoscaler, s.AutoscalerOptions)
		if err != nil {
			return c, err
		}
		c.Elastic.Autoscaler = a
	}
	return c, nil
}

// NewPolicy builds the policy a spec names, with its options, from reg.
func NewPolicy(reg Registries, s RunSpec) (policies.Policy, error) {
	return reg.PolicyRegistry().Build(s.Policy, s.Options, s.Env(0))
}
