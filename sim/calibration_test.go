package sim_test

import (
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/builtin"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// siaLayout returns the embedded profiles arranged as the Sia artifact's
// folders load: each application's T4 tables are the application itself
// and also its ByType entry for T4, beside its other types.
func siaLayout() *profiles.Set {
	set := profiles.Default()
	out := &profiles.Set{Source: set.Source, Apps: map[string]*profiles.App{}}
	for name, app := range set.Apps {
		c := *app
		c.ByType = map[string]*profiles.App{profiles.T4: &c}
		for t, b := range app.ByType {
			c.ByType[t] = b
		}
		out.Apps[name] = &c
	}
	return out
}

// A calibration slows every policy's job down on an untyped cluster and on
// typed ones (the T4 pool of the same shape, an A100 pool), whichever way
// the profiles hold their T4 tables: the step-time factor reaches the
// tables the engine reads on each type.
func TestCalibrationReachesEveryTypeUnderEveryPolicy(t *testing.T) {
	clusters := map[string]policies.Cluster{
		"untyped":  sim.DefaultConfig().Cluster,
		"t4:16x4":  policies.NewCluster(policies.Pool{Type: profiles.T4, Nodes: 16, GPUsPerNode: 4}),
		"a100:2x8": policies.NewCluster(policies.Pool{Type: "a100", Nodes: 2, GPUsPerNode: 8}),
		"t4+a100":  policies.NewCluster(policies.Pool{Type: profiles.T4, Nodes: 2, GPUsPerNode: 4}, policies.Pool{Type: "a100", Nodes: 1, GPUsPerNode: 8}),
	}
	w := &traces.Workload{Source: "test", Jobs: []traces.Job{{Name: "j0", App: "cifar10", Replicas: 1, Batch: 128}}}
	const factor = 1.8
	for _, name := range builtin.Registry().Names() {
		for cname, cl := range clusters {
			jct := func(set *profiles.Set, scale map[string]float64) float64 {
				t.Helper()
				p, err := builtin.Registry().Build(name, "", policies.Env{Seed: 1, RestartDelay: 30})
				if err != nil {
					t.Fatal(err)
				}
				cfg := sim.DefaultConfig()
				cfg.Cluster, cfg.StepScale, cfg.Rounds = cl, scale, sim.RoundsNone
				res, err := sim.Run(cfg, set, w, p)
				if err != nil {
					t.Fatalf("%s on %s: %v", name, cname, err)
				}
				return res.Jobs[0].JCT
			}
			scale := map[string]float64{"cifar10": factor}
			plain, slow := jct(profiles.Default(), nil), jct(profiles.Default(), scale)
			// Adaptive policies answer a slower job with more GPUs, and the
			// waits for the first round and the restart are not scaled: the
			// JCT grows by less than the factor, but it grows.
			if r := slow / plain; !(r > 1.1 && r <= factor*(1+1e-9)) {
				t.Errorf("%s on %s: JCT %.0f s calibrated, %.0f s not (ratio %.3f)", name, cname, slow, plain, r)
			}
			// The same tables held the Sia artifact's way give the same runs.
			if p2, s2 := jct(siaLayout(), nil), jct(siaLayout(), scale); p2 != plain || s2 != slow {
				t.Errorf("%s on %s, Sia layout: JCT %.0f s calibrated, %.0f s not; want %.0f and %.0f as embedded", name, cname, s2, p2, slow, plain)
			}
		}
	}
}
