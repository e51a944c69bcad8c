package experiments

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/policies/optimus"
	"github.com/polluxsim/polluxsim/policies/pollux"
	"github.com/polluxsim/polluxsim/policies/tiresias"
	"github.com/polluxsim/polluxsim/sim"
)

// RunSpec fully describes one simulation run: policy and its parameters,
// the cluster, the engine's settings and the seed. Inputs (profiles and
// workload) are passed to Run separately.
type RunSpec struct {
	Policy string `json:"policy"`
	// P is Pollux's power-mean exponent (default −1).
	P float64 `json:"p"`
	// NoInterferenceAvoidance lets Pollux put several multi-node jobs on
	// one node.
	NoInterferenceAvoidance bool `json:"no_interference_avoidance"`
	// Population and Generations size Pollux's genetic algorithm (0 =
	// the policy's default); NoLocalSearch turns off its local search.
	Population    int  `json:"population,omitempty"`
	Generations   int  `json:"generations,omitempty"`
	NoLocalSearch bool `json:"no_local_search,omitempty"`
	// FullSearch runs every generation every round: no early stop of the
	// genetic algorithm and no cap on its work.
	FullSearch   bool    `json:"full_search,omitempty"`
	Nodes        int     `json:"nodes"`
	GPUsPerNode  int     `json:"gpus_per_node"`
	Interval     float64 `json:"interval_s"`
	RestartDelay float64 `json:"restart_delay_s"`
	Interference float64 `json:"interference"`
	Step         bool    `json:"step"`
	Seed         uint64  `json:"seed"`
	// OfflinePriors seeds every job's agent with θ_sys fitted offline on
	// its application's full profile instead of learning it online (see
	// OfflineParams and sim.Config.SeedParams); adaptive policies only.
	OfflinePriors bool `json:"offline_priors,omitempty"`
}

// DefaultSpec is the reference setting for a policy: 16 × 4 GPUs, 60 s
// interval, 30 s restart delay, no interference, p = −1, seed 1.
func DefaultSpec(policy string) RunSpec {
	return RunSpec{Policy: policy, P: -1, Nodes: 16, GPUsPerNode: 4, Interval: 60, RestartDelay: 30, Seed: 1}
}

// Bounds of a RunSpec beyond which memory, not the model, is the limit
// (per-node and per-individual arrays are allocated every round).
const (
	MaxNodes       = 100000
	MaxGPUsPerNode = 1024
	MaxPopulation  = 100000
)

// Validate checks a spec's values, naming the offending setting.
func (s RunSpec) Validate() error {
	if _, ok := policyMakers[s.Policy]; !ok {
		return fmt.Errorf("unknown policy %q (known: %s)", s.Policy, strings.Join(PolicyNames(), ", "))
	}
	switch {
	case s.Nodes < 1 || s.Nodes > MaxNodes:
		return fmt.Errorf("--nodes must be in [1, %d], got %d", MaxNodes, s.Nodes)
	case s.GPUsPerNode < 1 || s.GPUsPerNode > MaxGPUsPerNode:
		return fmt.Errorf("--gpus-per-node must be in [1, %d], got %d", MaxGPUsPerNode, s.GPUsPerNode)
	case s.Population < 0 || s.Population > MaxPopulation:
		return fmt.Errorf("--population must be in [0, %d] (0 = default), got %d", MaxPopulation, s.Population)
	case s.Generations < 0:
		return fmt.Errorf("--generations must not be negative (0 = default), got %d", s.Generations)
	case !(s.Interval > 0) || math.IsInf(s.Interval, 0):
		return fmt.Errorf("--interval must be positive, got %v s", s.Interval)
	case s.Step && s.Interval != math.Trunc(s.Interval):
		return fmt.Errorf("--interval must be whole seconds with --step, got %v s", s.Interval)
	case s.RestartDelay < 0 || math.IsNaN(s.RestartDelay) || math.IsInf(s.RestartDelay, 0):
		return fmt.Errorf("--realloc-delay must be non-negative, got %v s", s.RestartDelay)
	case s.Interference < 0 || s.Interference >= 1 || math.IsNaN(s.Interference):
		return fmt.Errorf("--interference must be in [0, 1), got %v", s.Interference)
	case math.IsNaN(s.P) || math.IsInf(s.P, 0):
		return fmt.Errorf("--p must be a finite number, got %v", s.P)
	}
	return nil
}

// SimConfig is the engine configuration the spec describes.
func (s RunSpec) SimConfig() sim.Config {
	c := sim.DefaultConfig()
	c.Cluster = policies.Cluster{Nodes: s.Nodes, GPUsPerNode: s.GPUsPerNode}
	c.Interval = s.Interval
	c.RestartDelay = s.RestartDelay
	c.Interference = s.Interference
	c.Step = s.Step
	return c
}

// policyMakers builds each known policy from a spec.
var policyMakers = map[string]func(s RunSpec) policies.Policy{
	"tiresias": func(RunSpec) policies.Policy { return tiresias.New(0) },
	"optimus":  func(RunSpec) policies.Policy { return optimus.New() },
	"fifo":     func(RunSpec) policies.Policy { return fifo.New() },
	"pollux":   func(s RunSpec) policies.Policy { return pollux.New(polluxOptions(s)) },
}

// polluxOptions are the Pollux options a spec describes.
func polluxOptions(s RunSpec) pollux.Options {
	o := pollux.DefaultOptions()
	o.P = s.P
	o.RestartDelay = s.RestartDelay
	o.NoInterferenceAvoidance = s.NoInterferenceAvoidance
	o.Seed = s.Seed
	if s.Population > 0 {
		o.Population = s.Population
	}
	if s.Generations > 0 {
		o.Generations = s.Generations
	}
	o.LocalSearch = !s.NoLocalSearch
	if s.FullSearch {
		o.Stall, o.MaxRowsPerRound = 0, 0
	}
	return o
}

// PolicyNames lists the known policies.
func PolicyNames() []string {
	var names []string
	for n := range policyMakers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// NewPolicy builds the policy a spec names.
func NewPolicy(s RunSpec) (policies.Policy, error) {
	mk, ok := policyMakers[s.Policy]
	if !ok {
		return nil, fmt.Errorf("unknown policy %q (known: %s)", s.Policy, strings.Join(PolicyNames(), ", "))
	}
	return mk(s), nil
}
