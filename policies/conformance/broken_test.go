package conformance_test

import (
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/conformance"
	"github.com/polluxsim/polluxsim/policies/fifo"
)

// Deliberately broken policies. Each breaks one rule of the contract and
// must be caught by that rule alone; most start from FIFO, which is
// correct.

// userGPUs names a broken policy that runs jobs on their request.
type userGPUs struct{}

func (userGPUs) Name() string            { return "broken" }
func (userGPUs) Traits() policies.Traits { return policies.Traits{UserGPUs: true} }

// oneEach claims to run jobs on their request but gives each one GPU.
type oneEach struct{ userGPUs }

func (oneEach) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	free := policies.FreeGPUs(c, nil)
	for i := range jobs {
		d.Alloc[i] = policies.PlaceJob(c, free, 1, &jobs[i])
	}
	return d
}

// twoEach chooses GPU counts itself (no UserGPUs) and gives every job two
// GPUs while they last, whatever its caps.
type twoEach struct{ oneEach }

func (twoEach) Traits() policies.Traits { return policies.Traits{} }
func (twoEach) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	free := policies.FreeGPUs(c, nil)
	for i := range jobs {
		d.Alloc[i] = policies.PlaceJob(c, free, 2, &jobs[i])
	}
	return d
}

// typeBlind runs jobs on their request, placed on the nodes with the most
// free GPUs whatever their GPU type.
type typeBlind struct{ userGPUs }

func (typeBlind) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	free := policies.FreeGPUs(c, nil)
	for i := range jobs {
		d.Alloc[i] = policies.PlaceMostFree(free, jobs[i].Request.GPUs)
	}
	return d
}

// mutator is FIFO that then modifies its input with edit.
type mutator struct {
	policies.Policy
	edit func(jobs []policies.Job)
}

func (m mutator) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := m.Policy.Schedule(now, c, jobs)
	m.edit(jobs)
	return d
}

// shuffled runs jobs on their request in an order drawn from its seed.
type shuffled struct {
	userGPUs
	rng *rand.Rand
}

func (s *shuffled) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	free := policies.FreeGPUs(c, nil)
	for _, i := range s.rng.Perm(len(jobs)) {
		d.Alloc[i] = policies.PlaceJob(c, free, jobs[i].Request.GPUs, &jobs[i])
	}
	return d
}

// reshaped is FIFO with its decision then edited.
type reshaped struct {
	policies.Policy
	edit func(c policies.Cluster, d *policies.Decision)
}

func (r reshaped) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := r.Policy.Schedule(now, c, jobs)
	r.edit(c, &d)
	return d
}

// noJobsPanic is FIFO that panics when no job is active.
type noJobsPanic struct{ policies.Policy }

func (p noJobsPanic) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	if len(jobs) == 0 {
		panic("no jobs")
	}
	return p.Policy.Schedule(now, c, jobs)
}

// fickle is FIFO whose traits change after the first call.
type fickle struct {
	policies.Policy
	calls int
}

func (f *fickle) Traits() policies.Traits {
	f.calls++
	return policies.Traits{UserGPUs: f.calls == 1}
}

// forgetful is FIFO whose ScheduleIncremental starts jobs in its first round
// only.
type forgetful struct {
	*fifo.Policy
	rounds int
}

func (f *forgetful) ScheduleIncremental(now float64, c policies.Cluster, r policies.IncrementalRound) []policies.Change {
	f.rounds++
	ch := f.Policy.ScheduleIncremental(now, c, r)
	if f.rounds > 1 {
		return nil
	}
	return ch
}

func stateless(p policies.Policy) conformance.Factory {
	return func(policies.Env) (policies.Policy, error) { return p, nil }
}

