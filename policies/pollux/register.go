package pollux

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
)

// Name is the policy's registered name.
const Name = "pollux"

// MaxPopulation bounds the population option: per-individual arrays are
// allocated every round, so beyond it memory, not the search, is the limit.
const MaxPopulation = 100000

// MaxGenerations bounds the generations per round (and the stall counts,
// which count generations): more only grinds every round.
const MaxGenerations = 100000

var (
	_ policies.Policy        = (*Policy)(nil)
	_ policies.StatsReporter = (*Policy)(nil)
)

// RelativeCost is the registration's cost hint: a Pollux round costs about
// a hundred times a list policy's per job.
const RelativeCost = 100

// Registration is the policy's registration, for a policies.Registry
// (policies/builtin.Registrations lists it with the other built-ins).
func Registration() policies.Registration {
	return policies.Typed(policies.Registration{
		Name: Name,
		Doc:  "Pollux (OSDI'21): goodput-optimised co-adaptive allocation and batch sizes, genetic search on a power mean of speedups",
		Cost: RelativeCost,
	}, DefaultOptions, func(o Options, env policies.Env) (policies.Policy, error) {
		o.Seed, o.RestartDelay, o.Workers = env.Seed, env.RestartDelay, env.Workers
		return New(o), nil
	})
}

// Validate checks the user-settable options.
func (o *Options) Validate() error {
	switch {
	case o.Population < 1 || o.Population > MaxPopulation:
		return fmt.Errorf("population must be in [1, %d], got %d", MaxPopulation, o.Population)
	case o.Generations < 0 || o.Generations > MaxGenerations:
		return fmt.Errorf("generations must be in [0, %d], got %d", MaxGenerations, o.Generations)
	case o.QuickStall < 0 || o.QuickStall > MaxGenerations:
		return fmt.Errorf("quick_stall must be in [0, %d], got %d", MaxGenerations, o.QuickStall)
	case o.Stall < 0 || o.Stall > MaxGenerations:
		return fmt.Errorf("stall must be in [0, %d], got %d", MaxGenerations, o.Stall)
	case o.MaxRowsPerRound < 0:
		return fmt.Errorf("max_rows_per_round must not be negative, got %d", o.MaxRowsPerRound)
	case o.MaxLocalRows < 0:
		return fmt.Errorf("max_local_rows must not be negative, got %d", o.MaxLocalRows)
	case o.MaxGPUsPerJob < 0:
		return fmt.Errorf("max_gpus_per_job must not be negative, got %d", o.MaxGPUsPerJob)
	case o.MaxNodesPerJob < 1:
		return fmt.Errorf("max_nodes_per_job must be at least 1, got %d", o.MaxNodesPerJob)
	case !(o.WaitingPerGPU >= 0 && o.WaitingPerGPU <= MaxPopulation):
		return fmt.Errorf("waiting_per_gpu must be in [0, %d], got %v", MaxPopulation, o.WaitingPerGPU)
	case !(o.CrossoverProb >= 0 && o.CrossoverProb <= 1):
		return fmt.Errorf("crossover_prob must be in [0, 1], got %v", o.CrossoverProb)
	}
	return nil
}
