package sim

import (
	"github.com/polluxsim/polluxsim/models"
)

// agent emulates the per-job PolluxAgent: it records the configurations the
// job has run with and their (noise-free) iteration times, refits θ_sys
// whenever a configuration is new, and holds the latest gradient
// statistics. Only what the agent holds is shown to policies.
type agent struct {
	fit     bool // whether to fit θ_sys at all (adaptive policies only)
	seeded  bool // params came from Config.SeedParams and are kept
	obs     []models.Observation
	seen    map[[3]int]bool
	params  *models.Params
	grad    models.GradStats
	maxGPUs int // largest GPU count observed
	fits    int // number of refits, for statistics
}

// start prepares the agent of a new job of application app: fit says
// whether it fits θ_sys at all (adaptive policies only); an entry of seeds
// for app is an offline-fitted θ_sys the agent starts from and keeps, and
// seen[app] the GPUs it then counts as having run on.
func (a *agent) start(fit bool, app string, seeds map[string]models.Params, seen map[string]int) {
	a.fit = fit
	if p, ok := seeds[app]; ok && fit {
		a.params, a.seeded = &p, true
		a.maxGPUs = max(seen[app], 0)
	}
}

// observe records one configuration (n nodes, k GPUs, per-GPU batch m) with
// its measured step and sync times, and the current gradient statistics.
// A configuration is keyed by (n, k, m) as in the reference: a new key
// triggers a refit.
func (a *agent) observe(n, k, m int, step, sync float64, g models.GradStats) error {
	a.grad = g
	if k > a.maxGPUs {
		a.maxGPUs = k
	}
	key := [3]int{n, k, m}
	if a.seen == nil {
		a.seen = map[[3]int]bool{}
	}
	if a.seen[key] {
		return nil
	}
	a.seen[key] = true
	tgrad := step - sync
	if tgrad < 0 {
		tgrad = 0
	}
	a.obs = append(a.obs, models.Observation{Nodes: n, GPUs: k, Local: float64(m), TIter: step, TGrad: tgrad})
	if !a.fit || a.seeded {
		return nil
	}
	p, err := models.Fit(a.obs, models.FitOptions{Start: a.params})
	if err != nil {
		return err
	}
	a.params = &p
	a.fits++
	return nil
}
