package sim

import (
	"github.com/polluxsim/polluxsim/models"
)

// agent emulates the per-job PolluxAgent: it records the configurations the
// job has run with and their (noise-free) iteration times, refits θ_sys
// whenever a configuration is new, and holds the latest gradient
// statistics. Only what the agent holds is shown to policies.
//
// A refit is due when the configuration is observed and run when the
// parameters are next read (resolve), unless the engine's fit pool has run
// it ahead in the background (see fitPool): the engine runs the due refits
// of many agents at once (see engine.resolveFits), and a finished job's
// are not needed. Each agent's refits run in order, each from the previous
// one's result on the observations made until it was due, so the
// parameters are those of fitting at once.
type agent struct {
	fit     bool // whether to fit θ_sys at all (adaptive policies only)
	seeded  bool // params came from Config.SeedParams and are kept
	obs     []models.Observation
	seen    map[[3]int]bool
	params  *models.Params
	grad    models.GradStats
	maxGPUs int // largest GPU count observed
	fits    int // number of refits, for statistics (counted when due)
	// pending holds the due refits, oldest first, as the number of
	// observations each one fits.
	pending []int
	// task runs the first due refits ahead in the background (see
	// fitPool); nil when none is launched.
	task *fitTask
	// planner answers the goodput-optimal batch of the current params
	// (see best); nil until first needed.
	planner *models.Planner

	// On a cluster of several GPU types the fields above (obs, seen,
	// params) describe the type typ the job last ran on; the fits of the
	// other types are kept in other, and boot holds the one-GPU bootstrap
	// fit per type taken when the job arrived.
	typ   string
	other map[string]*typeFit
	boot  map[string]models.Params
}

// typeFit is the agent's fit on one GPU type.
type typeFit struct {
	obs    []models.Observation
	seen   map[[3]int]bool
	params *models.Params
}

// switchType makes t the type the agent fits: the current type's fit is
// put aside and t's, if any, taken up. Seeded agents keep their params.
func (a *agent) switchType(t string) error {
	if t == a.typ {
		return nil
	}
	if err := a.resolve(); err != nil {
		return err
	}
	if a.other == nil {
		a.other = map[string]*typeFit{}
	}
	if a.typ != "" || len(a.obs) > 0 {
		a.other[a.typ] = &typeFit{obs: a.obs, seen: a.seen, params: a.params}
	}
	a.typ = t
	f := a.other[t]
	delete(a.other, t)
	if f == nil {
		f = &typeFit{}
	}
	a.obs, a.seen = f.obs, f.seen
	if !a.seeded {
		a.params = f.params
	}
	return nil
}

// typeParams is the agent's θ_sys for type t: its fit from what the job ran
// there, else the bootstrap fit; false when it has neither.
func (a *agent) typeParams(t string) (models.Params, bool) {
	if t == a.typ && a.params != nil {
		return *a.params, true
	}
	if f := a.other[t]; f != nil && f.params != nil {
		return *f.params, true
	}
	p, ok := a.boot[t]
	return p, ok
}

// bootstrap fits θ_sys of type t from one-GPU step times at a few per-GPU
// batch sizes, as Sia profiles every job on one GPU of each type when it
// arrives.
func (a *agent) bootstrap(t string, obs []models.Observation) error {
	p, err := models.Fit(obs, models.FitOptions{})
	if err != nil {
		return err
	}
	if a.boot == nil {
		a.boot = map[string]models.Params{}
	}
	a.boot[t] = p
	return nil
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
	o := models.Observation{Nodes: n, GPUs: k, Local: float64(m), TIter: step, TGrad: tgrad}
	if !a.fit || a.seeded {
		a.obs = append(a.obs, o)
		return nil
	}
	if err := models.CheckObservation(len(a.obs), o); err != nil {
		return err
	}
	a.obs = append(a.obs, o)
	a.pending = append(a.pending, len(a.obs))
	a.fits++
	return nil
}

// resolve runs the agent's due refits, in order (taking first the
// results of those its task ran ahead).
func (a *agent) resolve() error {
	if t := a.task; t != nil {
		a.task = nil
		t.wait()
		if err := a.took(t.params, t.ran, t.err); err != nil {
			return err
		}
	}
	return a.took(refit(a.obs, a.pending, a.params))
}

// took installs the result of running the first ran due refits: their
// last parameters and error (see refit).
func (a *agent) took(params *models.Params, ran int, err error) error {
	a.params = params
	if ran == len(a.pending) {
		a.pending = a.pending[:0]
	} else {
		a.pending = a.pending[ran:]
	}
	return err
}

// refit runs due refits over obs in order from start: each of pending fits
// the first that many observations from the previous one's result. It
// returns the last parameters fitted (start if none), the number of refits
// run (all, or up to and including the one that failed) and the error.
func refit(obs []models.Observation, pending []int, start *models.Params) (*models.Params, int, error) {
	p := start
	for x, n := range pending {
		q, err := models.Fit(obs[:n], models.FitOptions{Start: p})
		if err != nil {
			return p, x + 1, err
		}
		p = &q
	}
	return p, len(pending), nil
}

// best is the goodput-optimal configuration of the agent's fitted model
// with limits lim on k GPUs over n nodes (models.Model.Best under its
// current gradient statistics), from a planner kept while the params and
// limits stay the same. The agent must have params.
func (a *agent) best(lim models.Limits, n, k int) models.Config {
	md := models.Model{Params: *a.params, Limits: lim}
	if a.planner == nil || a.planner.Model() != md {
		a.planner = models.NewPlanner(md, max(k, 2*a.maxGPUs, 1))
	} else if k > a.planner.MaxGPUs() {
		a.planner = a.planner.Grow(2 * k)
	}
	return a.planner.Best(a.grad, n, k)
}
