package results

import "github.com/polluxsim/polluxsim/experiments/outputs"

// SweepRunKey is the run columns of a sweep's stored run: its ID is the
// run_id of the run's hash (outputs.SweepRunIdentity, computed when the
// sweep planned the run and stored as RunResult.Hash).
func SweepRunKey(r *RunResult) outputs.RunKey {
	return outputs.RunKey{
		ID: outputs.RunID(r.Hash), Experiment: r.Experiment, Cell: r.Cell, Workload: r.Workload, HasWorkload: true,
		WorkloadSource: r.WorkloadSource, WorkloadDigest: r.WorkloadDigest, Policy: r.Settings.Policy, PolicyName: outputs.PolicyName(r.Settings.Policy, r.PolicyName), Options: outputs.OptionsJSON(r.Settings), Seed: r.Settings.Seed,
	}
}