func TestBrokenPoliciesAreCaught(t *testing.T) {
	var instances uint64
	for _, tc := range []struct {
		name string
		new  conformance.Factory
		want conformance.Rule
	}{
		{"over capacity", stateless(conformance.OverCapacity{PolicyName: "broken-over-capacity"}), conformance.RuleCapacity},
		{"ignores the request", stateless(oneEach{}), conformance.RuleUserGPUs},
		{"ignores the caps", stateless(twoEach{}), conformance.RuleCap},
		{"sorts its input", stateless(mutator{Policy: fifo.New(), edit: func(jobs []policies.Job) {
			sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Submit > jobs[b].Submit })
		}}), conformance.RuleMutation},
		{"edits an allocation", stateless(mutator{Policy: fifo.New(), edit: func(jobs []policies.Job) {
			for i := range jobs {
				if jobs[i].Alloc != nil {
					jobs[i].Alloc[0]++
				}
			}
		}}), conformance.RuleMutation},
		{"edits fitted parameters", stateless(mutator{Policy: fifo.New(), edit: func(jobs []policies.Job) {
			for i := range jobs {
				if jobs[i].Params != nil {
					jobs[i].Params.Gamma += 1
				}
			}
		}}), conformance.RuleMutation},
		{"ignores its seed", func(policies.Env) (policies.Policy, error) {
			instances++ // as if seeded from the clock
			return &shuffled{rng: rand.New(rand.NewPCG(instances, 0))}, nil
		}, conformance.RuleDeterminism},
		{"depends on its workers", func(env policies.Env) (policies.Policy, error) {
			return &shuffled{rng: rand.New(rand.NewPCG(env.Seed, uint64(env.Workers)))}, nil
		}, conformance.RuleDeterminism},
		{"drops a job", stateless(reshaped{Policy: fifo.New(), edit: func(_ policies.Cluster, d *policies.Decision) {
			if len(d.Alloc) > 0 {
				d.Alloc = d.Alloc[1:]
			}
		}}), conformance.RuleShape},
		{"allocates on a node that does not exist", stateless(reshaped{Policy: fifo.New(), edit: func(c policies.Cluster, d *policies.Decision) {
			for i := range d.Alloc {
				if d.Alloc[i] != nil {
					d.Alloc[i] = append(d.Alloc[i], 0)
				}
			}
		}}), conformance.RuleShape},
		{"negative GPUs", stateless(reshaped{Policy: fifo.New(), edit: func(c policies.Cluster, d *policies.Decision) {
			if len(d.Alloc) > 0 {
				d.Alloc[0] = make([]int, c.Nodes)
				d.Alloc[0][c.Nodes-1] = -1
			}
		}}), conformance.RuleShape},
		{"ignores GPU types", stateless(typeBlind{}), conformance.RuleOneType},
		{"panics without jobs", stateless(noJobsPanic{fifo.New()}), conformance.RulePanic},
		{"changes its traits", func(policies.Env) (policies.Policy, error) { return &fickle{Policy: fifo.New()}, nil }, conformance.RuleTraits},
		{"decides otherwise incrementally", func(policies.Env) (policies.Policy, error) { return &forgetful{Policy: fifo.New()}, nil }, conformance.RuleIncremental},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var found []*conformance.Violation
			for _, sc := range conformance.Scenarios() {
				found = append(found, conformance.Check(sc, tc.new)...)
			}
			if len(found) == 0 {
				t.Fatal("not caught")
			}
			for _, v := range found {
				if v.Rule != tc.want {
					t.Errorf("caught by rule %s, want only %s: %v", v.Rule, tc.want, v)
				}
			}
			t.Log(found[0])
		})
	}
}

// TestBrokenRegisteredPolicy: a broken policy registered by name is caught
// through a registry, and the report names policy, scenario and round.
func TestBrokenRegisteredPolicy(t *testing.T) {
	reg := policies.NewRegistry()
	if err := reg.Register(policies.Registration{
		Name: "broken-over-capacity",
		Doc:  "a test policy that ignores node capacity",
		New: func(any, policies.Env) (policies.Policy, error) {
			return conformance.OverCapacity{PolicyName: "broken-over-capacity"}, nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	found, err := conformance.CheckRegistered(reg, "broken-over-capacity")
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		t.Fatal("not caught")
	}
	scenarios := map[string]bool{}
	for _, v := range found {
		scenarios[v.Scenario] = true
		msg := v.Error()
		for _, part := range []string{"broken-over-capacity", v.Scenario, "round", "capacity: node 0 holds"} {
			if !strings.Contains(msg, part) {
				t.Errorf("report %q does not name %q", msg, part)
			}
		}
	}
	// Every scenario has a round where the requests exceed one node.
	for _, sc := range conformance.Scenarios() {
		if !scenarios[sc.Name] {
			t.Errorf("not caught in scenario %s", sc.Name)
		}
	}
}
