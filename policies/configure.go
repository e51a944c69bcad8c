package policies

import "github.com/polluxsim/polluxsim/models"

// ConfigureWith returns the per-GPU batch m, accumulation steps s and
// total batch k·m·(s+1) a job runs at on k GPUs, as its agent picks them:
// the user's batch (request) under a non-adaptive policy; the
// application's fixed batch when positive; otherwise, before any fitted
// model (fitted false), M0 or the smallest batch the GPUs hold (one
// sample per GPU at least), and with one best's goodput-optimal
// configuration. The simulator's agents and the live
// service both configure jobs through it.
func ConfigureWith(adaptive bool, request, fixedApp int, fitted bool, lim models.Limits, k int, best func() models.Config) (m, s, batch int) {
	fixed := 0
	switch {
	case !adaptive:
		fixed = request
	case fixedApp > 0:
		fixed = fixedApp
	}
	if fixed <= 0 && !fitted {
		fixed = max(lim.InitBatch, lim.MinLocal*k, k)
	}
	if fixed > 0 {
		m, s, _ = lim.Split(k, float64(fixed))
	} else {
		c := best()
		m, s = c.Local, c.Accum
	}
	if m < 1 {
		m = 1
	}
	return m, s, k * m * (s + 1)
}

// Configure is ConfigureWith for job j on k GPUs over n nodes, its
// goodput-optimal configuration planned from its fitted θ_sys, limits and
// gradient statistics.
func (j *Job) Configure(adaptive bool, n, k int) (m, s, batch int) {
	return ConfigureWith(adaptive, j.Request.Batch, j.FixedBatch, j.Params != nil, j.Limits, k, func() models.Config {
		pl := models.NewPlanner(models.Model{Params: *j.Params, Limits: j.Limits}, max(k, 2*j.MaxSeenGPUs, 1))
		return pl.Best(j.Grad, n, k)
	})
}
