package experiments

import (
	"fmt"
	"time"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/pollux"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// SearchSetting names one configuration of Pollux's search.
type SearchSetting struct {
	Name        string
	Population  int
	Generations int
	LocalSearch bool
	// NoCap lifts the per-round work cap and the early stop of the genetic
	// algorithm.
	NoCap bool
}

// ReferenceSearch is the reference implementation's budget: population
// 100, 100 generations, no local search.
var ReferenceSearch = SearchSetting{Name: "reference", Population: 100, Generations: 100}

// LongSearch is ten times the reference budget, with local search.
var LongSearch = SearchSetting{Name: "long", Population: 100, Generations: 1000, LocalSearch: true}

// RoundQuality is the fitness each search setting reached on one round.
type RoundQuality struct {
	Time    float64
	Jobs    int
	Fitness []float64 // main setting first, then each shadow
	Seconds []float64 // wall time of each search
}

// SearchQuality runs a Pollux simulation with spec (its own search
// settings) and, every sample-th round, also runs each shadow search on the
// same round's jobs. Each shadow keeps its own population from round to
// round, as it would in a run of its own, but never decides anything: the
// simulation follows the main search. The fitness values of a round are
// therefore directly comparable.
func SearchQuality(spec RunSpec, set *profiles.Set, w *traces.Workload, shadows []SearchSetting, sample int) ([]RoundQuality, *sim.Result, error) {
	if spec.Policy != "pollux" {
		return nil, nil, fmt.Errorf("search quality needs the pollux policy, not %q", spec.Policy)
	}
	main, ok := mustPollux(spec)
	if !ok {
		return nil, nil, fmt.Errorf("internal error: pollux policy has an unexpected type")
	}
	sh := &shadowPolicy{main: main, sample: max(sample, 1)}
	for _, s := range shadows {
		o := polluxOptions(spec)
		o.Population, o.Generations, o.LocalSearch = s.Population, s.Generations, s.LocalSearch
		if s.NoCap || s == ReferenceSearch {
			o.MaxRowsPerRound, o.Stall = 0, 0
		}
		sh.shadows = append(sh.shadows, pollux.New(o))
	}
	res, err := sim.Run(spec.SimConfig(), set, w, sh)
	if err != nil {
		return nil, nil, err
	}
	return sh.rounds, res, nil
}

func mustPollux(spec RunSpec) (*pollux.Policy, bool) {
	p, err := NewPolicy(spec)
	if err != nil {
		return nil, false
	}
	pp, ok := p.(*pollux.Policy)
	return pp, ok
}

// shadowPolicy decides with main and measures the shadows on the same
// inputs.
type shadowPolicy struct {
	main    *pollux.Policy
	shadows []*pollux.Policy
	sample  int
	n       int
	rounds  []RoundQuality
}

func (s *shadowPolicy) Name() string            { return s.main.Name() }
func (s *shadowPolicy) Traits() policies.Traits { return s.main.Traits() }
func (s *shadowPolicy) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	t0 := time.Now()
	d := s.main.Schedule(now, c, jobs)
	rq := RoundQuality{Time: now, Jobs: len(jobs), Fitness: []float64{s.main.LastFitness}, Seconds: []float64{time.Since(t0).Seconds()}}
	s.n++
	if (s.n-1)%s.sample != 0 {
		return d
	}
	for _, sh := range s.shadows {
		t := time.Now()
		sh.Schedule(now, c, jobs)
		rq.Fitness = append(rq.Fitness, sh.LastFitness)
		rq.Seconds = append(rq.Seconds, time.Since(t).Seconds())
	}
	s.rounds = append(s.rounds, rq)
	return d
}
