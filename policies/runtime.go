package policies

import "github.com/polluxsim/polluxsim/models"

// RunTimeAlone is the time job j needs to finish from its current progress
// if it ran alone on k GPUs packed onto the fewest nodes of c's largest
// size, at the batch it runs at under a non-adaptive policy (its request,
// split as the engine splits it: Configure), without restarts: its
// remaining steps at that batch (j.Oracle) times the true step time there.
// It needs the oracle (Traits.NeedsOracle); 0 for k < 1 or without one.
// EDF's admission, ElasticFlow's throughput curve, Themis' ρ and Chronus'
// leases are read from it.
func (j *Job) RunTimeAlone(c Cluster, k int) float64 {
	if k < 1 || j.Oracle == nil {
		return 0
	}
	placement := models.PackedPlacement(k, c.MaxNodeGPUs())
	m, s, batch := j.Configure(false, len(placement), k) // as the engine configures it
	return j.Oracle.RemainingIterations(batch) * j.Oracle.IterTime(placement, float64(m), s)
}
