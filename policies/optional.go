package policies

// Optional interfaces: small capabilities a policy may have beyond Policy.
// The simulator and the experiment runner ask for them with a type
// assertion and never name a particular policy, as plugins declare
// extension points in the Kubernetes scheduler framework.

// FitnessReporter is implemented by policies that search for an allocation
// each round and can report the objective value they reached (used to
// compare search budgets on the same rounds).
type FitnessReporter interface {
	// LastFitness is the objective value of the allocation chosen in the
	// last round.
	LastFitness() float64
}

// StatsReporter is implemented by policies that count something about
// their own rounds worth reporting with a run (e.g. rounds an exact solver
// stopped short of proving optimality). The simulator copies the stats
// into the run's summary (summary.json "policy_stats") when it ends.
type StatsReporter interface {
	// PolicyStats returns named counters or figures; keys are
	// snake_case.
	PolicyStats() map[string]float64
}

// Coster is implemented by policies whose rounds cost much more than a
// scan of the job list.
type Coster interface {
	// RelativeCost estimates the cost of one round per active job relative
	// to a list policy (1), for ordering work: sweeps start expensive runs
	// first.
	RelativeCost() float64
}

// RelativeCost returns p's relative cost per job and round (1 unless p is a
// Coster).
func RelativeCost(p Policy) float64 {
	if c, ok := p.(Coster); ok {
		return c.RelativeCost()
	}
	return 1
}

// AppChecker is implemented by policies whose options name applications
// (Gavel's priority weights): the simulator calls CheckApps with the
// applications of the run's profiles before it simulates, so that a
// misspelt name is an error rather than silently weighing nothing.
type AppChecker interface {
	CheckApps(known []string) error
}
