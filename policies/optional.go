package policies

// Optional interfaces: small capabilities a policy may have beyond Policy.
// The simulator and the experiment runner ask for them with a type
// assertion and never name a particular policy, as plugins declare
// extension points in the Kubernetes scheduler framework. There are four:
// StatsReporter, AppChecker and Failer (below) and Incremental
// (incremental.go).

// StatsReporter is implemented by policies that report figures about their
// own rounds: the objective value their search reached, counters worth
// keeping with a run, or both.
type StatsReporter interface {
	// PolicyStats returns what the policy reports after its latest round.
	PolicyStats() Stats
}

// Stats is what a policy reports about its own rounds (StatsReporter).
type Stats struct {
	// HasFitness says that the policy searches for an allocation each
	// round and Fitness is the objective value of the one chosen in the
	// latest round (Pollux). Comparisons of search budgets on the same
	// rounds (bench scale --quality) need it.
	HasFitness bool
	Fitness    float64
	// Counters are named counters or figures over the run so far,
	// snake_case keys (e.g. rounds an exact solver stopped short of
	// proving optimality). The simulator copies them into the run's
	// summary (summary.json "policy_stats") when the run ends.
	Counters map[string]float64
}

// AppChecker is implemented by policies whose options name applications
// (Gavel's priority weights): the simulator calls CheckApps with the
// applications of the run's profiles before it simulates, so that a
// misspelt name is an error rather than silently weighing nothing.
type AppChecker interface {
	CheckApps(known []string) error
}

// Failer is implemented by policies whose rounds can fail for reasons
// outside the policy's own logic (the remote policy, when its service
// cannot be reached or refuses a round): the simulator calls Err after
// every Schedule, and an error stops the run with it instead of a
// decision.
type Failer interface {
	Err() error
}
