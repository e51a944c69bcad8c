package bench

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// SearchSetting names one budget of a searching policy's search (Pollux's
// genetic algorithm). It is applied as option overrides, so it works for
// any registered policy with these options that reports its fitness.
type SearchSetting struct {
	Name        string
	Population  int
	Generations int
	LocalSearch bool
	// NoCap lifts the per-round work caps (of the genetic algorithm and
	// the local search) and the genetic algorithm's early stop.
	NoCap bool
}

// ReferenceSearch is the reference implementation's budget: population
// 100, 100 generations, no local search, no early stop.
var ReferenceSearch = SearchSetting{Name: "reference", Population: 100, Generations: 100, NoCap: true}

// LongSearch is ten times the reference budget, with local search.
var LongSearch = SearchSetting{Name: "long", Population: 100, Generations: 1000, LocalSearch: true}

// options is the setting as a layer of option overrides.
func (s SearchSetting) options() json.RawMessage {
	// A shadow searches in full every round it is given.
	m := map[string]any{"population": s.Population, "generations": s.Generations, "local_search": s.LocalSearch,
		"skip_unchanged": false, "quick_stall": 0}
	if s.NoCap {
		m["stall"], m["max_rows_per_round"], m["max_local_rows"] = 0, 0, 0
	}
	data, _ := json.Marshal(m)
	return data
}

// RoundQuality is the fitness each search setting reached on one round.
type RoundQuality struct {
	Time    float64
	Jobs    int
	Fitness []float64 // main setting first, then each shadow
	Seconds []float64 // wall time of each search
}

// searcher is a policy that reports the fitness its search reached
// (policies.Stats.HasFitness).
type searcher interface {
	policies.Policy
	policies.StatsReporter
}

// SearchQuality runs a simulation with spec (its own search settings) and,
// every sample-th round, also runs each shadow search on the same round's
// jobs. The policy must report its fitness (policies.Stats.Fitness) and
// have the options a SearchSetting sets. Each shadow keeps its own state
// from round to round, as it would in a run of its own, but never decides
// anything: the simulation follows the main search. The fitness values of a
// round are therefore directly comparable.
func SearchQuality(reg runspec.Registries, spec runspec.RunSpec, set *profiles.Set, w *traces.Workload, shadows []SearchSetting, sample int) ([]RoundQuality, *sim.Result, error) {
	main, err := newSearcher(reg, spec)
	if err != nil {
		return nil, nil, err
	}
	sh := &shadowPolicy{main: main, sample: max(sample, 1)}
	for _, s := range shadows {
		ss, err := spec.WithOptions(reg, s.options())
		if err != nil {
			return nil, nil, fmt.Errorf("search setting %s: %w", s.Name, err)
		}
		p, err := newSearcher(reg, ss)
		if err != nil {
			return nil, nil, err
		}
		sh.shadows = append(sh.shadows, p)
	}
	res, err := sim.Run(spec.SimConfig(), set, w, sh)
	if err != nil {
		return nil, nil, err
	}
	return sh.rounds, res, nil
}

func newSearcher(reg runspec.Registries, spec runspec.RunSpec) (searcher, error) {
	p, err := runspec.NewPolicy(reg, spec)
	if err != nil {
		return nil, err
	}
	s, ok := p.(searcher)
	if !ok || !s.PolicyStats().HasFitness {
		return nil, fmt.Errorf("search quality needs a policy that reports its search fitness; %s does not", spec.Policy)
	}
	return s, nil
}

// shadowPolicy decides with main and measures the shadows on the same
// inputs.
type shadowPolicy struct {
	main    searcher
	shadows []searcher
	sample  int
	n       int
	rounds  []RoundQuality
}

func (s *shadowPolicy) Name() string            { return s.main.Name() }
func (s *shadowPolicy) Traits() policies.Traits { return s.main.Traits() }
func (s *shadowPolicy) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	t0 := time.Now()
	d := s.main.Schedule(now, c, jobs)
	rq := RoundQuality{Time: now, Jobs: len(jobs), Fitness: []float64{s.main.PolicyStats().Fitness}, Seconds: []float64{time.Since(t0).Seconds()}}
	s.n++
	if (s.n-1)%s.sample != 0 {
		return d
	}
	for _, sh := range s.shadows {
		t := time.Now()
		sh.Schedule(now, c, jobs)
		rq.Fitness = append(rq.Fitness, sh.PolicyStats().Fitness)
		rq.Seconds = append(rq.Seconds, time.Since(t).Seconds())
	}
	s.rounds = append(s.rounds, rq)
	return d
}
