package results

import "github.com/polluxsim/polluxsim/experiments/outputs"

// SweepRunKey is the identity of a sweep's stored run: its ID is the
// run's hash, over the same and the experiment.
func SweepRunKey(r *RunResult) outputs.RunKey {
	id := r.Hash
	if len(id) > outputs.RunIDLen {
		id = id[:outputs.RunIDLen]
	}
	return outputs.RunKey{
		ID: id, Experiment: r.Experiment, Cell: r.Cell, Workload: r.Workload, HasWorkload: true,
		WorkloadSource: r.WorkloadSource, WorkloadDigest: r.WorkloadDigest, Policy: r.Settings.Policy, Options: outputs.OptionsJSON(r.Settings), Seed: r.Settings.Seed,
	}
}
