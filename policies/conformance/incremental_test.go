package conformance_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/builtin"
	"github.com/polluxsim/polluxsim/policies/conformance"
)

// Every shipped policy that decides incrementally makes Schedule's
// decisions on random overloaded scenarios: jobs of the canned scenarios'
// applications asking for 1–8 GPUs, arriving and finishing at random
// rounds, some out of submission order, on clusters of 1–6 nodes, with
// hour-long rounds so that Tiresias demotes jobs.
func TestIncrementalOnRandomScenarios(t *testing.T) {
	var apps []*conformance.App
	seen := map[*conformance.App]bool{}
	for _, sc := range conformance.Scenarios() {
		for _, j := range sc.Jobs {
			if !seen[j.App] && len(j.Types) == 0 {
				seen[j.App] = true
				apps = append(apps, j.App)
			}
		}
	}
	tested := 0
	reg := builtin.Registry()
	for _, name := range reg.Names() {
		newPolicy := func(env policies.Env) (policies.Policy, error) {
			set, err := reg.Resolve(name, "")
			if err != nil {
				return nil, err
			}
			return reg.Build(name, set, env)
		}
		p, err := newPolicy(policies.Env{Seed: conformance.Seed})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := p.(policies.Incremental); !ok {
			continue
		}
		tested++
		rng := rand.New(rand.NewPCG(uint64(len(name)), 99))
		for s := 0; s < 40; s++ {
			sc := randomScenario(rng, apps, s)
			for _, v := range conformance.Check(sc, newPolicy) {
				t.Errorf("%s: %v", name, v)
			}
		}
	}
	if tested < 3 {
		t.Errorf("only %d shipped policies decide incrementally", tested)
	}
}

// randomScenario is an overloaded scenario drawn from rng.
func randomScenario(rng *rand.Rand, apps []*conformance.App, s int) conformance.Scenario {
	nodes := 1 + rng.IntN(6)
	sc := conformance.Scenario{
		Name:     fmt.Sprintf("random-%d", s),
		Cluster:  policies.Cluster{Nodes: nodes, GPUsPerNode: 4},
		Interval: 3600,
		Rounds:   30,
	}
	for i := range 5 + rng.IntN(40) {
		app := apps[rng.IntN(len(apps))]
		gpus := min(1<<rng.IntN(4), 4*nodes)
		j := conformance.JobSpec{Name: fmt.Sprintf("%s-%d", app.Name, i), App: app, GPUs: gpus,
			Batch: gpus * app.Limits.MinLocal, Arrive: rng.IntN(20)}
		if rng.IntN(3) == 0 {
			j.Finish = j.Arrive + 1 + rng.IntN(10)
		}
		sc.Jobs = append(sc.Jobs, j)
	}
	return sc
}
